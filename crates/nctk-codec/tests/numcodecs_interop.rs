//! Interoperability with Python's numcodecs (skipped when it is absent):
//! Rust-encoded buffers must decode in numcodecs and vice versa; Blosc
//! headers must carry numcodecs' choices (block size, split flag, shuffle);
//! deterministic filters must produce numcodecs' exact bytes.

mod common;

use std::fs;

use nctk_codec::{Codec, CodecContext};
use serde_json::{json, Value};

const SCRIPT: &str = r#"
import json, sys
import numpy as np
import numcodecs
from numcodecs import blosc
blosc.use_threads = False
d = sys.argv[1]
cases = json.load(open(d + "/cases.json"))
for i, c in enumerate(cases):
    codec = numcodecs.get_codec(dict(c["config"]))
    raw = open(f"{d}/{i}.raw", "rb").read()
    arr = np.frombuffer(raw, dtype=c["dtype"])
    enc = codec.encode(arr)
    open(f"{d}/{i}.py_enc", "wb").write(bytes(np.ascontiguousarray(enc).view("u1")) if isinstance(enc, np.ndarray) else bytes(enc))
    renc = open(f"{d}/{i}.rs_enc", "rb").read()
    try:
        out = codec.decode(renc)
        out = np.ascontiguousarray(out).view("u1").tobytes() if isinstance(out, np.ndarray) else bytes(out)
        open(f"{d}/{i}.py_dec", "wb").write(out)
    except Exception as e:
        open(f"{d}/{i}.py_err", "w").write(repr(e))
"#;

struct Case {
    config: Value,
    dtype: &'static str,
    data: Vec<u8>,
    /// Compare the encoded bytes exactly (deterministic filters).
    exact: bool,
}

fn cases() -> Vec<Case> {
    let f4_big = common::climate_f32(300_000, 1); // 1.2 MB: many blocks, leftover
    let f4_odd = common::climate_f32(1001, 2);
    let f4_small = common::climate_f32(25, 3); // 100 bytes: memcpy path
    let i8_data: Vec<u8> = (0..70_001i64)
        .flat_map(|i| (i * i % 10_007 - 5000).to_le_bytes())
        .collect();
    let u1_data: Vec<u8> = (0..200_000u32).map(|i| ((i / 300) % 256) as u8).collect();
    let i2_data: Vec<u8> = (0..40_000i32)
        .flat_map(|i| ((i * 7 / 3) as i16).to_le_bytes())
        .collect();
    let mut v = Vec::new();
    for cname in ["blosclz", "lz4", "lz4hc", "zlib", "zstd"] {
        for shuffle in [-1, 0, 1, 2] {
            for (dtype, data) in [
                ("<f4", &f4_big),
                ("<f4", &f4_odd),
                ("<i8", &i8_data),
                ("|u1", &u1_data),
            ] {
                v.push(Case {
                    config: json!({"id": "blosc", "cname": cname, "clevel": 5, "shuffle": shuffle, "blocksize": 0}),
                    dtype,
                    data: data.clone(),
                    exact: false,
                });
            }
        }
        for clevel in [0, 1, 9] {
            v.push(Case {
                config: json!({"id": "blosc", "cname": cname, "clevel": clevel, "shuffle": 1, "blocksize": 0}),
                dtype: "<f4",
                data: f4_big.clone(),
                exact: false,
            });
        }
        v.push(Case {
            config: json!({"id": "blosc", "cname": cname, "clevel": 5, "shuffle": 2, "blocksize": 4000}),
            dtype: "<i2",
            data: i2_data.clone(),
            exact: false,
        });
        v.push(Case {
            config: json!({"id": "blosc", "cname": cname, "clevel": 5, "shuffle": 1, "blocksize": 0}),
            dtype: "<f4",
            data: f4_small.clone(),
            exact: true,
        });
    }
    for config in [
        json!({"id": "zlib", "level": 1}),
        json!({"id": "zlib", "level": 9}),
        json!({"id": "gzip", "level": 5}),
        json!({"id": "bz2", "level": 9}),
        json!({"id": "zstd", "level": 3, "checksum": false}),
        json!({"id": "zstd", "level": 1, "checksum": true}),
        json!({"id": "lz4", "acceleration": 1}),
    ] {
        v.push(Case {
            config,
            dtype: "<f4",
            data: f4_big.clone(),
            exact: false,
        });
    }
    for (config, dtype, data) in [
        (json!({"id": "shuffle", "elementsize": 4}), "<f4", &f4_odd),
        (json!({"id": "shuffle", "elementsize": 8}), "<i8", &i8_data),
        (json!({"id": "fletcher32"}), "<f4", &f4_odd),
        (json!({"id": "fletcher32"}), "|u1", &u1_data),
        (
            json!({"id": "delta", "dtype": "<i8", "astype": "<i8"}),
            "<i8",
            &i8_data,
        ),
        (
            json!({"id": "delta", "dtype": "<i2", "astype": "<i1"}),
            "<i2",
            &i2_data,
        ),
        (
            json!({"id": "delta", "dtype": "<f4", "astype": "<f4"}),
            "<f4",
            &f4_odd,
        ),
        (json!({"id": "bitround", "keepbits": 7}), "<f4", &f4_big),
        (json!({"id": "bitround", "keepbits": 0}), "<f4", &f4_odd),
        (
            json!({"id": "quantize", "digits": 3, "dtype": "<f4"}),
            "<f4",
            &f4_odd,
        ),
        (
            json!({"id": "fixedscaleoffset", "offset": 273.15, "scale": 100, "dtype": "<f4", "astype": "<i4"}),
            "<f4",
            &f4_odd,
        ),
        (
            json!({"id": "fixedscaleoffset", "offset": 0, "scale": 0.5, "dtype": "<i8", "astype": "<f8"}),
            "<i8",
            &i8_data,
        ),
    ] {
        v.push(Case {
            config,
            dtype,
            data: data.clone(),
            exact: true,
        });
    }
    v
}

#[test]
fn numcodecs_interop() {
    if !nctk_test_support::require::python(&["numcodecs", "numpy"]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let cases = cases();
    let mut rust_encoded = Vec::new();
    for (i, c) in cases.iter().enumerate() {
        let codec = Codec::from_json_with(&c.config, &CodecContext::from_dtype(c.dtype)).unwrap();
        let enc = codec.encode(&c.data).unwrap();
        fs::write(d.join(format!("{i}.raw")), &c.data).unwrap();
        fs::write(d.join(format!("{i}.rs_enc")), &enc).unwrap();
        rust_encoded.push((codec, enc));
    }
    let manifest: Vec<Value> = cases
        .iter()
        .map(|c| json!({"config": c.config, "dtype": c.dtype}))
        .collect();
    fs::write(d.join("cases.json"), serde_json::to_vec(&manifest).unwrap()).unwrap();
    nctk_test_support::peer::python(SCRIPT, [d]).unwrap_or_else(|e| panic!("{e}"));

    let mut failures = Vec::new();
    for (i, c) in cases.iter().enumerate() {
        let (codec, rs_enc) = &rust_encoded[i];
        let label = format!("case {i} {} {} ({} bytes)", c.config, c.dtype, c.data.len());
        // numcodecs decodes what Rust wrote
        if let Ok(err) = fs::read_to_string(d.join(format!("{i}.py_err"))) {
            failures.push(format!(
                "{label}: numcodecs cannot decode Rust's output: {err}"
            ));
        } else {
            let py_dec = fs::read(d.join(format!("{i}.py_dec"))).unwrap();
            let want = codec.decode(rs_enc, c.data.len()).unwrap();
            if py_dec != want {
                failures.push(format!(
                    "{label}: numcodecs decodes Rust's output differently"
                ));
            }
        }
        // Rust decodes what numcodecs wrote
        let py_enc = fs::read(d.join(format!("{i}.py_enc"))).unwrap();
        match codec.decode(&py_enc, c.data.len()) {
            Err(e) => failures.push(format!("{label}: cannot decode numcodecs' output: {e}")),
            Ok(dec) => {
                let want = if codec.is_lossless() {
                    c.data.clone()
                } else {
                    codec.decode(rs_enc, c.data.len()).unwrap()
                };
                if dec != want {
                    failures.push(format!("{label}: numcodecs' output decodes differently"));
                }
            }
        }
        if c.exact && &py_enc != rs_enc {
            failures.push(format!("{label}: encoded bytes differ from numcodecs'"));
        }
        if codec.id() == "blosc" && py_enc.len() >= 16 {
            // Same header decisions: version, flags (shuffle, memcpy, split, compressor), typesize, sizes.
            let (p, r) = (&py_enc[..12], &rs_enc[..12]);
            let memcpy_differs = (p[2] ^ r[2]) == 0x02; // incompressible verdicts may differ per inner codec
            if p != r && !memcpy_differs {
                failures.push(format!(
                    "{label}: blosc header differs: numcodecs {p:02x?}, rust {r:02x?}"
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}
