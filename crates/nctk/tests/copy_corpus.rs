//! Copying every classic file of the corpus to each other classic kind it
//! fits in and back keeps its dump (apart from the format); and, where
//! netCDF-C's `nccopy` is installed, `nctk copy -k K` writes the same bytes
//! as `nccopy -k K`.
//!
//! The corpus is `$NCTK_CORPUS`, by default `../shared/corpus` next to the
//! repository; the tests skip cleanly when it is absent.

use std::path::{Path, PathBuf};
use std::process::Command;

use nctk::copy::{copy, CopyError, CopyOptions, NoProgress, OutputKind};
use nctk_cdl::print::{dump, Options};

const KINDS: [OutputKind; 3] = [OutputKind::Classic, OutputKind::Offset64, OutputKind::Cdf5];
/// Files larger than this are left out (time, not correctness).
const MAX_LEN: u64 = 32 << 20;

fn corpus() -> Option<PathBuf> {
    let dir = std::env::var_os("NCTK_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"));
    dir.is_dir().then_some(dir)
}

fn kind_of(path: &Path) -> Option<OutputKind> {
    let mut magic = [0u8; 4];
    use std::io::Read;
    std::fs::File::open(path)
        .ok()?
        .read_exact(&mut magic)
        .ok()?;
    match magic {
        [b'C', b'D', b'F', 1] => Some(OutputKind::Classic),
        [b'C', b'D', b'F', 2] => Some(OutputKind::Offset64),
        [b'C', b'D', b'F', 5] => Some(OutputKind::Cdf5),
        _ => None,
    }
}

/// Every classic file under `dir` that nctk opens, sorted.
fn classic_files(dir: &Path) -> Vec<(PathBuf, OutputKind)> {
    let mut out = vec![];
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            let Ok(meta) = e.metadata() else { continue };
            if meta.is_dir() {
                stack.push(p);
            } else if meta.len() <= MAX_LEN {
                if let Some(k) = kind_of(&p) {
                    if nctk::open(&p).is_ok() {
                        out.push((p, k));
                    }
                }
            }
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// The dump from its second line on (the first names the file).
fn dump_body(path: &Path) -> String {
    let ds = nctk::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut out = vec![];
    let opts = Options {
        name: Some("x".into()),
        ..Options::default()
    };
    dump(ds.source(), &path.display().to_string(), &opts, &mut out)
        .unwrap_or_else(|e| panic!("dump {}: {e}", path.display()));
    let text = String::from_utf8_lossy(&out).into_owned();
    text.split_once('\n')
        .map_or(text.clone(), |(_, rest)| rest.to_string())
}

fn with_kind(kind: OutputKind) -> CopyOptions {
    CopyOptions {
        kind: Some(kind),
        ..CopyOptions::default()
    }
}

#[test]
fn round_trips_keep_the_dump() {
    let Some(dir) = corpus() else {
        eprintln!("corpus not found; skipped");
        return;
    };
    let files = classic_files(&dir);
    assert!(
        !files.is_empty(),
        "no classic files under {}",
        dir.display()
    );
    let tmp = tempfile::tempdir().unwrap();
    let (mut copies, mut no_fit) = (0, 0);
    for (i, (path, own)) in files.iter().enumerate() {
        let want = dump_body(path);
        for kind in KINDS.into_iter().filter(|k| k != own) {
            let there = tmp.path().join(format!("{i}.there.nc"));
            let back = tmp.path().join(format!("{i}.back.nc"));
            match copy(path, &there, &with_kind(kind), &mut NoProgress) {
                Ok(_) => {}
                Err(CopyError::DoesNotFit { .. }) | Err(CopyError::Output { .. }) => {
                    // Must be a real misfit: CDF-5 types or sizes going down.
                    assert_eq!(*own, OutputKind::Cdf5, "{} to {kind:?}", path.display());
                    assert!(!there.exists());
                    no_fit += 1;
                    continue;
                }
                Err(e) => panic!("{} to {kind:?}: {e}", path.display()),
            }
            assert_eq!(kind_of(&there), Some(kind));
            assert_eq!(dump_body(&there), want, "{} as {kind:?}", path.display());
            copy(&there, &back, &with_kind(*own), &mut NoProgress)
                .unwrap_or_else(|e| panic!("{} back from {kind:?}: {e}", path.display()));
            assert_eq!(
                dump_body(&back),
                want,
                "{} back from {kind:?}",
                path.display()
            );
            copies += 1;
        }
    }
    eprintln!(
        "{} classic files: {copies} round trips, {no_fit} copies refused as not fitting",
        files.len()
    );
}

fn nccopy_installed() -> bool {
    Command::new("nccopy").output().is_ok()
}

#[test]
fn same_bytes_as_nccopy() {
    let Some(dir) = corpus() else {
        eprintln!("corpus not found; skipped");
        return;
    };
    if !nccopy_installed() {
        eprintln!("nccopy not installed; skipped");
        return;
    }
    let files = classic_files(&dir);
    let tmp = tempfile::tempdir().unwrap();
    let (mut same, mut total, mut both_refused) = (0, 0, 0);
    let mut differ = vec![];
    // A sample: every third file, each to every classic kind.
    for (i, (path, _)) in files.iter().enumerate().filter(|(i, _)| i % 3 == 0) {
        for (kind, flag) in KINDS.into_iter().zip(["nc3", "nc6", "nc5"]) {
            let theirs = tmp.path().join(format!("{i}.{flag}.c.nc"));
            let ours = tmp.path().join(format!("{i}.{flag}.n.nc"));
            let ok = Command::new("nccopy")
                .args(["-k", flag])
                .arg(path)
                .arg(&theirs)
                .output()
                .unwrap()
                .status
                .success();
            let mine = copy(path, &ours, &with_kind(kind), &mut NoProgress);
            match (ok, mine) {
                (true, Ok(_)) => {
                    total += 1;
                    if std::fs::read(&theirs).unwrap() == std::fs::read(&ours).unwrap() {
                        same += 1;
                    } else {
                        differ.push(format!("{} -k {flag}", path.display()));
                    }
                }
                (false, Err(_)) => both_refused += 1,
                (true, Err(e)) => panic!("{} -k {flag}: nccopy copies, nctk: {e}", path.display()),
                (false, Ok(_)) => {
                    panic!("{} -k {flag}: nccopy refuses, nctk copies", path.display())
                }
            }
        }
    }
    eprintln!(
        "byte-identical to nccopy: {same}/{total} ({both_refused} refused by both); differ: {differ:#?}"
    );
    assert_eq!(same, total, "outputs differ from nccopy: {differ:#?}");
}
