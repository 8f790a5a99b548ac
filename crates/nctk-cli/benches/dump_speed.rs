//! `nctk dump` against netCDF-C's `ncdump` on the same files, in the same run.
//!
//! Two CDF-5 inputs, generated once under `bench-data/` (or
//! `$NCTK_BENCH_DATA`):
//! * a smooth field, `temp(time=3, lat=721, lon=1440)` float32 (33 MB of CDL);
//! * 80 MB of random float32 values, `r(20, 1000, 1000)`, in two flavours:
//!   uniform in [0, 1), and random bit patterns (every finite float, every
//!   exponent: the hardest case for the formatter; 300 MB of CDL).
//!
//! Each is dumped by both tools to files, best of `RUNS` runs; the outputs
//! are checked identical, and a markdown table gives wall and CPU
//! (user + system) times with the ratios. Skips the peer when `ncdump` is
//! not installed.
//!
//! Run: `cargo bench -p nctk-cli --bench dump_speed`

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use nctk_bench_support::{create_cdf5, data_dir, write_temp_field};
use nctk_model::{DataType, GroupId, Schema, Selection};

const RUNS: usize = 3;

/// CPU seconds (user + system) used so far by waited-for children
/// (`cutime` + `cstime` of `/proc/self/stat`, Linux only; 0 elsewhere).
fn children_cpu() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // After the command name (which ends with ')') come fields 3 (state),
    // 4, ...: cutime and cstime, fields 16 and 17, are items 13 and 14.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| f.get(i).and_then(|x| x.parse::<f64>().ok());
    match (ticks(13), ticks(14)) {
        (Some(u), Some(s)) => (u + s) / 100.0,
        _ => 0.0,
    }
}

/// Best wall time and best CPU time of `RUNS` runs of `program args input > output`.
fn time_dump(program: &str, args: &[&str], input: &Path, output: &Path) -> Option<(f64, f64)> {
    let (mut wall, mut cpu) = (f64::MAX, f64::MAX);
    for _ in 0..RUNS {
        let out = std::fs::File::create(output).unwrap();
        let (t0, c0) = (Instant::now(), children_cpu());
        let status = Command::new(program)
            .args(args)
            .arg(input)
            .stdout(out)
            .stderr(Stdio::null())
            .status()
            .ok()?;
        wall = wall.min(t0.elapsed().as_secs_f64());
        cpu = cpu.min(children_cpu() - c0);
        assert!(status.success(), "{program} failed");
    }
    Some((wall, cpu))
}

/// Writes `r(20, 1000, 1000)` float32 (80 MB) of random values: uniform
/// in [0, 1) or, with `bits`, random finite bit patterns.
fn write_random_field(path: &Path, bits: bool) {
    eprintln!("generating {} ...", path.display());
    let mut s = Schema::new();
    let dims = [("t", 20), ("y", 1000), ("x", 1000)]
        .map(|(name, len)| s.add_dim(GroupId::ROOT, name, len, false).unwrap());
    let var = s
        .add_var(GroupId::ROOT, "r", DataType::Float, &dims)
        .unwrap();
    let tmp = path.with_extension("tmp");
    let mut w = create_cdf5(&tmp, &s);
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut slab = vec![0f32; 1_000_000];
    for t in 0..20 {
        for x in slab.iter_mut() {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            *x = if bits {
                let f = f32::from_bits((seed >> 32) as u32);
                if f.is_finite() {
                    f
                } else {
                    1.0
                }
            } else {
                (seed >> 40) as f32 / (1u64 << 24) as f32
            };
        }
        w.write_from(var, &Selection::block(&[t, 0, 0], &[1, 1000, 1000]), &slab)
            .unwrap();
    }
    w.close().unwrap();
    std::fs::rename(tmp, path).unwrap();
}

/// Dumps `input` with both tools, prints a table row pair, checks the
/// outputs are identical; returns the wall and CPU speed-ups.
fn compare(label: &str, input: &Path) -> Option<(f64, f64)> {
    let dir = input.parent().unwrap();
    let ours = dir.join("dump_nctk.cdl");
    let theirs = dir.join("dump_ncdump.cdl");
    let (nw, nc) = time_dump(env!("CARGO_BIN_EXE_nctk"), &["dump"], input, &ours).unwrap();
    let mb = std::fs::metadata(&ours).unwrap().len() as f64 / 1e6;
    println!("| {label}, {mb:.0} MB of CDL | wall | CPU | MB/s (wall) | speed-up wall / CPU |");
    println!("| --- | --- | --- | --- | --- |");
    println!("| nctk dump | {nw:.2} s | {nc:.2} s | {:.0} | |", mb / nw);
    let result = match time_dump("ncdump", &[], input, &theirs) {
        Some((pw, pc)) => {
            println!(
                "| ncdump (netCDF-C) | {pw:.2} s | {pc:.2} s | {:.0} | nctk {:.1}x / {:.1}x faster |",
                mb / pw,
                pw / nw,
                pc / nc.max(0.01)
            );
            let same = std::fs::read(&ours).unwrap() == std::fs::read(&theirs).unwrap();
            println!("\noutputs identical: {same}\n");
            assert!(
                same,
                "nctk dump and ncdump disagree: diff {} {}",
                ours.display(),
                theirs.display()
            );
            Some((pw / nw, pc / nc.max(0.01)))
        }
        None => {
            println!("\nncdump not installed: peer skipped\n");
            None
        }
    };
    let _ = std::fs::remove_file(&theirs);
    let _ = std::fs::remove_file(&ours);
    result
}

fn main() {
    let dir = data_dir();
    std::fs::create_dir_all(&dir).unwrap();
    let smooth = dir.join("dump_temp_3.nc");
    if !smooth.exists() {
        write_temp_field(&smooth, 3);
    }
    compare("temp(3, 721, 1440)", &smooth);
    for (name, bits, label) in [
        ("dump_random_uniform.nc", false, "random float32 in [0, 1)"),
        ("dump_random_bits.nc", true, "random float32 bit patterns"),
    ] {
        let input = dir.join(name);
        if !input.exists() {
            write_random_field(&input, bits);
        }
        compare(label, &input);
    }
}
