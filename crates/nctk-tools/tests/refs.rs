//! `nctk refs`: kerchunk references to a file's own chunks. The inputs are
//! written by netCDF-C (netCDF4-python, `refs/make_inputs.py`); the truth
//! is xarray reading each file itself (engine `netcdf4`) and kerchunk's
//! `SingleHdf5ToZarr` listing an HDF5 file's chunks (`refs/check.py`).
//! The HDF5 inputs hold every chunk index HDF5 writes (single chunk,
//! implicit, fixed array, extensible array, B-trees v1 and v2), compact,
//! contiguous and never-written data, and the filters deflate, shuffle
//! and fletcher32.

use std::path::{Path, PathBuf};

use nctk::{ErrorKind, HasErrorKind};
use nctk_test_support::require;
use nctk_tools::refs::{refs, refs_with_progress, RefsError, RefsOptions, RefsProgress};

const MAKE_INPUTS: &str = include_str!("refs/make_inputs.py");
const CHECK: &str = include_str!("refs/check.py");

/// The Python modules the scripts import.
const MODULES: &[&str] = &[
    "netCDF4", "numpy", "xarray", "zarr", "fsspec", "kerchunk", "h5py", "icechunk",
];

/// The inputs of `make_inputs.py`, written into `dir`; `None` when a peer is missing.
fn inputs(dir: &Path) -> Option<Vec<PathBuf>> {
    require::python_output(MODULES, MAKE_INPUTS, [dir])?;
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "nc" || e == "h5"))
        .collect();
    files.sort();
    Some(files)
}

#[test]
fn references_read_as_the_files_do_and_list_kerchunks_chunks() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(files) = inputs(tmp.path()) else {
        return;
    };
    assert_eq!(files.len(), 8, "{files:?}");
    let mut args = vec![];
    for file in &files {
        let out = file.with_extension("json");
        let input = file.to_str().unwrap();
        let summary = refs(&[input], &out, &RefsOptions::default())
            .unwrap_or_else(|e| panic!("{input}: {e}"));
        assert!(
            summary.variables > 0 && summary.chunks > 0,
            "{input}: {summary:?}"
        );
        args.push(file.clone());
        args.push(out);
        // The same references as an Icechunk repository.
        let repo = file.with_extension("icechunk");
        let again = refs(&[input], &repo, &RefsOptions::default())
            .unwrap_or_else(|e| panic!("{input} to Icechunk: {e}"));
        assert_eq!(again, summary, "{input}");
        args.push(file.clone());
        args.push(repo);
        // And in kerchunk's Parquet form, three references to a file
        // (fsspec's reader lists no subgroup: refused for those).
        let parq = file.with_extension("parq");
        let options = RefsOptions {
            record_size: Some(3),
            ..RefsOptions::default()
        };
        match refs(&[input], &parq, &options) {
            Ok(again) => {
                assert_eq!(again, summary, "{input}");
                args.push(file.clone());
                args.push(parq);
            }
            Err(RefsError::Subgroup { file, .. }) => {
                assert_eq!(file, input);
                assert!(!parq.exists());
                let ds = nctk::open(input).unwrap();
                assert!(ds.root().groups().next().is_some(), "{input}");
            }
            Err(e) => panic!("{input} to Parquet: {e}"),
        }
        // A classic file's fixed variables cut into pieces of a few rows
        // read the same.
        if std::fs::read(file).unwrap().starts_with(b"CDF") {
            let cut = file.with_extension("cut.json");
            let options = RefsOptions {
                chunk_bytes: Some(64),
                ..RefsOptions::default()
            };
            let pieces = refs(&[input], &cut, &options).unwrap().chunks;
            assert!(pieces > summary.chunks, "{input}: {pieces} pieces");
            args.push(file.clone());
            args.push(cut);
        }
    }
    let report = require::python_output(MODULES, CHECK, &args).expect("the peers were found above");
    let agreed = report.lines().filter(|l| l.ends_with("agree")).count();
    assert_eq!(agreed, args.len() / 2, "{report}");
    assert_eq!(
        report
            .lines()
            .filter(|l| l.ends_with("of the Icechunk repository agree"))
            .count(),
        files.len(),
        "every input checked through Icechunk: {report}"
    );
    assert!(
        report
            .lines()
            .any(|l| l.ends_with("of the Parquet references agree")),
        "some input checked through Parquet: {report}"
    );
    assert_eq!(
        report
            .lines()
            .filter(|l| l.ends_with("and kerchunk agree"))
            .count(),
        5,
        "every HDF5 input checked against kerchunk: {report}"
    );
}

/// A classic file with two record variables (interleaved records) and
/// three records, written by nctk; its length.
fn classic_with_records(path: &Path) -> u64 {
    let mut def = nctk::create(path, nctk::Format::Classic).unwrap();
    let t = def.add_unlimited_dimension("time").unwrap();
    let x = def.add_dimension("x", 5).unwrap();
    def.add_variable::<f64>("a", &[t, x]).unwrap();
    def.add_variable::<i32>("b", &[t]).unwrap();
    let mut ds = def.end_define().unwrap();
    let a: Vec<f64> = (0..15).map(f64::from).collect();
    ds.put_values("a", (0..3, ..), &a).unwrap();
    ds.put_values("b", (0..3,), &[1i32, 2, 3]).unwrap();
    ds.close().unwrap();
    std::fs::metadata(path).unwrap().len()
}

/// What a [`RefsProgress`] was told.
#[derive(Default)]
struct Recorded {
    totals: Vec<u64>,
    steps: Vec<String>,
    finished: bool,
}

impl RefsProgress for Recorded {
    fn set_total(&mut self, steps: u64) {
        self.totals.push(steps);
    }
    fn advance(&mut self, what: &str) {
        self.steps.push(what.to_string());
    }
    fn finish(&mut self) {
        self.finished = true;
    }
}

#[test]
fn progress_counts_each_input_opened_and_each_variable_referenced() {
    let tmp = tempfile::tempdir().unwrap();
    let files: Vec<String> = (0..5)
        .map(|i| {
            let path = tmp.path().join(format!("{i}.nc"));
            classic_with_records(&path);
            path.to_str().unwrap().to_string()
        })
        .collect();
    let mut recorded = Recorded::default();
    let out = tmp.path().join("all.json");
    let summary = refs_with_progress(&files, &out, &RefsOptions::default(), &mut recorded).unwrap();
    assert_eq!(summary.variables, 2);
    assert_eq!(recorded.totals, [5, 5 + 2]);
    let mut opened = recorded.steps[..5].to_vec();
    opened.sort();
    assert_eq!(opened, files);
    assert_eq!(recorded.steps[5..], ["a", "b"]);
    assert!(recorded.finished);
    // A failure still finishes the bar.
    let mut failed = Recorded::default();
    let missing = [tmp.path().join("none.nc").to_str().unwrap().to_string()];
    assert!(refs_with_progress(&missing, &out, &RefsOptions::default(), &mut failed).is_err());
    assert!(
        failed.finished && failed.steps.len() == 1,
        "{:?}",
        failed.steps
    );
}

#[test]
fn a_truncated_file_is_an_error_naming_it_and_leaves_no_output() {
    let tmp = tempfile::tempdir().unwrap();
    let nc = tmp.path().join("short.nc");
    let len = classic_with_records(&nc);
    let out = tmp.path().join("short.json");
    // whole: every record referenced
    let summary = refs(&[nc.to_str().unwrap()], &out, &RefsOptions::default()).unwrap();
    assert_eq!((summary.variables, summary.chunks), (2, 6));
    std::fs::remove_file(&out).unwrap();
    // the last record cut short: its references would point past the end
    let file = std::fs::OpenOptions::new().write(true).open(&nc).unwrap();
    file.set_len(len - 10).unwrap();
    let err = refs(&[nc.to_str().unwrap()], &out, &RefsOptions::default()).unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("short.nc") && text.contains("\"a\""),
        "{text}"
    );
    assert_eq!(err.kind(), ErrorKind::InvalidData, "{text}");
    assert!(!out.exists());
    let left: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().collect();
    assert_eq!(left.len(), 1, "no temporary left: {left:?}");
}

#[test]
fn a_damaged_netcdf4_file_is_an_error_naming_it() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(files) = inputs(tmp.path()) else {
        return;
    };
    let nc = files
        .iter()
        .find(|f| f.ends_with("nc4_chunked.nc"))
        .unwrap();
    let len = std::fs::metadata(nc).unwrap().len();
    std::fs::OpenOptions::new()
        .write(true)
        .open(nc)
        .unwrap()
        .set_len(len / 2)
        .unwrap();
    let out = tmp.path().join("damaged.json");
    let err = refs(&[nc.to_str().unwrap()], &out, &RefsOptions::default()).unwrap_err();
    assert!(err.to_string().contains("nc4_chunked.nc"), "{err}");
    assert_eq!(err.kind(), ErrorKind::InvalidData, "{err}");
    assert!(!out.exists());
}

#[test]
fn a_chunk_past_a_short_datasets_extent_without_fill_is_an_error() {
    let tmp = tempfile::tempdir().unwrap();
    if inputs(tmp.path()).is_none() {
        return;
    }
    // written with nc_set_fill(NC_NOFILL): the bytes of the last chunk of
    // "short" past its 3 records are not netCDF's fill
    let nc = tmp.path().join("nc4_short_nofill.nc4");
    let out = tmp.path().join("nofill.json");
    let err = refs(&[nc.to_str().unwrap()], &out, &RefsOptions::default()).unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("nc4_short_nofill.nc4")
            && text.contains("short")
            && text.contains("chunk [1]"),
        "{text}"
    );
    assert_eq!(err.kind(), ErrorKind::Unsupported, "{text}");
    assert!(!out.exists());
}

const MAKE_PLUGINS: &str = include_str!("refs/make_plugins.py");
const CHECK_H5PY: &str = include_str!("refs/check_h5py.py");

#[test]
fn plugin_filters_are_numcodecs_codecs_or_errors_naming_the_variable() {
    let tmp = tempfile::tempdir().unwrap();
    let modules = [MODULES, &["hdf5plugin"]].concat();
    if require::python_output(&modules, MAKE_PLUGINS, [tmp.path()]).is_none() {
        return;
    }
    let at = |name: &str| tmp.path().join(name);
    // zstd, blosc, bzip2: read through numcodecs as netCDF-C reads the file
    let plugins = at("plugins.h5");
    let out = at("plugins.json");
    refs(&[plugins.to_str().unwrap()], &out, &RefsOptions::default()).unwrap();
    let report = require::python_output(&modules, CHECK, [&plugins, &out]).unwrap();
    assert!(report.trim_end().ends_with("agree"), "{report}");
    // HDF5's LZ4 framing: imagecodecs' lz4h5 codec, read as h5py reads
    // the file (netCDF-C has no LZ4 plugin here); no Zarr v3 form for
    // Icechunk, which is refused naming the variable and the codec
    let lz4 = at("lz4.h5");
    let out = at("lz4.json");
    refs(&[lz4.to_str().unwrap()], &out, &RefsOptions::default()).unwrap();
    let modules = [&modules[..], &["imagecodecs"]].concat();
    let Some(report) = require::python_output(&modules, CHECK_H5PY, [&lz4, &out]) else {
        return;
    };
    assert!(report.trim_end().ends_with("values agree"), "{report}");
    let repo = at("lz4.icechunk");
    let err = refs(&[lz4.to_str().unwrap()], &repo, &RefsOptions::default()).unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("packed") && text.contains("imagecodecs_lz4h5"),
        "{text}"
    );
    assert!(!repo.exists());
    // a chunk that skipped its filter: no reference could be decoded
    // right, so none is written
    let out = at("bad.json");
    let err = refs(
        &[at("skipped.h5").to_str().unwrap()],
        &out,
        &RefsOptions::default(),
    )
    .unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("skipped.h5") && text.contains("mixed") && text.contains("chunk [1, 0]"),
        "{text}"
    );
    assert_eq!(err.kind(), ErrorKind::Unsupported, "{text}");
    assert!(!out.exists());
}

/// Corpus classic files written by netCDF-C (ncgen: every classic type,
/// char arrays, scalars, record variables; CDF-1, CDF-2, CDF-5) and by
/// netCDF-Java.
const CORPUS: &[&str] = &[
    "generated/from-cdl/netcdf-c/ncgen/c0.nc3.nc",
    "generated/from-cdl/netcdf-c/ncgen/c0.nc6.nc",
    "generated/from-cdl/netcdf-c/ncgen/c0.nc5.nc",
    "netcdf-java/cdm/core/src/test/data/ncml/nested/1981/Test19981.nc",
];

#[test]
fn corpus_classic_files_read_through_their_references() {
    let tmp = tempfile::tempdir().unwrap();
    let mut args = vec![];
    for (i, rel) in CORPUS.iter().enumerate() {
        let Some(path) = require::corpus_path(rel) else {
            return;
        };
        let out = tmp.path().join(format!("{i}.json"));
        refs(&[path.to_str().unwrap()], &out, &RefsOptions::default())
            .unwrap_or_else(|e| panic!("{rel}: {e}"));
        let repo = tmp.path().join(format!("{i}.icechunk"));
        refs(&[path.to_str().unwrap()], &repo, &RefsOptions::default())
            .unwrap_or_else(|e| panic!("{rel} to Icechunk: {e}"));
        args.extend([path.clone(), out, path, repo]);
    }
    let Some(report) = require::python_output(MODULES, CHECK, &args) else {
        return;
    };
    let agreed = report
        .lines()
        .filter(|l| l.ends_with("values agree") || l.ends_with("Icechunk repository agree"))
        .count();
    assert_eq!(agreed, 2 * CORPUS.len(), "{report}");
}

const MAKE_SERIES: &str = include_str!("refs/make_series.py");
const CHECK_SERIES: &str = include_str!("refs/check_series.py");

/// The files of `make_series.py` written into `dir` (`None` when a peer
/// is missing) and a function naming one of them.
fn series(dir: &Path) -> Option<impl Fn(&str) -> String + '_> {
    require::python_output(MODULES, MAKE_SERIES, [dir])?;
    Some(move |name: &str| dir.join(name).to_str().unwrap().to_string())
}

#[test]
fn files_along_time_read_as_open_mfdataset_reads_them() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(at) = series(tmp.path()) else {
        return;
    };
    // the unlimited dimension by default, and named
    for (prefix, concat_dim) in [("nc4", None), ("cdf", Some("time".to_string()))] {
        let files: Vec<String> = (0..4).map(|i| at(&format!("{prefix}_{i}.nc"))).collect();
        let out = tmp.path().join(format!("{prefix}.json"));
        let options = RefsOptions {
            concat_dim,
            ..RefsOptions::default()
        };
        let summary = refs(&files, &out, &options).unwrap();
        assert_eq!(summary.variables, 4, "{prefix}: {summary:?}");
        // The same in kerchunk's Parquet form, two references to a file,
        // one input open at a time (beside the first).
        let parq = tmp.path().join(format!("{prefix}.parq"));
        let options = RefsOptions {
            record_size: Some(2),
            window: Some(1),
            ..options
        };
        assert_eq!(refs(&files, &parq, &options).unwrap(), summary, "{prefix}");
        let both = [&out, &parq].map(|p| p.to_str().unwrap()).join("\n");
        let args = std::iter::once(both).chain(files);
        let report = require::python_output(MODULES, CHECK_SERIES, args)
            .expect("the peers were found above");
        assert_eq!(report.trim(), "agree", "{prefix}");
    }
}

/// The child's environment variable in
/// [`more_inputs_than_open_files_are_read_a_window_at_a_time`]: the
/// directory of its inputs.
const MANY_INPUTS: &str = "NCTK_TEST_REFS_MANY_INPUTS";

/// More inputs (160 netCDF-4 files) than the process may open files
/// (100, in a child process) make one dataset along time, in each output
/// form, read a window of inputs at a time: xarray reads the references
/// as `open_mfdataset` reads the files. With every input open at once,
/// the same inputs fail on the limit. `temp` grows past the size of a
/// variable that may be inlined in the second window (its chunks held
/// until then, streamed after); one file of the third window is 2 steps
/// long where `time` is chunked by 3, so `time` is inlined and the
/// inputs read before then are read again for its values.
#[test]
fn more_inputs_than_open_files_are_read_a_window_at_a_time() {
    if let Ok(dir) = std::env::var(MANY_INPUTS) {
        return many_inputs_child(Path::new(&dir));
    }
    if !require::python(MODULES) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let mut step0 = 0;
    let files: Vec<String> = (0..160)
        .map(|i| {
            let path = tmp.path().join(format!("{i:03}.nc"));
            let steps = if i == 140 { 2 } else { 3 };
            series_file(&path, step0, steps);
            step0 += steps;
            path.to_str().unwrap().to_string()
        })
        .collect();
    rerun_as_child(
        "more_inputs_than_open_files_are_read_a_window_at_a_time",
        "ulimit -n 100",
        [(MANY_INPUTS, tmp.path().as_os_str())],
    );
    let outputs = ["all.json", "all.parq", "all.icechunk"].map(|o| tmp.path().join(o));
    let refs = outputs.map(|p| p.to_str().unwrap().to_string()).join("\n");
    let args = std::iter::once(refs).chain(files);
    let report =
        require::python_output(MODULES, CHECK_SERIES, args).expect("the peers were found above");
    // (icechunk for Python may log a warning first)
    assert_eq!(report.lines().last(), Some("agree"), "{report}");
}

/// Runs the test `name` of this binary again, alone, in a child process
/// with the environment `env` after the shell command `setup` (a lower
/// limit), and fails unless it passes.
fn rerun_as_child<'a>(
    name: &str,
    setup: &str,
    env: impl IntoIterator<Item = (&'a str, &'a std::ffi::OsStr)>,
) {
    let exe = std::env::current_exe().unwrap();
    let status = std::process::Command::new("sh")
        .args(["-c", &format!("{setup} && exec \"$0\" \"$@\"")])
        .arg(exe)
        .args([name, "--exact", "--nocapture"])
        .envs(env)
        .status()
        .unwrap();
    assert!(status.success(), "{name} in a child process: {status}");
}

/// The child of [`more_inputs_than_open_files_are_read_a_window_at_a_time`],
/// under the lower limit: references of the inputs in `dir` in each form.
fn many_inputs_child(dir: &Path) {
    let mut files: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path().to_str().unwrap().to_string())
        .filter(|p| p.ends_with(".nc"))
        .collect();
    files.sort();
    let all_open = RefsOptions {
        window: Some(files.len()),
        ..RefsOptions::default()
    };
    let err = refs(&files, &dir.join("fails.json"), &all_open).unwrap_err();
    assert!(err.to_string().contains("os error 24"), "{err}");
    let options = RefsOptions {
        record_size: Some(7),
        ..RefsOptions::default()
    };
    for out in ["all.json", "all.parq", "all.icechunk"] {
        let summary =
            refs(&files, &dir.join(out), &options).unwrap_or_else(|e| panic!("{out}: {e}"));
        assert_eq!(summary.variables, 3, "{out}: {summary:?}");
    }
    // `time` inlined: one chunk of every step's value.
    let doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("all.json")).unwrap()).unwrap();
    let zarray: serde_json::Value =
        serde_json::from_str(doc["refs"]["time/.zarray"].as_str().unwrap()).unwrap();
    assert_eq!(zarray["chunks"], serde_json::json!([479]), "{zarray}");
    assert!(doc["refs"]["time/0"]
        .as_str()
        .unwrap()
        .starts_with("base64:"));
}

/// A netCDF-4 file of `steps` steps of a time line from `step0`: `time`
/// chunked by 3, `temp` (time, x of 1000) and `flag` by one step, their
/// values the file's own.
fn series_file(path: &Path, step0: usize, steps: usize) {
    let mut def = nctk::create(path, nctk::Format::Netcdf4).unwrap();
    let t = def.add_unlimited_dimension("time").unwrap();
    let x = def.add_dimension("x", 1000).unwrap();
    def.add_variable::<f64>("time", &[t])
        .unwrap()
        .set_chunking(&[3])
        .unwrap();
    def.add_variable::<f32>("temp", &[t, x])
        .unwrap()
        .set_chunking(&[1, 1000])
        .unwrap();
    def.add_variable::<i16>("flag", &[t])
        .unwrap()
        .set_chunking(&[1])
        .unwrap();
    let mut ds = def.end_define().unwrap();
    let time: Vec<f64> = (step0..step0 + steps).map(|s| s as f64).collect();
    let temp: Vec<f32> = (0..steps * 1000)
        .map(|k| (step0 * 1000 + k) as f32 / 8.0)
        .collect();
    let flag: Vec<i16> = (step0..step0 + steps).map(|s| (s % 5) as i16).collect();
    ds.put_values("time", (0..steps,), &time).unwrap();
    ds.put_values("temp", (0..steps, ..), &temp).unwrap();
    ds.put_values("flag", (0..steps,), &flag).unwrap();
    ds.close().unwrap();
}

/// The child's environment variable in
/// [`icechunk_repositories_on_s3_read_as_the_files_do`]: the S3 server's
/// endpoint.
const S3_ENDPOINT: &str = "NCTK_TEST_REFS_S3_ENDPOINT";

/// The child's environment variable in
/// [`icechunk_repositories_on_s3_read_as_the_files_do`]: the directory of
/// its inputs.
const S3_INPUTS: &str = "NCTK_TEST_REFS_S3_INPUTS";

/// The environment of the S3 test's child and Python check: moto's key
/// pair (any), its region, no AWS files.
fn s3_env(tmp: &Path, endpoint: &str) -> Vec<(&'static str, std::ffi::OsString)> {
    let none = tmp.join("no-aws-files");
    let inputs = tmp.join("in");
    vec![
        ("AWS_ACCESS_KEY_ID", "test".into()),
        ("AWS_SECRET_ACCESS_KEY", "test".into()),
        ("AWS_REGION", "us-east-1".into()),
        ("AWS_CONFIG_FILE", none.clone().into()),
        ("AWS_SHARED_CREDENTIALS_FILE", none.into()),
        ("AWS_ENDPOINT_URL", endpoint.into()),
        (S3_ENDPOINT, endpoint.into()),
        (S3_INPUTS, inputs.into()),
    ]
}

/// Icechunk on S3 (moto): 24 local netCDF-4 files' references written to
/// a repository on S3 (`http://host:port/bucket/prefix#mode=s3`, the key
/// pair from the environment), and the same files' copies on S3 (inputs
/// `...#mode=bytes,s3`) referenced from a local repository through a
/// container `s3://bucket/` with the server's endpoint: icechunk for
/// Python reads both as `open_mfdataset` reads the files. A prefix that
/// holds a repository is refused and left as it is; a failure leaves
/// nothing under its prefix.
#[test]
fn icechunk_repositories_on_s3_read_as_the_files_do() {
    if let Ok(endpoint) = std::env::var(S3_ENDPOINT) {
        return s3_child(&endpoint);
    }
    if !require::python(MODULES) {
        return;
    }
    let Some(moto) = nctk_test_servers::moto() else {
        return;
    };
    moto.create_bucket("refs").unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("in");
    std::fs::create_dir(&dir).unwrap();
    let files: Vec<String> = (0..24)
        .map(|i| {
            let path = dir.join(format!("{i:03}.nc"));
            series_file(&path, 3 * i, 3);
            path.to_str().unwrap().to_string()
        })
        .collect();
    moto.upload_dir("refs", "in", &dir).unwrap();
    let env = s3_env(tmp.path(), &moto.endpoint());
    rerun_as_child(
        "icechunk_repositories_on_s3_read_as_the_files_do",
        "true",
        env.iter().map(|(k, v)| (*k, v.as_os_str())),
    );
    assert!(!moto
        .list_keys("refs", "series.icechunk/")
        .unwrap()
        .is_empty());
    assert_eq!(
        moto.list_keys("refs", "bad.icechunk/").unwrap(),
        Vec::<String>::new()
    );
    let local = dir.join("remote.icechunk");
    let refs = format!("s3://refs/series.icechunk\n{}", local.to_str().unwrap());
    let report = std::process::Command::new("python3")
        .arg("-c")
        .arg(CHECK_SERIES)
        .arg(refs)
        .args(&files)
        .envs(env)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&report.stdout);
    assert!(
        report.status.success() && stdout.lines().last() == Some("agree"),
        "{stdout}\n{}",
        String::from_utf8_lossy(&report.stderr)
    );
}

/// The child of [`icechunk_repositories_on_s3_read_as_the_files_do`], in
/// the S3 environment: the repositories, the refusal and the failure.
fn s3_child(endpoint: &str) {
    let dir = PathBuf::from(std::env::var_os(S3_INPUTS).unwrap());
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path().to_str().unwrap().to_string())
        .filter(|p| p.ends_with(".nc"))
        .collect();
    files.sort();
    let on_s3 = |prefix: &str| PathBuf::from(format!("{endpoint}/refs/{prefix}#mode=s3"));
    let options = RefsOptions {
        window: Some(5),
        ..RefsOptions::default()
    };
    let repo = on_s3("series.icechunk");
    let summary = refs(&files, &repo, &options).unwrap();
    assert_eq!(summary.variables, 3, "{summary:?}");
    // There already: refused, and left as it is.
    let err = refs(&files, &repo, &options).unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("series.icechunk") && text.contains("already"),
        "{text}"
    );
    // The files' copies on S3, referenced from a local repository.
    let remote: Vec<String> = files
        .iter()
        .map(|f| {
            let name = Path::new(f).file_name().unwrap().to_str().unwrap();
            format!("{endpoint}/refs/in/{name}#mode=bytes,s3")
        })
        .collect();
    refs(&remote, &dir.join("remote.icechunk"), &options).unwrap();
    // A file that does not line up, found once the repository is made:
    // nothing is left under its prefix.
    let odd = dir.join("odd.nc");
    classic_with_records(&odd);
    let bad = [files[0].clone(), odd.to_str().unwrap().to_string()];
    let err = refs(&bad, &on_s3("bad.icechunk"), &options).unwrap_err();
    assert!(matches!(err, RefsError::Mismatch { .. }), "{err}");
}

#[test]
fn files_that_do_not_line_up_are_an_error_naming_the_file_and_variable() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(at) = series(tmp.path()) else {
        return;
    };
    let out = tmp.path().join("bad.json");
    for (odd, var) in [
        ("nc4_other_chunks.nc", "\"temp\""),
        ("nc4_no_temp.nc", "\"temp\""),
        ("cdf_1.nc", "\"temp\""),
    ] {
        let files = [at("nc4_0.nc"), at(odd)];
        let err = refs(&files, &out, &RefsOptions::default()).unwrap_err();
        let text = err.to_string();
        assert!(matches!(err, RefsError::Mismatch { .. }), "{odd}: {err:?}");
        assert!(
            text.starts_with(&at(odd)) && text.contains(var),
            "{odd}: {text}"
        );
        assert_eq!(err.kind(), ErrorKind::InvalidInput, "{text}");
        assert!(!out.exists());
    }
    // no such dimension to combine along
    let files = [at("nc4_0.nc"), at("nc4_1.nc")];
    let options = RefsOptions {
        concat_dim: Some("level".into()),
        ..RefsOptions::default()
    };
    let err = refs(&files, &out, &options).unwrap_err();
    assert!(err.to_string().contains("\"level\""), "{err}");
    assert!(!out.exists());
}
