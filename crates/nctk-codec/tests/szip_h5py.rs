//! HDF5's szip filter against h5py (HDF5 with libaec): every chunk h5py
//! stored szip-compressed (all integer and float types, both byte orders,
//! nearest-neighbour and entropy coding, 8, 16 and 32 pixels per block,
//! scanlines padded to whole blocks) decodes to exactly the bytes h5py
//! reads for it; cut and damaged chunks are errors or values, never
//! panics.

use std::fs;
use std::sync::OnceLock;

use nctk_codec::{Codec, CodecContext, CodecError, H5Z_FILTER_SZIP};
use nctk_test_support::require;
use serde_json::Value;

const GEN: &str = include_str!("data/szip_chunks.py");

struct Chunk {
    name: String,
    codec: Codec,
    raw: Vec<u8>,
    want: Vec<u8>,
}

/// The chunks h5py stored compressed (those it stored as they were, when
/// szip did not shrink them, are left out), made once per test process.
fn chunks() -> Option<&'static [Chunk]> {
    static CHUNKS: OnceLock<Option<Vec<Chunk>>> = OnceLock::new();
    CHUNKS
        .get_or_init(|| {
            let dir = tempfile::tempdir().unwrap();
            let out = require::python_output(&["h5py", "numpy"], GEN, [dir.path()])?;
            let cases: Vec<Value> = serde_json::from_str(&out).expect("generator JSON");
            let mut chunks = vec![];
            for case in cases {
                let name = case["name"].as_str().unwrap();
                let params: Vec<u32> = case["params"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|p| p.as_u64().unwrap() as u32)
                    .collect();
                let codec = Codec::from_hdf5(H5Z_FILTER_SZIP, &params, &CodecContext::default())
                    .unwrap_or_else(|e| panic!("{name}: {e}"));
                for (k, c) in case["chunks"].as_array().unwrap().iter().enumerate() {
                    if c["mask"].as_u64() != Some(0) {
                        continue;
                    }
                    let read = |key: &str| fs::read(c[key].as_str().unwrap()).unwrap();
                    chunks.push(Chunk {
                        name: format!("{name} chunk {k} {params:?}"),
                        codec: codec.clone(),
                        raw: read("raw"),
                        want: read("want"),
                    });
                }
            }
            Some(chunks)
        })
        .as_deref()
}

#[test]
fn every_chunk_decodes_to_what_h5py_reads() {
    let Some(chunks) = chunks() else {
        return;
    };
    assert!(chunks.len() >= 100, "{} compressed chunks", chunks.len());
    for c in chunks {
        let got = c
            .codec
            .decode(&c.raw, c.want.len())
            .unwrap_or_else(|e| panic!("{}: {e}", c.name));
        let first = got.iter().zip(&c.want).position(|(a, b)| a != b);
        assert!(got == c.want, "{}: differs from byte {first:?}", c.name);
        // the stored size must be the caller's
        let err = c.codec.decode(&c.raw, c.want.len() + 8).unwrap_err();
        assert!(matches!(err, CodecError::SizeMismatch { .. }), "{err}");
    }
}

#[test]
fn cut_and_damaged_chunks_are_errors_never_panics() {
    let Some(chunks) = chunks() else {
        return;
    };
    let mut errors = 0;
    for c in chunks {
        let len = c.raw.len();
        let mut variants: Vec<Vec<u8>> = [0, 3, 4, 5, len / 2, len - 1]
            .into_iter()
            .map(|cut| c.raw[..cut.min(len)].to_vec())
            .collect();
        for i in (4..len).step_by(3) {
            for flip in [0x01, 0x80, 0xff] {
                let mut v = c.raw.clone();
                v[i] ^= flip;
                variants.push(v);
            }
        }
        let mut zeroed = c.raw.clone();
        zeroed[4..].fill(0);
        variants.push(zeroed);
        for v in variants {
            match c.codec.decode(&v, c.want.len()) {
                Ok(out) => assert_eq!(out.len(), c.want.len()),
                Err(e) => {
                    assert!(e.to_string().starts_with("szip"), "{}: {e}", c.name);
                    errors += 1;
                }
            }
        }
    }
    assert!(errors > 100, "{errors} errors");
}
