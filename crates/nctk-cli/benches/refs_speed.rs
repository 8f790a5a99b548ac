//! `nctk refs` against the Python tools that make virtual Zarr references
//! (issue 28), in the same run. Three sections, chosen by the arguments
//! (`local` when none is given, `all` for the three):
//!
//! * `local`: 100 netCDF-4 files written by netCDF-C (`refs/make_files.py`),
//!   each with 10 variables of 1,000 zlib chunks, generated once under
//!   `bench-data/refs100/` (or `$NCTK_BENCH_DATA`), combined along time.
//!   Peers: kerchunk (`SingleHdf5ToZarr` per file, then `MultiZarrToZarr`)
//!   and VirtualiZarr (its HDF parser per file, `xr.concat`, kerchunk JSON).
//! * `s3`: the same 100 files uploaded to moto's S3 server, read through a
//!   `FaultProxy` adding 20 ms to every request, which counts the requests
//!   of each tool. nctk reads `http://proxy/bucket/key#mode=bytes,s3`;
//!   kerchunk reads `s3://` through s3fs, VirtualiZarr through obstore's
//!   `S3Store`.
//! * `classic`: 100 CDF-2 files written by netCDF-C (`refs/make_files.py classic`),
//!   each 100 records of eight float32 record variables and fixed
//!   variables, under `bench-data/refs_classic100/`. Peers: kerchunk
//!   (`NetCDF3ToZarr` + `MultiZarrToZarr`) and VirtualiZarr's
//!   `NetCDF3Parser` (which runs kerchunk's `NetCDF3ToZarr`).
//!
//! nctk is the library call `nctk_tools::refs::refs` (what `nctk refs`
//! runs), best of 3; each peer runs once (seconds of its work, imports
//! excluded), without inlining any chunk (`inline_threshold=0` in both of
//! kerchunk's steps), as nctk. Every peer's chunk references are checked
//! against nctk's, key by key: the same file, offset and length.
//!
//! Run: `cargo bench -p nctk-cli --bench refs_speed [-- local|s3|classic|all]`
//! (add `ours` to time nctk alone, without the peers).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use nctk_bench_support::{data_dir, python};
use nctk_test_servers::{FaultProxy, MotoServer, Stats};
use nctk_tools::refs::{refs, RefsOptions, RefsSummary};
use serde_json::Value;

const FILES: usize = 100;
const RUNS: usize = 3;
const MAKE_FILES: &str = include_str!("refs/make_files.py");
const PEERS: &str = include_str!("refs/peers.py");

/// The latency the proxy adds to each request of the `s3` section.
const LATENCY: Duration = Duration::from_millis(20);
const BUCKET: &str = "refs";
/// moto takes any credentials; the tools sign with these.
const KEY: &str = "bench";
const SECRET: &str = "benchsecret";

fn main() {
    let asked: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-') && a != "ours")
        .collect();
    let wants = |name: &str| {
        asked.iter().any(|a| a == name || a == "all") || (asked.is_empty() && name == "local")
    };
    if wants("local") {
        local();
    }
    if wants("s3") {
        s3();
    }
    if wants("classic") {
        classic();
    }
}

/// The 100 netCDF-4 inputs, made once.
fn netcdf4_inputs() -> Vec<PathBuf> {
    inputs("netcdf4", "refs100", "f")
}

/// `FILES` inputs of `kind` (`refs/make_files.py`) under the data
/// directory's `name`, named `{prefix}000.nc`...
fn inputs(kind: &str, name: &str, prefix: &str) -> Vec<PathBuf> {
    let dir = data_dir().join(name);
    let count = FILES.to_string();
    python(
        MAKE_FILES,
        &[dir.as_path(), Path::new(&count), Path::new(kind)],
    )
    .expect("making the inputs needs python3 with netCDF4 and numpy");
    (0..FILES)
        .map(|i| dir.join(format!("{prefix}{i:03}.nc")))
        .collect()
}

/// A temporary output path of this run.
fn temp_out(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("nctk-refs-bench-{}-{name}", std::process::id()))
}

/// nctk's best time of `RUNS` over `inputs` into `out` (kept); `before`
/// is called before each run, `after` with each run's summary.
fn time_nctk(
    inputs: &[String],
    out: &Path,
    before: impl Fn(),
    mut after: impl FnMut(&RefsSummary),
) -> f64 {
    let mut best = f64::MAX;
    for _ in 0..RUNS {
        before();
        let start = Instant::now();
        let summary = refs(inputs, out, &RefsOptions::default()).expect("nctk refs");
        best = best.min(start.elapsed().as_secs_f64());
        after(&summary);
    }
    best
}

/// Whether the peers run (not when the arguments say `ours`).
fn with_peers() -> bool {
    !std::env::args().any(|a| a == "ours")
}

/// Runs peer `which` of `refs/peers.py` with `args`, its references
/// written to `out`; its seconds, or `None` when it failed (reported).
fn peer(which: &str, out: &Path, args: &[String]) -> Option<f64> {
    let mut all: Vec<&Path> = vec![Path::new(which), out];
    all.extend(args.iter().map(Path::new));
    python(PEERS, &all).and_then(|s| s.trim().parse::<f64>().ok())
}

/// How a peer's chunk references compare with nctk's.
#[derive(Debug, Default)]
struct Agreement {
    /// Chunks both list with the same file (last path segment), offset
    /// and length.
    same: usize,
    /// Chunks both list, at different bytes.
    differ: usize,
    /// Chunks only nctk lists.
    only_ours: usize,
    /// Chunks only the peer lists.
    only_theirs: usize,
}

impl std::fmt::Display for Agreement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.differ + self.only_ours + self.only_theirs == 0 {
            write!(f, "all {} the same", self.same)
        } else {
            write!(
                f,
                "{} the same, {} differ, {} only nctk's, {} only the peer's",
                self.same, self.differ, self.only_ours, self.only_theirs
            )
        }
    }
}

/// The chunk references of a kerchunk JSON document (keys `var/i.j.k`
/// whose value is `[url, offset, length]`), but those of the variables
/// `skip`: key -> (file name, offset, length).
fn chunk_refs(path: &Path, skip: &[&str]) -> BTreeMap<String, (String, u64, u64)> {
    let text = std::fs::read(path).expect("reading references");
    let doc: Value = serde_json::from_slice(&text).expect("a JSON document");
    let refs = doc["refs"].as_object().expect("a reference document");
    let mut out = BTreeMap::new();
    for (key, value) in refs {
        let Some((var, chunk)) = key.rsplit_once('/') else {
            continue;
        };
        let is_chunk = !chunk.is_empty() && chunk.bytes().all(|b| b.is_ascii_digit() || b == b'.');
        if !is_chunk || skip.contains(&var) {
            continue;
        }
        let Some([url, offset, length]) = value.as_array().map(Vec::as_slice) else {
            // inline bytes: counted as a reference of no file
            out.insert(key.clone(), (String::new(), 0, 0));
            continue;
        };
        let file = url.as_str().unwrap_or("").rsplit('/').next().unwrap_or("");
        out.insert(
            key.clone(),
            (
                file.to_string(),
                offset.as_u64().unwrap_or(u64::MAX),
                length.as_u64().unwrap_or(u64::MAX),
            ),
        );
    }
    out
}

/// Compares the chunk references of the peer's `theirs` with nctk's
/// `ours` (both kerchunk JSON), the variables `skip` left out.
fn agreement(ours: &Path, theirs: &Path, skip: &[&str]) -> Agreement {
    let ours = chunk_refs(ours, skip);
    let theirs = chunk_refs(theirs, skip);
    let mut a = Agreement::default();
    for (key, r) in &ours {
        match theirs.get(key) {
            Some(t) if t == r => a.same += 1,
            Some(_) => a.differ += 1,
            None => a.only_ours += 1,
        }
    }
    a.only_theirs = theirs.keys().filter(|k| !ours.contains_key(*k)).count();
    a
}

/// A table row of a peer: its seconds, nctk's speed-up, its requests (when
/// counted) and how its references compare.
fn peer_row(
    label: &str,
    seconds: Option<f64>,
    ours: f64,
    requests: Option<&Stats>,
    same: Option<Agreement>,
) {
    let requests = requests.map_or(String::new(), |s| {
        format!(
            " {} | {:.1} |",
            s.requests(),
            s.requests() as f64 / FILES as f64
        )
    });
    match seconds {
        Some(t) => println!(
            "| {label} | {t:.3} | {:.1}x |{requests} {} |",
            t / ours,
            same.map_or("n/a".to_string(), |a| a.to_string())
        ),
        None => println!("| {label} | failed | n/a |{requests} n/a |"),
    }
}

fn local() {
    let files = netcdf4_inputs();
    let urls: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
    let out = temp_out("local.json");
    let ours = time_nctk(
        &urls,
        &out,
        || {},
        |summary| {
            assert_eq!(summary.variables, 11);
            // each file's time coordinate is one chunk
            assert_eq!(summary.chunks, FILES * 10 * 1000 + FILES, "{summary:?}");
        },
    );
    println!("References for {FILES} netCDF-4 files (10 variables x 1,000 chunks each), local");
    local_table(
        ours,
        &out,
        &urls,
        &[("kerchunk", "kerchunk"), ("virtualizarr", "virtualizarr")],
    );
}

/// The table of a local section: nctk's `ours` seconds (its references in
/// `out`, removed after), then each peer `(which, label)` run over `urls`.
fn local_table(ours: f64, out: &Path, urls: &[String], peers: &[(&str, &str)]) {
    println!();
    println!("| tool | seconds | nctk speed-up | chunk references against nctk's |");
    println!("| --- | --- | --- | --- |");
    println!("| nctk refs (best of {RUNS}) | {ours:.3} | 1.00x | |");
    for &(which, label) in peers.iter().filter(|_| with_peers()) {
        let theirs = temp_out(&format!("{which}.json"));
        let t = peer(which, &theirs, urls);
        // kerchunk's MultiZarrToZarr writes the time coordinate inline
        let same = t.map(|_| agreement(out, &theirs, &["time"]));
        peer_row(label, t, ours, None, same);
        std::fs::remove_file(&theirs).ok();
    }
    std::fs::remove_file(out).ok();
    println!();
}

/// How many requests each object of `stats` got: (fewest, most).
fn per_object(stats: &Stats) -> (usize, usize) {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for seen in &stats.seen {
        *counts.entry(seen.path.as_str()).or_default() += 1;
    }
    let fewest = counts.values().copied().min().unwrap_or(0);
    let most = counts.values().copied().max().unwrap_or(0);
    (fewest, most)
}

/// The requests of `stats` by method, `GET 300, HEAD 100`.
fn by_method(stats: &Stats) -> String {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for seen in &stats.seen {
        let method = match (seen.method.as_str(), &seen.range) {
            ("GET", Some(_)) => "ranged GET",
            ("GET", None) if seen.query.is_some() => "GET with a query (listing)",
            (m, _) => m,
        };
        *counts.entry(method).or_default() += 1;
    }
    let counts: Vec<String> = counts.iter().map(|(m, n)| format!("{m} {n}")).collect();
    counts.join(", ")
}

fn s3() {
    let files = netcdf4_inputs();
    let dir = files[0].parent().expect("in a directory");
    let moto = MotoServer::start().expect("the s3 section needs moto_server (moto[server])");
    moto.create_bucket(BUCKET).expect("creating the bucket");
    eprintln!("uploading {} to moto ...", dir.display());
    let uploaded = moto
        .upload_dir(BUCKET, "refs100", dir)
        .expect("uploading the inputs");
    assert!(uploaded >= FILES, "{uploaded} objects uploaded");
    let proxy = FaultProxy::start(&moto.endpoint()).expect("starting the proxy");
    proxy.set_latency(LATENCY);
    let endpoint = proxy.endpoint();
    std::env::set_var("AWS_ACCESS_KEY_ID", KEY);
    std::env::set_var("AWS_SECRET_ACCESS_KEY", SECRET);
    std::env::set_var("AWS_REGION", "us-east-1");
    let keys: Vec<String> = (0..FILES)
        .map(|i| format!("{BUCKET}/refs100/f{i:03}.nc"))
        .collect();
    let urls: Vec<String> = keys
        .iter()
        .map(|k| format!("{endpoint}/{k}#mode=bytes,s3"))
        .collect();
    let out = temp_out("s3.json");
    let mut requests = vec![];
    let ours = time_nctk(
        &urls,
        &out,
        || proxy.reset_stats(),
        |summary| {
            assert_eq!(summary.chunks, FILES * 10 * 1000 + FILES, "{summary:?}");
            requests.push(proxy.stats());
        },
    );
    let ours_stats = requests.last().expect("one run").clone();
    let counts: Vec<usize> = requests.iter().map(Stats::requests).collect();
    let (fewest, most) = per_object(&ours_stats);
    println!(
        "References for the same {FILES} netCDF-4 files on S3 (moto), {} ms per request",
        LATENCY.as_millis()
    );
    println!();
    println!(
        "| tool | seconds | nctk speed-up | requests | per file | chunk references against nctk's |"
    );
    println!("| --- | --- | --- | --- | --- | --- |");
    println!(
        "| nctk refs (best of {RUNS}) | {ours:.3} | 1.00x | {} | {:.1} | |",
        ours_stats.requests(),
        ours_stats.requests() as f64 / FILES as f64
    );
    let s3_urls: Vec<String> = keys.iter().map(|k| format!("s3://{k}")).collect();
    let mut notes = vec![format!(
        "nctk: requests in each run {counts:?}; per file {fewest} to {most}; {}",
        by_method(&ours_stats)
    )];
    for which in ["kerchunk", "virtualizarr"]
        .into_iter()
        .filter(|_| with_peers())
    {
        let theirs = temp_out(&format!("{which}-s3.json"));
        let mut args = vec![endpoint.clone(), KEY.to_string(), SECRET.to_string()];
        args.extend(s3_urls.iter().cloned());
        proxy.reset_stats();
        let t = peer(&format!("{which}-s3"), &theirs, &args);
        let stats = proxy.stats();
        let same = t.map(|_| agreement(&out, &theirs, &["time"]));
        peer_row(&format!("{which} over S3"), t, ours, Some(&stats), same);
        let (fewest, most) = per_object(&stats);
        notes.push(format!(
            "{which}: per file {fewest} to {most}; {}",
            by_method(&stats)
        ));
        std::fs::remove_file(&theirs).ok();
    }
    println!();
    for note in notes {
        println!("- {note}");
    }
    println!();
    std::fs::remove_file(&out).ok();
}

fn classic() {
    let files = inputs("classic", "refs_classic100", "c");
    let urls: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
    let out = temp_out("classic.json");
    let ours = time_nctk(&urls, &out, || {}, |_| {});
    println!(
        "References for {FILES} classic (CDF-2) files, 8 record variables x 100 records each, local"
    );
    local_table(
        ours,
        &out,
        &urls,
        &[
            ("kerchunk-nc3", "kerchunk NetCDF3ToZarr"),
            ("virtualizarr-nc3", "virtualizarr NetCDF3Parser"),
        ],
    );
}
