//! Readers of a classic file while `nctk::append` adds records to it (a
//! thread appending record after record, `sync` after each, as a logger
//! would): nctk in a thread, netCDF4-python and `ncdump` in processes of
//! their own open and read the file over and over. Whatever record count
//! a reader sees, every counted record holds the values appended (never
//! fill values: a record is counted only once its data is written), and
//! the count never goes back.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use nctk::Format;
use nctk_test_support::require;

/// Values a record.
const X: usize = 1024;

/// How long the appender runs, and the most records it adds.
const RUN: Duration = Duration::from_millis(2500);
const MAX_RECORDS: usize = 4000;

/// `v`'s values in record `r` (exact in f32 for every record here).
fn row(r: usize) -> Vec<f32> {
    (0..X).map(|j| (r * X + j) as f32 * 0.5).collect()
}

/// Creates the file with one record: `time(t)`, `v(t, x)` and
/// `last(t)`, the record's number, written last in each record.
fn create(path: &Path) {
    let mut def = nctk::create(path, Format::Classic).unwrap();
    let t = def.add_unlimited_dimension("t").unwrap();
    let x = def.add_dimension("x", X as u64).unwrap();
    def.add_variable::<f64>("time", &[t]).unwrap();
    def.add_variable::<f32>("v", &[t, x]).unwrap();
    def.add_variable::<i32>("last", &[t]).unwrap();
    let mut ds = def.end_define().unwrap();
    append_record(&mut ds, 0, Duration::ZERO);
    ds.close().unwrap();
}

/// Writes record `r`, a variable at a time with a pause after each (a
/// logger's values come in one by one): a reader that counted the record
/// before `sync` would find fill values there.
fn append_record(ds: &mut nctk::DatasetMut, r: usize, pause: Duration) {
    ds.put_values("time", (r..r + 1,), &[r as f64]).unwrap();
    std::thread::sleep(pause);
    ds.put_values("v", (r, ..), &row(r)).unwrap();
    std::thread::sleep(pause);
    ds.put_values("last", (r..r + 1,), &[r as i32]).unwrap();
}

/// Appends records until [`RUN`] has passed; the records in the file.
fn appender(path: &Path) -> usize {
    let mut ds = nctk::append(path).unwrap();
    let start = Instant::now();
    let mut r = 1;
    while start.elapsed() < RUN && r < MAX_RECORDS {
        append_record(&mut ds, r, Duration::from_micros(300));
        ds.sync().unwrap();
        r += 1;
    }
    ds.close().unwrap();
    r
}

/// One reading by nctk: the record count, after checking every counted
/// record's `time` and `last` and `v` in the last and one other record.
fn nctk_reads(path: &Path, pick: usize) -> Result<usize, String> {
    let ds = nctk::open(path).map_err(|e| e.to_string())?;
    let n = ds.dimension("t").expect("t").len() as usize;
    let get = |name: &str| ds.variable(name).expect("a variable");
    let last: Vec<i32> = get("last").get_values(..).map_err(|e| e.to_string())?;
    let time: Vec<f64> = get("time").get_values(..).map_err(|e| e.to_string())?;
    let want_last: Vec<i32> = (0..n as i32).collect();
    if last != want_last || time != (0..n).map(|r| r as f64).collect::<Vec<_>>() {
        return Err(format!("{n} records counted, last = {last:?}"));
    }
    for r in [n - 1, pick % n] {
        let v: Vec<f32> = get("v").get_values((r, ..)).map_err(|e| e.to_string())?;
        if v != row(r) {
            return Err(format!("{n} records counted, record {r} of v differs"));
        }
    }
    Ok(n)
}

/// netCDF4-python's reader: reads the file (argv[1]) over and over until
/// argv[2] exists, checking as `nctk_reads` does; prints `ready` once
/// it has started, then {"reads": N, "counts": [min, max], "bad": [...]}.
const PY_READER: &str = r#"
import json, os, random, sys
from time import monotonic
import netCDF4, numpy as np
path, stop = sys.argv[1], sys.argv[2]
X = 1024
print("ready", flush=True)
reads, counts, bad = 0, [], []
deadline = monotonic() + 120  # should the test end without saying stop
while (not os.path.exists(stop) or reads == 0) and monotonic() < deadline:
    with netCDF4.Dataset(path) as ds:
        ds.set_auto_mask(False)
        n = len(ds.dimensions["t"])
        last = ds["last"][:]
        time = ds["time"][:]
        if not (np.array_equal(last, np.arange(n)) and np.array_equal(time, np.arange(n))):
            bad.append(f"{n} records counted, last = {last[-5:].tolist()}")
        for r in (n - 1, random.randrange(n)):
            want = (np.arange(X) + r * X).astype("f4") * np.float32(0.5)
            if not np.array_equal(ds["v"][r, :], want):
                bad.append(f"{n} records counted, record {r} of v differs")
    if counts and n < counts[-1]:
        bad.append(f"the count went back from {counts[-1]} to {n}")
    counts.append(n)
    reads += 1
print(json.dumps({"reads": reads, "counts": [min(counts), max(counts)], "bad": bad[:5]}))
"#;

/// One `ncdump -v last`: the record count, after checking that `last`
/// holds every counted record's number (`_`, a fill value, would not).
fn ncdump_reads(path: &Path) -> Result<usize, String> {
    let out = Command::new("ncdump")
        .args(["-v", "last"])
        .arg(path)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    let n: usize = text
        .split_once("t = UNLIMITED ; // (")
        .and_then(|(_, rest)| rest.split_once(' '))
        .and_then(|(n, _)| n.parse().ok())
        .ok_or_else(|| format!("no record count in {text}"))?;
    let data = text
        .split_once(" last =")
        .map(|(_, rest)| rest.split(';').next().unwrap_or(""))
        .ok_or_else(|| format!("no data in {text}"))?;
    let values: Vec<&str> = data
        .split([',', ' ', '\n'])
        .filter(|s| !s.is_empty())
        .collect();
    let want: Vec<String> = (0..n).map(|r| r.to_string()).collect();
    if values != want {
        return Err(format!("{n} records counted, last = {values:?}"));
    }
    Ok(n)
}

/// Calls `read` until `done`, checking that the counts never go back;
/// the number of reads and the counts' range.
fn keep_reading(
    done: &AtomicBool,
    mut read: impl FnMut(usize) -> Result<usize, String>,
    who: &str,
) -> (usize, usize, usize) {
    let (mut reads, mut low, mut high) = (0, usize::MAX, 0);
    while !done.load(Ordering::Acquire) || reads == 0 {
        let n = read(reads).unwrap_or_else(|e| panic!("{who}: {e}"));
        assert!(n >= high, "{who}: the count went back from {high} to {n}");
        (low, high) = (low.min(n), n);
        reads += 1;
    }
    (reads, low, high)
}

pub fn readers_while_appending() {
    if !require::tools(&["ncdump"]) || !require::python(&["netCDF4", "numpy"]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("log.nc");
    create(&path);
    let stop = dir.path().join("stop");
    let mut python = Command::new("python3")
        .args(["-c", PY_READER])
        .arg(&path)
        .arg(&stop)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut said = BufReader::new(python.stdout.take().unwrap());
    let mut line = String::new();
    said.read_line(&mut line).unwrap();
    assert_eq!(line, "ready\n", "the netCDF4-python reader did not start");
    let done = Arc::new(AtomicBool::new(false));
    let (records, by_nctk, by_ncdump) = std::thread::scope(|s| {
        let nctk = s.spawn(|| keep_reading(&done, |i| nctk_reads(&path, i * 7919), "nctk"));
        let ncdump = s.spawn(|| keep_reading(&done, |_| ncdump_reads(&path), "ncdump"));
        let records = appender(&path);
        done.store(true, Ordering::Release);
        (records, nctk.join().unwrap(), ncdump.join().unwrap())
    });
    std::fs::write(&stop, b"").unwrap();
    line.clear();
    said.read_line(&mut line).unwrap();
    assert!(
        python.wait().unwrap().success(),
        "the netCDF4-python reader failed"
    );
    let report: serde_json::Value = serde_json::from_str(&line).unwrap();
    eprintln!(
        "append: {records} records; nctk {by_nctk:?}, ncdump {by_ncdump:?}, netCDF4 {report}"
    );
    assert_eq!(report["bad"], serde_json::json!([]), "netCDF4-python");
    // Each reader saw the file grow, many times.
    let py_counts = &report["counts"];
    assert!(report["reads"].as_u64().unwrap() >= 5, "{report}");
    assert!(py_counts[0].as_u64() < py_counts[1].as_u64(), "{report}");
    for (who, (reads, low, high)) in [("nctk", by_nctk), ("ncdump", by_ncdump)] {
        assert!(
            reads >= 10 && low < high,
            "{who}: {reads} reads, {low}..{high}"
        );
    }
    assert_eq!(nctk_reads(&path, 1).unwrap(), records);
}
