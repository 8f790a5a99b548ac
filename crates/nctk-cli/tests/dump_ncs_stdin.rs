//! `-` as the input of `nctk dump` and `nctk copy`: standard input is
//! spooled to an anonymous temporary file and detected as a file is, so a
//! classic file, a netCDF-4/HDF5 file or an ncstream piped in reads as the
//! same file named on the command line does. The truth is netCDF-C's
//! `ncdump` of the file itself (classic, HDF5) and, for ncstream, nctk's
//! dump of the named file (whose decoding other tests check against
//! siphon).
//!
//! `NCTK_CORPUS` locates the corpus; the tests need it and `ncdump` as
//! `nctk_test_support::require` rules.

mod common;

use std::path::Path;

use common::nctk_stdin;
use nctk_test_support::{peer, require};

/// The name ncdump gives `path`'s dataset: the file name without its last
/// extension.
fn dataset_name(path: &Path) -> String {
    path.file_stem()
        .expect("a file name")
        .to_string_lossy()
        .into_owned()
}

/// Classic files of every version and netCDF-4/HDF5 files piped into
/// `nctk dump -n NAME -` print what `ncdump` prints of the file.
#[test]
fn files_on_stdin_dump_as_ncdump_dumps_them() {
    let Some(corpus) = require::corpus() else {
        return;
    };
    if !require::tools(&["ncdump"]) {
        return;
    }
    for relative in [
        "generated/from-cdl/netcdf-c/ncgen/c0.nc3.nc",
        "generated/from-cdl/netcdf-c/examples/CDL/pres_temp_4D.nc6.nc",
        "generated/from-cdl/netcdf-c/ncgen/c5.nc5.nc",
        "netcdf-c/ncdump/ref_nc_test_netcdf4_4_0.nc",
        "netcdf-c/ncdump/ref_tst_compounds2.nc",
    ] {
        let file = corpus.join(relative);
        let expected = peer::run("ncdump", [&file]).expect("ncdump");
        let name = dataset_name(&file);
        let (ok, dumped, err) = nctk_stdin(&["dump", "-n", &name, "-"], &file);
        assert!(ok, "nctk dump - < {relative}: {err}");
        assert_eq!(dumped, expected, "nctk dump - < {relative}");
        let (ok, kind, err) = nctk_stdin(&["dump", "-k", "-"], &file);
        assert!(ok, "nctk dump -k - < {relative}: {err}");
        let expected_kind =
            peer::run("ncdump", ["-k".as_ref(), file.as_os_str()]).expect("ncdump -k");
        assert_eq!(kind, expected_kind, "nctk dump -k - < {relative}");
    }
}

/// `nctk copy - out.nc` writes what came in: ncdump of the copy equals
/// ncdump of the input.
#[test]
fn copy_reads_stdin() {
    let Some(file) =
        require::corpus_path("generated/from-cdl/netcdf-c/examples/CDL/pres_temp_4D.nc6.nc")
    else {
        return;
    };
    if !require::tools(&["ncdump"]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join(file.file_name().unwrap());
    let (ok, _, err) = nctk_stdin(&["copy", "-", out.to_str().unwrap()], &file);
    assert!(ok, "nctk copy - out.nc: {err}");
    assert_eq!(
        peer::run("ncdump", [&out]).expect("ncdump of the copy"),
        peer::run("ncdump", [&file]).expect("ncdump of the input"),
    );
}

/// Input that is no dataset gives an error naming `-` (standard input),
/// and empty input too.
#[test]
fn bad_stdin_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    for (name, bytes) in [("empty", &b""[..]), ("text", b"hello, not a dataset\n")] {
        let input = dir.path().join(name);
        std::fs::write(&input, bytes).unwrap();
        let (ok, _, err) = nctk_stdin(&["dump", "-"], &input);
        assert!(!ok, "{name}: accepted");
        assert!(
            err.contains("-: ") && !err.contains("panicked"),
            "{name}: {err}"
        );
    }
}
