//! `.zattrs` holding bytes that are not UTF-8 (Latin-1 written by some
//! tool), read as netCDF-C 4.9.0 reads them (skipped when `ncdump` is
//! absent): inside a string value the bytes go into the `char` attribute
//! unchanged; in an attribute's name the store is refused.

use std::path::Path;
use std::process::Command;

use nctk_cdl::print::{dump, Options};
use nctk_test_support::require;

/// A Zarr v2 group `DIR/NAME.zarr` whose `.zattrs` is `zattrs`, and its URL.
fn group(dir: &Path, name: &str, zattrs: &[u8]) -> String {
    let root = dir.join(format!("{name}.zarr"));
    std::fs::create_dir(&root).unwrap();
    std::fs::write(root.join(".zgroup"), br#"{"zarr_format": 2}"#).unwrap();
    std::fs::write(root.join(".zattrs"), zattrs).unwrap();
    format!("file://{}#mode=zarr,file", root.display())
}

fn nctk_dump(url: &str, name: &str) -> Result<Vec<u8>, String> {
    let ds = nctk::open(url).map_err(|e| e.to_string())?;
    let mut out = vec![];
    dump(ds.source(), name, &Options::default(), &mut out).map_err(|e| e.to_string())?;
    Ok(out)
}

#[test]
fn latin1_in_zattrs_reads_as_netcdf_c_reads_it() {
    if !require::tools(&["ncdump"]) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    // Values: Latin-1 bytes, a lone UTF-8 lead byte, valid UTF-8 beside them.
    let url = group(
        tmp.path(),
        "values",
        b"{\"t\": \"caf\xe9\", \"u\": \"\xc3\", \"v\": \"\xb5m \xc3\xa9\"}",
    );
    let theirs = Command::new("ncdump").arg(&url).output().unwrap();
    assert!(theirs.status.success(), "{theirs:?}");
    let ours = nctk_dump(&url, "values").unwrap();
    assert_eq!(
        String::from_utf8_lossy(&ours),
        String::from_utf8_lossy(&theirs.stdout)
    );
    assert_eq!(ours, theirs.stdout);
    // A name: netCDF-C refuses it ("Name contains illegal characters").
    let url = group(tmp.path(), "name", b"{\"t\xe9\": \"x\"}");
    let theirs = Command::new("ncdump").arg(&url).output().unwrap();
    assert!(!theirs.status.success());
    let e = nctk_dump(&url, "name").unwrap_err();
    assert!(
        e.contains(".zattrs") && e.contains("not valid UTF-8"),
        "{e}"
    );
}

/// The attribute texts of a `.zattrs` object: name and raw bytes of each
/// string value, in file order (the bytes need not be UTF-8).
fn zattrs_texts(path: &Path) -> Vec<Vec<u8>> {
    let bytes = std::fs::read(path).unwrap();
    // Every `"...": "..."` pair's value; netCDF-C and nctk write no escapes
    // in these values.
    bytes
        .split(|&b| b == b'"')
        .skip(1)
        .step_by(2)
        .map(<[u8]>::to_vec)
        .collect()
}

#[test]
fn latin1_char_attributes_are_written_as_nccopy_writes_them() {
    if !require::tools(&["ncdump", "nccopy", "ncgen"]) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let cdl = tmp.path().join("l.cdl");
    std::fs::write(
        &cdl,
        b"netcdf l {\ndimensions: x = 1 ;\nvariables: int v(x) ; v:u = \"\xb5m\" ;\n:t = \"caf\xe9 \xc3\xa9\" ;\ndata: v = 1 ;\n}\n",
    )
    .unwrap();
    let nc = tmp.path().join("l.nc");
    let ok = Command::new("ncgen")
        .arg("-o")
        .arg(&nc)
        .arg(&cdl)
        .status()
        .unwrap();
    assert!(ok.success());
    let theirs = tmp.path().join("theirs.zarr");
    let ours = tmp.path().join("ours.zarr");
    let url = |p: &Path| format!("file://{}#mode=nczarr,file", p.display());
    let st = Command::new("nccopy")
        .arg(&nc)
        .arg(url(&theirs))
        .status()
        .unwrap();
    assert!(st.success());
    let st = Command::new(env!("CARGO_BIN_EXE_nctk"))
        .args(["copy", "-k", "nc4"])
        .arg(&nc)
        // netCDF-C 4.9.0's layout, so that its ncdump reads the store.
        .arg(format!("{},nczarr490", url(&ours)))
        .status()
        .unwrap();
    assert!(st.success());
    // The non-UTF-8 bytes reach the store unchanged, as nccopy writes them.
    for key in [".zattrs", "v/.zattrs"] {
        let texts = |root: &Path| -> Vec<Vec<u8>> {
            zattrs_texts(&root.join(key))
                .into_iter()
                .filter(|t| std::str::from_utf8(t).is_err())
                .collect()
        };
        assert_eq!(texts(&ours), texts(&theirs), "{key}");
        assert!(!texts(&ours).is_empty(), "{key}");
    }
    // ncdump reads both stores to the same text, and nctk reads its own.
    let dump = |p: &Path| {
        let o = Command::new("ncdump").arg(url(p)).output().unwrap();
        assert!(o.status.success(), "{o:?}");
        o.stdout
            .split(|&b| b == b'\n')
            .skip(1)
            .map(<[u8]>::to_vec)
            .collect::<Vec<_>>()
    };
    assert_eq!(dump(&ours), dump(&theirs));
    let mine = nctk_dump(&url(&ours), "ours").unwrap();
    let mine: Vec<Vec<u8>> = mine
        .split(|&b| b == b'\n')
        .skip(1)
        .map(<[u8]>::to_vec)
        .collect();
    assert_eq!(mine, dump(&theirs));
}
