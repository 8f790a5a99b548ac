//! `.zattrs` holding bytes that are not UTF-8 (Latin-1 written by some
//! tool), read as netCDF-C 4.9.0 reads them (skipped when `ncdump` is
//! absent): inside a string value the bytes go into the `char` attribute
//! unchanged; in an attribute's name the store is refused.

use std::path::Path;
use std::process::Command;

use nctk_cdl::print::{dump, Options};

fn have(tool: &str) -> bool {
    Command::new(tool).arg("-h").output().is_ok()
}

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
    if !have("ncdump") {
        eprintln!("ncdump not installed: skipped");
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
