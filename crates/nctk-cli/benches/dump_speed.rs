//! `nctk dump` against netCDF-C's `ncdump` on the same file, in the same run.
//!
//! Generates (once) a CDF-5 file with `temp(time=10, lat=721, lon=1440)`
//! float32 (about 110 MB of CDL) under `bench-data/` (or `$NCTK_BENCH_DATA`),
//! dumps it with both tools to files, checks the outputs are identical and
//! prints a markdown table with the ratio. Skips the peer when `ncdump` is
//! not installed.
//!
//! Run: `cargo bench -p nctk-cli --bench dump_speed`

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use nctk_classic::{ClassicWriter, FillMode, Version};
use nctk_model::{DataType, GroupId, Schema, Selection, VarId};

const NT: u64 = 10;
const NLAT: u64 = 721;
const NLON: u64 = 1440;
const RUNS: usize = 3;

fn data_dir() -> PathBuf {
    std::env::var_os("NCTK_BENCH_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bench-data"))
}

/// Writes the smooth test field through nctk's classic writer.
fn generate(path: &Path) {
    let mut s = Schema::new();
    let t = s.add_dim(GroupId::ROOT, "time", NT, false).unwrap();
    let y = s.add_dim(GroupId::ROOT, "lat", NLAT, false).unwrap();
    let x = s.add_dim(GroupId::ROOT, "lon", NLON, false).unwrap();
    let var = s
        .add_var(GroupId::ROOT, "temp", DataType::Float, &[t, y, x])
        .unwrap();
    let tmp = path.with_extension("tmp");
    let mut w =
        ClassicWriter::create_with_schema(&tmp, &s, Version::Cdf5, FillMode::NoFill).unwrap();
    let mut slab = vec![0f32; (NLAT * NLON) as usize];
    for t in 0..NT {
        for i in 0..NLAT {
            let lat = (i as f32 / (NLAT - 1) as f32 - 0.5) * std::f32::consts::PI;
            for j in 0..NLON {
                let lon = j as f32 / NLON as f32 * 2.0 * std::f32::consts::PI;
                slab[(i * NLON + j) as usize] = 273.15
                    + 30.0 * lat.cos()
                    + 5.0 * (2.0 * lon + 0.1 * t as f32).sin() * lat.cos();
            }
        }
        w.write_from(var, &Selection::block(&[t, 0, 0], &[1, NLAT, NLON]), &slab)
            .unwrap();
    }
    w.close().unwrap();
    std::fs::rename(tmp, path).unwrap();
    assert_eq!(var, VarId(0));
}

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
        generate(&input);
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
