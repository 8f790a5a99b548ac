//! Copying the classic files of the corpus to each other classic kind they
//! fit in and back keeps their dump (apart from the format): every file,
//! except that of the files ncgen wrote from one CDL in three kinds one
//! is taken, the kinds in turn (`corpus::one_kind_per_cdl`; all of them
//! under `NCTK_FULL_SWEEP=1`); and, where
//! netCDF-C's `nccopy` is installed, `nctk copy -k K` writes the same bytes
//! as `nccopy -k K`.
//!
//! The corpus is `$NCTK_CORPUS`, by default `../shared/corpus` next to the
//! repository; without it (or a peer) a test is skipped with a visible
//! note, or fails under CI (`nctk_test_support::require`).

mod copy_support;

use std::path::{Path, PathBuf};
use std::process::Command;

use copy_support::{dump_body, dump_body_as};
use nctk::Format;
use nctk::OutputError;
use nctk_model::{Schema, Selection, Values, VarId};
use nctk_test_support::{corpus, peer, require};
use nctk_tools::copy::{copy, CopyError, CopyOptions, NoProgress};

const KINDS: [Format; 3] = [Format::Classic, Format::Offset64, Format::Cdf5];
/// Files larger than this are left out (time, not correctness).
const MAX_LEN: u64 = 32 << 20;

fn kind_of(path: &Path) -> Option<Format> {
    let mut magic = [0u8; 4];
    use std::io::Read;
    std::fs::File::open(path)
        .ok()?
        .read_exact(&mut magic)
        .ok()?;
    match magic {
        [b'C', b'D', b'F', 1] => Some(Format::Classic),
        [b'C', b'D', b'F', 2] => Some(Format::Offset64),
        [b'C', b'D', b'F', 5] => Some(Format::Cdf5),
        _ => None,
    }
}

/// Every path under `dir` that `pick` takes, sorted; a directory it takes
/// is not entered.
fn find(dir: &Path, pick: impl Fn(&Path, &std::fs::Metadata) -> bool) -> Vec<PathBuf> {
    let mut out = vec![];
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            let Ok(meta) = e.metadata() else { continue };
            if pick(&p, &meta) {
                out.push(p);
            } else if meta.is_dir() {
                stack.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Every classic file under `dir` that nctk opens, sorted.
fn classic_files(dir: &Path) -> Vec<(PathBuf, Format)> {
    find(dir, |p, m| {
        m.is_file() && m.len() <= MAX_LEN && kind_of(p).is_some() && nctk::open(p).is_ok()
    })
    .into_iter()
    .map(|p| {
        let k = kind_of(&p).expect("picked as classic");
        (p, k)
    })
    .collect()
}

fn with_kind(kind: Format) -> CopyOptions {
    CopyOptions {
        kind: Some(kind),
        ..CopyOptions::default()
    }
}

#[test]
fn round_trips_keep_the_dump() {
    let Some(dir) = require::corpus() else { return };
    // One of each ncgen triple (the same model in three kinds): each
    // kind is still a source, and each model goes to both other kinds.
    let files = corpus::one_kind_per_cdl(classic_files(&dir), |f| &f.0);
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
                Err(CopyError::DoesNotFit { .. })
                | Err(CopyError::Output(OutputError::Output { .. })) => {
                    // Must be a real misfit: CDF-5 types or sizes going down.
                    assert_eq!(*own, Format::Cdf5, "{} to {kind:?}", path.display());
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
    for kind in KINDS {
        assert!(
            files.iter().filter(|f| f.1 == kind).count() >= 10,
            "too few {kind:?} sources"
        );
    }
    assert!(no_fit > 0, "no CDF-5 file was refused by a smaller kind");
}

#[test]
fn same_bytes_as_nccopy() {
    let Some(dir) = require::corpus() else { return };
    if !require::tools(&["nccopy"]) {
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

/// A dump with every empty unlimited dimension shown as a fixed one of
/// length 0 (layouts and formats that have only one of the two).
fn empty_as_fixed(dump: &str) -> String {
    dump.lines()
        .map(
            |l| match l.strip_suffix(" = UNLIMITED ; // (0 currently)") {
                Some(dim) => format!("{dim} = 0 ;\n"),
                None => format!("{l}\n"),
            },
        )
        .collect()
}

/// The first line where two dumps differ, both ways.
fn first_diff(want: &str, got: &str) -> String {
    let (mut a, mut b) = (want.lines(), got.lines());
    for n in 1.. {
        match (a.next(), b.next()) {
            (None, None) => break,
            (x, y) if x != y => return format!("line {n}: want {x:?}, got {y:?}"),
            _ => {}
        }
    }
    "same".into()
}

/// The output URL of a store at `path` in `mode` (`nczarr,file`, ...).
fn url(path: &Path, mode: &str) -> PathBuf {
    PathBuf::from(format!("file://{}#mode={mode}", path.display()))
}

/// Classic corpus files with distinct content: of the `X.nc3.nc`,
/// `X.nc5.nc`, `X.nc6.nc` triples ncgen made from one CDL, the first.
fn distinct_classic_files(dir: &Path) -> Vec<(PathBuf, Format)> {
    let files = classic_files(dir);
    let names: std::collections::HashSet<PathBuf> = files.iter().map(|f| f.0.clone()).collect();
    files
        .into_iter()
        .filter(|(p, _)| {
            let s = p.to_string_lossy();
            let first = [".nc5.nc", ".nc6.nc"]
                .iter()
                .find_map(|k| s.strip_suffix(k));
            first.is_none_or(|stem| !names.contains(&PathBuf::from(format!("{stem}.nc3.nc"))))
        })
        .collect()
}

/// `ncdump`'s output from its second line, or `None` when it fails.
fn ncdump_body(target: &Path) -> Option<String> {
    let text = peer::run("ncdump", [target]).ok()?;
    Some(
        text.split_once('\n')
            .map_or(text.clone(), |x| x.1.to_string()),
    )
}

/// The store layouts a classic file goes through.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Layout {
    /// The newest NCZarr, directory store.
    Dir,
    /// The newest NCZarr, zip store.
    Zip,
    /// netCDF-C 4.9.0's NCZarr (no unlimited dimensions), directory store.
    NcZarr490,
    /// Pure Zarr (`_ARRAY_DIMENSIONS`), directory store.
    Pure,
}

/// Classic corpus files (one of each ncgen triple) through NCZarr
/// directory stores and, in turn, zip stores, netCDF-C 4.9.0's layout and
/// pure Zarr:
///
/// * NCZarr: the store's dump and that of its copy back to the file's own
///   kind are the original's;
/// * 4.9.0 layout (`-u`: it has no unlimited dimensions): the same against
///   a classic `-u` copy, an empty unlimited dimension read as length 0;
///   netCDF-C's `ncdump` prints the store as nctk prints that copy read as
///   netCDF-4 (where it can: it crashes on scalars and refuses empty
///   dimensions, documented netCDF-C 4.9.0 faults);
/// * pure Zarr keeps every variable's values (not the netCDF model: it has
///   no dimension order, char arrays or attribute types of its own).
#[test]
fn classic_files_through_stores_keep_the_dump() {
    let Some(dir) = require::corpus() else { return };
    let files = distinct_classic_files(&dir);
    let tmp = tempfile::tempdir().unwrap();
    let ncdump = require::tools(&["ncdump"]);
    let mut counts = std::collections::BTreeMap::new();
    let (mut peer_same, mut peer_unreadable) = (0, 0);
    let mut failures = vec![];
    let nc4 = with_kind(Format::Netcdf4);
    for (i, (path, own)) in files.iter().enumerate() {
        let name = path.display();
        let other = [Layout::Zip, Layout::NcZarr490, Layout::Pure][i % 3];
        for layout in [Layout::Dir, other] {
            let (target, fixed) = match layout {
                Layout::Dir => (tmp.path().join(format!("{i}.zarr")), false),
                Layout::Zip => (tmp.path().join(format!("{i}.zip")), false),
                Layout::NcZarr490 => (
                    url(
                        &tmp.path().join(format!("{i}.490.zarr")),
                        "nczarr,file,nczarr490",
                    ),
                    true,
                ),
                Layout::Pure => (
                    url(&tmp.path().join(format!("{i}.pure.zarr")), "zarr,file"),
                    true,
                ),
            };
            // The reference: the file itself, or its classic -u copy.
            let reference = if fixed {
                let r = tmp.path().join(format!("{i}.u.nc"));
                let u = CopyOptions {
                    fix_unlimited: true,
                    ..with_kind(*own)
                };
                copy(path, &r, &u, &mut NoProgress).unwrap();
                r
            } else {
                path.clone()
            };
            let opts = CopyOptions {
                fix_unlimited: fixed,
                ..nc4.clone()
            };
            if let Err(e) = copy(path, &target, &opts, &mut NoProgress) {
                // A _FillValue of another type than its variable: netCDF-C
                // refuses to write it as netCDF-4 too.
                let theirs = tmp.path().join(format!("{i}.nccopy.nc"));
                if e.to_string().contains("_FillValue type mismatch")
                    && nccopy_nc4_refuses(path, &theirs, "_FillValue type mismatch")
                {
                    *counts.entry("refused as nccopy".into()).or_insert(0) += 1;
                    continue;
                }
                failures.push(format!("{name} to {layout:?}: {e}"));
                continue;
            }
            if layout == Layout::Pure {
                if let Err(e) = same_values(&reference, &target) {
                    failures.push(format!("{name} as {layout:?}: {e}"));
                } else {
                    *counts.entry(format!("{layout:?}")).or_insert(0) += 1;
                }
                continue;
            }
            let empty_unlimited = |d: String| {
                if layout == Layout::NcZarr490 {
                    empty_as_fixed(&d)
                } else {
                    d
                }
            };
            // The store dumps as the file would as netCDF-4; the copy back
            // as the file itself.
            let want_nc4 = empty_unlimited(dump_body_as(&reference, Some(Format::Netcdf4)));
            let want = empty_unlimited(dump_body(&reference));
            let got = empty_unlimited(dump_body(&target));
            if got != want_nc4 {
                failures.push(format!(
                    "{name} as {layout:?}: {}",
                    first_diff(&want_nc4, &got)
                ));
                continue;
            }
            let back = tmp.path().join(format!("{i}.back.nc"));
            if let Err(e) = copy(&target, &back, &with_kind(*own), &mut NoProgress) {
                failures.push(format!("{name} back from {layout:?}: {e}"));
                continue;
            }
            let got = empty_unlimited(dump_body(&back));
            if got != want {
                failures.push(format!(
                    "{name} back from {layout:?}: {}",
                    first_diff(&want, &got)
                ));
                continue;
            }
            *counts.entry(format!("{layout:?}")).or_insert(0) += 1;
            if layout == Layout::NcZarr490 && ncdump {
                // netCDF-C 4.9.0 crashes on NCZarr scalars and refuses
                // zero-length dimensions (documented faults).
                let ds = nctk::open(&reference).unwrap();
                let schema = ds.source().schema();
                let unreadable = schema.var_ids().any(|v| schema.var(v).dims.is_empty())
                    || schema.dim_ids().any(|d| schema.dim(d).len == 0);
                match ncdump_body(&target).map(empty_unlimited) {
                    Some(theirs) if theirs == want_nc4 => peer_same += 1,
                    None if unreadable => peer_unreadable += 1,
                    theirs => failures.push(format!(
                        "{name}: ncdump of the 4.9.0 store: {}",
                        first_diff(&want_nc4, &theirs.unwrap_or_default())
                    )),
                }
            }
        }
    }
    eprintln!(
        "{} distinct classic files: round trips {counts:?}; ncdump 4.9.0 reads {peer_same} 4.9.0-layout stores as nctk dumps the file (and cannot read {peer_unreadable}: scalars, empty dimensions); {} failures",
        files.len(),
        failures.len()
    );
    assert!(failures.is_empty(), "{failures:#?}");
}

/// True when netCDF-C's `nccopy -k nc4` refuses to copy `path`, saying `why`.
fn nccopy_nc4_refuses(path: &Path, out: &Path, why: &str) -> bool {
    Command::new("nccopy")
        .args(["-k", "nc4"])
        .arg(path)
        .arg(out)
        .output()
        .is_ok_and(|o| !o.status.success() && String::from_utf8_lossy(&o.stderr).contains(why))
}

/// Each variable of `a` with its path and the variable of `b` at that path.
fn var_pairs(sa: &Schema, sb: &Schema) -> Result<Vec<(VarId, String, VarId)>, String> {
    sa.var_ids()
        .map(|v| {
            let path = format!(
                "{}/{}",
                sa.group_path(sa.var(v).group).trim_end_matches('/'),
                sa.var(v).name
            );
            let w = sb.var_by_path(&path).ok_or(format!("no variable {path}"))?;
            Ok((v, path, w))
        })
        .collect()
}

/// Every variable of `a` has the same values in `b` (found by name).
fn same_values(a: &Path, b: &Path) -> Result<(), String> {
    let (da, db) = (
        nctk::open(a).map_err(|e| e.to_string())?,
        nctk::open(b).map_err(|e| e.to_string())?,
    );
    let (sa, sb) = (da.source().schema(), db.source().schema());
    for (v, path, w) in var_pairs(sa, sb)? {
        let va = da
            .source()
            .read(v, &Selection::all(&sa.shape(v)))
            .map_err(|e| e.to_string())?;
        let vb = db
            .source()
            .read(w, &Selection::all(&sb.shape(w)))
            .map_err(|e| e.to_string())?;
        let same = match (&va, &vb) {
            // Pure Zarr holds char arrays as one-byte strings (|S1).
            (Values::Char(c), Values::String(s)) => c
                .iter()
                .map(|&b| {
                    Some(
                        String::from_utf8_lossy(&[b])
                            .trim_end_matches('\0')
                            .to_string(),
                    )
                })
                .eq(s.iter().cloned()),
            _ => va == vb || format!("{va:?}") == format!("{vb:?}"),
        };
        if !same {
            return Err(format!("variable {path}: values differ"));
        }
    }
    Ok(())
}

/// Bytes of data in a dataset.
fn data_bytes(ds: &nctk::Dataset) -> u64 {
    let s = ds.source().schema();
    s.var_ids()
        .map(|v| {
            let n: u64 = s.shape(v).iter().product();
            n.saturating_mul(s.var(v).dtype.size().unwrap_or(16) as u64)
        })
        .fold(0, u64::saturating_add)
}

/// Every NCZarr / Zarr store of the corpus (directories named `*.zarr`,
/// `*.nczarr`, and zip files) that nctk opens, sorted; the sparse
/// gigabyte-sized ones (`bigf*`) are left out (time, not correctness).
fn stores(dir: &Path) -> Vec<PathBuf> {
    find(dir, |p, m| {
        let ext = p.extension().and_then(|x| x.to_str()).unwrap_or("");
        let store = if m.is_dir() {
            ext == "zarr" || ext == "nczarr"
        } else {
            ext == "zip"
        };
        store && nctk::open(p).is_ok_and(|ds| data_bytes(&ds) <= MAX_LEN)
    })
}

/// Every corpus store copied to an NCZarr directory store and to a CDF-5
/// file and back to NCZarr: all dump as the store does (the file read as
/// netCDF-4), and the NCZarr copy keeps each variable's chunks and codecs.
/// A store that does not fit CDF-5 (groups, strings, ...) is refused naming
/// what does not fit. Of the stores ncgen wrote from one CDL in both
/// layouts (`X.nczarr`, `X.zarr`) one is taken, the layouts in turn
/// (`corpus::one_layout_per_cdl`; both under `NCTK_FULL_SWEEP=1`): the
/// layouts differ below the model, which the copy reads.
#[test]
fn corpus_stores_copy_to_nczarr_and_classic() {
    let Some(dir) = require::corpus() else { return };
    let all = corpus::one_layout_per_cdl(stores(&dir), |p| p.as_path());
    assert!(!all.is_empty(), "no stores under {}", dir.display());
    let tmp = tempfile::tempdir().unwrap();
    let (mut to_store, mut to_classic, mut no_fit) = (0, 0, 0);
    let mut failures = vec![];
    for (i, path) in all.iter().enumerate() {
        let name = path.display();
        let want = dump_body(path);
        let out = tmp.path().join(format!("{i}.zarr"));
        match copy(path, &out, &CopyOptions::default(), &mut NoProgress) {
            Err(e) => failures.push(format!("{name} to NCZarr: {e}")),
            Ok(_) => {
                let got = dump_body(&out);
                if got != want {
                    failures.push(format!("{name} to NCZarr: {}", first_diff(&want, &got)));
                } else if let Err(e) = same_storage(path, &out) {
                    failures.push(format!("{name} to NCZarr: {e}"));
                } else {
                    to_store += 1;
                }
            }
        }
        let nc = tmp.path().join(format!("{i}.nc"));
        match copy(path, &nc, &with_kind(Format::Cdf5), &mut NoProgress) {
            Err(CopyError::DoesNotFit { what, .. }) => {
                assert!(!nc.exists());
                assert!(
                    ["variable", "attribute", "group", "dimension"]
                        .iter()
                        .any(|w| what.starts_with(w)),
                    "{name}: {what}"
                );
                no_fit += 1;
            }
            Err(e) => failures.push(format!("{name} to CDF-5: {e}")),
            Ok(_) => {
                // An empty fixed dimension is unlimited in a classic file.
                let got = empty_as_fixed(&dump_body_as(&nc, Some(Format::Netcdf4)));
                let back = tmp.path().join(format!("{i}.back.zarr"));
                if got != empty_as_fixed(&want) {
                    failures.push(format!("{name} to CDF-5: {}", first_diff(&want, &got)));
                } else if let Err(e) = copy(&nc, &back, &CopyOptions::default(), &mut NoProgress) {
                    failures.push(format!("{name} back from CDF-5: {e}"));
                } else {
                    let got = empty_as_fixed(&dump_body(&back));
                    if got != empty_as_fixed(&want) {
                        failures.push(format!(
                            "{name} back from CDF-5: {}",
                            first_diff(&want, &got)
                        ));
                    } else {
                        to_classic += 1;
                    }
                }
            }
        }
    }
    eprintln!(
        "{} stores: {to_store} copied to NCZarr, {to_classic} to CDF-5 and back, {no_fit} refused by CDF-5; {} failures",
        all.len(),
        failures.len()
    );
    assert!(failures.is_empty(), "{failures:#?}");
    for layout in ["nczarr", "zarr", "zip"] {
        assert!(
            all.iter()
                .any(|p| p.extension().is_some_and(|x| x == layout)),
            "no .{layout} store copied"
        );
    }
    assert!(
        to_classic > 0 && no_fit > 0,
        "{to_classic} to CDF-5, {no_fit} refused"
    );
}

/// Each variable of `b` is chunked and encoded as in `a` (a store input's
/// chunks are kept, small ones included).
fn same_storage(a: &Path, b: &Path) -> Result<(), String> {
    let (da, db) = (nctk::open(a).unwrap(), nctk::open(b).unwrap());
    let (sa, sb) = (da.source().schema(), db.source().schema());
    for (v, path, w) in var_pairs(sa, sb)? {
        let (x, y) = (&sa.var(v).storage, &sb.var(w).storage);
        if (&x.layout, &x.codecs) != (&y.layout, &y.codecs) {
            return Err(format!("variable {path}: {x:?} became {y:?}"));
        }
    }
    Ok(())
}
