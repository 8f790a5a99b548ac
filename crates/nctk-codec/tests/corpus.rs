//! Decodes every compressed array of the conformance corpus and compares it
//! with the uncompressed twin written by the same tool.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use nctk_codec::{CodecContext, Pipeline};
use nctk_test_support::require;
use serde_json::Value;

struct Array {
    pipeline: Pipeline,
    chunk_bytes: usize,
    chunks: BTreeMap<String, Vec<u8>>,
    dtype: String,
}

fn itemsize(dtype: &str) -> usize {
    let s = dtype.trim_start_matches(['<', '>', '|', '=']);
    let n: usize = s[1..].parse().unwrap();
    if s.starts_with('U') {
        n * 4
    } else {
        n
    }
}

fn collect(dir: &Path, prefix: &str, out: &mut BTreeMap<String, Vec<u8>>) {
    for e in fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        let name = e.file_name().into_string().unwrap();
        if name.starts_with('.') {
            continue;
        }
        let key = if prefix.is_empty() {
            name.clone()
        } else {
            format!("{prefix}/{name}")
        };
        if e.file_type().unwrap().is_dir() {
            collect(&e.path(), &key, out);
        } else {
            out.insert(key, fs::read(e.path()).unwrap());
        }
    }
}

fn load(dir: &Path) -> Array {
    let meta: Value = serde_json::from_slice(&fs::read(dir.join(".zarray")).unwrap()).unwrap();
    let dtype = meta["dtype"].as_str().unwrap().to_string();
    let ctx = CodecContext::from_dtype(&dtype);
    let pipeline = Pipeline::from_zarr_json(&meta["compressor"], &meta["filters"], &ctx)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let n: usize = meta["chunks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_u64().unwrap() as usize)
        .product();
    let mut chunks = BTreeMap::new();
    collect(dir, "", &mut chunks);
    Array {
        pipeline,
        chunk_bytes: n * itemsize(&dtype),
        chunks,
        dtype,
    }
}

/// Decodes every chunk of `dir` and compares with the same key in `raw_dir`.
/// Returns the number of chunks checked.
fn compare(dir: &Path, raw_dir: &Path) -> usize {
    let a = load(dir);
    let raw = load(raw_dir);
    assert!(raw.pipeline.is_empty(), "{} is not raw", raw_dir.display());
    assert_eq!(a.dtype, raw.dtype);
    assert_eq!(
        a.chunks.keys().collect::<Vec<_>>(),
        raw.chunks.keys().collect::<Vec<_>>(),
        "{}: chunk keys differ from the raw twin",
        dir.display()
    );
    for (key, enc) in &a.chunks {
        let dec = a
            .pipeline
            .decode(enc, a.chunk_bytes)
            .unwrap_or_else(|e| panic!("{} chunk {key}: {e}", dir.display()));
        assert_eq!(&dec, &raw.chunks[key], "{} chunk {key}", dir.display());
        // Encoding again and decoding gives the same bytes.
        let re = a.pipeline.encode(&dec).unwrap();
        assert_eq!(a.pipeline.decode(&re, a.chunk_bytes).unwrap(), dec);
    }
    a.chunks.len()
}

fn subdirs(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    v.sort();
    v
}

#[test]
fn zarr_python_fixture() {
    let Some(root) = require::corpus_path("zarr-python/fixture") else {
        return;
    };
    let mut checked = 0;
    let mut arrays = 0;
    for group in subdirs(&root) {
        let raw = group.join("0");
        if !raw.join(".zarray").is_file() {
            continue;
        }
        for arr in subdirs(&group) {
            if arr == raw || !arr.join(".zarray").is_file() {
                continue;
            }
            checked += compare(&arr, &raw);
            arrays += 1;
        }
    }
    eprintln!(
        "zarr-python fixture: {arrays} compressed arrays, {checked} chunks decoded and compared"
    );
    assert!(
        arrays >= 70,
        "expected the fixture's compressed arrays, found {arrays}"
    );

    // flat / nested hold the same blosc-compressed array with '.' and '/' keys.
    let flat = load(&root.join("flat"));
    let nested = load(&root.join("nested"));
    let a = flat
        .pipeline
        .decode(&flat.chunks["0.0"], flat.chunk_bytes)
        .unwrap();
    let b = nested
        .pipeline
        .decode(&nested.chunks["0/0"], nested.chunk_bytes)
        .unwrap();
    assert_eq!(a, b);
    let values: Vec<i64> = a
        .chunks_exact(8)
        .map(|c| i64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(values.len(), 4);
}

#[test]
fn other_writers_codec_matrix() {
    let Some(root) = require::corpus_path("generated/other-writers/zarr-python-v2/codecs.zarr")
    else {
        return;
    };
    let raw = root.join("none");
    let mut seen = Vec::new();
    for arr in subdirs(&root) {
        if arr == raw {
            continue;
        }
        compare(&arr, &raw);
        seen.push(arr.file_name().unwrap().to_string_lossy().into_owned());
    }
    eprintln!("codecs.zarr: {seen:?}");
    for want in [
        "blosc_lz4",
        "blosc_zstd_bit",
        "bz2",
        "gzip",
        "lz4",
        "shuffle_filter_zlib",
        "zlib",
        "zstd",
    ] {
        assert!(seen.iter().any(|s| s == want), "missing {want}");
    }
}
