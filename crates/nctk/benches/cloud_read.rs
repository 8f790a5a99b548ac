//! Cloud read benchmark: the float32 `temp(time=100, lat=721, lon=1440)`
//! (415 MB) read over the network on loopback, with 0 ms and with 20 ms of
//! latency added to every request by a proxy (`nctk-test-servers`'
//! `FaultProxy`), beside the peers in the same run:
//!
//! * `#mode=bytes`: the CDF-5 file served over HTTP with `Range` (the
//!   tests' own `RangeFileServer`, streaming from the page cache), read
//!   whole and as the point series `temp[:,360,720]` by nctk and by
//!   netCDF-C 4.10.1 (the pip `netCDF4` wheel) on the same URL;
//! * Zarr on S3: the uncompressed and blosc-lz4 stores of the `zarr_read`
//!   bench uploaded to `s3s-fs` (a Rust S3 server; set `NCTK_S3S_FS` to its
//!   binary or put `s3s-fs` on the PATH: `cargo install s3s-fs --features
//!   binary`), read whole by nctk and by zarr-python 3 + s3fs.
//!
//! Each section has a floor row measured in the same run: every needed
//! byte or object fetched through the same proxy by `object_store` with 32
//! requests in flight and nothing else done with them. Requests are
//! counted at the proxy.
//!
//! Run: `cargo bench -p nctk --bench cloud_read`

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::stream::{self, StreamExt, TryStreamExt};
use nctk_bench_support::s3s::{S3sFs, BUCKET, KEY, SECRET};
use nctk_bench_support::{data_dir, python, write_temp_field, zarr_store, NLAT, NLON};
use nctk_test_servers::{Behaviour, FaultProxy, RangeFileServer};
use object_store::path::Path as ObjectPath;
use object_store::{ObjectStore, ObjectStoreExt};

const NT: u64 = 100;
/// Requests in flight for the floor.
const FLOOR_CONCURRENCY: usize = 32;
/// Bytes per floor request.
const FLOOR_PIECE: u64 = 8 << 20;

const PY_NETCDF: &str = r#"
import sys, time, numpy as np, netCDF4
url, what = sys.argv[1], sys.argv[2]
t0 = time.perf_counter()
ds = netCDF4.Dataset(url)
v = ds['temp']
v.set_auto_maskandscale(False)
a = np.asarray(v[:] if what == 'all' else v[:, 360, 720], dtype='f8').reshape(-1)
print(time.perf_counter() - t0)
print(float(a[::9973].sum()) if what == 'all' else float(a.sum()))
"#;

const PY_ZARR_S3: &str = r#"
import sys, time, numpy as np, zarr
from zarr.storage import FsspecStore
endpoint, path, key, secret = sys.argv[1:5]
best = 1e30
for _ in range(2):
    t0 = time.perf_counter()
    store = FsspecStore.from_url('s3://' + path, read_only=True, storage_options=dict(
        endpoint_url=endpoint, key=key, secret=secret, skip_instance_cache=True,
        client_kwargs={'region_name': 'us-east-1'}))
    a = zarr.open_group(store=store, mode='r', zarr_format=2)['temp'][:]
    best = min(best, time.perf_counter() - t0)
print(best)
print(float(a.reshape(-1)[::9973].astype('f8').sum()))
"#;

/// One row of the results table.
struct Row {
    section: &'static str,
    latency_ms: u64,
    reader: String,
    seconds: f64,
    requests: Option<usize>,
    check: f64,
}

/// The floor: `pieces` (object, byte range) fetched through `store` with
/// [`FLOOR_CONCURRENCY`] requests in flight, each copied into one
/// preallocated buffer, or with `decode` (a compressed store's chunks,
/// `chunk` bytes each decoded) decoded by nctk's decoders into its place by
/// two threads as it arrives: the least work any reader of the store must
/// do. Best of 2.
fn floor(
    store: Arc<dyn ObjectStore>,
    pieces: &[(ObjectPath, std::ops::Range<u64>)],
    decode: Option<(&nctk_codec::Pipeline, usize)>,
) -> f64 {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let total: u64 = match decode {
        Some((_, chunk)) => (pieces.len() * chunk) as u64,
        None => pieces.iter().map(|(_, r)| r.end - r.start).sum(),
    };
    let mut best = f64::MAX;
    for _ in 0..2 {
        let mut out = vec![0u8; total as usize];
        let t0 = Instant::now();
        // Where each piece lands: its offset in `out`.
        let mut at = 0usize;
        let targets: Vec<_> = pieces
            .iter()
            .enumerate()
            .map(|(i, (p, r))| {
                let start = at;
                at += match decode {
                    Some((_, chunk)) => chunk,
                    None => (r.end - r.start) as usize,
                };
                (p.clone(), r.clone(), start, i)
            })
            .collect();
        let fetch = |deliver: &mut dyn FnMut(usize, usize, bytes_crate::Bytes)| {
            rt.block_on(async {
                let mut fetched = stream::iter(targets.iter().cloned().map(|(p, r, start, i)| {
                    let store = store.clone();
                    async move { store.get_range(&p, r).await.map(|b| (start, i, b)) }
                }))
                .buffer_unordered(FLOOR_CONCURRENCY);
                while let Some((start, i, bytes)) = fetched.try_next().await.unwrap() {
                    deliver(start, i, bytes);
                }
            })
        };
        match decode {
            None => fetch(&mut |start, _, bytes| {
                out[start..start + bytes.len()].copy_from_slice(&bytes)
            }),
            Some((pipeline, chunk)) => {
                let slots: Vec<std::sync::Mutex<&mut [u8]>> =
                    out.chunks_mut(chunk).map(std::sync::Mutex::new).collect();
                let (tx, rx) = std::sync::mpsc::channel::<(usize, bytes_crate::Bytes)>();
                let rx = std::sync::Mutex::new(rx);
                std::thread::scope(|s| {
                    for _ in 0..2 {
                        s.spawn(|| loop {
                            let next = rx.lock().unwrap().recv();
                            let Ok((i, raw)) = next else { break };
                            let mut slot = slots[i].lock().unwrap();
                            pipeline.decode_into(&raw, &mut slot).unwrap();
                        });
                    }
                    fetch(&mut |_, i, bytes| tx.send((i, bytes)).unwrap());
                    drop(tx);
                });
            }
        }
        best = best.min(t0.elapsed().as_secs_f64());
        std::hint::black_box(&out);
    }
    best
}

/// `len` bytes of one object in [`FLOOR_PIECE`] pieces.
fn pieces_of(path: &str, len: u64) -> Vec<(ObjectPath, std::ops::Range<u64>)> {
    (0..len.div_ceil(FLOOR_PIECE))
        .map(|i| {
            let start = i * FLOOR_PIECE;
            (
                ObjectPath::from(path),
                start..(start + FLOOR_PIECE).min(len),
            )
        })
        .collect()
}

/// nctk reading `temp` whole (`all`) or as the point series from `url`:
/// (seconds, checksum as the Python scripts compute it). Best of 2.
fn nctk_read(url: &str, all: bool) -> (f64, f64) {
    let mut best = f64::MAX;
    let mut check = 0.0;
    for _ in 0..2 {
        let t0 = Instant::now();
        let ds = nctk::open(url).unwrap_or_else(|e| panic!("{url}: {e}"));
        let var = ds.variable("temp").unwrap();
        let values: Vec<f32> = if all {
            var.get_values(..).unwrap()
        } else {
            var.get_values((.., 360usize, 720usize)).unwrap()
        };
        best = best.min(t0.elapsed().as_secs_f64());
        check = if all {
            values.iter().step_by(9973).map(|&x| x as f64).sum()
        } else {
            values.iter().map(|&x| x as f64).sum()
        };
    }
    (best, check)
}

/// A Python peer's (seconds, checksum) lines.
fn peer(script: &str, args: &[&str]) -> Option<(f64, f64)> {
    let paths: Vec<&Path> = args.iter().map(Path::new).collect();
    parse_peer(&python(script, &paths)?)
}

fn parse_peer(out: &str) -> Option<(f64, f64)> {
    let mut l = out.lines().map(|x| x.trim().parse::<f64>().ok());
    Some((l.next()??, l.next()??))
}

/// How long netCDF-C may take for one read: it fetches a whole variable
/// 16 KiB per request, one request at a time, which at 20 ms per request
/// takes many minutes.
const PEER_LIMIT_S: u64 = 120;

/// What a capped peer run gave.
enum Capped {
    Done(f64, f64),
    /// Still running after [`PEER_LIMIT_S`].
    Stopped,
}

/// A Python peer run under `timeout`; `None` when it failed otherwise.
fn peer_capped(script: &str, args: &[&str]) -> Option<Capped> {
    let mut cmd = std::process::Command::new("timeout");
    cmd.arg(PEER_LIMIT_S.to_string())
        .args(["python3", "-c", script])
        .args(args);
    match nctk_test_support::peer::output(&mut cmd) {
        Ok(out) => parse_peer(&out).map(|(s, c)| Capped::Done(s, c)),
        Err(nctk_test_support::peer::PeerError::Failed { status, .. })
            if status.code() == Some(124) =>
        {
            Some(Capped::Stopped)
        }
        Err(e) => {
            eprintln!("{e}");
            None
        }
    }
}

fn main() {
    let dir = data_dir();
    std::fs::create_dir_all(&dir).unwrap();
    let classic = dir.join("classic_temp_cdf5.nc");
    if !classic.exists() {
        write_temp_field(&classic, NT);
    }
    let classic_len = std::fs::metadata(&classic).unwrap().len();
    let mut rows = vec![];

    // #mode=bytes over HTTP.
    let http = RangeFileServer::start_dir(&dir, Behaviour::Honest).unwrap();
    let http_proxy = FaultProxy::start(&http.endpoint()).unwrap();
    let http_store: Arc<dyn ObjectStore> = Arc::new(
        object_store::http::HttpBuilder::new()
            .with_url(http_proxy.endpoint())
            .with_client_options(object_store::ClientOptions::new().with_allow_http(true))
            .build()
            .unwrap(),
    );
    let bytes_url = format!("{}/classic_temp_cdf5.nc#mode=bytes", http_proxy.endpoint());

    // Zarr on S3.
    let s3s = S3sFs::start(&dir.join("s3s-root"));
    let s3_proxy = s3s
        .as_ref()
        .map(|s| FaultProxy::start(&s.endpoint).unwrap());
    let mut zarr_stores = vec![];
    if let Some(s3s) = &s3s {
        std::env::set_var("AWS_ACCESS_KEY_ID", KEY);
        std::env::set_var("AWS_SECRET_ACCESS_KEY", SECRET);
        std::env::set_var("AWS_REGION", "us-east-1");
        for (name, comp) in [
            ("temp_1x721x1440.zarr", "None"),
            (
                "temp_1x721x1440_blosc_lz4.zarr",
                "numcodecs.Blosc(cname='lz4', clevel=5, shuffle=numcodecs.Blosc.SHUFFLE)",
            ),
        ] {
            let Some(local) = zarr_store(name, comp) else {
                continue;
            };
            let marker = dir.join("s3s-root").join(BUCKET).join(name).join(".zgroup");
            if !marker.exists() {
                eprintln!("uploading {name} to s3s-fs ...");
                s3s.upload(&local, name);
            }
            zarr_stores.push(name);
        }
    } else {
        eprintln!("s3s-fs is not available: the Zarr-on-S3 rows are left out");
    }

    for latency_ms in [0u64, 20] {
        let latency = Duration::from_millis(latency_ms);
        http_proxy.set_latency(latency);
        if let Some(p) = &s3_proxy {
            p.set_latency(latency);
        }

        let f = floor(
            http_store.clone(),
            &pieces_of("classic_temp_cdf5.nc", classic_len),
            None,
        );
        rows.push(Row {
            section: "#mode=bytes whole temp",
            latency_ms,
            reader: "floor (object_store, 32 x 8 MiB in flight)".into(),
            seconds: f,
            requests: Some(classic_len.div_ceil(FLOOR_PIECE) as usize),
            check: 0.0,
        });
        for all in [true, false] {
            let section = if all {
                "#mode=bytes whole temp"
            } else {
                "#mode=bytes temp[:,360,720]"
            };
            http_proxy.reset_stats();
            let (s, check) = nctk_read(&bytes_url, all);
            rows.push(Row {
                section,
                latency_ms,
                reader: "nctk".into(),
                seconds: s,
                requests: Some(http_proxy.stats().requests() / 2),
                check,
            });
            http_proxy.reset_stats();
            let what = if all { "all" } else { "point" };
            let (reader, seconds, check) = match peer_capped(PY_NETCDF, &[&bytes_url, what]) {
                Some(Capped::Done(s, check)) => ("netCDF-C 4.10.1 (netCDF4-python)".into(), s, check),
                Some(Capped::Stopped) => (
                    format!("netCDF-C 4.10.1 (netCDF4-python): stopped after {PEER_LIMIT_S} s, unfinished"),
                    PEER_LIMIT_S as f64,
                    f64::NAN,
                ),
                None => continue,
            };
            rows.push(Row {
                section,
                latency_ms,
                reader,
                seconds,
                requests: Some(http_proxy.stats().requests()),
                check,
            });
        }

        if let Some(proxy) = &s3_proxy {
            let s3_store: Arc<dyn ObjectStore> = Arc::new(
                object_store::aws::AmazonS3Builder::new()
                    .with_endpoint(proxy.endpoint())
                    .with_bucket_name(BUCKET)
                    .with_region("us-east-1")
                    .with_access_key_id(KEY)
                    .with_secret_access_key(SECRET)
                    .with_allow_http(true)
                    .build()
                    .unwrap(),
            );
            for name in &zarr_stores {
                let section: &'static str = if name.contains("blosc") {
                    "Zarr on S3, blosc-lz4"
                } else {
                    "Zarr on S3, uncompressed"
                };
                let chunk_pieces: Vec<_> = (0..NT)
                    .map(|t| {
                        let path = format!("{name}/temp/{t}.0.0");
                        let root = dir.join("s3s-root").join(BUCKET);
                        let len = std::fs::metadata(root.join(&path)).unwrap().len();
                        (ObjectPath::from(path), 0..len)
                    })
                    .collect();
                rows.push(Row {
                    section,
                    latency_ms,
                    reader: "floor (object_store, 32 chunk GETs in flight)".into(),
                    seconds: floor(s3_store.clone(), &chunk_pieces, None),
                    requests: Some(chunk_pieces.len()),
                    check: 0.0,
                });
                let local = dir.join(name);
                let meta: serde_json::Value =
                    serde_json::from_slice(&std::fs::read(local.join("temp/.zarray")).unwrap())
                        .unwrap();
                if !meta["compressor"].is_null() {
                    let ctx = nctk_codec::CodecContext::from_dtype(meta["dtype"].as_str().unwrap());
                    let pipeline = nctk_codec::Pipeline::from_zarr_json(
                        &meta["compressor"],
                        &meta["filters"],
                        &ctx,
                    )
                    .unwrap();
                    let chunk = (NLAT * NLON * 4) as usize;
                    rows.push(Row {
                        section,
                        latency_ms,
                        reader: "floor + decode (the same fetches, each chunk decoded by nctk's codecs on 2 threads as it arrives)".into(),
                        seconds: floor(s3_store.clone(), &chunk_pieces, Some((&pipeline, chunk))),
                        requests: Some(chunk_pieces.len()),
                        check: 0.0,
                    });
                }
                let url = format!("{}/{BUCKET}/{name}#mode=zarr,s3", proxy.endpoint());
                proxy.reset_stats();
                let (s, check) = nctk_read(&url, true);
                rows.push(Row {
                    section,
                    latency_ms,
                    reader: "nctk".into(),
                    seconds: s,
                    requests: Some(proxy.stats().requests() / 2),
                    check,
                });
                proxy.reset_stats();
                let path = format!("{BUCKET}/{name}");
                if let Some((s, check)) = peer(PY_ZARR_S3, &[&proxy.endpoint(), &path, KEY, SECRET])
                {
                    rows.push(Row {
                        section,
                        latency_ms,
                        reader: "zarr-python 3 + s3fs".into(),
                        seconds: s,
                        requests: Some(proxy.stats().requests() / 2),
                        check,
                    });
                }
            }
        }
    }

    let mb = (NT * NLAT * NLON * 4) as f64 / 1e6;
    println!("| what | latency | reader | time | MB/s | requests | checksum |");
    println!("| --- | --- | --- | --- | --- | --- | --- |");
    for r in &rows {
        let rate = if r.section.contains("360") || r.check.is_nan() {
            "-".to_string()
        } else {
            format!("{:.0}", mb / r.seconds)
        };
        println!(
            "| {} | {} ms | {} | {:.3} s | {} | {} | {:.6e} |",
            r.section,
            r.latency_ms,
            r.reader,
            r.seconds,
            rate,
            r.requests.map_or("-".into(), |n| n.to_string()),
            r.check
        );
    }
}
