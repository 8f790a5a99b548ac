//! `nctk refs` against the Python tools that make virtual Zarr references
//! (issue 28), in the same run: kerchunk (`SingleHdf5ToZarr` per file,
//! then `MultiZarrToZarr` along time) and VirtualiZarr (its HDF parser per
//! file, `xr.concat`, kerchunk JSON).
//!
//! Input: 100 netCDF-4 files written by netCDF-C (`refs/make_files.py`),
//! each with 10 variables of 1,000 zlib chunks, generated once under
//! `bench-data/refs100/` (or `$NCTK_BENCH_DATA`). nctk is the library
//! call `nctk_tools::refs::refs` (what `nctk refs` runs), best of 3; each
//! peer runs once (seconds of its work, imports excluded). The chunk
//! references of nctk's output are checked to number 100 x 10 x 1,000
//! (and one chunk of the time coordinate per file).
//!
//! Run: `cargo bench -p nctk-cli --bench refs_speed`

use std::path::PathBuf;
use std::time::Instant;

use nctk_bench_support::{data_dir, python};
use nctk_tools::refs::{refs, RefsOptions};

const FILES: usize = 100;
const RUNS: usize = 3;
const MAKE_FILES: &str = include_str!("refs/make_files.py");
const PEERS: &str = include_str!("refs/peers.py");

fn main() {
    let dir = data_dir().join("refs100");
    let count = FILES.to_string();
    python(MAKE_FILES, &[dir.as_path(), std::path::Path::new(&count)])
        .expect("making the inputs needs python3 with netCDF4 and numpy");
    let files: Vec<PathBuf> = (0..FILES)
        .map(|i| dir.join(format!("f{i:03}.nc")))
        .collect();
    let urls: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
    let out = std::env::temp_dir().join(format!("nctk-refs-bench-{}.json", std::process::id()));
    let mut ours = f64::MAX;
    for _ in 0..RUNS {
        let start = Instant::now();
        let summary = refs(&urls, &out, &RefsOptions::default()).expect("nctk refs");
        ours = ours.min(start.elapsed().as_secs_f64());
        assert_eq!(summary.variables, 11);
        // each file's time coordinate is one chunk
        assert_eq!(summary.chunks, FILES * 10 * 1000 + FILES, "{summary:?}");
    }
    std::fs::remove_file(&out).ok();
    println!("References for {FILES} netCDF-4 files (10 variables x 1,000 chunks each), local");
    println!();
    println!("| tool | seconds | nctk speed-up |");
    println!("| --- | --- | --- |");
    println!("| nctk refs (best of {RUNS}) | {ours:.3} | 1.00x |");
    for peer in ["kerchunk", "virtualizarr"] {
        let args: Vec<&std::path::Path> = std::iter::once(std::path::Path::new(peer))
            .chain(files.iter().map(PathBuf::as_path))
            .collect();
        match python(PEERS, &args).and_then(|s| s.trim().parse::<f64>().ok()) {
            Some(t) => println!("| {peer} | {t:.3} | {:.1}x |", t / ours),
            None => println!("| {peer} | n/a | n/a |"),
        }
    }
}
