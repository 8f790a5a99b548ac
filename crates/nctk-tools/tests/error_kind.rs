//! The copier's errors have a kind, read as nctk's own errors are
//! (`nctk::ErrorKind`), with nccopy's messages.

use std::process::Command;

use nctk::ErrorKind;
use nctk_test_support::require;
use nctk_tools::copy::parse_kind;

/// Runs a netCDF-C tool; its exit status and stderr.
fn peer(program: &str, args: &[&str]) -> (bool, String) {
    let out = Command::new(program).args(args).output().unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_bad_k_value_is_invalid_input_with_nccopys_message() {
    let err = parse_kind("foo").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput, "{err}");
    if require::tools(&["nccopy"]) {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out.nc");
        let (ok, stderr) = peer("nccopy", &["-k", "foo", "in.nc", out.to_str().unwrap()]);
        assert!(!ok);
        assert!(stderr.contains(&err.to_string()), "{stderr} vs {err}");
    }
}
