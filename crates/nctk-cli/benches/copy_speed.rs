//! `nctk copy` against netCDF-C's `nccopy` on the same file, in the same run.
//!
//! Uses (generating it once, as `nctk-classic`'s `classic_io` bench does)
//! `bench-data/classic_temp_cdf5.nc` (or under `$NCTK_BENCH_DATA`): the
//! 415 MB CDF-5 file `temp(time=100, lat=721, lon=1440)` float32. Copies it
//! CDF-5 -> CDF-5 and CDF-5 -> CDF-2 with both tools, alternating, best of
//! `RUNS` wall times, peak RSS from `/usr/bin/time -v` (when present),
//! checks the outputs are byte-identical, and prints a markdown table.
//! Skips the peer when `nccopy` is not installed.
//!
//! Run: `cargo bench -p nctk-cli --bench copy_speed`

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

mod support;

use support::{data_dir, write_temp_field};

const NT: u64 = 100;
const RUNS: usize = 3;

/// Wall time and peak RSS (KiB, when `/usr/bin/time -v` exists) of one run.
fn run_once(program: &str, args: &[&str]) -> Option<(f64, Option<u64>)> {
    let gnu_time = Path::new("/usr/bin/time").exists();
    let mut cmd = if gnu_time {
        let mut c = Command::new("/usr/bin/time");
        c.arg("-v").arg(program);
        c
    } else {
        Command::new(program)
    };
    cmd.args(args).stdout(Stdio::null()).stderr(Stdio::piped());
    let t0 = Instant::now();
    let out = cmd.output().ok()?;
    let elapsed = t0.elapsed().as_secs_f64();
    if !out.status.success() {
        // `time` itself runs; a missing program shows as its failure.
        let err = String::from_utf8_lossy(&out.stderr);
        if err.contains("No such file") || err.contains("cannot run") {
            return None;
        }
        panic!("{program} {args:?} failed: {err}");
    }
    let rss = String::from_utf8_lossy(&out.stderr).lines().find_map(|l| {
        l.trim()
            .strip_prefix("Maximum resident set size (kbytes):")
            .and_then(|n| n.trim().parse().ok())
    });
    Some((elapsed, rss))
}

struct Row {
    time: f64,
    rss: Option<u64>,
}

fn fmt_rss(rss: Option<u64>) -> String {
    rss.map_or("-".into(), |k| format!("{:.1} MiB", k as f64 / 1024.0))
}

fn main() {
    let dir = data_dir();
    std::fs::create_dir_all(&dir).unwrap();
    let input = dir.join("classic_temp_cdf5.nc");
    if !input.exists() {
        write_temp_field(&input, NT);
    }
    let input_s = input.to_str().unwrap();
    let mb = std::fs::metadata(&input).unwrap().len() as f64 / 1e6;
    let nctk = env!("CARGO_BIN_EXE_nctk");
    let peer = Command::new("nccopy").output().is_ok();
    println!("| copy of temp(100, 721, 1440) float, {mb:.0} MB | tool | best of {RUNS} | MB/s | peak RSS | vs nccopy |");
    println!("| --- | --- | --- | --- | --- | --- |");
    for (label, kind) in [("CDF-5 -> CDF-5", "nc5"), ("CDF-5 -> CDF-2", "nc6")] {
        let ours = dir.join(format!("copy_nctk_{kind}.nc"));
        let theirs = dir.join(format!("copy_nccopy_{kind}.nc"));
        let (ours_s, theirs_s) = (ours.to_str().unwrap(), theirs.to_str().unwrap());
        let mut rows: [Option<Row>; 2] = [None, None];
        for _ in 0..RUNS {
            let runs: [(usize, &str, Vec<&str>); 2] = [
                (0, nctk, vec!["copy", "-k", kind, input_s, ours_s]),
                (1, "nccopy", vec!["-k", kind, input_s, theirs_s]),
            ];
            for (i, program, args) in runs {
                if i == 1 && !peer {
                    continue;
                }
                let Some((time, rss)) = run_once(program, &args) else {
                    continue;
                };
                let row = rows[i].get_or_insert(Row { time, rss });
                row.time = row.time.min(time);
                row.rss = row.rss.max(rss);
            }
        }
        let ours_row = rows[0].as_ref().expect("nctk copy ran");
        let vs = rows[1].as_ref().map_or(String::new(), |p| {
            format!("{:.2}x the speed", p.time / ours_row.time)
        });
        println!(
            "| {label} | nctk copy | {:.2} s | {:.0} | {} | {vs} |",
            ours_row.time,
            mb / ours_row.time,
            fmt_rss(ours_row.rss)
        );
        if let Some(p) = &rows[1] {
            println!(
                "| {label} | nccopy (netCDF-C) | {:.2} s | {:.0} | {} | |",
                p.time,
                mb / p.time,
                fmt_rss(p.rss)
            );
            let same = std::fs::read(&ours).unwrap() == std::fs::read(&theirs).unwrap();
            assert!(same, "outputs differ: cmp {ours_s} {theirs_s}");
        }
        let _ = std::fs::remove_file(&ours);
        let _ = std::fs::remove_file(&theirs);
    }
    if !peer {
        println!("\nnccopy not installed: peer skipped");
    } else {
        println!("\noutputs byte-identical to nccopy's: true");
    }
}
