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
//! The reference rows are the decode floor: the same inner chunks'
//! compressed bytes already in memory, decoded by the `zstd` crate (the
//! one nctk uses, one decompression context per thread) into a
//! preallocated output, on rayon pools of 1 and 2 threads; and the same
//! into an output allocated for each decode as nctk's reader allocates its
//! own (faulted in by the decoding). Best of 5.
//!
//! Over S3, when `s3s-fs` is available (`$NCTK_S3S_FS` or on the PATH;
//! `cargo install s3s-fs --features binary`, as for the cloud bench): the
//! sharded store uploaded to it, behind a proxy adding 20 ms to every
//! request (`nctk-test-servers`' `FaultProxy`), read by nctk one time step
//! at a time after a first step (requests counted at the proxy; steps in
//! a shard whose index is cached, then in shards not read yet, beside one
//! GET of a chunk's bytes) and whole, beside two floors: every byte of the
//! shards fetched through the same proxy by `object_store`, 8 MiB per
//! request, 32 in flight, nothing else done with them (transfer); and each
//! inner chunk's byte range fetched the same way and decoded on two threads
//! as it arrives (transfer + decode).
//!
//! The stores are made once under `bench-data/` (or `$NCTK_BENCH_DATA`)
//! from `classic_temp_cdf5.nc` (made by the classic bench when missing) by
//! `benches/peer/zarr_v3_make.py`. Prints a markdown table.
//!
//! Run: `cargo bench -p nctk --bench zarr_v3_read`

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::stream::{self, StreamExt, TryStreamExt};
use nctk_bench_support::s3s::{S3sFs, BUCKET, KEY, SECRET};
use nctk_bench_support::{data_dir, write_temp_field, NLAT, NLON};
use nctk_test_servers::FaultProxy;
use object_store::path::Path as ObjectPath;
use object_store::{ObjectStore, ObjectStoreExt};
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

/// The byte ranges of a shard's `shard_t` inner chunks, from its trailing
/// index (`shard_t` little-endian (offset, length) pairs and a CRC-32C).
fn shard_index(shard: &[u8], shard_t: u64) -> Vec<std::ops::Range<usize>> {
    let index = &shard[shard.len() - (shard_t as usize * 16 + 4)..];
    let word = |b: &[u8]| u64::from_le_bytes(b.try_into().unwrap()) as usize;
    index
        .chunks_exact(16)
        .take(shard_t as usize)
        .map(|e| word(&e[..8])..word(&e[..8]) + word(&e[8..]))
        .collect()
}

/// The compressed bytes of every inner chunk of `temp`, in time order:
/// the chunk files `temp/c/t/0/0`, or the inner chunks of the shards of
/// `shard_t` steps.
fn inner_chunks(path: &Path, shard_t: u64) -> Vec<Vec<u8>> {
    let file = |t: u64| std::fs::read(path.join(format!("temp/c/{t}/0/0"))).unwrap();
    if shard_t == 0 {
        return (0..NT).map(file).collect();
    }
    (0..NT / shard_t)
        .flat_map(|s| {
            let shard = file(s);
            shard_index(&shard, shard_t)
                .into_iter()
                .map(|r| shard[r].to_vec())
                .collect::<Vec<_>>()
        })
        .collect()
}

/// The decode floor: `chunks` decoded by the `zstd` crate (one context per
/// worker) into a preallocated output on a pool of `threads`, or with
/// `fresh` into an output allocated for each decode as nctk's reader
/// allocates its own (zeroed, huge pages advised; faulted in by the
/// decoding, as every reader returning a new array pays). Best of 5.
fn decode_floor(chunks: &[Vec<u8>], threads: usize, fresh: bool) -> f64 {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let chunk = (NLAT * NLON * 4) as usize;
    let mut out = vec![0u8; chunks.len() * chunk];
    let mut best = f64::MAX;
    for _ in 0..5 {
        let t0 = Instant::now();
        if fresh {
            out = vec![0u8; chunks.len() * chunk];
            nctk_codec::buffer::advise_huge_pages(&mut out);
        }
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

/// The median of `v` (not empty).
fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
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

/// Latency the proxy adds to every request in the S3 section.
const LATENCY: Duration = Duration::from_millis(20);
/// Requests in flight for the transfer floor.
const FLOOR_CONCURRENCY: usize = 32;
/// Bytes per transfer floor request.
const FLOOR_PIECE: u64 = 8 << 20;

/// A piece of an object to fetch: its key, its byte range.
type Piece = (ObjectPath, std::ops::Range<u64>);

/// Fetches `pieces` through `store` with [`FLOOR_CONCURRENCY`] requests in
/// flight, handing each to `deliver` (its number, its bytes) as it
/// arrives.
fn fetch_all(
    rt: &tokio::runtime::Runtime,
    store: &Arc<dyn ObjectStore>,
    pieces: &[Piece],
    deliver: &mut dyn FnMut(usize, bytes_crate::Bytes),
) {
    rt.block_on(async {
        let mut got = stream::iter(pieces.iter().cloned().enumerate().map(|(i, (p, r))| {
            let store = store.clone();
            async move { store.get_range(&p, r).await.map(|b| (i, b)) }
        }))
        .buffer_unordered(FLOOR_CONCURRENCY);
        while let Some((i, b)) = got.try_next().await.unwrap() {
            deliver(i, b);
        }
    })
}

/// The transfer floor: every byte of `objects` (key, length) fetched
/// through `store` in [`FLOOR_PIECE`] requests ([`fetch_all`]), each copied
/// into one preallocated buffer. Best of 2.
fn transfer_floor(store: &Arc<dyn ObjectStore>, objects: &[(String, u64)]) -> f64 {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let mut pieces: Vec<Piece> = vec![];
    let mut starts = vec![];
    let mut at = 0usize;
    for (key, len) in objects {
        for start in (0..*len).step_by(FLOOR_PIECE as usize) {
            let r = start..(start + FLOOR_PIECE).min(*len);
            starts.push(at);
            at += (r.end - r.start) as usize;
            pieces.push((ObjectPath::from(key.as_str()), r));
        }
    }
    let mut best = f64::MAX;
    for _ in 0..2 {
        let mut out = vec![0u8; at];
        let t0 = Instant::now();
        fetch_all(&rt, store, &pieces, &mut |i, b| {
            out[starts[i]..starts[i] + b.len()].copy_from_slice(&b)
        });
        best = best.min(t0.elapsed().as_secs_f64());
        std::hint::black_box(&out);
    }
    best
}

/// The transfer + decode floor: every inner chunk (`chunks`, one piece
/// each) fetched as [`fetch_all`] does and decoded by the `zstd` crate
/// into its place in one preallocated output by two threads as it
/// arrives. Best of 2.
fn transfer_decode_floor(store: &Arc<dyn ObjectStore>, chunks: &[Piece]) -> f64 {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let chunk = (NLAT * NLON * 4) as usize;
    let mut best = f64::MAX;
    for _ in 0..2 {
        let mut out = vec![0u8; chunks.len() * chunk];
        let t0 = Instant::now();
        let slots: Vec<std::sync::Mutex<&mut [u8]>> =
            out.chunks_mut(chunk).map(std::sync::Mutex::new).collect();
        let (tx, rx) = std::sync::mpsc::channel::<(usize, bytes_crate::Bytes)>();
        let rx = std::sync::Mutex::new(rx);
        std::thread::scope(|s| {
            for _ in 0..2 {
                s.spawn(|| {
                    let mut d = zstd::bulk::Decompressor::new().unwrap();
                    loop {
                        let next = rx.lock().unwrap().recv();
                        let Ok((i, raw)) = next else { break };
                        let mut slot = slots[i].lock().unwrap();
                        assert_eq!(d.decompress_to_buffer(&raw, &mut **slot).unwrap(), chunk);
                    }
                });
            }
            fetch_all(&rt, store, chunks, &mut |i, b| tx.send((i, b)).unwrap());
            drop(tx);
        });
        drop(slots);
        best = best.min(t0.elapsed().as_secs_f64());
        std::hint::black_box(&out);
    }
    best
}

/// The S3 section on the sharded store at `local` (named `name`, whose
/// checksum read locally is `local_sum`): prints its table, or says why it
/// was left out.
fn s3_section(local: &Path, name: &str, local_sum: f64) -> Result<(), String> {
    let root = data_dir().join("s3s-root");
    let s3s = S3sFs::start(&root).ok_or("s3s-fs is not available (set NCTK_S3S_FS)")?;
    std::env::set_var("AWS_ACCESS_KEY_ID", KEY);
    std::env::set_var("AWS_SECRET_ACCESS_KEY", SECRET);
    std::env::set_var("AWS_REGION", "us-east-1");
    let uploaded = root.join(BUCKET).join(name);
    if !uploaded.join("zarr.json").exists() {
        eprintln!("uploading {name} to s3s-fs ...");
        s3s.upload(local, name);
    }
    let proxy = FaultProxy::start(&s3s.endpoint).map_err(|e| e.to_string())?;
    proxy.set_latency(LATENCY);
    let url = format!("{}/{BUCKET}/{name}#mode=zarr,s3", proxy.endpoint());
    let ms = |s: f64| format!("{:.0} ms", s * 1e3);
    let store: Arc<dyn ObjectStore> = Arc::new(
        object_store::aws::AmazonS3Builder::new()
            .with_endpoint(proxy.endpoint())
            .with_bucket_name(BUCKET)
            .with_region("us-east-1")
            .with_access_key_id(KEY)
            .with_secret_access_key(SECRET)
            .with_allow_http(true)
            .build()
            .map_err(|e| e.to_string())?,
    );
    println!(
        "\n| over S3, 20 ms per request | time | requests (most for one step) | time / one GET |"
    );
    println!("| --- | --- | --- | --- |");

    // One round trip: a GET of the bytes of temp[5]'s inner chunk.
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let shard0 = format!("{name}/temp/c/0/0/0");
    let range =
        shard_index(&std::fs::read(local.join("temp/c/0/0/0")).unwrap(), SHARD_T)[5].clone();
    let one_get = median(
        (0..5)
            .map(|_| {
                let t0 = Instant::now();
                let r = range.start as u64..range.end as u64;
                rt.block_on(store.get_range(&ObjectPath::from(shard0.as_str()), r))
                    .unwrap();
                t0.elapsed().as_secs_f64()
            })
            .collect(),
    );
    println!(
        "| one GET of temp[5]'s inner chunk ({:.1} MB; object_store), median of 5 | {} | 1 | 1 |",
        range.len() as f64 / 1e6,
        ms(one_get)
    );

    // One time step at a time, after a first: five in the first step's
    // shard (its index cached), then five each in a shard not read yet.
    let ds = nctk::open(&url).map_err(|e| e.to_string())?;
    let var = ds.variable("temp").ok_or("no temp")?;
    let step = |t: usize| -> (f64, usize) {
        proxy.reset_stats();
        let t0 = Instant::now();
        let v: Vec<f32> = var.get_values((t, .., ..)).unwrap();
        std::hint::black_box(v);
        (t0.elapsed().as_secs_f64(), proxy.stats().requests())
    };
    step(0);
    for (what, steps) in [
        (
            "nctk: temp[t] after temp[0], t in its shard (index cached), median of 5",
            [5, 6, 7, 8, 9],
        ),
        (
            "nctk: temp[t], each in a shard not read yet (t = 25, 35, ..., 65), median of 5",
            [25, 35, 45, 55, 65],
        ),
    ] {
        let got: Vec<(f64, usize)> = steps.into_iter().map(step).collect();
        let s = median(got.iter().map(|g| g.0).collect());
        // The most requests one step made.
        let n = got.iter().map(|g| g.1).max().unwrap_or(0);
        println!("| {what} | {} | {n} | {:.1} |", ms(s), s / one_get);
    }
    drop(ds);

    // The whole variable.
    let mut best = f64::MAX;
    let mut requests = 0;
    let mut sum = 0.0;
    for _ in 0..2 {
        proxy.reset_stats();
        let t0 = Instant::now();
        let ds = nctk::open(&url).map_err(|e| e.to_string())?;
        let v: Vec<f32> = ds
            .variable("temp")
            .ok_or("no temp")?
            .get_values(..)
            .unwrap();
        best = best.min(t0.elapsed().as_secs_f64());
        requests = proxy.stats().requests();
        sum = checksum(&v);
    }
    if sum != local_sum {
        eprintln!("checksum over S3 differs from the local read's: {sum} vs {local_sum}");
    }
    println!(
        "| nctk: whole variable, open included | {} | {requests} | |",
        ms(best)
    );
    let shards: Vec<(String, u64)> = (0..NT / SHARD_T)
        .map(|s| {
            let key = format!("{name}/temp/c/{s}/0/0");
            let len = std::fs::metadata(root.join(BUCKET).join(&key))
                .unwrap()
                .len();
            (key, len)
        })
        .collect();
    let floor = transfer_floor(&store, &shards);
    let total: u64 = shards.iter().map(|s| s.1).sum();
    println!(
        "| transfer floor: the shards' {:.0} MB, 8 MiB per request, 32 in flight | {} | {} | |",
        total as f64 / 1e6,
        ms(floor),
        total.div_ceil(FLOOR_PIECE)
    );
    let chunks: Vec<Piece> = (0..NT / SHARD_T)
        .flat_map(|s| {
            let key = format!("{name}/temp/c/{s}/0/0");
            let shard = std::fs::read(root.join(BUCKET).join(&key)).unwrap();
            shard_index(&shard, SHARD_T)
                .into_iter()
                .map(move |r| (ObjectPath::from(key.as_str()), r.start as u64..r.end as u64))
        })
        .collect();
    let with_decode = transfer_decode_floor(&store, &chunks);
    println!(
        "| transfer + decode floor: each inner chunk's range, 32 in flight, decoded on 2 threads as it arrives | {} | {} | |",
        ms(with_decode),
        chunks.len()
    );
    println!(
        "| nctk whole variable / transfer floor, / transfer + decode floor | {:.2}x, {:.2}x | | |",
        best / floor,
        best / with_decode
    );
    Ok(())
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
    let mut sharded = None;
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
        if shard_t > 0 {
            sharded = Some((path.clone(), name, sum));
        }
        let (t2, sum2) = nctk_read(&path, 2);
        assert_eq!(sum, sum2);
        let best = t1.min(t2);
        let chunks = inner_chunks(&path, shard_t);
        let (f1, f2) = (
            decode_floor(&chunks, 1, false),
            decode_floor(&chunks, 2, false),
        );
        let (g1, g2) = (
            decode_floor(&chunks, 1, true),
            decode_floor(&chunks, 2, true),
        );
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
        println!(
            "| {label} | decode floor, fresh output per read | {g1:.3} | {g2:.3} | {:.2}x | | {:.2}x |",
            g1 / g2,
            best / g2
        );
    }
    println!(
        "\n(times: best of 3, whole variable, 415 MB float32, open included; peers run with \
         their own default threading, shown in the 2-thread column; ratios: peer time / best \
         nctk time, so > 1 means nctk is faster; nctk / decode floor: best nctk time over the \
         floor's 2-thread time (on the fresh-output row: over that row's); decode floors: best \
         of 5; load average {load_before} before, {} after; peer versions: {})",
        load_average(),
        versions.map_or("-".into(), |v| v.to_string())
    );
    if let Some((path, name, sum)) = sharded {
        if let Err(e) = s3_section(&path, name, sum) {
            println!("\n(the S3 section was left out: {e})");
        }
    }
}
