//! netCDF-4/HDF5 read benchmark: nctk against netCDF-C on the 415 MB field
//! `temp(time=100, lat=721, lon=1440)` float32 written as netCDF-4 by
//! netCDF-C's `nccopy` with chunks (1, 721, 1440), uncompressed and with
//! zlib level 1 + shuffle (`nctk_bench_support::netcdf4_file`, made once
//! under `bench-data/` or `$NCTK_BENCH_DATA`).
//!
//! Measures, in the same run: the whole variable into a reused buffer
//! (nctk's `Variable::get_into` against netCDF-C's `nc_get_var_float`
//! through `benches/peer/classic_peer.c`, best of 3), the point series
//! `temp[:, 360, 720]` (mean of 50), and the page-cache floor of the
//! uncompressed file (the field's bytes `pread` into a reused buffer in
//! 4 MiB pieces on two threads, best of 3). nctk's values are checked against netCDF-C's by the
//! peer's checksum. Prints a markdown table.
//!
//! Run: `cargo bench -p nctk --bench hdf5_read`

use std::os::unix::fs::FileExt;
use std::path::Path;
use std::time::Instant;

use nctk_bench_support::{
    classic_peer, data_dir, netcdf4_file, print_speed_head, print_speed_row, NLAT, NLON,
};

const NT: u64 = 100;

/// Seconds of one measure, and the checksum of the values read.
struct Results {
    full_read: f64,
    time_series: f64,
    checksum: f64,
}

/// nctk: the whole variable (best of 3) and the point series (mean of 50).
fn bench_nctk(input: &Path) -> Results {
    let ds = nctk::open(input).unwrap();
    let var = ds.variable("temp").unwrap();
    let mut buf = vec![0f32; (NT * NLAT * NLON) as usize];
    let mut full_read = f64::MAX;
    for _ in 0..3 {
        let t0 = Instant::now();
        var.get_into(.., &mut buf).unwrap();
        full_read = full_read.min(t0.elapsed().as_secs_f64());
    }
    let checksum: f64 = buf.iter().step_by(9973).map(|&x| x as f64).sum();
    let mut ts = vec![0f32; NT as usize];
    let t0 = Instant::now();
    for _ in 0..50 {
        var.get_into((.., 360, 720), &mut ts).unwrap();
    }
    Results {
        full_read,
        time_series: t0.elapsed().as_secs_f64() / 50.0,
        checksum,
    }
}

/// netCDF-C through the classic bench's peer (it reads any file
/// netCDF-C opens; its timed CDF-5 write is discarded).
fn bench_netcdf_c(input: &Path) -> Option<Results> {
    let scratch = data_dir().join("hdf5_read_peer_out.nc");
    let times = classic_peer(input, &scratch);
    let _ = std::fs::remove_file(&scratch);
    let times = times?;
    Some(Results {
        full_read: times.get("full_read")?,
        time_series: times.get("time_series")?,
        checksum: times.get("checksum")?,
    })
}

/// The page-cache floor: the field's bytes of the file read with `pread`
/// in 4 MiB pieces into a reused buffer (as nctk reads above), on two
/// threads (nctk decodes on all cores). Best of 3.
fn floor(input: &Path) -> f64 {
    const PIECE: usize = 4 << 20;
    let file = std::fs::File::open(input).unwrap();
    let len = file.metadata().unwrap().len().min(NT * NLAT * NLON * 4) as usize;
    let mut buf = vec![0u8; len];
    let mut best = f64::MAX;
    for _ in 0..3 {
        let t0 = Instant::now();
        let (a, b) = buf.split_at_mut(len / PIECE / 2 * PIECE);
        std::thread::scope(|s| {
            for (half, start) in [(a, 0), (b, len / PIECE / 2 * PIECE)] {
                let file = &file;
                s.spawn(move || {
                    for (i, piece) in half.chunks_mut(PIECE).enumerate() {
                        file.read_exact_at(piece, (start + i * PIECE) as u64)
                            .unwrap();
                    }
                });
            }
        });
        std::hint::black_box(&buf);
        best = best.min(t0.elapsed().as_secs_f64());
    }
    best
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let (Some(plain), Some(zlib)) = (
        netcdf4_file("nc4_temp_plain.nc", &[]),
        netcdf4_file("nc4_temp_zlib1_shuffle.nc", &["-d1", "-s"]),
    ) else {
        eprintln!("nccopy is not installed: no netCDF-4 input, nothing to measure");
        return;
    };
    let bytes = (NT * NLAT * NLON * 4) as f64;
    let gbs = |s: f64| format!("{:.2} GB/s ({:.0} ms)", bytes / s / 1e9, s * 1e3);
    let us = |s: f64| format!("{:.1} us", s * 1e6);
    print_speed_head();
    let row = print_speed_row;
    for (label, input) in [("uncompressed", &plain), ("zlib-1 + shuffle", &zlib)] {
        let ours = bench_nctk(input);
        let theirs = bench_netcdf_c(input);
        if let Some(t) = &theirs {
            assert!(
                (t.checksum - ours.checksum).abs() <= 1e-6 * ours.checksum.abs(),
                "{label}: checksums differ: nctk {} netCDF-C {}",
                ours.checksum,
                t.checksum
            );
        }
        row(
            &format!("{label}: whole `temp` (415 MB)"),
            ours.full_read,
            theirs.as_ref().map(|t| t.full_read),
            &gbs,
        );
        row(
            &format!("{label}: point series `temp[:, 360, 720]`"),
            ours.time_series,
            theirs.as_ref().map(|t| t.time_series),
            &us,
        );
    }
    let f = floor(&plain);
    println!(
        "| page-cache floor: the uncompressed file's bytes into a reused buffer | {} | | |",
        gbs(f)
    );
}
