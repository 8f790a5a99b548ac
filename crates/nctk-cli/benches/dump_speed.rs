//! `nctk dump` against netCDF-C's `ncdump` on the same file, in the same run.
//!
//! Generates (once) a CDF-5 file with `temp(time=10, lat=721, lon=1440)`
//! float32 (about 110 MB of CDL) under `bench-data/` (or `$NCTK_BENCH_DATA`),
//! dumps it with both tools to files, checks the outputs are identical and
//! prints a markdown table with the ratio. Skips the peer when `ncdump` is
//! not installed.
//!
//! Run: `cargo bench -p nctk-cli --bench dump_speed`

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use nctk_bench_support::{data_dir, write_temp_field};

const NT: u64 = 10;
const RUNS: usize = 3;

/// Best wall time of `RUNS` runs of `program args input > output`.
fn time_dump(program: &str, args: &[&str], input: &Path, output: &Path) -> Option<f64> {
    let mut best = f64::MAX;
    for _ in 0..RUNS {
        let out = std::fs::File::create(output).unwrap();
        let t0 = Instant::now();
        let status = Command::new(program)
            .args(args)
            .arg(input)
            .stdout(out)
            .stderr(Stdio::null())
            .status()
            .ok()?;
        let elapsed = t0.elapsed().as_secs_f64();
        assert!(status.success(), "{program} failed");
        best = best.min(elapsed);
    }
    Some(best)
}

fn main() {
    let dir = data_dir();
    std::fs::create_dir_all(&dir).unwrap();
    let input = dir.join("dump_temp_10.nc");
    if !input.exists() {
        write_temp_field(&input, NT);
    }
    let ours = dir.join("dump_nctk.cdl");
    let theirs = dir.join("dump_ncdump.cdl");
    let nctk = time_dump(env!("CARGO_BIN_EXE_nctk"), &["dump"], &input, &ours).unwrap();
    let cdl_mb = std::fs::metadata(&ours).unwrap().len() as f64 / 1e6;
    println!("| tool | dump of temp(10, 721, 1440), {cdl_mb:.0} MB of CDL | MB/s | speed-up |");
    println!("| --- | --- | --- | --- |");
    println!("| nctk dump | {nctk:.2} s | {:.0} | |", cdl_mb / nctk);
    match time_dump("ncdump", &[], &input, &theirs) {
        Some(peer) => {
            let same = std::fs::read(&ours).unwrap() == std::fs::read(&theirs).unwrap();
            println!(
                "| ncdump (netCDF-C) | {peer:.2} s | {:.0} | nctk {:.1}x faster |",
                cdl_mb / peer,
                peer / nctk
            );
            println!("\noutputs identical: {same}");
            assert!(
                same,
                "nctk dump and ncdump disagree: diff {} {}",
                ours.display(),
                theirs.display()
            );
        }
        None => println!("\nncdump not installed: peer skipped"),
    }
    let _ = std::fs::remove_file(&theirs);
}
