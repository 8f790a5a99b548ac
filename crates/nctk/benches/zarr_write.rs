//! Zarr write benchmark: the whole float32 `temp(time=100, lat=721,
//! lon=1440)` (415 MB), held in memory, written as an NCZarr directory
//! store with chunks (1, 721, 1440) by nctk's `ZarrWriter` (one time step
//! per write, as a copy does) and by xarray's `to_zarr` (zarr-python 3,
//! `zarr_format=2`), uncompressed, blosc-lz4+shuffle and zlib-1+shuffle.
//!
//! nctk runs on one thread (a rayon pool of 1: encode and store inline)
//! and on all cores (the caller fills chunks while the global pool encodes
//! and stores them). Times are best of 3, `finish` (every chunk stored)
//! included; xarray's cover `to_zarr` only, the dataset already in memory,
//! and nctk's likewise start from the time steps already in memory as
//! `Values` (before 2026-11-24 each step was also copied out of one large
//! array inside the timed loop). nctk's stores are read back and compared
//! with the source.
//!
//! Reference rows bound what any writer can reach here, per codec chain:
//! encoding alone (the 100 chunks in memory, encoded into memory by nctk's
//! codecs and by numcodecs' C codecs, 1 and 2 threads) and storing alone
//! (nctk's encoded chunks written as files by a directory store on 2
//! threads, nothing encoded).
//!
//! Needs `bench-data/classic_temp_cdf5.nc` (or under `$NCTK_BENCH_DATA`),
//! which `cargo bench -p nctk-cli --bench copy_speed` (or nctk-classic's
//! `classic_io`) makes. Prints a markdown table.
//!
//! Run: `cargo bench -p nctk --bench zarr_write`

#[path = "../tests/stores/mod.rs"]
mod stores;

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use nctk_bench_support::{data_dir, NLAT, NLON};
use nctk_classic::ClassicReader;
use nctk_model::{DataSource, GroupId, Layout, Schema, Selection, Values, VarStorage};
use nctk_zarr::{WriteOptions, ZarrOptions};

const NT: u64 = 100;
const RUNS: usize = 3;

/// xarray's side: load the classic file (not timed), then time `to_zarr`
/// with the encoding named by argv[3]; prints the best time.
const PY_XARRAY: &str = r#"
import os, sys, time, shutil, numpy as np, xarray as xr, netCDF4
from numcodecs import Blosc, Shuffle, Zlib
src, out, which = sys.argv[1], sys.argv[2], sys.argv[3]
v = netCDF4.Dataset(src)['temp']
v.set_auto_maskandscale(False)
ds = xr.Dataset({'temp': (('time', 'lat', 'lon'), np.asarray(v[:]))})
enc = {'chunks': (1, 721, 1440)}
if which == 'none':
    enc.update(compressors=None, filters=None)
elif which == 'blosc':
    enc.update(compressors=[Blosc(cname='lz4', clevel=5, shuffle=Blosc.SHUFFLE)], filters=None)
else:
    enc.update(compressors=[Zlib(level=1)], filters=[Shuffle(elementsize=4)])
best = 1e30
for _ in range(int(sys.argv[4])):
    shutil.rmtree(out, ignore_errors=True)
    os.sync()
    t0 = time.perf_counter()
    ds.to_zarr(out, mode='w', zarr_format=2, consolidated=False, encoding={'temp': enc})
    best = min(best, time.perf_counter() - t0)
shutil.rmtree(out, ignore_errors=True)
print(best)
"#;

fn xarray(src: &Path, out: &Path, which: &str) -> Option<f64> {
    let run = Command::new("python3")
        .arg("-c")
        .arg(PY_XARRAY)
        .arg(src)
        .arg(out)
        .arg(which)
        .arg(RUNS.to_string())
        .output()
        .ok()?;
    if !run.status.success() {
        eprintln!("xarray failed: {}", String::from_utf8_lossy(&run.stderr));
        return None;
    }
    String::from_utf8_lossy(&run.stdout).trim().parse().ok()
}

/// numcodecs' side of the encode-only reference: the chunks in memory,
/// encoded by the chain named by argv[2] on a pool of 1 and 2 Python
/// threads (Blosc's own threads off, as zarr-python sets them); best of 5.
const PY_ENCODE: &str = r#"
import sys, time, numpy as np, netCDF4
from concurrent.futures import ThreadPoolExecutor
from numcodecs import blosc, Blosc, Shuffle, Zlib
blosc.use_threads = False
v = netCDF4.Dataset(sys.argv[1])['temp']
v.set_auto_maskandscale(False)
chunks = [np.ascontiguousarray(v[t]) for t in range(v.shape[0])]
if sys.argv[2] == 'blosc':
    chain = [Blosc(cname='lz4', clevel=5, shuffle=Blosc.SHUFFLE)]
else:
    chain = [Shuffle(elementsize=4), Zlib(level=1)]
def enc(c):
    for codec in chain:
        c = codec.encode(c)
    return c
for threads in (1, 2):
    best = 1e30
    with ThreadPoolExecutor(threads) as ex:
        for _ in range(5):
            t0 = time.perf_counter()
            out = list(ex.map(enc, chunks))
            best = min(best, time.perf_counter() - t0)
    print(best)
"#;

/// Encoding alone with nctk's codecs: each chunk of `data` encoded by the
/// chain `codecs` (JSON list, compressor last) into memory on `threads`
/// rayon threads; best of 5, and the encoded chunks.
fn nctk_encode_only(data: &[f32], codecs: &str, threads: usize) -> (f64, Vec<Vec<u8>>) {
    use rayon::prelude::*;
    let list: serde_json::Value = serde_json::from_str(codecs).unwrap();
    let list = list.as_array().unwrap();
    let (compressor, filters) = list.split_last().unwrap();
    let pipeline = nctk_codec::Pipeline::from_zarr_json(
        compressor,
        &serde_json::Value::Array(filters.to_vec()),
        &nctk_codec::CodecContext::from_dtype("<f4"),
    )
    .unwrap();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let step = (NLAT * NLON) as usize;
    let bytes: Vec<Vec<u8>> = data
        .chunks(step)
        .map(|c| c.iter().flat_map(|x| x.to_le_bytes()).collect())
        .collect();
    let mut best = f64::MAX;
    let mut out = vec![];
    for _ in 0..5 {
        let t0 = Instant::now();
        out = pool.install(|| {
            bytes
                .par_iter()
                .map(|c| pipeline.encode(c).unwrap())
                .collect()
        });
        best = best.min(t0.elapsed().as_secs_f64());
    }
    (best, out)
}

/// Storing alone: `chunks` written as the files `temp/<t>.0.0` of a new
/// directory store at `out` on 2 rayon threads, nothing encoded; best of
/// `RUNS`, each after `sync`.
fn store_only(out: &Path, chunks: &[Vec<u8>]) -> f64 {
    use nctk_store::kv::{Bytes, DirectoryStore, StoreKey, WritableStore};
    use rayon::prelude::*;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    best_of(|| {
        let _ = std::fs::remove_dir_all(out);
        let values: Vec<Bytes> = chunks.iter().map(|c| Bytes::from(c.clone())).collect();
        let t0 = Instant::now();
        let store = DirectoryStore::new(out);
        pool.install(|| {
            values.into_par_iter().enumerate().for_each(|(t, v)| {
                let key = StoreKey::new(format!("temp/{t}.0.0")).unwrap();
                store.put(&key, v).unwrap();
            })
        });
        let t = t0.elapsed().as_secs_f64();
        let _ = std::fs::remove_dir_all(out);
        t
    })
}

/// The reference rows for one compressed chain (see the module docs).
fn reference_rows(
    label: &str,
    which: &str,
    codecs: &str,
    src: &Path,
    data: &[f32],
    out: &Path,
) -> Vec<String> {
    let (e1, _) = nctk_encode_only(data, codecs, 1);
    let (e2, chunks) = nctk_encode_only(data, codecs, 2);
    let stored: usize = chunks.iter().map(Vec::len).sum();
    let mut rows = vec![format!(
        "| {label}: nctk encode only (in memory) | {e1:.3} | {e2:.3} | | | |"
    )];
    let py = Command::new("python3")
        .arg("-c")
        .arg(PY_ENCODE)
        .arg(src)
        .arg(which)
        .output()
        .ok()
        .filter(|o| o.status.success());
    if let Some(o) = py {
        let text = String::from_utf8_lossy(&o.stdout).into_owned();
        let t: Vec<f64> = text.lines().filter_map(|l| l.trim().parse().ok()).collect();
        if let [p1, p2] = t[..] {
            rows.push(format!(
                "| {label}: numcodecs (C) encode only (in memory) | {p1:.3} | {p2:.3} | | | |"
            ));
        }
    }
    rows.push(format!(
        "| {label}: store only ({:.0} MB of encoded chunks as files) | | {:.3} | | | |",
        stored as f64 / 1e6,
        store_only(out, &chunks)
    ));
    rows
}

fn schema() -> Schema {
    let mut s = Schema::new();
    let r = GroupId::ROOT;
    let t = s.add_dim(r, "time", NT, false).unwrap();
    let y = s.add_dim(r, "lat", NLAT, false).unwrap();
    let x = s.add_dim(r, "lon", NLON, false).unwrap();
    s.add_var(r, "temp", nctk_model::DataType::Float, &[t, y, x])
        .unwrap();
    s
}

/// Writes `steps` (the field's time steps, already in memory as values,
/// as xarray's dataset is) one `write` each; returns the wall time.
fn nctk_write(out: &Path, steps: &[Values], var: &VarStorage) -> f64 {
    let _ = std::fs::remove_dir_all(out);
    let mut s = schema();
    let v = s.var_by_path("temp").unwrap();
    s.var_mut(v).storage = var.clone();
    let opts = WriteOptions::default();
    let t0 = Instant::now();
    let mut w = stores::create_dir(out, &s, &opts).unwrap();
    for (t, slab) in (0..).zip(steps) {
        w.write(v, &Selection::block(&[t, 0, 0], &[1, NLAT, NLON]), slab)
            .unwrap();
    }
    w.finish().unwrap();
    t0.elapsed().as_secs_f64()
}

/// Best wall time of `RUNS` runs of `f`, each starting with no dirty pages
/// (`sync`), so that one run's syncs do not wait for another's writes.
fn best_of(f: impl Fn() -> f64) -> f64 {
    (0..RUNS)
        .map(|_| {
            let _ = Command::new("sync").status();
            f()
        })
        .fold(f64::MAX, f64::min)
}

fn main() {
    let dir = data_dir();
    let src = dir.join("classic_temp_cdf5.nc");
    if !src.exists() {
        eprintln!(
            "{} is missing: run `cargo bench -p nctk-cli --bench copy_speed` first",
            src.display()
        );
        return;
    }
    let reader = nctk_store::bytes::FileSource::open(&src)
        .map_err(nctk_classic::ClassicError::from)
        .and_then(|s| ClassicReader::from_source(std::sync::Arc::new(s)))
        .unwrap();
    let v = reader.schema().var_by_path("temp").unwrap();
    let mut data = vec![0f32; (NT * NLAT * NLON) as usize];
    reader
        .read_into(v, &Selection::all(&[NT, NLAT, NLON]), &mut data[..])
        .unwrap();
    let steps: Vec<Values> = data
        .chunks((NLAT * NLON) as usize)
        .map(|c| Values::Float(c.to_vec()))
        .collect();
    let mb = data.len() as f64 * 4.0 / 1e6;
    let out = dir.join(format!("zarr_write_{}.zarr", std::process::id()));
    let peer_out = dir.join(format!("zarr_write_{}_xarray.zarr", std::process::id()));
    let configs = [
        ("uncompressed", "none", None),
        (
            "blosc-lz4+shuffle",
            "blosc",
            Some(r#"[{"id":"blosc","cname":"lz4","clevel":5,"shuffle":1,"blocksize":0}]"#),
        ),
        (
            "zlib-1+shuffle",
            "zlib",
            Some(r#"[{"id":"shuffle","elementsize":4},{"id":"zlib","level":1}]"#),
        ),
    ];
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    println!(
        "| {mb:.0} MB float32, chunks (1, 721, 1440) | nctk 1 thread (s) | nctk {} threads (s) | MB/s | xarray to_zarr (s) | xarray / nctk |",
        rayon::current_num_threads()
    );
    println!("| --- | --- | --- | --- | --- | --- |");
    let mut refs = vec![];
    for (label, which, codecs) in configs {
        let var = VarStorage {
            layout: Layout::Chunked(vec![1, NLAT, NLON]),
            codecs: codecs.map(str::to_string),
            ..VarStorage::default()
        };
        let t1 = best_of(|| one.install(|| nctk_write(&out, &steps, &var)));
        let tn = best_of(|| nctk_write(&out, &steps, &var));
        let back = stores::open_path(&out, ZarrOptions::default()).unwrap();
        let bv = back.schema().var_by_path("temp").unwrap();
        let got = back
            .read_values(bv, &Selection::all(&[NT, NLAT, NLON]))
            .unwrap();
        assert!(
            matches!(&got, Values::Float(f) if f == &data),
            "{label}: the store does not read back as written"
        );
        let _ = std::fs::remove_dir_all(&out);
        let peer = xarray(&src, &peer_out, which);
        let (pt, ratio) = match peer {
            Some(p) => (format!("{p:.3}"), format!("{:.2}x", p / tn.min(t1))),
            None => ("-".into(), "-".into()),
        };
        println!(
            "| {label} | {t1:.3} | {tn:.3} | {:.0} | {pt} | {ratio} |",
            mb / tn.min(t1)
        );
        if let Some(c) = codecs {
            refs.extend(reference_rows(label, which, c, &src, &data, &out));
        }
    }
    for r in refs {
        println!("{r}");
    }
    println!("\n(best of {RUNS}; ratios are xarray's time over nctk's best, so > 1 means nctk is faster; read back equal: yes)");
}
