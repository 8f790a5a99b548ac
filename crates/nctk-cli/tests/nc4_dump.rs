//! `nctk dump` of netCDF-4/HDF5 files against netCDF-C's `ncdump`, run
//! live on the same file:
//!
//! * every corpus CDL that `ncgen -k nc4` accepts, written into a
//!   temporary directory by the test (the CDLs ncgen refuses are found by
//!   trying, and counted): `-h -s` for all, the data where it is not
//!   gigabytes of fill, `-c` on a sample;
//! * every HDF5 file of the corpus (`netcdf-c/**/*.nc` whose first bytes
//!   are the HDF5 signature); where netCDF-C 4.9.0 fails while printing
//!   the data, the header (`-h`) is compared instead;
//! * values netCDF-C leaves undefined (uninitialised memory, different
//!   from one ncdump run to the next) accept any value (`ncdump_diff`);
//! * a sample of those over `#mode=bytes` from a `RangeFileServer`, from
//!   the second line on (the first names the dataset after the URL).

mod common;

use std::path::{Path, PathBuf};

use nctk_test_servers::{Behaviour, RangeFileServer};
use nctk_test_support::{corpus::files_under, peer, require};

use common::nctk;

/// The HDF5 signature (HDF5 file format specification, "Format Signature").
const HDF5_SIGNATURE: &[u8] = b"\x89HDF\r\n\x1a\n";

/// `nctk dump ARGS...`: its stdout, or its stderr as the error.
fn nctk_dump(args: &[&str]) -> Result<String, String> {
    let mut all = vec!["dump"];
    all.extend_from_slice(args);
    let out = nctk(&all);
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(format!(
            "nctk dump failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

/// `ncdump ARGS...`'s stdout, or why it failed.
fn ncdump(args: &[&str]) -> Result<String, String> {
    peer::run("ncdump", args).map_err(|e| e.to_string())
}

/// `None` when `got` equals `expected`, else where they first differ.
fn diff(got: &str, expected: &str) -> Option<String> {
    if got == expected {
        return None;
    }
    for (i, (a, b)) in got.lines().zip(expected.lines()).enumerate() {
        if a != b {
            return Some(format!("line {}: got {a:?}, expected {b:?}", i + 1));
        }
    }
    if got.lines().count() == expected.lines().count() {
        return None;
    }
    Some(format!(
        "got {} lines, expected {}",
        got.lines().count(),
        expected.lines().count()
    ))
}

/// `None` when `got` is `ncdump ARGS`'s `expected` text, but for values
/// netCDF-C leaves undefined: where a second `ncdump ARGS` run (made only
/// when the texts differ) prints a statement (`... ;`, a variable's whole
/// data) otherwise than the first, it printed uninitialised memory
/// (netCDF-C 4.9.0 does for unwritten no-fill variables), and any
/// statement is accepted there. Else where they first differ.
fn ncdump_diff(got: &str, args: &[&str], expected: &str) -> Option<String> {
    let first = diff(got, expected)?;
    let Ok(again) = ncdump(args) else {
        return Some(first);
    };
    if again == expected {
        return Some(first);
    }
    let statements = |t: &'_ str| -> Vec<String> { t.split(" ;\n").map(str::to_string).collect() };
    let (g, e, a) = (statements(got), statements(expected), statements(&again));
    if g.len() != e.len() || e.len() != a.len() {
        return Some(first);
    }
    let at = (0..g.len()).find(|&i| e[i] == a[i] && g[i] != e[i])?;
    Some(format!(
        "statement {at} (undefined ones accepted): {}",
        diff(&g[at], &e[at]).unwrap_or_default()
    ))
}

/// What is wrong with `nctk dump FLAGS FILE` against `ncdump FLAGS FILE`.
fn compare(flags: &[&str], file: &Path) -> Option<String> {
    let file = file.to_str().expect("a UTF-8 path");
    let args: Vec<&str> = flags.iter().copied().chain([file]).collect();
    let expected = match ncdump(&args) {
        Ok(text) => text,
        Err(e) => return Some(format!("ncdump {flags:?} failed: {e}")),
    };
    match nctk_dump(&args) {
        Ok(got) => ncdump_diff(&got, &args, &expected).map(|d| format!("{flags:?}: {d}")),
        Err(e) => Some(e),
    }
}

/// Whether `path` starts with the HDF5 signature.
fn is_hdf5(path: &Path) -> bool {
    let mut head = [0u8; 8];
    std::fs::File::open(path)
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut head))
        .is_ok_and(|()| head == HDF5_SIGNATURE)
}

/// The corpus's HDF5 files (`netcdf-c/**/*.nc`).
fn corpus_hdf5_files(corpus: &Path) -> Vec<PathBuf> {
    files_under(&corpus.join("netcdf-c"), |_| true)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "nc") && is_hdf5(p))
        .collect()
}

/// Every corpus CDL put through `ncgen -k nc4` into `dir` (each in a
/// directory of its own, so that the file keeps the CDL's name, which
/// ncdump prints); the CDLs ncgen refuses are left out.
fn netcdf4_from_cdl(corpus: &Path, dir: &Path) -> (Vec<PathBuf>, usize) {
    let cdls: Vec<PathBuf> = files_under(corpus, |d| {
        !d.ends_with("generated") && d.extension().is_none_or(|e| e != "zarr")
    })
    .into_iter()
    .filter(|p| p.extension().is_some_and(|e| e == "cdl"))
    .collect();
    let mut made = vec![];
    for (i, cdl) in cdls.iter().enumerate() {
        let out_dir = dir.join(i.to_string());
        std::fs::create_dir_all(&out_dir).unwrap();
        let stem = cdl.file_stem().unwrap().to_string_lossy();
        let out = out_dir.join(format!("{stem}.nc"));
        let ok = peer::output(
            std::process::Command::new("ncgen")
                .args(["-k", "nc4", "-o"])
                .arg(&out)
                .arg(cdl)
                .current_dir(cdl.parent().unwrap()),
        )
        .is_ok();
        if ok && out.is_file() {
            made.push(out);
        }
    }
    let refused = cdls.len() - made.len();
    (made, refused)
}

/// Files holding more values than this are compared by header only (some
/// corpus CDLs declare gigabytes of fill values).
const MAX_VALUES: u64 = 1_000_000;

/// How many values the variables of an `ncdump -h` text hold (dimension
/// lengths as declared, unlimited ones at their current length).
fn value_count(header: &str) -> u64 {
    let mut dims = std::collections::HashMap::new();
    let mut total = 0u64;
    for line in header.lines().map(str::trim) {
        if let Some((name, rest)) = line.split_once(" = ") {
            let len = rest
                .strip_prefix("UNLIMITED ; // (")
                .unwrap_or(rest)
                .split(|c: char| !c.is_ascii_digit())
                .next()
                .and_then(|n| n.parse::<u64>().ok());
            if let Some(len) = len {
                dims.insert(name.to_string(), len);
            }
        } else if let Some((_, shape)) = line.strip_suffix(") ;").and_then(|l| l.split_once('(')) {
            let n = shape
                .split(", ")
                .map(|d| dims.get(d).copied().unwrap_or(1))
                .fold(1u64, u64::saturating_mul);
            total = total.saturating_add(n);
        }
    }
    total
}

/// Every corpus CDL that ncgen writes as netCDF-4 dumps as ncdump dumps
/// it: `-h -s` (storage facts, `_NCProperties`, `_SuperblockVersion`) for
/// all, the data for those of at most [`MAX_VALUES`] values, and `-c` on
/// every seventh.
#[test]
fn corpus_cdls_as_netcdf4_dump_as_ncdump() {
    let Some(corpus) = require::corpus() else {
        return;
    };
    if !require::tools(&["ncgen", "ncdump"]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (files, refused) = netcdf4_from_cdl(&corpus, dir.path());
    assert!(
        files.len() > 50,
        "ncgen wrote only {} netCDF-4 files",
        files.len()
    );
    let mut failures = vec![];
    for (i, file) in files.iter().enumerate() {
        let path = file.to_str().unwrap();
        let header = match ncdump(&["-h", "-s", path]) {
            Ok(h) => h,
            Err(e) => panic!("ncdump -h -s {path}: {e}"),
        };
        let mut problems = vec![nctk_dump(&["-h", "-s", path])
            .map(|got| diff(&got, &header).map(|d| format!("-h -s: {d}")))
            .unwrap_or_else(Some)];
        if value_count(&header) <= MAX_VALUES {
            problems.push(compare(&[], file));
        }
        if i % 7 == 0 {
            problems.push(compare(&["-c"], file));
        }
        let name = file.file_name().unwrap().to_string_lossy();
        failures.extend(
            problems
                .into_iter()
                .flatten()
                .map(|problem| format!("{name}: {problem}")),
        );
    }
    eprintln!(
        "{} netCDF-4 files from CDL ({refused} CDLs refused by ncgen -k nc4), {} differ",
        files.len(),
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Every HDF5 file of the corpus dumps as ncdump dumps it (its header
/// where ncdump fails on the data).
#[test]
fn corpus_hdf5_files_dump_as_ncdump() {
    let Some(corpus) = require::corpus() else {
        return;
    };
    if !require::tools(&["ncdump"]) {
        return;
    }
    let files = corpus_hdf5_files(&corpus);
    assert!(files.len() >= 10, "{files:?}");
    let mut failures = vec![];
    for file in &files {
        let name = file.strip_prefix(&corpus).unwrap().display().to_string();
        let path = file.to_str().unwrap();
        let problem = match ncdump(&[path]) {
            Ok(expected) => nctk_dump(&[path]).map(|got| ncdump_diff(&got, &[path], &expected)),
            Err(_) => Ok(compare(&["-h"], file)),
        };
        match problem {
            Ok(None) => {}
            Ok(Some(d)) => failures.push(format!("{name}: {d}")),
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} differ:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}

/// Three of the corpus's HDF5 files served over HTTP with `Range` dump,
/// through `#mode=bytes`, as ncdump dumps the local file (from the second
/// line on).
#[test]
fn corpus_hdf5_files_over_mode_bytes_dump_as_ncdump() {
    let Some(dir) = require::corpus_path("netcdf-c") else {
        return;
    };
    if !require::tools(&["ncdump"]) {
        return;
    }
    let server = RangeFileServer::start_dir(&dir, Behaviour::Honest).unwrap();
    let mut failures = vec![];
    for rel in [
        "h5_test/ref_tst_compounds.nc",
        "ncdump/ref_nc_test_netcdf4_4_0.nc",
        "nc_test/f03tst_open_mem.nc",
    ] {
        let local = dir.join(rel);
        assert!(is_hdf5(&local), "{} is not an HDF5 file", local.display());
        let args = [local.to_str().unwrap()];
        let expected = ncdump(&args).unwrap();
        let url = format!("{}#mode=bytes", server.url(rel));
        // The first line names the dataset: taken from the local dump.
        let head = expected.split_inclusive('\n').next().unwrap_or_default();
        let body = |s: &str| {
            s.split_once('\n')
                .map(|(_, t)| t.to_string())
                .unwrap_or_default()
        };
        match nctk_dump(&[&url]) {
            Ok(got) => failures.extend(
                ncdump_diff(&format!("{head}{}", body(&got)), &args, &expected)
                    .map(|d| format!("{url}: {d}")),
            ),
            Err(e) => failures.push(format!("{url}: {e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `ncgen -k nc4 -o DIR/NAME.nc` of the CDL `text` (its name line naming
/// NAME): the file written.
fn ncgen_nc4(dir: &Path, name: &str, text: &str) -> PathBuf {
    let cdl = dir.join(format!("{name}.cdl"));
    std::fs::write(&cdl, text).unwrap();
    let file = dir.join(format!("{name}.nc"));
    peer::run(
        "ncgen",
        [
            "-k",
            "nc4",
            "-o",
            file.to_str().unwrap(),
            cdl.to_str().unwrap(),
        ],
    )
    .unwrap_or_else(|e| panic!("ncgen refuses {name}: {e}\n{text}"));
    file
}

/// Groups `other` (dimensions `d1`, `d2` and a coordinate variable) and
/// `g` (with a child `inner`) whose variables use `other`'s dimensions,
/// the root's dimensions given by `root_dims`.
fn sibling_dims_cdl(name: &str, root_dims: &str) -> String {
    format!(
        "netcdf {name} {{\n{root_dims}\
         group: other {{\n  dimensions:\n    d1 = 2 ;\n    d2 = 3 ;\n\
         \x20 variables:\n    int d1(d1) ;\n  data:\n    d1 = 10, 20 ;\n  }}\n\
         group: g {{\n  variables:\n    float v(/other/d1, /other/d2) ;\n\
         \x20   float w(/other/d2) ;\n\
         \x20 data:\n    v = 1, 2, 3, 4, 5, 6 ;\n    w = 7, 8, 9 ;\n\
         \x20 group: inner {{\n    variables:\n      byte u(/other/d1) ;\n\
         \x20   data:\n      u = -1, 1 ;\n    }}\n  }}\n}}\n"
    )
}

/// Variables may use the dimensions of any group, a sibling's included
/// (netCDF-C numbers dimensions across the file): `ncgen` writes such a
/// file from absolute dimension names, and `nctk dump` prints it as
/// `ncdump` does, the names qualified where the simple name would find
/// another dimension or none.
///
/// Where the root has a dimension of the same simple name, ncdump 4.9.0
/// prints wrong paths (`v(/d1, /d2)`: the root's `d2` is another
/// dimension, and the root has no `d1`); nctk prints `/other/...`, and
/// the proof that it is right is ncgen: the CDL nctk prints makes a file
/// that dumps the same.
#[test]
fn dimensions_of_sibling_groups_dump_as_ncdump() {
    if !require::tools(&["ncgen", "ncdump"]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let plain = ncgen_nc4(dir.path(), "siblings", &sibling_dims_cdl("siblings", ""));
    for flags in [&[][..], &["-h", "-s"][..]] {
        if let Some(problem) = compare(flags, &plain) {
            panic!("{problem}");
        }
    }
    let root_dims =
        "dimensions:\n  d2 = 4 ;\nvariables:\n  short top(d2) ;\ndata:\n  top = 1, 2, 3, 4 ;\n";
    let shadowed = ncgen_nc4(
        dir.path(),
        "shadowed",
        &sibling_dims_cdl("shadowed", root_dims),
    );
    let printed = nctk_dump(&[shadowed.to_str().unwrap()]).expect("nctk dump");
    assert!(
        printed.contains("float v(/other/d1, /other/d2) ;")
            && printed.contains("byte u(/other/d1) ;"),
        "{printed}"
    );
    let again_dir = dir.path().join("again");
    std::fs::create_dir(&again_dir).unwrap();
    let again = ncgen_nc4(&again_dir, "shadowed", &printed);
    assert_eq!(
        nctk_dump(&[again.to_str().unwrap()]).expect("nctk dump"),
        printed,
        "the CDL nctk prints does not make the same file through ncgen"
    );
}
