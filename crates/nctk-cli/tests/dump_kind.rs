//! `nctk dump -k` against netCDF-C's `ncdump -k` run on the same input in
//! the same test: every netCDF-4/HDF5 file of the corpus, a sample of its
//! classic files and stores, netCDF-4 files written here by the Python
//! `netCDF4` module (classic model or not, compact or dense attribute
//! storage, behind user blocks), and damaged copies (truncated, bits
//! flipped), which must give a clear error or ncdump's kind, never a panic.
//!
//! `NCTK_CORPUS` locates the corpus; each test needs it, `ncdump` or
//! Python's `netCDF4` as `nctk_test_support::require` rules.

use std::path::{Path, PathBuf};
use std::process::Command;

use nctk_test_support::{corpus, peer, require};

/// The corpus, when it and `ncdump` are both there (the skip rule otherwise).
fn corpus_and_ncdump() -> Option<PathBuf> {
    let corpus = require::corpus()?;
    require::tools(&["ncdump"]).then_some(corpus)
}

/// Exit status, stdout and stderr of a program run under a 20 s timeout
/// (a hang fails the test instead of stalling it).
fn run(program: &str, args: &[&str]) -> (bool, String, String) {
    let out = Command::new("timeout")
        .arg("20")
        .arg(program)
        .args(args)
        .output()
        .expect("run timeout");
    assert_ne!(out.status.code(), Some(124), "{program} {args:?} hung");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `nctk dump -k target`: the kind, or the error text.
fn nctk_kind(target: &str) -> Result<String, String> {
    let (ok, out, err) = run(env!("CARGO_BIN_EXE_nctk"), &["dump", "-k", target]);
    assert!(
        !err.contains("panicked"),
        "nctk dump -k {target} panicked: {err}"
    );
    if ok {
        Ok(out)
    } else {
        Err(err)
    }
}

/// `ncdump -k target`: the kind, or `None` when netCDF-C refuses it.
fn ncdump_kind(target: &str) -> Option<String> {
    let (ok, out, _) = run("ncdump", &["-k", target]);
    ok.then_some(out)
}

/// Asserts `nctk dump -k` prints exactly what `ncdump -k` prints.
fn assert_same_kind(target: &str) {
    let theirs = ncdump_kind(target).unwrap_or_else(|| panic!("ncdump -k {target} failed"));
    assert_eq!(nctk_kind(target), Ok(theirs), "nctk dump -k {target}");
}

/// Files under `dir` named `*.nc`, sorted.
fn nc_files(dir: &Path) -> Vec<PathBuf> {
    corpus::files_under(dir, |_| true)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|x| x == "nc"))
        .collect()
}

fn starts_with(path: &Path, magic: &[u8]) -> bool {
    let mut head = vec![0u8; magic.len()];
    std::fs::File::open(path)
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut head))
        .is_ok()
        && head == magic
}

#[test]
fn hdf5_corpus_files_match_ncdump() {
    let Some(corpus) = corpus_and_ncdump() else {
        return;
    };
    let files: Vec<_> = nc_files(&corpus)
        .into_iter()
        .filter(|p| starts_with(p, b"\x89HDF"))
        .collect();
    assert!(files.len() >= 10, "corpus HDF5 files: {}", files.len());
    for f in &files {
        assert_same_kind(f.to_str().unwrap());
    }
}

#[test]
fn classic_files_and_stores_match_ncdump() {
    let Some(corpus) = corpus_and_ncdump() else {
        return;
    };
    // Every 7th classic file: CDF-1, CDF-2 and CDF-5 all occur.
    let classic: Vec<_> = nc_files(&corpus)
        .into_iter()
        .filter(|p| starts_with(p, b"CDF"))
        .collect();
    let mut kinds = std::collections::BTreeSet::new();
    for f in classic.iter().step_by(7) {
        let target = f.to_str().unwrap();
        // Some corpus files are deliberately broken: ncdump must accept it.
        if let Some(theirs) = ncdump_kind(target) {
            assert_eq!(nctk_kind(target), Ok(theirs.clone()), "{target}");
            kinds.insert(theirs);
        }
    }
    assert_eq!(kinds.len(), 3, "kinds seen: {kinds:?}");
    // Stores, as URLs in both modes.
    let dir = corpus.join("generated/from-cdl/netcdf-c/examples/CDL");
    let mut stores = 0;
    for e in std::fs::read_dir(&dir).expect("stores dir").flatten() {
        let p = e.path();
        let mode = match p.extension().and_then(|x| x.to_str()) {
            Some("nczarr") => "nczarr",
            Some("zarr") => "zarr",
            _ => continue,
        };
        let url = format!("file://{}#mode={mode},file", p.display());
        assert_same_kind(&url);
        stores += 1;
    }
    assert!(stores >= 4, "stores: {stores}");
}

/// Writes netCDF-4 files with Python's `netCDF4` into `dir`: both formats,
/// with 2, 40 and 3000 root attributes (the last two in dense storage).
/// Returns their paths, or `None` (the skip rule) when the module is missing.
fn python_netcdf4_files(dir: &Path) -> Option<Vec<PathBuf>> {
    let script = r#"
import sys, netCDF4
out = sys.argv[1]
for fmt in ("NETCDF4", "NETCDF4_CLASSIC"):
    for n in (2, 40, 3000):
        p = f"{out}/{fmt}_{n}.nc"
        d = netCDF4.Dataset(p, "w", format=fmt)
        for i in range(n):
            d.setncattr(f"attribute_{i:05d}", "some text " * (i % 7))
        d.createDimension("x", 3)
        d.createVariable("v", "f4", ("x",))[:] = [1, 2, 3]
        d.close()
        print(p)
"#;
    if !require::python(&["netCDF4"]) {
        return None;
    }
    let out = peer::python(script, [dir]).unwrap_or_else(|e| panic!("python: {e}"));
    Some(out.lines().map(PathBuf::from).collect())
}

#[test]
fn python_netcdf4_files_match_ncdump() {
    if !require::tools(&["ncdump"]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let Some(files) = python_netcdf4_files(dir.path()) else {
        return;
    };
    let mut classic = 0;
    for f in &files {
        let target = f.to_str().unwrap();
        assert_same_kind(target);
        classic += usize::from(ncdump_kind(target).unwrap().contains("classic"));
        // netCDF4 cannot write a user block: prepend one. HDF5 (and so
        // netCDF-C) looks for the signature at 512, 1024, 2048, ...; at
        // 1000 it finds nothing and both tools refuse the file.
        let bytes = std::fs::read(f).unwrap();
        for skip in [512usize, 1000, 2048, 8192] {
            let ub = dir.path().join(format!("ub{skip}.nc"));
            let mut data = vec![0u8; skip];
            data.extend_from_slice(&bytes);
            std::fs::write(&ub, data).unwrap();
            let t = ub.to_str().unwrap();
            match ncdump_kind(t) {
                Some(theirs) => assert_eq!(nctk_kind(t), Ok(theirs), "{target} after {skip}"),
                None => assert!(nctk_kind(t).is_err(), "{target} after {skip}"),
            }
        }
    }
    assert_eq!(classic, 3);
}

#[test]
fn damaged_hdf5_gives_an_error_or_ncdumps_kind() {
    if !require::tools(&["ncdump"]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let Some(files) = python_netcdf4_files(dir.path()) else {
        return;
    };
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let (mut agree, mut errors) = (0, 0);
    for f in files
        .iter()
        .filter(|f| !f.to_str().unwrap().ends_with("_3000.nc"))
    {
        let good = std::fs::read(f).unwrap();
        let bad = dir.path().join("bad.nc");
        let mut variants: Vec<Vec<u8>> = vec![];
        for i in 0..12 {
            let len = (next() as usize) % good.len();
            variants.push(good[..len.max(i)].to_vec());
        }
        for _ in 0..24 {
            let mut b = good.clone();
            // Flip bits in the metadata (the first 8 KB hold superblock,
            // object headers, B-trees and heap).
            let pos = (next() as usize) % good.len().min(8192);
            b[pos] ^= 1 << (next() % 8);
            variants.push(b);
        }
        for v in variants {
            std::fs::write(&bad, &v).unwrap();
            let t = bad.to_str().unwrap();
            match (nctk_kind(t), ncdump_kind(t)) {
                (Ok(ours), Some(theirs)) => {
                    assert_eq!(ours, theirs, "{} damaged", f.display());
                    agree += 1;
                }
                (Err(e), _) => {
                    assert!(e.starts_with(&format!("nctk: {t}")), "unclear error: {e}");
                    errors += 1;
                }
                // Checksums netCDF-C verifies and this probe does not read.
                (Ok(_), None) => {}
            }
        }
    }
    assert!(agree > 0 && errors > 0, "agree {agree}, errors {errors}");
}

/// netCDF-4 files are read now: their header dumps as ncdump's.
#[test]
fn hdf5_headers_dump_as_ncdump() {
    if !require::tools(&["ncdump"]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let Some(files) = python_netcdf4_files(dir.path()) else {
        return;
    };
    for f in files.iter().take(2) {
        let t = f.to_str().unwrap();
        let (ok, ours, err) = run(env!("CARGO_BIN_EXE_nctk"), &["dump", "-h", t]);
        assert!(ok, "{err}");
        let theirs = peer::run("ncdump", ["-h", t]).unwrap();
        assert_eq!(ours, theirs, "{t}");
    }
}
