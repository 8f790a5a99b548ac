//! Single-core encode/decode throughput of every codec on ~64 MB of
//! float32 climate-like data, side by side with numcodecs (C) when python3
//! with numcodecs is installed. Prints a markdown table.
//!
//! The column "nctk dec of numcodecs' bytes" decodes numcodecs' own
//! encoded chunks with nctk, so both decoders see the same streams (the
//! encoders differ: lz4_flex against C LZ4, a simpler blosclz, zlib-rs).
//!
//! Run: `cargo bench -p nctk-codec --bench codec_throughput`
//! (`NCTK_BENCH_MB=16` for a shorter run).

use std::hint::black_box;
use std::process::Command;
use std::time::{Duration, Instant};

use nctk_codec::{Codec, CodecContext};
use serde_json::{json, Value};

const CHUNK: usize = 4 << 20;

const PY: &str = r#"
import json, sys, time
import numpy as np
import numcodecs
from numcodecs import blosc
blosc.use_threads = False
blosc.set_nthreads(1)
raw = open(sys.argv[1], "rb").read()
chunk = int(sys.argv[2])
res = []
for cfg in json.loads(sys.argv[3]):
    limit = cfg.pop("_bytes")
    codec = numcodecs.get_codec(cfg)
    data = raw[:limit]
    chunks = [np.frombuffer(data[i:i + chunk], dtype="<f4") for i in range(0, len(data), chunk)]
    def best(f):
        t = []
        start = time.perf_counter()
        while len(t) < 10 and (len(t) == 0 or time.perf_counter() - start < 1.0):
            t0 = time.perf_counter(); f(); t.append(time.perf_counter() - t0)
        return min(t)
    enc = []
    te = best(lambda: enc.__setitem__(slice(None), [codec.encode(c) for c in chunks]))
    outs = [np.empty_like(c) for c in chunks]
    td = best(lambda: [codec.decode(e, out=o) for e, o in zip(enc, outs)])
    ok = all(np.array_equal(o.view("u1"), c.view("u1")) for o, c in zip(outs, chunks)) or cfg["id"] in ("bitround",)
    blobs = [bytes(e) if not isinstance(e, np.ndarray) else e.tobytes() for e in enc]
    size = sum(len(b) for b in blobs)
    with open(sys.argv[4], "wb") as f:
        for b in blobs:
            f.write(len(b).to_bytes(8, "little") + b)
    res.append({"enc": te, "dec": td, "size": size, "ok": bool(ok)})
print(json.dumps(res))
"#;

/// The climate-like field: smooth in space and time, plus noise (deterministic).
fn climate(nbytes: usize) -> Vec<u8> {
    let n = nbytes / 4;
    let (nx, ny) = (1440usize, 721usize);
    let mut s: u64 = 0x1234_5678;
    let mut out = Vec::with_capacity(n * 4);
    for i in 0..n {
        let x = (i % nx) as f32 / nx as f32 * std::f32::consts::TAU;
        let y = ((i / nx) % ny) as f32 / ny as f32 * std::f32::consts::PI;
        let t = (i / (nx * ny)) as f32;
        s = s
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let noise = ((s >> 40) as f32 / (1u64 << 24) as f32 - 0.5) * 0.2;
        let v = 250.0 + 40.0 * y.sin() + 5.0 * (3.0 * x + 0.1 * t).sin() * (2.0 * y).cos() + noise;
        out.extend_from_slice(&v.to_le_bytes());
    }
    out
}

/// Best of up to 10 runs, stopping after ~1 s (fast codecs get more runs,
/// which keeps a stray context switch out of the figure).
fn best(mut f: impl FnMut()) -> Duration {
    let start = Instant::now();
    let mut b = Duration::MAX;
    let mut runs = 0;
    while runs < 10 && (runs == 0 || start.elapsed() < Duration::from_secs(1)) {
        let t = Instant::now();
        f();
        b = b.min(t.elapsed());
        runs += 1;
    }
    b
}

struct Row {
    name: String,
    bytes: usize,
    enc: Duration,
    dec: Duration,
    size: usize,
    /// nctk decoding numcodecs' encoded chunks.
    dec_theirs: Option<Duration>,
}

/// Reads the length-prefixed chunks the Python side wrote.
fn read_blobs(path: &std::path::Path) -> Option<Vec<Vec<u8>>> {
    let all = std::fs::read(path).ok()?;
    let mut out = Vec::new();
    let mut p = 0;
    while p < all.len() {
        let n = u64::from_le_bytes(all.get(p..p + 8)?.try_into().ok()?) as usize;
        out.push(all.get(p + 8..p + 8 + n)?.to_vec());
        p += 8 + n;
    }
    Some(out)
}

fn mbs(bytes: usize, d: Duration) -> f64 {
    bytes as f64 / 1e6 / d.as_secs_f64()
}

fn main() {
    let mb: usize = std::env::var("NCTK_BENCH_MB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(64);
    let total = mb << 20;
    let data = climate(total);
    let small = total.min(8 << 20); // bz2 is ~20x slower than the rest
    let cases: Vec<(&str, Value, usize)> = vec![
        ("zlib L1", json!({"id": "zlib", "level": 1}), total),
        ("gzip L1", json!({"id": "gzip", "level": 1}), total),
        ("bz2 L1 (8 MB)", json!({"id": "bz2", "level": 1}), small),
        ("zstd L3", json!({"id": "zstd", "level": 3}), total),
        ("lz4", json!({"id": "lz4", "acceleration": 1}), total),
        (
            "blosc lz4 L5 shuffle",
            json!({"id": "blosc", "cname": "lz4", "clevel": 5, "shuffle": 1, "blocksize": 0}),
            total,
        ),
        (
            "blosc zstd L3 bitshuffle",
            json!({"id": "blosc", "cname": "zstd", "clevel": 3, "shuffle": 2, "blocksize": 0}),
            total,
        ),
        (
            "blosc blosclz L5 shuffle",
            json!({"id": "blosc", "cname": "blosclz", "clevel": 5, "shuffle": 1, "blocksize": 0}),
            total,
        ),
        (
            "blosc zlib L5 shuffle",
            json!({"id": "blosc", "cname": "zlib", "clevel": 5, "shuffle": 1, "blocksize": 0}),
            total,
        ),
        (
            "shuffle 4",
            json!({"id": "shuffle", "elementsize": 4}),
            total,
        ),
        ("fletcher32", json!({"id": "fletcher32"}), total),
        (
            "delta <f4",
            json!({"id": "delta", "dtype": "<f4", "astype": "<f4"}),
            total,
        ),
        (
            "bitround 10",
            json!({"id": "bitround", "keepbits": 10}),
            total,
        ),
    ];
    let ctx = CodecContext::from_dtype("<f4");
    let dir = std::env::temp_dir().join(format!("nctk-codec-bench-{}", std::process::id()));
    let data_file = std::fs::create_dir_all(&dir)
        .and_then(|_| std::fs::write(dir.join("data.bin"), &data))
        .map(|_| dir.join("data.bin"))
        .ok();
    let mut py: Option<Vec<Value>> = data_file.as_ref().map(|_| Vec::new());
    let mut rows = Vec::new();
    for (name, cfg, bytes) in &cases {
        let codec = Codec::from_json_with(cfg, &ctx).expect("codec");
        let input = &data[..*bytes];
        let mut encoded: Vec<Vec<u8>> = Vec::new();
        let enc = best(|| {
            encoded = input
                .chunks(CHUNK)
                .map(|c| codec.encode(c).expect("encode"))
                .collect();
        });
        let mut out = vec![0u8; *bytes];
        let dec = best(|| {
            for (e, o) in encoded.iter().zip(out.chunks_mut(CHUNK)) {
                codec.decode_into(e, o).expect("decode");
            }
            black_box(&out);
        });
        if codec.is_lossless() {
            assert!(out == input, "{name}: round trip failed");
        }
        // numcodecs right after, so both see the same machine load.
        let mut dec_theirs = None;
        if let (Some(f), Some(p)) = (&data_file, py.as_mut()) {
            let blobs_file = dir.join("numcodecs.bin");
            match run_numcodecs(f, cfg, *bytes, &blobs_file) {
                Some(v) => {
                    p.push(v);
                    if let Some(theirs) = read_blobs(&blobs_file) {
                        dec_theirs = Some(best(|| {
                            for (e, o) in theirs.iter().zip(out.chunks_mut(CHUNK)) {
                                codec.decode_into(e, o).expect("decode numcodecs' bytes");
                            }
                            black_box(&out);
                        }));
                        if codec.is_lossless() {
                            assert!(out == input, "{name}: numcodecs' bytes decode wrong");
                        }
                    }
                }
                None => py = None,
            }
        }
        rows.push(Row {
            name: name.to_string(),
            bytes: *bytes,
            enc,
            dec,
            size: encoded.iter().map(Vec::len).sum(),
            dec_theirs,
        });
        eprintln!("{name}: done");
    }
    let _ = std::fs::remove_dir_all(&dir);

    println!(
        "\n{} MB of float32 (1440x721 grid, smooth + noise), {} MiB chunks, one core.\n",
        mb * 1048576 / 1_000_000,
        CHUNK >> 20
    );
    println!("| codec | nctk enc MB/s | nctk dec MB/s | nctk ratio | numcodecs enc MB/s | numcodecs dec MB/s | numcodecs ratio | enc nctk/numcodecs | dec nctk/numcodecs | nctk dec of numcodecs' bytes MB/s | same bytes nctk/numcodecs |");
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    for (i, r) in rows.iter().enumerate() {
        let (re, rd) = (mbs(r.bytes, r.enc), mbs(r.bytes, r.dec));
        let ratio = r.bytes as f64 / r.size as f64;
        match py.as_ref().and_then(|p| p.get(i)) {
            Some(p) => {
                let pe = mbs(
                    r.bytes,
                    Duration::from_secs_f64(p["enc"].as_f64().unwrap_or(f64::NAN)),
                );
                let pd = mbs(
                    r.bytes,
                    Duration::from_secs_f64(p["dec"].as_f64().unwrap_or(f64::NAN)),
                );
                let pr = r.bytes as f64 / p["size"].as_f64().unwrap_or(f64::NAN);
                let ok = if p["ok"].as_bool() == Some(true) {
                    ""
                } else {
                    " (numcodecs round trip failed)"
                };
                let (rt, rtr) = match r.dec_theirs {
                    Some(d) => {
                        let v = mbs(r.bytes, d);
                        (format!("{v:.0}"), format!("{:.2}", v / pd))
                    }
                    None => ("-".into(), "-".into()),
                };
                println!(
                    "| {}{ok} | {re:.0} | {rd:.0} | {ratio:.2} | {pe:.0} | {pd:.0} | {pr:.2} | {:.2} | {:.2} | {rt} | {rtr} |",
                    r.name,
                    re / pe,
                    rd / pd
                );
            }
            None => println!(
                "| {} | {re:.0} | {rd:.0} | {ratio:.2} | - | - | - | - | - | - | - |",
                r.name
            ),
        }
    }
}

fn run_numcodecs(
    path: &std::path::Path,
    cfg: &Value,
    bytes: usize,
    blobs: &std::path::Path,
) -> Option<Value> {
    let mut c = cfg.clone();
    c["_bytes"] = json!(bytes);
    let out = Command::new("python3")
        .arg("-c")
        .arg(PY)
        .arg(path)
        .arg(CHUNK.to_string())
        .arg(serde_json::to_string(&[c]).ok()?)
        .arg(blobs)
        .output();
    match out {
        Ok(o) if o.status.success() => {
            let v: Vec<Value> = serde_json::from_slice(&o.stdout).ok()?;
            v.into_iter().next()
        }
        Ok(o) => {
            let err = String::from_utf8_lossy(&o.stderr);
            eprintln!(
                "numcodecs comparison skipped: {}",
                err.lines().last().unwrap_or("")
            );
            None
        }
        Err(e) => {
            eprintln!("numcodecs comparison skipped: {e}");
            None
        }
    }
}
