//! `nctk dump` of a classic file shorter than its header implies: the part
//! that exists prints as netCDF-C's `ncdump` prints it, the missing values
//! print as fill (netCDF-C shows zeros there, see
//! `crates/nctk/tests/large_and_short_files.rs`), and one warning on stderr
//! names the file and the byte offset where the data stops.

mod common;

use std::path::Path;
use std::process::Output;

use nctk_test_support::{peer, require};

/// Runs the `nctk` binary with `args` and then `file`.
fn nctk(args: &[&str], file: &Path) -> Output {
    let file = file.to_str().expect("a UTF-8 temporary path");
    common::nctk(&[args, &[file]].concat())
}

/// The data section's values of `var`, as `name = v, v, ... ;` words.
fn values(cdl: &str, var: &str) -> Vec<String> {
    let data = cdl.split("data:").nth(1).expect("a data section");
    let words: Vec<&str> = data.split_whitespace().collect();
    let at = words
        .iter()
        .position(|w| *w == var)
        .expect("the variable's data");
    words[at + 2..]
        .iter()
        .take_while(|w| **w != ";")
        .map(|w| w.trim_end_matches(',').to_string())
        .collect()
}

#[test]
fn dump_warns_once_and_prints_ncdumps_values_for_what_exists() {
    let dir = tempfile::tempdir().unwrap();
    let cdl = dir.path().join("short.cdl");
    let path = dir.path().join("short.nc");
    std::fs::write(
        &cdl,
        "netcdf short {\ndimensions:\n x = 6 ;\nvariables:\n short v(x) ;\n int w(x) ;\n\
         data:\n v = 1, 2, 3, 4, 5, 6 ;\n w = 10, 20, 30, 40, 50, 60 ;\n}\n",
    )
    .unwrap();
    let gen = nctk(&["gen", "-o", path.to_str().unwrap()], &cdl);
    assert!(
        gen.status.success(),
        "{}",
        String::from_utf8_lossy(&gen.stderr)
    );
    // Cut the file inside w's data: w[0..3] remain, w[3..] are gone.
    let len = std::fs::metadata(&path).unwrap().len();
    let cut = len - 12;
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(cut)
        .unwrap();
    let out = nctk(&["dump"], &path);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    let file = path.display().to_string();
    let warnings: Vec<&str> = stderr.lines().filter(|l| l.contains("warning")).collect();
    assert_eq!(warnings.len(), 1, "{stderr}");
    assert!(warnings[0].contains(&file), "{stderr}");
    assert!(warnings[0].contains(&format!("byte {cut}")), "{stderr}");
    let ours_v = values(&stdout, "v");
    let ours_w = values(&stdout, "w");
    assert_eq!(
        &ours_w[3..],
        ["_", "_", "_"],
        "missing values print as fill"
    );
    // The part that exists, as netCDF-C prints it.
    if !require::tools(&["ncdump"]) {
        return;
    }
    let theirs = peer::run("ncdump", [&path]).unwrap();
    assert_eq!(ours_v, values(&theirs, "v"));
    assert_eq!(ours_w[..3], values(&theirs, "w")[..3]);
    // A complete file: no warning.
    let full = dir.path().join("full.nc");
    assert!(nctk(&["gen", "-o", full.to_str().unwrap()], &cdl)
        .status
        .success());
    let out = nctk(&["dump"], &full);
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // `nctk copy` of the short file warns the same way, once, and its copy
    // holds what `nctk dump` showed: ncdump's values where data exists,
    // fill where it does not (never netCDF-C's zeros).
    let copied = dir.path().join("copied.nc");
    let out = nctk(&["copy"], &path);
    assert!(!out.status.success(), "copy needs an output");
    let out = common::nctk(&["copy", path.to_str().unwrap(), copied.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stderr = String::from_utf8(out.stderr).unwrap();
    let warnings: Vec<&str> = stderr.lines().filter(|l| l.contains("warning")).collect();
    assert_eq!(warnings.len(), 1, "{stderr}");
    assert!(warnings[0].contains(&file), "{stderr}");
    assert!(warnings[0].contains(&format!("byte {cut}")), "{stderr}");
    let copy_dump = peer::run("ncdump", [&copied]).unwrap();
    assert_eq!(values(&copy_dump, "v"), ours_v);
    assert_eq!(values(&copy_dump, "w"), ours_w);
    let out = common::nctk(&["copy", full.to_str().unwrap(), copied.to_str().unwrap()]);
    assert!(out.status.success() && out.stderr.is_empty(), "{out:?}");
}
