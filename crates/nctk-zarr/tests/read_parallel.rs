//! The parallel chunk read path gives the same values with 1 and 2 rayon
//! threads, and the same as a simple element-by-element reference: C and F
//! order, partial edge chunks, strides, missing chunks, compressed and not.

use std::sync::Arc;

use nctk_codec::{Codec, Pipeline};
use nctk_model::{DataSource, DataType, Selection, Values};
use nctk_store::kv::{MemoryStore, StoreKey, WritableStore};
use nctk_zarr::{ZarrOptions, ZarrReader};

struct Case {
    shape: Vec<u64>,
    chunks: Vec<u64>,
    order_f: bool,
    dtype: &'static str,
    compressor: Option<serde_json::Value>,
    /// Chunks left out of the store (by linear chunk number).
    missing: fn(usize) -> bool,
    fill: f64,
}

fn value(i: u64, dt: DataType) -> f64 {
    match dt {
        DataType::Short => (i % 30000) as f64 - 15000.0,
        DataType::UByte => (i % 200) as f64,
        _ => i as f64 * 0.5 - 3.0,
    }
}

fn dtype_of(s: &str) -> DataType {
    match &s[1..] {
        "f4" => DataType::Float,
        "f8" => DataType::Double,
        "i2" => DataType::Short,
        "u1" => DataType::UByte,
        other => panic!("{other}"),
    }
}

fn encode(v: f64, dt: DataType, big: bool) -> Vec<u8> {
    let vals = nctk_model::convert::vec_to_values(&[v], dt).unwrap();
    vals.to_bytes(big)
}

/// Linear (C-order) index of `pos` in `shape`.
fn linear(pos: &[u64], shape: &[u64]) -> u64 {
    pos.iter().zip(shape).fold(0, |a, (&p, &n)| a * n + p)
}

/// Odometer over a box.
fn each(extent: &[u64], mut f: impl FnMut(&[u64])) {
    if extent.contains(&0) {
        return;
    }
    let mut p = vec![0u64; extent.len()];
    loop {
        f(&p);
        let mut d = extent.len();
        loop {
            if d == 0 {
                return;
            }
            d -= 1;
            p[d] += 1;
            if p[d] < extent[d] {
                break;
            }
            p[d] = 0;
        }
    }
}

fn build(c: &Case) -> Arc<MemoryStore> {
    let s = MemoryStore::new();
    let put = |k: &str, v: Vec<u8>| s.put(&StoreKey::new(k).unwrap(), v.into()).unwrap();
    put(".zgroup", br#"{"zarr_format": 2}"#.to_vec());
    let comp = c
        .compressor
        .clone()
        .unwrap_or(serde_json::Value::Null)
        .to_string();
    let zarray = format!(
        r#"{{"zarr_format": 2, "shape": {:?}, "chunks": {:?}, "dtype": "{}", "fill_value": {}, "order": "{}", "compressor": {comp}, "filters": null}}"#,
        c.shape,
        c.chunks,
        c.dtype,
        c.fill,
        if c.order_f { "F" } else { "C" }
    );
    put("v/.zarray", zarray.into_bytes());
    let dt = dtype_of(c.dtype);
    let big = c.dtype.starts_with('>');
    let pipeline = Pipeline {
        filters: vec![],
        compressor: c.compressor.as_ref().map(|j| Codec::from_json(j).unwrap()),
    };
    let grid: Vec<u64> = c
        .shape
        .iter()
        .zip(&c.chunks)
        .map(|(&n, &k)| n.div_ceil(k))
        .collect();
    let rank = c.shape.len();
    let mut number = 0;
    each(&grid, |ci| {
        let this = number;
        number += 1;
        if (c.missing)(this) {
            return;
        }
        // Positions in storage order: C iterates the last index fastest,
        // F the first.
        let mut cells: Vec<Vec<u8>> = vec![];
        let ext: Vec<u64> = if c.order_f {
            c.chunks.iter().rev().copied().collect()
        } else {
            c.chunks.clone()
        };
        each(&ext, |p| {
            let local: Vec<u64> = if c.order_f {
                p.iter().rev().copied().collect()
            } else {
                p.to_vec()
            };
            let g: Vec<u64> = (0..rank).map(|d| ci[d] * c.chunks[d] + local[d]).collect();
            let v = if g.iter().zip(&c.shape).all(|(&a, &n)| a < n) {
                value(linear(&g, &c.shape), dt)
            } else {
                99.0 // padding of an edge chunk, never read
            };
            cells.push(encode(v, dt, big));
        });
        let raw: Vec<u8> = cells.concat();
        let key = if rank == 0 {
            "v/0".to_string()
        } else {
            format!(
                "v/{}",
                ci.iter().map(u64::to_string).collect::<Vec<_>>().join(".")
            )
        };
        put(&key, pipeline.encode(&raw).unwrap());
    });
    Arc::new(s)
}

/// Element by element: which chunk holds the element, is it stored.
fn reference(c: &Case, sel: &Selection) -> Values {
    let dt = dtype_of(c.dtype);
    let grid: Vec<u64> = c
        .shape
        .iter()
        .zip(&c.chunks)
        .map(|(&n, &k)| n.div_ceil(k))
        .collect();
    let mut out = vec![];
    each(&sel.count, |j| {
        let i: Vec<u64> = (0..j.len())
            .map(|d| sel.start[d] + j[d] * sel.stride[d])
            .collect();
        let ci: Vec<u64> = i.iter().zip(&c.chunks).map(|(&a, &k)| a / k).collect();
        if (c.missing)(linear(&ci, &grid) as usize) {
            out.push(c.fill);
        } else {
            out.push(value(linear(&i, &c.shape), dt));
        }
    });
    nctk_model::convert::vec_to_values(&out, dt).unwrap()
}

fn read(store: Arc<MemoryStore>, sel: &Selection, threads: usize) -> Values {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    pool.install(|| {
        let r = ZarrReader::open(store, ZarrOptions::default()).unwrap();
        let v = r.schema().var_by_path("v").unwrap();
        r.read_values(v, sel).unwrap()
    })
}

fn selections(shape: &[u64]) -> Vec<Selection> {
    let mut out = vec![Selection::all(shape)];
    let rank = shape.len();
    // An inner block.
    let start: Vec<u64> = shape.iter().map(|&n| n / 3).collect();
    let count: Vec<u64> = shape.iter().map(|&n| n - n / 3 - n / 4).collect();
    out.push(Selection::block(&start, &count));
    // Strided.
    let stride: Vec<u64> = (0..rank).map(|d| 2 + d as u64 % 2).collect();
    let count: Vec<u64> = shape
        .iter()
        .zip(&stride)
        .map(|(&n, &s)| (n - 1) / s)
        .collect();
    out.push(Selection {
        start: vec![1; rank],
        count,
        stride,
    });
    // One element and an empty one.
    let mut last = vec![0; rank];
    last[0] = shape[0] - 1;
    out.push(Selection::block(&last, &vec![1; rank]));
    out.push(Selection::block(&vec![0; rank], &vec![0; rank]));
    out
}

fn check(c: &Case) {
    let store = build(c);
    for sel in selections(&c.shape) {
        let want = reference(c, &sel);
        let one = read(store.clone(), &sel, 1);
        let two = read(store.clone(), &sel, 2);
        assert_eq!(one, want, "1 thread, {:?} {:?}", c.chunks, sel);
        assert_eq!(two, want, "2 threads, {:?} {:?}", c.chunks, sel);
    }
}

fn zlib() -> Option<serde_json::Value> {
    Some(serde_json::json!({"id": "zlib", "level": 1}))
}

#[test]
fn c_and_f_order_edges_strides_missing() {
    let shapes: [(&[u64], &[u64]); 6] = [
        (&[7, 9, 11], &[1, 9, 11]), // whole chunks, straight into place
        (&[7, 9, 11], &[3, 4, 5]),  // partial edge chunks
        (&[7, 9, 11], &[2, 9, 11]), // several rows per slab
        (&[7, 9, 11], &[7, 2, 11]), // one slab, many chunks
        (&[13], &[4]),
        (&[5, 6], &[5, 6]),
    ];
    let missing: [fn(usize) -> bool; 2] = [|_| false, |k| k % 3 == 1];
    for (shape, chunks) in shapes {
        for order_f in [false, true] {
            for dtype in ["<f4", ">i2", ">f8", "|u1"] {
                for compressor in [None, zlib()] {
                    for (m, fill) in missing.iter().zip([0.0, 7.0]) {
                        check(&Case {
                            shape: shape.to_vec(),
                            chunks: chunks.to_vec(),
                            order_f,
                            dtype,
                            compressor: compressor.clone(),
                            missing: *m,
                            fill,
                        });
                    }
                }
            }
        }
    }
}

#[test]
fn missing_chunks_with_zero_fill() {
    check(&Case {
        shape: vec![6, 8],
        chunks: vec![4, 3],
        order_f: false,
        dtype: "<f4",
        compressor: zlib(),
        missing: |k| k % 2 == 0,
        fill: 0.0,
    });
}
