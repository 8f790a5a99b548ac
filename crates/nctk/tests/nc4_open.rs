//! The door opens netCDF-4/HDF5 files (a path, memory, a `#mode=bytes`
//! URL) through the netCDF-4 reader, and what it reads dumps as netCDF-C's
//! `ncdump` dumps the same file: the corpus's HDF5 files, `ncgen -k nc4`
//! files made from the corpus's CDL, and h5py files with no dimension
//! scales (netCDF-C's phony dimensions).

use std::path::{Path, PathBuf};
use std::process::Command;

use nctk_cdl::print::{dump, Options};
use nctk_test_servers::{Behaviour, RangeFileServer};
use nctk_test_support::{corpus::files_under, peer, require};

/// Corpus files whose full dump differs from ncdump's, with the reason
/// (their headers must match all the same).
const EXCEPTIONS: &[(&str, &str)] = &[(
    "f03tst_open_mem.nc",
    "netCDF-C 4.9.0 prints uninitialised memory for the first values of `var2` \
     (never written, no fill value defined): they change from run to run; HDF5 \
     (h5py) reads zeros there, as nctk does",
)];

fn is_hdf5(path: &Path) -> bool {
    std::fs::read(path).is_ok_and(|b| b.starts_with(b"\x89HDF\r\n\x1a\n"))
}

/// The corpus's netCDF-4/HDF5 files.
fn corpus_hdf5(corpus: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = files_under(&corpus.join("netcdf-c"), |_| true)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "nc") && is_hdf5(p))
        .collect();
    files.sort();
    files
}

/// What is dumped: the header, the header with the special attributes
/// (`-hs`), or everything.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Mode {
    Header,
    Special,
    Full,
}

impl Mode {
    fn ncdump_flag(self) -> Option<&'static str> {
        match self {
            Mode::Header => Some("-h"),
            Mode::Special => Some("-hs"),
            Mode::Full => None,
        }
    }
}

/// nctk's dump of the dataset `ds`, named after `path` as ncdump names it.
fn dump_of(ds: &nctk::Dataset, path: &str, mode: Mode) -> String {
    let opts = Options {
        header_only: mode != Mode::Full,
        special: mode == Mode::Special,
        ..Options::default()
    };
    let mut out = vec![];
    match dump(ds.source(), path, &opts, &mut out) {
        Ok(()) => String::from_utf8_lossy(&out).into_owned(),
        Err(e) => format!("dump error: {e}"),
    }
}

/// nctk's dump of `path` opened through the door.
fn nctk_dump(path: &str, mode: Mode) -> String {
    match nctk::open(path) {
        Ok(ds) => dump_of(&ds, path, mode),
        Err(e) => format!("open error: {e}"),
    }
}

/// `ncdump [-h|-hs] path`, or its error.
fn ncdump(path: &str, mode: Mode) -> Result<String, String> {
    let mut cmd = Command::new("ncdump");
    cmd.args(mode.ncdump_flag());
    peer::output(cmd.arg(path)).map_err(|e| e.to_string())
}

/// Compares nctk's dumps of `files` with ncdump's; returns the failures
/// (file and both outputs) and how many matched. Files ncdump refuses
/// (or stops dumping) must be refused by nctk too.
fn compare(files: &[PathBuf], mode: Mode) -> (Vec<String>, usize) {
    let mut failures = vec![];
    let mut matched = 0;
    for f in files {
        let path = f.to_string_lossy();
        let ours = nctk_dump(&path, mode);
        match ncdump(&path, mode) {
            Ok(theirs) if theirs == ours => matched += 1,
            Ok(theirs) => failures.push(format!("{path}:\n--- ncdump\n{theirs}\n--- nctk\n{ours}")),
            Err(e) if ours.starts_with("open error") || ours.starts_with("dump error") => {
                eprintln!("{path}: both refuse ({e}; {ours})");
                matched += 1;
            }
            Err(e) => failures.push(format!("{path}: ncdump refuses ({e}), nctk dumps\n{ours}")),
        }
    }
    (failures, matched)
}

fn excepted(failure: &str, exceptions: &[(&str, &str)]) -> bool {
    exceptions
        .iter()
        .any(|(name, _)| failure.split(':').next().is_some_and(|p| p.ends_with(name)))
}

/// Every HDF5 file of the corpus dumps (header and data) as ncdump dumps it.
#[test]
fn corpus_hdf5_files_dump_as_ncdump() {
    let Some(corpus) = require::corpus() else {
        return;
    };
    if !require::tools(&["ncdump"]) {
        return;
    }
    let files = corpus_hdf5(&corpus);
    assert!(files.len() >= 10, "corpus HDF5 files: {files:?}");
    for mode in [Mode::Header, Mode::Special, Mode::Full] {
        let (failures, matched) = compare(&files, mode);
        let real: Vec<_> = failures
            .iter()
            .filter(|f| mode != Mode::Full || !excepted(f, EXCEPTIONS))
            .collect();
        assert!(
            real.is_empty(),
            "{} of {} differ ({mode:?}):\n{}",
            real.len(),
            files.len(),
            real.iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join("\n")
        );
        assert!(matched > 0);
    }
}

/// The corpus's CDL files.
fn corpus_cdls(corpus: &Path) -> Vec<PathBuf> {
    let mut cdls: Vec<PathBuf> = files_under(&corpus.join("netcdf-c"), |_| true)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "cdl"))
        .collect();
    cdls.sort();
    cdls
}

/// `ncgen -k nc4` files whose full dump differs from ncdump's (their
/// `-hs` headers must match all the same, but for the last), with the reason.
const NCGEN_EXCEPTIONS: &[(&str, &str)] = &[
    (
        "_ref_niltest.nc",
        "ncdump prints NIL for a null string; nctk's model has no null \
         string and reads it as empty, printed as the fill `_`",
    ),
    ("_ref_tst_special_atts3.nc", "as ref_tst_special_atts"),
    (
        "_ref_tst_special_atts.nc",
        "netCDF-C 4.9.0 prints uninitialised memory for values never written \
         with no fill value defined (they change from run to run); nctk reads \
         HDF5's zeros there, as h5py does",
    ),
];

/// `ncgen -k nc4` files whose header differs from ncdump's, with the reason.
const NCGEN_HEADER_EXCEPTIONS: &[(&str, &str)] = &[(
    "_ref_tst_h_scalar.nc",
    "as ref_niltest: null strings in attributes print as NIL in ncdump, \
     \"\" in nctk",
)];

/// `ncgen -k nc4` files of the corpus's CDL (dimension scales, unlimited
/// dimensions, groups, fill values, every atomic type, user types) dump
/// (`-hs` and in full) as ncdump dumps them. Files of more than 4 MiB or
/// more than a million values are left out (a debug build prints slowly).
#[test]
fn ncgen_nc4_files_dump_as_ncdump() {
    let Some(corpus) = require::corpus() else {
        return;
    };
    if !require::tools(&["ncdump", "ncgen"]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut files = vec![];
    for (i, cdl) in corpus_cdls(&corpus).iter().enumerate() {
        let stem = cdl.file_stem().unwrap().to_string_lossy().into_owned();
        let out = dir.path().join(format!("{i}_{stem}.nc"));
        let made = Command::new("ncgen")
            .args(["-k", "nc4", "-o"])
            .arg(&out)
            .arg(cdl)
            .output()
            .is_ok_and(|o| o.status.success());
        let small = || {
            std::fs::metadata(&out).is_ok_and(|m| m.len() < 4 << 20)
                && nctk::open(&out).is_ok_and(|ds| {
                    ds.variables()
                        .map(|v| v.shape().iter().product::<u64>())
                        .sum::<u64>()
                        < 1 << 20
                })
        };
        if made && small() {
            files.push(out);
        }
    }
    assert!(files.len() >= 100, "ncgen made {} files", files.len());
    for mode in [Mode::Special, Mode::Full] {
        let (failures, matched) = compare(&files, mode);
        let real: Vec<_> = failures
            .iter()
            .filter(|f| !excepted(f, NCGEN_HEADER_EXCEPTIONS))
            .filter(|f| mode != Mode::Full || !excepted(f, NCGEN_EXCEPTIONS))
            .collect();
        assert!(
            real.is_empty(),
            "{} of {} differ ({mode:?}):\n{}",
            real.len(),
            files.len(),
            real.iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join("\n")
        );
        let excepted = NCGEN_EXCEPTIONS.len() + NCGEN_HEADER_EXCEPTIONS.len();
        assert!(
            matched + excepted >= files.len(),
            "{matched} of {}",
            files.len()
        );
    }
}

/// An h5py file with no dimension scales gets netCDF-C's phony
/// dimensions (one per distinct length, a second one for a repeated
/// length, unlimited ones apart, in a subgroup too).
#[test]
fn h5py_datasets_without_scales_get_phony_dims() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("phony.h5");
    let script = r#"
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "w") as f:
    f.create_dataset("a", data=np.arange(12, dtype="i4").reshape(3, 4))
    f.create_dataset("b", data=np.ones((4, 4), dtype="f8"))
    f.create_dataset("c", data=np.arange(3, dtype="i2"))
    f.create_dataset("d", data=np.arange(5, dtype="u8"), maxshape=(None,), chunks=(2,))
    g = f.create_group("g")
    g.create_dataset("e", data=np.arange(4, dtype="i1"))
    f.attrs["title"] = "phony"
"#;
    if require::python_output(&["h5py", "numpy"], script, [&path]).is_none() {
        return;
    }
    if !require::tools(&["ncdump"]) {
        return;
    }
    let (failures, _) = compare(std::slice::from_ref(&path), Mode::Special);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    let (failures, _) = compare(&[path], Mode::Full);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Everything a dataset holds, for comparing two openings: the schema
/// and every variable's values.
fn contents(ds: &nctk::Dataset) -> String {
    let mut out = format!("{:?}\n", ds.schema());
    for v in ds.variables() {
        let all = nctk_model::Selection::all(&v.shape());
        out.push_str(&format!("{}: {:?}\n", v.name(), v.read_values(&all)));
    }
    out
}

/// The same file in memory (`open_mem`) and over HTTP range requests
/// (`#mode=bytes`) reads as from its path.
#[test]
fn memory_and_mode_bytes_read_as_the_file() {
    let Some(corpus) = require::corpus() else {
        return;
    };
    let files = corpus_hdf5(&corpus);
    let server = RangeFileServer::start(Behaviour::default()).unwrap();
    let mut compared = 0;
    for f in &files {
        let path = f.to_string_lossy();
        let Ok(from_path) = nctk::open(f) else {
            continue;
        };
        let expected = contents(&from_path);
        let bytes = std::fs::read(f).unwrap();
        let mem = nctk::open_bytes(&path, bytes.clone().into()).unwrap();
        assert_eq!(contents(&mem), expected, "{path} in memory");
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        server.add_blob(&name, bytes);
        let url = format!("{}#mode=bytes", server.url(&name));
        let remote = nctk::open(&url).unwrap_or_else(|e| panic!("{url}: {e}"));
        assert_eq!(contents(&remote), expected, "{url}");
        compared += 1;
    }
    assert!(compared >= 8, "{compared} files compared");
}

/// An HDF5 file cut short is an error naming the file (at open, or when
/// the missing part is read), never a panic or made-up values.
#[test]
fn truncated_hdf5_is_an_error_naming_the_file() {
    let Some(corpus) = require::corpus() else {
        return;
    };
    let f = &corpus_hdf5(&corpus)[0];
    let bytes = std::fs::read(f).unwrap();
    let e = nctk::open_bytes("cut.nc", bytes[..64].to_vec().into()).err();
    let e = e.expect("a file cut at 64 bytes opened");
    assert!(e.to_string().contains("cut.nc"), "{e}");
    assert_eq!(e.kind(), nctk::ErrorKind::InvalidData, "{e}");
    let half = nctk::open_bytes("half.nc", bytes[..bytes.len() / 2].to_vec().into());
    let failed = match half {
        Err(e) => Some(e),
        Ok(ds) => ds.variables().find_map(|v| {
            let all = nctk_model::Selection::all(&v.shape());
            v.read_values(&all).err()
        }),
    };
    let e = failed.expect("half a file read whole");
    assert!(e.to_string().contains("half.nc"), "{e}");
}
