//! Round trips through ncstream with the `nctk` binary: the classic files
//! of the corpus (`nctk copy x x.ncs; nctk copy -k KIND x.ncs y.nc`; of
//! the files ncgen wrote from one CDL in three kinds one, the kinds in
//! turn, all under `NCTK_FULL_SWEEP=1`) and a
//! sample of its NCZarr/Zarr stores (to an NCZarr store) come back with
//! the same `nctk dump`, and for the classic files `ncdump` (netCDF-C
//! 4.9.0) of `y.nc` equals `ncdump` of the original; a few also through a
//! pipe (`nctk copy x - | nctk copy - y.nc`).

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::nctk;
use nctk_test_support::corpus::{files_under, one_kind_per_cdl};
use nctk_test_support::require;

/// The CDL after the first line (`netcdf NAME {` names the file).
fn body(text: &str) -> &str {
    text.split_once('\n').map_or("", |(_, b)| b)
}

/// The text of a successful run, or what went wrong.
fn run(program: &str, args: &[&str]) -> Result<String, String> {
    let out = Command::new(program)
        .args(args)
        .output()
        .map_err(|e| format!("{program}: {e}"))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(format!(
            "{program} {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

/// `nctk args...`, its stdout or what went wrong.
fn nctk_run(args: &[&str]) -> Result<String, String> {
    let out = nctk(args);
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(format!(
            "nctk {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

/// The corpus's classic files, by their magic number.
fn classic_files(corpus: &Path) -> Vec<PathBuf> {
    let is_store = |d: &Path| d.extension().is_some_and(|x| x == "zarr" || x == "nczarr");
    let mut files: Vec<PathBuf> = files_under(corpus, |d| !is_store(d))
        .into_iter()
        .filter(|p| {
            std::fs::File::open(p).is_ok_and(|mut f| {
                let mut magic = [0u8; 4];
                std::io::Read::read_exact(&mut f, &mut magic).is_ok()
                    && &magic[..3] == b"CDF"
                    && matches!(magic[3], 1 | 2 | 5)
            })
        })
        .collect();
    files.sort();
    files
}

/// The nccopy `-k` name of a classic file's kind (as `ncdump -k` says).
fn kind(file: &Path) -> &'static str {
    let mut magic = [0u8; 4];
    let mut f = std::fs::File::open(file).unwrap();
    std::io::Read::read_exact(&mut f, &mut magic).unwrap();
    match magic[3] {
        1 => "classic",
        2 => "64-bit offset",
        _ => "cdf5",
    }
}

/// One classic file there and back; `Err` says what differs.
fn classic_round_trip(file: &Path, tmp: &Path) -> Result<(), String> {
    let x = file.to_str().unwrap();
    let ncs = tmp.join("x.ncs");
    let y = tmp.join("y.nc");
    let (ncs, y) = (ncs.to_str().unwrap(), y.to_str().unwrap());
    nctk_run(&["copy", x, ncs])?;
    nctk_run(&["copy", "-k", kind(file), ncs, y])?;
    let (a, b) = (nctk_run(&["dump", x])?, nctk_run(&["dump", y])?);
    if body(&a) != body(&b) {
        return Err(format!("nctk dump differs:\n{a}\n---\n{b}"));
    }
    let (a, b) = (run("ncdump", &[x])?, run("ncdump", &[y])?);
    if body(&a) != body(&b) {
        return Err(format!("ncdump differs:\n{a}\n---\n{b}"));
    }
    Ok(())
}

/// The classic files of the corpus through `.ncs` and back: a stream
/// carries the model, not the kind, so of each ncgen triple (one CDL in
/// CDF-1, CDF-2 and CDF-5) one, the kinds in turn.
#[test]
fn classic_files_round_trip() {
    let Some(corpus) = require::corpus() else {
        return;
    };
    if !require::tools(&["ncdump"]) {
        return;
    }
    let files = one_kind_per_cdl(classic_files(&corpus), |p| p.as_path());
    assert!(files.len() >= 120, "{} classic files", files.len());
    for k in ["classic", "64-bit offset", "cdf5"] {
        let n = files.iter().filter(|f| kind(f) == k).count();
        assert!(n >= 10, "{n} {k} files");
    }
    let tmp = tempfile::tempdir().unwrap();
    let failures: Vec<String> = files
        .iter()
        .filter_map(|f| {
            classic_round_trip(f, tmp.path())
                .err()
                .map(|e| format!("{}: {e}", f.display()))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} failed:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n\n")
    );
}

/// The bytes of all the values of the dataset at `url` (a string or other
/// variable-size value counted as 8).
fn value_bytes(url: &str) -> u64 {
    let ds = nctk::open(url).unwrap_or_else(|e| panic!("{url}: {e}"));
    let schema = ds.schema();
    schema
        .var_ids()
        .map(|v| {
            let n: u64 = schema.shape(v).iter().product();
            n.saturating_mul(schema.type_size(schema.var(v).dtype).unwrap_or(8))
        })
        .fold(0u64, u64::saturating_add)
}

/// Stores holding more values than this are left out: a stream carries
/// every value, fill included, and the corpus has sparse stores of 4 GB
/// (`bigf*`) whose round trip adds nothing but time and disk.
const MAX_STORE_BYTES: u64 = 32 << 20;

/// The URL nctk opens a store by.
fn store_url(store: &Path, mode: &str) -> String {
    format!("file://{}#mode={mode},file", store.display())
}

/// The stores of `generated/from-cdl` (NCZarr and Zarr, each CDL of
/// netCDF-C's tests as ncgen wrote it) of at most [`MAX_STORE_BYTES`] of
/// values, every `step`th.
fn stores(corpus: &Path, step: usize) -> Vec<(PathBuf, &'static str)> {
    let root = corpus.join("generated/from-cdl");
    let mut dirs = vec![];
    let mut stack = vec![root];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let p = entry.path();
            match p.extension().and_then(|e| e.to_str()) {
                Some("nczarr") => dirs.push((p, "nczarr")),
                Some("zarr") => dirs.push((p, "zarr")),
                _ if p.is_dir() => stack.push(p),
                _ => {}
            }
        }
    }
    dirs.sort();
    dirs.retain(|(store, mode)| value_bytes(&store_url(store, mode)) <= MAX_STORE_BYTES);
    dirs.into_iter().step_by(step).collect()
}

/// A sample of the corpus's stores (every third: the same CDL is in both
/// layouts, and the layouts differ only below the model) through `.ncs`
/// into an NCZarr store.
#[test]
fn stores_round_trip() {
    let Some(corpus) = require::corpus() else {
        return;
    };
    let stores = stores(&corpus, 3);
    assert!(stores.len() >= 30, "{} stores", stores.len());
    let tmp = tempfile::tempdir().unwrap();
    let mut failures = vec![];
    for (i, (store, mode)) in stores.iter().enumerate() {
        let x = store_url(store, mode);
        let ncs = tmp.path().join(format!("{i}.ncs"));
        let y = format!(
            "file://{}/{i}.nczarr#mode=nczarr,file",
            tmp.path().display()
        );
        let ncs = ncs.to_str().unwrap();
        let result = nctk_run(&["copy", &x, ncs])
            .and_then(|_| nctk_run(&["copy", ncs, &y]))
            .and_then(|_| Ok((nctk_run(&["dump", &x])?, nctk_run(&["dump", &y])?)));
        match result {
            Ok((a, b)) if body(&a) == body(&b) => {}
            Ok((a, b)) => failures.push(format!("{x}: nctk dump differs:\n{a}\n---\n{b}")),
            Err(e) => failures.push(format!("{x}: {e}")),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} failed:\n{}",
        failures.len(),
        stores.len(),
        failures.join("\n\n")
    );
}

/// `nctk copy x - | nctk copy -k KIND - y.nc` for a few classic files
/// (every kind, records, all six classic types): `ncdump` of `y.nc` equals
/// `ncdump` of the original.
#[test]
fn pipes_round_trip() {
    let Some(corpus) = require::corpus() else {
        return;
    };
    if !require::tools(&["ncdump"]) {
        return;
    }
    let files = classic_files(&corpus);
    let sample: Vec<&PathBuf> = files.iter().step_by(files.len() / 8).collect();
    assert!(sample.len() >= 8);
    let tmp = tempfile::tempdir().unwrap();
    for file in sample {
        let x = file.to_str().unwrap();
        let y = tmp.path().join("y.nc");
        let bin = env!("CARGO_BIN_EXE_nctk");
        let mut writer = Command::new(bin)
            .args(["copy", x, "-"])
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let reader = Command::new(bin)
            .args(["copy", "-k", kind(file), "-"])
            .arg(&y)
            .stdin(writer.stdout.take().unwrap())
            .output()
            .unwrap();
        assert!(
            writer.wait().unwrap().success(),
            "{x}: nctk copy {x} - failed"
        );
        assert!(
            reader.status.success(),
            "{x}: {}",
            String::from_utf8_lossy(&reader.stderr)
        );
        let a = run("ncdump", &[x]).unwrap();
        let b = run("ncdump", &[y.to_str().unwrap()]).unwrap();
        assert_eq!(body(&a), body(&b), "{x}");
    }
}
