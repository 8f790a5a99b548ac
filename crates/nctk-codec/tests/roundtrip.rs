//! Property tests: encode then decode gives the input back, for every codec
//! and parameter combination, on random and on compressible data.

mod common;

use nctk_codec::{Codec, CodecContext, Pipeline};
use proptest::prelude::*;
use serde_json::{json, Value};

/// Every lossless configuration worth covering.
fn lossless_configs() -> Vec<Value> {
    let mut v = vec![
        json!({"id": "zlib", "level": 0}),
        json!({"id": "zlib", "level": 1}),
        json!({"id": "zlib", "level": 9}),
        json!({"id": "gzip", "level": 1}),
        json!({"id": "gzip", "level": 9}),
        json!({"id": "bz2", "level": 1}),
        json!({"id": "bz2", "level": 9}),
        json!({"id": "zstd", "level": 0}),
        json!({"id": "zstd", "level": 3, "checksum": true}),
        json!({"id": "zstd", "level": -5}),
        json!({"id": "lz4", "acceleration": 1}),
        json!({"id": "shuffle", "elementsize": 4}),
        json!({"id": "shuffle", "elementsize": 0}),
        json!({"id": "shuffle", "elementsize": 3}),
        json!({"id": "fletcher32"}),
    ];
    for cname in ["blosclz", "lz4", "lz4hc", "zlib", "zstd"] {
        for shuffle in [-1, 0, 1, 2] {
            for clevel in [0, 1, 5, 9] {
                v.push(json!({"id": "blosc", "cname": cname, "clevel": clevel, "shuffle": shuffle, "blocksize": 0}));
            }
            v.push(json!({"id": "blosc", "cname": cname, "clevel": 5, "shuffle": shuffle, "blocksize": 256}));
        }
    }
    v
}

fn check(config: &Value, elem: usize, data: &[u8]) -> Result<(), TestCaseError> {
    let ctx = CodecContext::new(elem);
    let codec = Codec::from_json_with(config, &ctx).unwrap();
    let enc = codec
        .encode(data)
        .map_err(|e| TestCaseError::fail(format!("{config}: {e}")))?;
    let mut out = vec![0u8; data.len()];
    codec.decode_into(&enc, &mut out).map_err(|e| {
        TestCaseError::fail(format!("{config} elem {elem} len {}: {e}", data.len()))
    })?;
    prop_assert_eq!(&out, data, "{} elem {}", config, elem);
    // A wrong expected size is an error, never a panic or silent truncation.
    if codec.id() != "shuffle" || !data.is_empty() {
        let mut longer = vec![0u8; data.len() + 1];
        prop_assert!(
            codec.decode_into(&enc, &mut longer).is_err(),
            "{} accepted a longer output",
            config
        );
    }
    if !data.is_empty() {
        let mut shorter = vec![0u8; data.len() - 1];
        prop_assert!(
            codec.decode_into(&enc, &mut shorter).is_err(),
            "{} accepted a shorter output",
            config
        );
    }
    Ok(())
}

fn data_strategy() -> impl Strategy<Value = (usize, Vec<u8>)> {
    let elem = prop::sample::select(vec![1usize, 2, 4, 8, 3, 16, 17]);
    let len = prop_oneof![0usize..300, 300usize..5000, 60_000usize..140_000];
    (elem, len, any::<u64>(), 0u8..3).prop_map(|(elem, len, seed, kind)| {
        let data = match kind {
            0 => common::noise(len, seed),
            1 => common::climate_f32(len / 4, seed),
            _ => (0..len)
                .map(|i| ((i / 97) as u8) ^ (seed as u8 & 3))
                .collect(),
        };
        (elem, data)
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn lossless_roundtrip((elem, data) in data_strategy()) {
        for config in lossless_configs() {
            check(&config, elem, &data)?;
        }
    }

    #[test]
    fn delta_roundtrip(seed in any::<u64>(), n in 0usize..2000, pick in 0usize..8) {
        let (dtype, astype) = [
            ("<i4", "<i4"), ("<i2", "<i1"), ("<u2", "<i4"), (">i8", "<i8"),
            ("<u1", "<u1"), ("<f8", "<f8"), ("<f4", "<f4"), ("<i4", ">i8"),
        ][pick];
        let codec = Codec::from_json(&json!({"id": "delta", "dtype": dtype, "astype": astype})).unwrap();
        let size: usize = dtype[2..].parse().unwrap();
        let mut data = common::noise(n * size, seed);
        if dtype.contains('f') {
            data = if size == 4 { common::climate_f32(n, seed) } else {
                (0..n).flat_map(|i| (i as f64 * 0.25 - 7.0).to_le_bytes()).collect()
            };
        }
        let enc = codec.encode(&data).unwrap();
        let back = codec.decode(&enc, data.len()).unwrap();
        if dtype == astype || dtype == "<i4" || dtype == "<u2" {
            // widening or same type: exact (floats: the test data differences are exact)
            prop_assert_eq!(back, data);
        }
    }
}

#[test]
fn lossy_filters_stay_close() {
    let data = common::climate_f32(10_000, 7);
    let vals: Vec<f32> = data
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let ctx = CodecContext::from_dtype("<f4");
    for (config, tol) in [
        (
            json!({"id": "bitround", "keepbits": 10}),
            300.0 * 2f32.powi(-11),
        ),
        (json!({"id": "quantize", "digits": 2, "dtype": "<f4"}), 0.01),
        (
            json!({"id": "fixedscaleoffset", "offset": 273, "scale": 100, "dtype": "<f4", "astype": "<i4"}),
            0.0051,
        ),
        (
            json!({"id": "fixedscaleoffset", "offset": 240.5, "scale": 10.0, "dtype": "<f4", "astype": "<u2"}),
            0.051,
        ),
    ] {
        let codec = Codec::from_json_with(&config, &ctx).unwrap();
        let enc = codec.encode(&data).unwrap();
        let back = codec.decode(&enc, data.len()).unwrap();
        for (a, b) in vals.iter().zip(back.chunks_exact(4)) {
            let b = f32::from_le_bytes(b.try_into().unwrap());
            assert!((a - b).abs() <= tol, "{config}: {a} -> {b}");
        }
        // decoding the encoded values again is stable (idempotent quantization)
        let again = codec
            .decode(&codec.encode(&back).unwrap(), data.len())
            .unwrap();
        assert_eq!(again, back, "{config}");
    }
}

#[test]
fn pipeline_roundtrip() {
    let data = common::climate_f32(50_000, 3);
    let ctx = CodecContext::from_dtype("<f4");
    let p = Pipeline::from_zarr_json(
        &json!({"id": "zstd", "level": 1}),
        &json!([{"id": "delta", "dtype": "<f4", "astype": "<f8"}, {"id": "shuffle", "elementsize": 8}, {"id": "fletcher32"}]),
        &ctx,
    )
    .unwrap();
    let enc = p.encode(&data).unwrap();
    assert_eq!(p.decode(&enc, data.len()).unwrap(), data);
    assert!(p.decode(&enc, data.len() + 4).is_err());
}

#[test]
fn json_roundtrip_and_defaults() {
    for config in lossless_configs() {
        let c = Codec::from_json_with(&config, &CodecContext::new(4)).unwrap();
        let again = Codec::from_json_with(&c.to_json(), &CodecContext::new(4)).unwrap();
        assert_eq!(c.to_json(), again.to_json(), "{config}");
    }
    // numcodecs 0.16's get_config() output for default-constructed codecs
    for (input, expected) in [
        (
            json!({"id": "blosc"}),
            json!({"id": "blosc", "cname": "lz4", "clevel": 5, "shuffle": 1, "blocksize": 0}),
        ),
        (
            json!({"id": "zstd"}),
            json!({"id": "zstd", "level": 0, "checksum": false}),
        ),
        (
            json!({"id": "lz4"}),
            json!({"id": "lz4", "acceleration": 1}),
        ),
        (json!({"id": "zlib"}), json!({"id": "zlib", "level": 1})),
        (json!({"id": "gzip"}), json!({"id": "gzip", "level": 1})),
        (json!({"id": "bz2"}), json!({"id": "bz2", "level": 1})),
        (
            json!({"id": "shuffle"}),
            json!({"id": "shuffle", "elementsize": 4}),
        ),
        (json!({"id": "fletcher32"}), json!({"id": "fletcher32"})),
        (
            json!({"id": "delta", "dtype": "<i4"}),
            json!({"id": "delta", "dtype": "<i4", "astype": "<i4"}),
        ),
        (
            json!({"id": "fixedscaleoffset", "offset": 1, "scale": 2, "dtype": "<f4", "astype": "<i2"}),
            json!({"id": "fixedscaleoffset", "scale": 2, "offset": 1, "dtype": "<f4", "astype": "<i2"}),
        ),
        (
            json!({"id": "bitround", "keepbits": 10}),
            json!({"id": "bitround", "keepbits": 10}),
        ),
        // netCDF-C writes integers as strings
        (
            json!({"id": "zlib", "level": "5"}),
            json!({"id": "zlib", "level": 5}),
        ),
        (
            json!({"id": "bz2", "level": "9"}),
            json!({"id": "bz2", "level": 9}),
        ),
    ] {
        let got = Codec::from_json(&input).unwrap().to_json();
        assert_eq!(
            serde_json::to_string(&got).unwrap(),
            serde_json::to_string(&expected).unwrap()
        );
    }
}

#[test]
fn unknown_and_bad_configs() {
    let e = Codec::from_json(&json!({"id": "jpeg2000", "level": 3})).unwrap_err();
    assert!(
        matches!(e, nctk_codec::CodecError::UnknownCodec { ref id } if id == "jpeg2000"),
        "{e}"
    );
    assert!(e.to_string().contains("jpeg2000"));
    for bad in [
        json!("zlib"),
        json!({"level": 1}),
        json!({"id": "zlib", "level": 12}),
        json!({"id": "blosc", "cname": "lzma"}),
        json!({"id": "blosc", "shuffle": 7}),
        json!({"id": "delta"}),
        json!({"id": "delta", "dtype": "<c16"}),
        json!({"id": "quantize", "digits": 2, "dtype": "<i4"}),
    ] {
        assert!(Codec::from_json(&bad).is_err(), "{bad}");
    }
    // shuffle with elementsize 0 and no context cannot run, and says why
    let s = Codec::from_json(&json!({"id": "shuffle", "elementsize": "0"})).unwrap();
    assert!(matches!(
        s.encode(&[0; 8]),
        Err(nctk_codec::CodecError::MissingContext { .. })
    ));
}
