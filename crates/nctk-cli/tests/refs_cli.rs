//! `nctk refs IN -o OUT`: kerchunk references of a classic file made by
//! `nctk gen` from CDL; each record's reference points at the bytes of
//! the values the CDL gives (big-endian), and a missing input fails
//! naming itself and writes nothing.

mod common;

use common::{nctk, nctk_ok};
use serde_json::Value;

const CDL: &str = "netcdf r {
dimensions:
    t = UNLIMITED ;
    x = 3 ;
variables:
    short a(t, x) ;
        a:units = \"m\" ;
    int b(t) ;
data:
    a = 1, 2, 3, 4, 5, 6 ;
    b = 7, 8 ;
}
";

#[test]
fn each_record_points_at_its_values() {
    let dir = tempfile::tempdir().unwrap();
    let cdl = dir.path().join("r.cdl");
    let nc = dir.path().join("r.nc");
    let out = dir.path().join("r.json");
    std::fs::write(&cdl, CDL).unwrap();
    nctk_ok(&["gen", "-o", nc.to_str().unwrap(), cdl.to_str().unwrap()]);
    nctk_ok(&["refs", nc.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    let doc: Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(doc["version"], 1);
    let refs = &doc["refs"];
    let file = std::fs::read(&nc).unwrap();
    let bytes = |key: &str| -> Vec<u8> {
        let r = refs[key]
            .as_array()
            .unwrap_or_else(|| panic!("{key}: {refs}"));
        assert_eq!(r[0], nc.to_str().unwrap());
        let (at, len) = (
            r[1].as_u64().unwrap() as usize,
            r[2].as_u64().unwrap() as usize,
        );
        file[at..at + len].to_vec()
    };
    let shorts = |v: &[i16]| v.iter().flat_map(|x| x.to_be_bytes()).collect::<Vec<u8>>();
    assert_eq!(bytes("a/0.0"), shorts(&[1, 2, 3]));
    assert_eq!(bytes("a/1.0"), shorts(&[4, 5, 6]));
    assert_eq!(bytes("b/1"), 8i32.to_be_bytes());
    let zarray: Value = serde_json::from_str(refs["a/.zarray"].as_str().unwrap()).unwrap();
    assert_eq!(zarray["dtype"], ">i2");
    assert_eq!(zarray["chunks"], serde_json::json!([1, 3]));
    assert_eq!(zarray["shape"], serde_json::json!([2, 3]));
    let zattrs: Value = serde_json::from_str(refs["a/.zattrs"].as_str().unwrap()).unwrap();
    assert_eq!(zattrs["_ARRAY_DIMENSIONS"], serde_json::json!(["t", "x"]));
    assert_eq!(zattrs["units"], "m");
}

#[test]
fn a_missing_input_fails_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nothing.nc");
    let out = dir.path().join("o.json");
    let run = nctk(&[
        "refs",
        missing.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(!run.status.success());
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(err.contains("nothing.nc"), "{err}");
    assert!(!out.exists());
}
