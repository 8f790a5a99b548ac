//! Zarr read benchmark: the whole float32 `temp(time=100, lat=721,
//! lon=1440)` (415 MB) read by nctk (rayon pools of 1 and 2 threads),
//! zarr-python and netCDF-C, from an uncompressed NCZarr store with chunks
//! (1, 721, 1440) and, when zarr-python is installed, blosc-lz4+shuffle
//! and zlib-1 stores it writes.
//!
//! The stores are generated once under `bench-data/` (or
//! `$NCTK_BENCH_DATA`) from `classic_temp_cdf5.nc` (made by the classic
//! bench). Prints a markdown table.
//!
//! Two reference rows put the figures in context, measured in the same run:
//! the floor (allocating a fresh 415 MB buffer the way nctk's reader does,
//! with huge pages, and writing every byte of it from cache-resident data)
//! and, per compressed store, the decode-only time of numcodecs' C codecs
//! (all chunk files already in memory, decoded straight into a
//! preallocated numpy array by a pool of 1 or 2 Python threads), of
//! nctk's own decoders on the same chunks in memory, and, for zlib, of
//! libdeflate (the fastest inflate we know of; `libdeflater`, C) on them:
//! together they bound what any reader can reach on this machine.
//!
//! Run: `cargo bench -p nctk --bench zarr_read`

#[path = "../tests/stores/mod.rs"]
mod stores;

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use nctk_bench_support::{build_c_peer, data_dir, python, zarr_store, NLAT, NLON};
use nctk_model::{DataSource, Selection, Values};
use nctk_zarr::ZarrOptions;

const NT: u64 = 100;

const PY_READ: &str = r#"
import sys, time, zarr
best = 1e30
for _ in range(3):
    t0 = time.perf_counter()
    a = zarr.open(sys.argv[1], mode='r')['temp'][:]
    best = min(best, time.perf_counter() - t0)
print(best)
print(float(a.reshape(-1)[::9973].astype('f8').sum()))
"#;

fn nctk_read(path: &Path, threads: usize) -> (f64, f64) {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let all = Selection::all(&[NT, NLAT, NLON]);
    let mut best = f64::MAX;
    let mut sum = 0.0;
    for _ in 0..3 {
        let t0 = Instant::now();
        let vals = pool.install(|| {
            let r = stores::open_path(path, ZarrOptions::default()).unwrap();
            let v = r.schema().var_by_path("temp").unwrap();
            r.read_values(v, &all).unwrap()
        });
        best = best.min(t0.elapsed().as_secs_f64());
        let Values::Float(f) = vals else {
            panic!("temp is not float")
        };
        sum = f.iter().step_by(9973).map(|&x| x as f64).sum();
    }
    (best, sum)
}

/// numcodecs alone: every chunk file read into memory first, then decoded
/// into a preallocated numpy array (`decode(buf, out=)`) by 1 and 2 Python
/// threads (numcodecs releases the GIL while decoding; Blosc's own threads
/// off, as zarr-python sets them). Best of 5.
const PY_DECODE: &str = r#"
import sys, json, time, numpy as np, numcodecs
from concurrent.futures import ThreadPoolExecutor
from numcodecs import blosc
blosc.use_threads = False
store = sys.argv[1]
meta = json.load(open(store + '/temp/.zarray'))
codec = numcodecs.get_codec(meta['compressor'])
nt = meta['shape'][0]
chunks = [open(f'{store}/temp/{t}.0.0', 'rb').read() for t in range(nt)]
for threads in (1, 2):
    best = 1e30
    with ThreadPoolExecutor(threads) as ex:
        for _ in range(5):
            t0 = time.perf_counter()
            out = np.empty((nt, 721 * 1440), dtype='<f4')
            list(ex.map(lambda t: codec.decode(chunks[t], out=out[t]), range(nt)))
            best = min(best, time.perf_counter() - t0)
    print(best)
"#;

/// numcodecs' decode-only times on 1 and 2 threads.
fn numcodecs_decode(path: &Path) -> Option<(f64, f64)> {
    let out = python(PY_DECODE, &[path])?;
    let mut l = out.lines().map(|x| x.trim().parse::<f64>().ok());
    Some((l.next()??, l.next()??))
}

/// Every chunk file of `temp` (`t.0.0`) read into memory.
fn chunk_files(path: &Path) -> Vec<Vec<u8>> {
    (0..NT)
        .map(|t| std::fs::read(path.join(format!("temp/{t}.0.0"))).unwrap())
        .collect()
}

/// Decode only: every chunk already in memory (`chunks`), decoded by
/// `decode` into a preallocated output (one chunk's bytes per call) on
/// `threads` rayon threads. Best of 5.
fn decode_only(
    chunks: &[Vec<u8>],
    threads: usize,
    decode: impl Fn(&[u8], &mut [u8]) + Sync,
) -> f64 {
    use rayon::prelude::*;
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
                .for_each(|(o, c)| decode(c, o))
        });
        std::hint::black_box(&out);
        best = best.min(t0.elapsed().as_secs_f64());
    }
    best
}

/// Reference rows for a compressed store: nctk's decoders and, for zlib,
/// libdeflate's, on the chunks in memory, 1 and 2 threads.
fn decode_only_rows(label: &str, path: &Path) -> Vec<String> {
    let meta: serde_json::Value =
        serde_json::from_slice(&std::fs::read(path.join("temp/.zarray")).unwrap()).unwrap();
    let ctx = nctk_codec::CodecContext::from_dtype(meta["dtype"].as_str().unwrap());
    let pipeline =
        nctk_codec::Pipeline::from_zarr_json(&meta["compressor"], &meta["filters"], &ctx).unwrap();
    let chunks = chunk_files(path);
    let row = |who: &str, d1: f64, d2: f64| {
        format!(
            "| {label}: {who} decode only, 1 / 2 threads | {d1:.3} | {d2:.3} | {:.2}x | | | | |",
            d1 / d2
        )
    };
    let nctk = |o: &mut [u8], c: &[u8]| pipeline.decode_into(c, o).unwrap();
    let mut rows = vec![row(
        "nctk",
        decode_only(&chunks, 1, |c, o| nctk(o, c)),
        decode_only(&chunks, 2, |c, o| nctk(o, c)),
    )];
    if meta["compressor"]["id"] == "zlib" {
        let libdeflate = |c: &[u8], o: &mut [u8]| {
            let n = libdeflater::Decompressor::new()
                .zlib_decompress(c, o)
                .unwrap();
            assert_eq!(n, o.len());
        };
        rows.push(row(
            "libdeflate (C)",
            decode_only(&chunks, 1, libdeflate),
            decode_only(&chunks, 2, libdeflate),
        ));
    }
    rows
}

/// The floor: a fresh output buffer allocated as nctk's reader does it
/// (zeroed, huge pages advised), every byte written from a cache-resident
/// chunk-sized source, on `threads` threads. Best of 5.
fn floor(threads: usize) -> f64 {
    use rayon::prelude::*;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let chunk = (NLAT * NLON) as usize;
    let src = vec![1.5f32; chunk];
    let mut best = f64::MAX;
    for _ in 0..5 {
        let t0 = Instant::now();
        let mut v = vec![0f32; NT as usize * chunk];
        nctk_codec::buffer::advise_huge_pages(&mut v);
        pool.install(|| {
            v.par_chunks_mut(chunk)
                .for_each(|c| c.copy_from_slice(&src))
        });
        std::hint::black_box(&v);
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

fn zarr_python(path: &Path) -> Option<(f64, f64)> {
    let out = python(PY_READ, &[path])?;
    let mut l = out.lines();
    Some((
        l.next()?.trim().parse().ok()?,
        l.next()?.trim().parse().ok()?,
    ))
}

fn netcdf_c(path: &Path) -> Option<(f64, f64)> {
    let exe = data_dir().join("zarr_peer");
    if !exe.exists() {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/peer/zarr_peer.c");
        build_c_peer(&src, &exe)?;
    }
    let url = format!(
        "file://{}#mode=nczarr,file",
        path.canonicalize().ok()?.display()
    );
    let out = Command::new(&exe)
        .arg(url)
        .arg((NT * NLAT * NLON).to_string())
        .output()
        .ok()?;
    if !out.status.success() {
        eprintln!("zarr_peer failed: {}", String::from_utf8_lossy(&out.stderr));
        return None;
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let get = |k: &str| -> Option<f64> {
        text.lines()
            .find_map(|l| l.strip_prefix(k).and_then(|v| v.trim().parse().ok()))
    };
    Some((get("full_read ")?, get("checksum ")?))
}

fn main() {
    let stores = [
        ("uncompressed", "temp_1x721x1440.zarr", "None", true),
        (
            "blosc-lz4+shuffle",
            "temp_1x721x1440_blosc_lz4.zarr",
            "numcodecs.Blosc(cname='lz4', clevel=5, shuffle=numcodecs.Blosc.SHUFFLE)",
            false,
        ),
        (
            "zlib-1",
            "temp_1x721x1440_zlib1.zarr",
            "numcodecs.Zlib(level=1)",
            false,
        ),
    ];
    let load_before = load_average();
    println!("| store | nctk 1 thread (s) | nctk 2 threads (s) | 2 vs 1 | zarr-python (s) | vs zarr-python | netCDF-C (s) | vs netCDF-C |");
    println!("| --- | --- | --- | --- | --- | --- | --- | --- |");
    let mut refs = vec![format!(
        "| floor: fresh 415 MB buffer, every byte written | {:.3} | {:.3} | | | | | |",
        floor(1),
        floor(2)
    )];
    for (label, name, comp, with_c) in stores {
        let Some(path) = zarr_store(name, comp) else {
            println!("| {label} | (store not available) | | | | | | |");
            continue;
        };
        let (t1, sum1) = nctk_read(&path, 1);
        let (t2, sum2) = nctk_read(&path, 2);
        assert_eq!(sum1, sum2);
        let py = zarr_python(&path);
        let c = if with_c { netcdf_c(&path) } else { None };
        for (who, r) in [("zarr-python", py), ("netCDF-C", c)] {
            if let Some((_, s)) = r {
                if (s - sum1).abs() > 1e-6 * sum1.abs() {
                    eprintln!("checksum differs from {who}: {s} vs {sum1}");
                }
            }
        }
        let best = t1.min(t2);
        let cell = |r: Option<(f64, f64)>| match r {
            Some((t, _)) => (format!("{t:.3}"), format!("{:.2}x", t / best)),
            None => ("-".into(), "-".into()),
        };
        if !with_c {
            refs.extend(decode_only_rows(label, &path));
            if let Some((d1, d2)) = numcodecs_decode(&path) {
                refs.push(format!(
                    "| {label}: numcodecs (C) decode only, 1 / 2 threads | {d1:.3} | {d2:.3} | {:.2}x | | | | |",
                    d1 / d2
                ));
            }
        }
        let (py_t, py_r) = cell(py);
        let (c_t, c_r) = cell(c);
        println!(
            "| {label} | {t1:.3} | {t2:.3} | {:.2}x | {py_t} | {py_r} | {c_t} | {c_r} |",
            t1 / t2
        );
    }
    for r in refs {
        println!("{r}");
    }
    println!("\n(times: best of 3, whole variable, 415 MB float32; ratios: peer time / best nctk time, so > 1 means nctk is faster; reference rows: best of 5; load average {load_before} before, {} after)", load_average());
}
