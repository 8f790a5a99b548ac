//! netCDF-4/HDF5 files written by nctk against netCDF-C 4.9.0 over the
//! corpus: every CDL that `ncgen -k nc4` accepts goes through `nctk gen -k
//! nc4`, and `ncdump -s` prints the same for both files (storage facts
//! included; `_NCProperties` aside); ncgen's file goes through `nctk copy
//! -k nc4` and `ncdump` prints the same for the copy as for it; `h5dump`
//! reads every file nctk wrote. The corpus's own netCDF-4 files go
//! through `nctk copy -k nc4` the same way. Groups, strings, user-defined
//! types, unlimited dimensions and the special attributes are all there.
//! netCDF-C appends to a file nctk wrote.

use std::path::{Path, PathBuf};
use std::process::Command;

use nctk::Format;
use nctk_test_support::{peer, require};
use nctk_tools::copy::{copy, CopyOptions, NoProgress};
use nctk_tools::gen::{gen, GenArgs};

/// CDLs whose classic files are larger than this, or that the corpus
/// generator had to stop, are left out (dumping megabytes of fill values
/// is slow; the writer's paths are the same).
const MAX_CLASSIC_LEN: u64 = 300 << 10;

/// CDLs whose ncdump differs on purpose, with the reason.
const DIFFERENT_ON_PURPOSE: &[(&str, &str)] = &[(
    "netcdf-c/ncdump/cdl/ref_tst_unlim2.cdl",
    "nctk's CDL reader pads the char data of a variable with several unlimited dimensions \
         per record, where ncgen 4.9.0 runs the strings together",
)];

/// CDLs with a `_NoFill` variable never written: netCDF-C reads it as
/// whatever memory held (ncdump of ncgen's file differs from run to
/// run), so only the headers (`ncdump -h -s`) are compared.
const NEVER_WRITTEN_NO_FILL: &[&str] = &[
    "netcdf-c/ncdump/cdl/ref_tst_special_atts.cdl",
    "netcdf-c/ncdump/cdl/ref_tst_special_atts3.cdl",
];

/// `ncdump args path` without its first line (the dataset's name) and
/// without `_NCProperties` (which names the writer).
fn dump(args: &[&str], path: &Path) -> Result<String, String> {
    let out = peer::run(
        "ncdump",
        args.iter()
            .map(|a| a.to_string())
            .chain([path.display().to_string()]),
    )
    .map_err(|e| format!("ncdump {args:?} {}: {e}", path.display()))?;
    Ok(out
        .lines()
        .skip(1)
        .filter(|l| !l.contains(":_NCProperties = "))
        .collect::<Vec<_>>()
        .join("\n"))
}

/// Copies `input` to `output` with `nctk copy -k nc4` and checks that
/// ncdump prints the same for both (`-h` only when the input's values
/// are not `stable`) and h5dump reads the copy.
fn copy_matches(input: &Path, output: &Path, stable: bool) -> Result<(), String> {
    let opts = CopyOptions {
        kind: Some(Format::Netcdf4),
        ..CopyOptions::default()
    };
    copy(input, output, &opts, &mut NoProgress).map_err(|e| format!("nctk copy: {e}"))?;
    let args: &[&str] = if stable { &[] } else { &["-h"] };
    let (theirs, ours) = (dump(args, input)?, dump(args, output)?);
    if theirs != ours {
        return Err(format!(
            "ncdump differs:\n--- input\n{theirs}\n--- copy\n{ours}"
        ));
    }
    peer::run("h5dump", [output]).map_err(|e| format!("h5dump of the copy: {e}"))?;
    Ok(())
}

/// The corpus's CDLs, each once, without those whose classic file is large.
fn corpus_cdls(corpus: &Path) -> Vec<String> {
    let manifest = std::fs::read_to_string(corpus.join("generated/from-cdl/MANIFEST.tsv")).unwrap();
    let mut cdls: Vec<String> = Vec::new();
    let mut large: Vec<String> = Vec::new();
    for row in manifest.lines().skip(1) {
        let cols: Vec<&str> = row.split('\t').collect();
        let [source, _, _, gen_rc, _, _, size, ..] = cols[..] else {
            continue;
        };
        // 124, 153: the corpus generator stopped ncgen (time, file size).
        let stopped = matches!(gen_rc, "124" | "153");
        if stopped || size.parse::<u64>().is_ok_and(|n| n > MAX_CLASSIC_LEN) {
            large.push(source.to_string());
        }
        cdls.push(source.to_string());
    }
    cdls.sort();
    cdls.dedup();
    cdls.retain(|c| !large.contains(c));
    cdls
}

/// What one CDL gave.
#[derive(Default)]
struct Outcome {
    same: usize,
    on_purpose: usize,
    copied: usize,
    problems: Vec<String>,
}

/// Runs one corpus CDL through ncgen, `nctk gen` and `nctk copy` in `dir`.
fn check_cdl(corpus: &Path, source: &str, dir: &Path, out: &mut Outcome) {
    let cdl_path = corpus.join(source);
    let Ok(cdl) = std::fs::read(&cdl_path) else {
        return;
    };
    let theirs: PathBuf = dir.join("theirs.nc");
    let ours: PathBuf = dir.join("ours.nc");
    let accepted = Command::new("ncgen")
        .args(["-k", "nc4", "-o"])
        .arg(&theirs)
        .arg(&cdl_path)
        .output()
        .unwrap()
        .status
        .success();
    if !accepted {
        return;
    }
    let args = GenArgs {
        kind: Some("nc4".into()),
        output: Some(ours.clone()),
        ..GenArgs::default()
    };
    if let Err(e) = gen(&args, &cdl, dir) {
        out.problems.push(format!(
            "{source}: nctk gen refused what ncgen accepted: {e}"
        ));
        return;
    }
    if let Err(e) = peer::run("h5dump", [&ours]) {
        out.problems
            .push(format!("{source}: h5dump of nctk's file: {e}"));
    }
    let on_purpose = DIFFERENT_ON_PURPOSE.iter().any(|(p, _)| *p == source);
    let stable = !NEVER_WRITTEN_NO_FILL.contains(&source);
    let args: &[&str] = if stable { &["-s"] } else { &["-s", "-h"] };
    match (dump(args, &ours), dump(args, &theirs)) {
        (Ok(a), Ok(b)) if a == b => out.same += 1,
        _ if on_purpose => out.on_purpose += 1,
        (Ok(a), Ok(b)) => out.problems.push(format!(
            "{source}: ncdump -s differs:\n--- nctk gen\n{a}\n--- ncgen\n{b}"
        )),
        (Err(e), _) | (_, Err(e)) => out.problems.push(format!("{source}: {e}")),
    }
    match copy_matches(&theirs, &dir.join("copy.nc"), stable) {
        Ok(()) => out.copied += 1,
        Err(_) if on_purpose => {}
        Err(e) => out
            .problems
            .push(format!("{source}: ncgen's file through nctk copy: {e}")),
    }
}

#[test]
fn gen_nc4_matches_ncgen_and_copies_match_their_input() {
    let Some(corpus) = require::corpus() else {
        return;
    };
    if !require::tools(&["ncgen", "ncdump", "h5dump"]) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let cdls = corpus_cdls(&corpus);
    // The peers run as processes: a few at once.
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get().min(4));
    let outcomes: Vec<Outcome> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|t| {
                let dir = tmp.path().join(t.to_string());
                std::fs::create_dir(&dir).unwrap();
                let (corpus, cdls) = (&corpus, &cdls);
                scope.spawn(move || {
                    let mut out = Outcome::default();
                    for source in cdls.iter().skip(t).step_by(threads) {
                        check_cdl(corpus, source, &dir, &mut out);
                    }
                    out
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap()).collect()
    });
    let sum = |f: fn(&Outcome) -> usize| outcomes.iter().map(f).sum::<usize>();
    let (same, on_purpose, copied) = (sum(|o| o.same), sum(|o| o.on_purpose), sum(|o| o.copied));
    let problems: Vec<&String> = outcomes.iter().flat_map(|o| &o.problems).collect();
    eprintln!("gen -k nc4: {same} as ncgen's, {on_purpose} different on purpose; {copied} copies");
    assert!(problems.is_empty(), "{problems:#?}");
    assert!(same >= 100, "too few CDLs compared: {same}");
}

#[test]
fn corpus_netcdf4_files_copy_as_they_are() {
    let Some(corpus) = require::corpus() else {
        return;
    };
    if !require::tools(&["ncdump", "h5dump"]) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let mut problems = vec![];
    let mut copied = 0;
    for dir in ["netcdf-c/ncdump", "netcdf-c/h5_test", "netcdf-c/nc_test"] {
        let Ok(entries) = std::fs::read_dir(corpus.join(dir)) else {
            continue;
        };
        let mut files: Vec<PathBuf> = entries.map(|e| e.unwrap().path()).collect();
        files.sort();
        for input in files {
            let head = std::fs::read(&input).unwrap_or_default();
            // HDF5 files that ncdump reads (a corrupt one is left out);
            // one whose values read differently each time (a never
            // written `_NoFill` variable) is compared by its header.
            if !head.starts_with(b"\x89HDF") {
                continue;
            }
            let (Ok(first), Ok(second)) = (dump(&[], &input), dump(&[], &input)) else {
                continue;
            };
            let out = tmp.path().join("copy.nc");
            match copy_matches(&input, &out, first == second) {
                Ok(()) => copied += 1,
                Err(e) => problems.push(format!("{}: {e}", input.display())),
            }
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
    assert!(copied >= 5, "too few netCDF-4 files copied: {copied}");
}

/// A file with groups, strings, a compound and records, as `nctk gen`
/// writes it, opened for writing by netCDF-C (netCDF4-python): records,
/// strings and attributes appended, and ncdump shows both nctk's data
/// and the appended.
#[test]
fn netcdf_c_appends_to_a_file_nctk_wrote() {
    let cdl = r#"netcdf a {
types:
  compound pair_t { int a ; double b ; } ;
dimensions:
  t = UNLIMITED ;
  x = 2 ;
variables:
  int t(t) ;
  float v(t, x) ;
  string s(t) ;
  pair_t p ;
data:
  t = 1 ;
  v = 1.5, 2.5 ;
  s = "first" ;
  p = {7, 0.25} ;
group: g {
  variables:
    int w(t) ;
  data:
    w = 10 ;
}
}
"#;
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("a.nc");
    let args = GenArgs {
        kind: Some("nc4".into()),
        output: Some(path.clone()),
        ..GenArgs::default()
    };
    gen(&args, cdl, tmp.path()).unwrap();
    let script = "import sys, netCDF4\n\
                  d = netCDF4.Dataset(sys.argv[1], 'a')\n\
                  d['t'][1] = 2\n\
                  d['v'][1, :] = [3.5, 4.5]\n\
                  d['s'][1] = 'second'\n\
                  d['g']['w'][1] = 20\n\
                  d.setncattr('appended', 'yes')\n\
                  d.close()\n\
                  print('ok')";
    let Some(out) = require::python_output(&["netCDF4"], script, [&path]) else {
        return;
    };
    assert_eq!(out.trim(), "ok");
    if !require::tools(&["ncdump"]) {
        return;
    }
    let dump = dump(&[], &path).unwrap();
    for want in [
        "t = 1, 2 ;",
        "1.5, 2.5,\n  3.5, 4.5 ;",
        "s = \"first\", \"second\" ;",
        "p = {7, 0.25} ;",
        "w = 10, 20 ;",
        ":appended = \"yes\" ;",
    ] {
        assert!(dump.contains(want), "{want:?} not in\n{dump}");
    }
}

/// Compact storage (numbers, strings, a scalar) written with data: the
/// same `ncdump -s` as ncgen's file.
#[test]
fn compact_variables_hold_their_data() {
    if !require::tools(&["ncgen", "ncdump", "h5dump"]) {
        return;
    }
    let cdl = r#"netcdf cp {
dimensions:
  x = 3 ;
variables:
  int c(x) ;
    c:_Storage = "compact" ;
  string sc(x) ;
    sc:_Storage = "compact" ;
  short s ;
    s:_Storage = "compact" ;
data:
  c = 1, _, 3 ;
  sc = "a", "bc", _ ;
  s = 5 ;
}
"#;
    let tmp = tempfile::tempdir().unwrap();
    let (cdl_path, ours, theirs) = (
        tmp.path().join("cp.cdl"),
        tmp.path().join("ours.nc"),
        tmp.path().join("theirs.nc"),
    );
    std::fs::write(&cdl_path, cdl).unwrap();
    peer::run(
        "ncgen",
        [
            "-k".as_ref(),
            "nc4".as_ref(),
            "-o".as_ref(),
            theirs.as_os_str(),
            cdl_path.as_os_str(),
        ],
    )
    .unwrap();
    let args = GenArgs {
        kind: Some("nc4".into()),
        output: Some(ours.clone()),
        ..GenArgs::default()
    };
    gen(&args, cdl, tmp.path()).unwrap();
    peer::run("h5dump", [&ours]).unwrap();
    let dumped = dump(&["-s"], &ours).unwrap();
    assert!(dumped.contains("c:_Storage = \"compact\""), "{dumped}");
    assert_eq!(dumped, dump(&["-s"], &theirs).unwrap());
}
