//! Zarr v3 read benchmark (issue 25): the whole float32 `temp(time=100,
//! lat=721, lon=1440)` (415 MB) read from two Zarr v3 stores zarr-python 3
//! writes, inner chunks (1, 721, 1440) compressed by zstd level 1
//! (zarr-python's `ZstdCodec(level=1)`): unsharded, and in shards
//! (10, 721, 1440) with the index at the end.
//!
//! Readers, on each store: nctk (`nctk::open` then the whole variable, on
//! rayon pools of 1 and 2 threads), zarr-python 3.1 with its default codec
//! pipeline, zarr-python with the zarrs codec pipeline (the pip `zarrs`
//! module, Rust) and tensorstore (`benches/peer/zarr_v3_peers.py`, one
//! Python process per store). All best of 3, open included, files in the
//! page cache; checksums of all readers compared.
//!
//! The reference row is the decode floor: the same inner chunks'
//! compressed bytes already in memory, decoded by the `zstd` crate (the
//! one nctk uses, one decompression context per thread) into a
//! preallocated output, on rayon pools of 1 and 2 threads; best of 5.
//!
//! The stores are made once under `bench-data/` (or `$NCTK_BENCH_DATA`)
//! from `classic_temp_cdf5.nc` (made by the classic bench when missing) by
//! `benches/peer/zarr_v3_make.py`. Prints a markdown table.
//!
//! Run: `cargo bench -p nctk --bench zarr_v3_read`

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use nctk_bench_support::{data_dir, write_temp_field, NLAT, NLON};
use rayon::prelude::*;

const NT: u64 = 100;
/// Time steps per shard in the sharded store.
const SHARD_T: u64 = 10;

/// A Python script of `benches/peer/`.
fn peer_script(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("benches/peer")
        .join(name)
}

/// Runs `python3 script args...`: its stdout, or `None` with the reason
/// printed.
fn run_python(script: &str, args: &[&Path]) -> Option<String> {
    let mut cmd = Command::new("python3");
    cmd.arg(peer_script(script)).args(args);
    nctk_test_support::peer::output(&mut cmd)
        .map_err(|e| eprintln!("{script}: {e}"))
        .ok()
}

/// The store `name` under the data directory, with shards of `shard_t`
/// time steps (0: unsharded), made by zarr-python from the classic file
/// when missing; `None` when it cannot be made here.
fn v3_store(name: &str, shard_t: u64) -> Option<PathBuf> {
    let dir = data_dir();
    let path = dir.join(name);
    if path.join("zarr.json").exists() {
        return Some(path);
    }
    std::fs::create_dir_all(&dir).ok()?;
    let classic = dir.join("classic_temp_cdf5.nc");
    if !classic.exists() {
        write_temp_field(&classic, NT);
    }
    eprintln!("generating {} ...", path.display());
    let tmp = dir.join(format!("{name}.tmp"));
    let _ = std::fs::remove_dir_all(&tmp);
    run_python(
        "zarr_v3_make.py",
        &[&tmp, &classic, Path::new(&shard_t.to_string())],
    )?;
    std::fs::rename(&tmp, &path).ok()?;
    Some(path)
}

/// The checksum every reader computes: every 9973rd value summed as f64.
fn checksum(values: &[f32]) -> f64 {
    values.iter().step_by(9973).map(|&x| x as f64).sum()
}

/// nctk reading `temp` whole from `path` on a pool of `threads`: (best of
/// 3 seconds, checksum).
fn nctk_read(path: &Path, threads: usize) -> (f64, f64) {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let mut best = f64::MAX;
    let mut sum = 0.0;
    for _ in 0..3 {
        let t0 = Instant::now();
        let values: Vec<f32> = pool.install(|| {
            let ds = nctk::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            ds.variable("temp").unwrap().get_values(..).unwrap()
        });
        best = best.min(t0.elapsed().as_secs_f64());
        sum = checksum(&values);
    }
    (best, sum)
}

/// The compressed bytes of every inner chunk of `temp`, in time order:
/// the chunk files `temp/c/t/0/0`, or with shards of `shard_t` steps the
/// ranges each shard's trailing index (`shard_t` little-endian (offset,
/// length) pairs and a CRC-32C) gives.
fn inner_chunks(path: &Path, shard_t: u64) -> Vec<Vec<u8>> {
    let file = |t: u64| std::fs::read(path.join(format!("temp/c/{t}/0/0"))).unwrap();
    if shard_t == 0 {
        return (0..NT).map(file).collect();
    }
    let mut chunks = vec![];
    for s in 0..NT / shard_t {
        let shard = file(s);
        let index = &shard[shard.len() - (shard_t as usize * 16 + 4)..];
        for e in index.chunks_exact(16).take(shard_t as usize) {
            let word = |b: &[u8]| u64::from_le_bytes(b.try_into().unwrap()) as usize;
            let (off, len) = (word(&e[..8]), word(&e[8..]));
            chunks.push(shard[off..off + len].to_vec());
        }
    }
    chunks
}

/// The decode floor: `chunks` decoded by the `zstd` crate (one context per
/// worker) into a preallocated output on a pool of `threads`. Best of 5.
fn decode_floor(chunks: &[Vec<u8>], threads: usize) -> f64 {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let chunk = (NLAT * NLON * 4) as usize;
    let mut out = vec![0u8; chunks.len() * chunk];
    let mut best = f64::MAX;
    for _ in 0..5 {
        let t0 = Instant::now();
        pool.install(|| {
            out.par_chunks_mut(chunk)
                .zip(chunks.par_iter())
                .for_each_init(
                    || zstd::bulk::Decompressor::new().unwrap(),
                    |d, (o, c)| assert_eq!(d.decompress_to_buffer(c, o).unwrap(), chunk),
                )
        });
        std::hint::black_box(&out);
        best = best.min(t0.elapsed().as_secs_f64());
    }
    best
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next().map(str::to_string))
        .unwrap_or_else(|| "?".into())
}

/// The peers' JSON output on `path`.
fn peers(path: &Path) -> Option<serde_json::Value> {
    let out = run_python("zarr_v3_peers.py", &[path])?;
    serde_json::from_str(out.trim())
        .map_err(|e| eprintln!("zarr_v3_peers.py printed {out:?}: {e}"))
        .ok()
}

const PEERS: [&str; 3] = ["zarr-python", "zarr-python + zarrs", "tensorstore"];

fn main() {
    let stores = [
        ("unsharded", "temp_1x721x1440_zstd1_v3.zarr", 0),
        (
            "shards (10,721,1440)",
            "temp_1x721x1440_zstd1_shard10_v3.zarr",
            SHARD_T,
        ),
    ];
    let load_before = load_average();
    let mut versions = None;
    println!(
        "| store | reader | 1 thread (s) | 2 threads (s) | 2 vs 1 | peer / nctk | nctk / decode floor |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- |");
    for (label, name, shard_t) in stores {
        let Some(path) = v3_store(name, shard_t) else {
            println!("| {label} | (store not available) | | | | | |");
            continue;
        };
        let (t1, sum) = nctk_read(&path, 1);
        let (t2, sum2) = nctk_read(&path, 2);
        assert_eq!(sum, sum2);
        let best = t1.min(t2);
        let chunks = inner_chunks(&path, shard_t);
        let (f1, f2) = (decode_floor(&chunks, 1), decode_floor(&chunks, 2));
        drop(chunks);
        println!(
            "| {label} | nctk | {t1:.3} | {t2:.3} | {:.2}x | | {:.2}x |",
            t1 / t2,
            best / f2
        );
        let peers = peers(&path);
        for who in PEERS {
            let Some(r) = peers.as_ref().map(|p| &p[who]) else {
                println!("| {label} | {who} | | (not run) | | | |");
                continue;
            };
            let (t, s) = (
                r["seconds"].as_f64().unwrap(),
                r["checksum"].as_f64().unwrap(),
            );
            if (s - sum).abs() > 1e-9 * sum.abs() {
                eprintln!("checksum of {who} differs from nctk's: {s} vs {sum}");
            }
            println!("| {label} | {who} | | {t:.3} | | {:.2}x | |", t / best);
        }
        if let Some(p) = peers {
            versions = Some(p["versions"].clone());
        }
        println!(
            "| {label} | decode floor (zstd crate, chunks in memory) | {f1:.3} | {f2:.3} | {:.2}x | | |",
            f1 / f2
        );
    }
    println!(
        "\n(times: best of 3, whole variable, 415 MB float32, open included; peers run with \
         their own default threading, shown in the 2-thread column; ratios: peer time / best \
         nctk time, so > 1 means nctk is faster; nctk / decode floor: best nctk time over the \
         floor's 2-thread time; decode floor: best of 5; load average {load_before} before, {} \
         after; peer versions: {})",
        load_average(),
        versions.map_or("-".into(), |v| v.to_string())
    );
}
