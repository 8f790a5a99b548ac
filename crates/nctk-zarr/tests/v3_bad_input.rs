//! Damaged Zarr v3 stores: each is a good fixture (`tests/v3_fixtures.py`,
//! written by zarr-python) copied and edited here; opening it and reading
//! every variable must give an error naming the store key at fault and the
//! reason, never a panic, a hang or an allocation beyond what the metadata
//! bounds. An extension marked `must_understand: false` is the one edit
//! that must read as the original.
//!
//! Without the Python peers the tests are skipped with a visible note, or
//! fail under CI (`nctk_test_support::require`).

mod stores;
mod v3fix;

use std::path::Path;
use std::time::Duration;

use nctk_model::{DataSource, Selection, Values};
use nctk_test_support::bounded::{run_case, Bounds, Tracking};
use nctk_zarr::ZarrOptions;
use serde_json::{json, Value};

#[global_allocator]
static GLOBAL: Tracking = Tracking;

/// Every case: 30 s, and no single allocation over 64 MiB (the fixtures'
/// arrays are a few hundred bytes).
const BOUNDS: Bounds = Bounds {
    time: Duration::from_secs(30),
    allocation: 64 << 20,
};

/// Opens the store and reads every variable (a corner of at most 8 per
/// dimension of a huge one): the values, or the first error.
fn read_all(store: &Path) -> Result<Vec<(String, Values)>, String> {
    let r = stores::open_path(store, ZarrOptions::default()).map_err(|e| e.to_string())?;
    let s = r.schema();
    let mut out = vec![];
    for v in s.var_ids() {
        let shape = s.shape(v);
        let n = shape.iter().try_fold(1u64, |a, &x| a.checked_mul(x));
        let sel = if n.is_some_and(|n| n <= 1 << 16) {
            Selection::all(&shape)
        } else {
            let count: Vec<u64> = shape.iter().map(|&x| x.min(8)).collect();
            Selection::block(&vec![0; shape.len()], &count)
        };
        let vals = r.read(v, &sel).map_err(|e| e.to_string())?;
        out.push((s.var_path(v), vals));
    }
    Ok(out)
}

/// Reading the whole of each huge variable (over 2^40 values) of `store`
/// is an error.
fn whole_read_refused(store: &Path) -> Result<(), String> {
    let r = stores::open_path(store, ZarrOptions::default()).map_err(|e| e.to_string())?;
    let s = r.schema();
    for v in s.var_ids() {
        let huge = s.shape(v).iter().try_fold(1u64, |a, &x| a.checked_mul(x));
        if huge.is_some_and(|n| n > 1 << 40) && r.read(v, &Selection::all(&s.shape(v))).is_ok() {
            return Err(format!("{} of {:?} read whole", s.var_path(v), s.shape(v)));
        }
    }
    Ok(())
}

/// What a damaged store must give.
enum Expect {
    /// An error whose message holds every one of these (the key first).
    Error(&'static [&'static str]),
    /// An error whose message holds one of these (refused when opened, or
    /// when the chunk is read).
    ErrorNamingEither(&'static str, &'static str),
    /// The same variables and values as the undamaged store.
    SameAsOriginal,
    /// Opens, a corner reads, and reading the whole of a huge variable is
    /// an error (more than memory can hold), not an attempt.
    WholeReadRefused,
}

/// One damaged store: `fixture` copied, then `edit`ed (given the copy's root).
struct Case {
    name: &'static str,
    fixture: &'static str,
    edit: fn(&Path),
    expect: Expect,
}

/// Reads `key` (relative to the store root) as JSON, edits it, writes it back.
fn edit_json(root: &Path, key: &str, f: impl FnOnce(&mut Value)) {
    let p = root.join(key);
    let mut j: Value = serde_json::from_slice(&std::fs::read(&p).unwrap()).unwrap();
    f(&mut j);
    std::fs::write(&p, serde_json::to_vec_pretty(&j).unwrap()).unwrap();
}

/// Edits the bytes of `key`.
fn edit_bytes(root: &Path, key: &str, f: impl FnOnce(&mut Vec<u8>)) {
    let p = root.join(key);
    let mut b = std::fs::read(&p).unwrap();
    f(&mut b);
    std::fs::write(&p, b).unwrap();
}

/// Sets entry `i` (offset, nbytes) of the shard index at the end of `key`
/// (`n` entries, no checksum after them).
fn set_index_entry(root: &Path, key: &str, n: usize, i: usize, entry: (u64, u64)) {
    edit_bytes(root, key, |b| {
        let at = b.len() - 16 * n + 16 * i;
        b[at..at + 8].copy_from_slice(&entry.0.to_le_bytes());
        b[at + 8..at + 16].copy_from_slice(&entry.1.to_le_bytes());
    });
}

/// The index entry `i` of the shard `key` (index at the end, `n` entries).
fn index_entry(root: &Path, key: &str, n: usize, i: usize) -> (u64, u64) {
    let b = std::fs::read(root.join(key)).unwrap();
    let at = b.len() - 16 * n + 16 * i;
    let u = |k: usize| u64::from_le_bytes(b[k..k + 8].try_into().unwrap());
    (u(at), u(at + 8))
}

const KEYS: &str = "keys_default_slash.zarr";
const SHARDS: &str = "shard_layouts.zarr";
/// `index_no_crc` of [`SHARDS`]: shards (4, 6) of inner chunks (2, 3) of
/// int32, bytes codec only, the index (4 entries) at the end, unchecked.
const SHARD_KEY: &str = "index_no_crc/c/0/0";

fn cases() -> Vec<Case> {
    vec![
        Case {
            name: "root zarr.json not JSON",
            fixture: KEYS,
            edit: |r| std::fs::write(r.join("zarr.json"), b"{\"zarr_format\": 3, \"node_").unwrap(),
            expect: Expect::Error(&["zarr.json"]),
        },
        Case {
            name: "array zarr.json not JSON",
            fixture: KEYS,
            edit: |r| std::fs::write(r.join("a/zarr.json"), b"\xff\xfe[]").unwrap(),
            expect: Expect::Error(&["a/zarr.json"]),
        },
        Case {
            name: "shape of the wrong type",
            fixture: KEYS,
            edit: |r| edit_json(r, "a/zarr.json", |j| j["shape"] = json!("5x7")),
            expect: Expect::Error(&["a/zarr.json"]),
        },
        Case {
            name: "codecs of the wrong type",
            fixture: KEYS,
            edit: |r| edit_json(r, "a/zarr.json", |j| j["codecs"] = json!({"name": "bytes"})),
            expect: Expect::Error(&["a/zarr.json"]),
        },
        Case {
            name: "dimension_names of the wrong length",
            fixture: KEYS,
            edit: |r| edit_json(r, "a/zarr.json", |j| j["dimension_names"] = json!(["y"])),
            expect: Expect::Error(&["a/zarr.json"]),
        },
        Case {
            name: "unknown node_type",
            fixture: KEYS,
            edit: |r| edit_json(r, "a/zarr.json", |j| j["node_type"] = json!("table")),
            expect: Expect::Error(&["a/zarr.json", "table"]),
        },
        Case {
            name: "zarr_format 4",
            fixture: KEYS,
            edit: |r| edit_json(r, "zarr.json", |j| j["zarr_format"] = json!(4)),
            expect: Expect::Error(&["zarr.json", "4"]),
        },
        Case {
            name: "unknown codec",
            fixture: KEYS,
            edit: |r| {
                edit_json(r, "a/zarr.json", |j| {
                    j["codecs"][1] = json!({"name": "frobnicate", "configuration": {}})
                })
            },
            expect: Expect::Error(&["a/zarr.json", "frobnicate"]),
        },
        Case {
            name: "unknown data type",
            fixture: KEYS,
            edit: |r| edit_json(r, "a/zarr.json", |j| j["data_type"] = json!("float128x")),
            expect: Expect::Error(&["a/zarr.json", "float128x"]),
        },
        Case {
            name: "unknown chunk key encoding",
            fixture: KEYS,
            edit: |r| {
                edit_json(r, "a/zarr.json", |j| {
                    j["chunk_key_encoding"] = json!({"name": "hashed"})
                })
            },
            expect: Expect::Error(&["a/zarr.json", "hashed"]),
        },
        Case {
            name: "unknown top-level key (must be understood)",
            fixture: KEYS,
            edit: |r| edit_json(r, "a/zarr.json", |j| j["frobnicate"] = json!({"x": 1})),
            expect: Expect::Error(&["a/zarr.json", "frobnicate"]),
        },
        Case {
            name: "unknown top-level key in a group (must be understood)",
            fixture: KEYS,
            edit: |r| edit_json(r, "sub/zarr.json", |j| j["frobnicate"] = json!(true)),
            expect: Expect::Error(&["sub/zarr.json", "frobnicate"]),
        },
        Case {
            name: "unknown top-level key with must_understand false",
            fixture: KEYS,
            edit: |r| {
                edit_json(r, "a/zarr.json", |j| {
                    j["frobnicate"] = json!({"must_understand": false, "x": 1})
                });
                edit_json(r, "zarr.json", |j| {
                    j["other"] = json!({"must_understand": false})
                })
            },
            expect: Expect::SameAsOriginal,
        },
        Case {
            name: "storage transformer",
            fixture: KEYS,
            edit: |r| {
                edit_json(r, "a/zarr.json", |j| {
                    j["storage_transformers"] = json!([{"name": "unknown_transformer"}])
                })
            },
            expect: Expect::Error(&["a/zarr.json", "unknown_transformer"]),
        },
        Case {
            name: "chunk shape 0",
            fixture: KEYS,
            edit: |r| {
                edit_json(r, "a/zarr.json", |j| {
                    j["chunk_grid"]["configuration"]["chunk_shape"] = json!([0, 3])
                })
            },
            expect: Expect::Error(&["a/zarr.json"]),
        },
        Case {
            name: "chunk rank other than the shape's",
            fixture: KEYS,
            edit: |r| {
                edit_json(r, "a/zarr.json", |j| {
                    j["chunk_grid"]["configuration"]["chunk_shape"] = json!([2])
                })
            },
            expect: Expect::Error(&["a/zarr.json"]),
        },
        Case {
            // int16: 2^63 bytes, past any addressable size; a valid (sparse)
            // Zarr array all the same, zarr-python reads a corner of it.
            name: "2^62 elements",
            fixture: KEYS,
            edit: |r| {
                edit_json(r, "a/zarr.json", |j| {
                    j["shape"] = json!([1u64 << 31, 1u64 << 31])
                })
            },
            expect: Expect::WholeReadRefused,
        },
        Case {
            name: "2^80 elements (overflows u64)",
            fixture: KEYS,
            edit: |r| {
                edit_json(r, "a/zarr.json", |j| {
                    j["shape"] = json!([1u64 << 40, 1u64 << 40])
                })
            },
            expect: Expect::Error(&["a/zarr.json"]),
        },
        Case {
            name: "chunk of 2^62 elements over stored small chunks",
            fixture: KEYS,
            edit: |r| {
                edit_json(r, "a/zarr.json", |j| {
                    j["chunk_grid"]["configuration"]["chunk_shape"] =
                        json!([1u64 << 31, 1u64 << 31])
                })
            },
            expect: Expect::ErrorNamingEither("a/zarr.json", "a/c/0/0"),
        },
        Case {
            name: "chunk decoding to the wrong length",
            fixture: "codec_bytes_only_le.zarr",
            edit: |r| edit_bytes(r, "int32/c/0/1", |b| b.truncate(20)),
            expect: Expect::Error(&["int32/c/0/1"]),
        },
        Case {
            name: "crc32c mismatch in a chunk",
            fixture: "codec_crc32c.zarr",
            edit: |r| edit_bytes(r, "int32/c/1/1", |b| b[3] ^= 0x40),
            expect: Expect::Error(&["int32/c/1/1"]),
        },
        Case {
            name: "crc32c mismatch in a shard index",
            fixture: SHARDS,
            edit: |r| {
                edit_bytes(r, "index_end/c/1/0", |b| {
                    let n = b.len();
                    b[n - 12] ^= 0x01
                })
            },
            expect: Expect::Error(&["index_end/c/1/0"]),
        },
        Case {
            name: "crc32c mismatch in an inner chunk",
            fixture: SHARDS,
            edit: |r| {
                edit_bytes(r, "index_start_be_crc/c/0/0", |b| {
                    // The index (6 entries + crc32c) comes first; then chunks.
                    b[6 * 16 + 4 + 2] ^= 0x80
                })
            },
            expect: Expect::Error(&["index_start_be_crc/c/0/0"]),
        },
        Case {
            name: "shard index entry past the end of the shard",
            fixture: SHARDS,
            edit: |r| set_index_entry(r, SHARD_KEY, 4, 0, (1000, 24)),
            expect: Expect::Error(&[SHARD_KEY]),
        },
        Case {
            name: "shard index entry with an overflowing end",
            fixture: SHARDS,
            edit: |r| set_index_entry(r, SHARD_KEY, 4, 1, (u64::MAX - 8, 24)),
            expect: Expect::Error(&[SHARD_KEY]),
        },
        Case {
            name: "shard index entry of 2^60 bytes",
            fixture: SHARDS,
            edit: |r| set_index_entry(r, SHARD_KEY, 4, 2, (96, 1 << 60)),
            expect: Expect::Error(&[SHARD_KEY]),
        },
        Case {
            name: "overlapping shard index entries",
            fixture: SHARDS,
            edit: |r| {
                let (off, len) = index_entry(r, SHARD_KEY, 4, 0);
                set_index_entry(r, SHARD_KEY, 4, 1, (off + 8, len))
            },
            expect: Expect::Error(&[SHARD_KEY]),
        },
        Case {
            name: "inner chunk of the wrong length",
            fixture: SHARDS,
            edit: |r| {
                let (off, _) = index_entry(r, SHARD_KEY, 4, 0);
                set_index_entry(r, SHARD_KEY, 4, 0, (off, 20))
            },
            expect: Expect::Error(&[SHARD_KEY]),
        },
        Case {
            name: "shard shorter than its index",
            fixture: SHARDS,
            edit: |r| edit_bytes(r, SHARD_KEY, |b| b.truncate(40)),
            expect: Expect::Error(&[SHARD_KEY]),
        },
        Case {
            name: "inner chunk shape not dividing the shard",
            fixture: SHARDS,
            edit: |r| {
                edit_json(r, "index_no_crc/zarr.json", |j| {
                    j["codecs"][0]["configuration"]["chunk_shape"] = json!([3, 4])
                })
            },
            expect: Expect::Error(&["index_no_crc/zarr.json"]),
        },
    ]
}

/// Runs one case on a copy of its fixture under `tmp`; the failure, if any.
fn run(dir: &Path, tmp: &Path, i: usize, case: Case) -> Option<String> {
    let label = format!("{} ({}, case {i})", case.name, case.fixture);
    let original = dir.join(case.fixture);
    let copy = tmp.join(format!("case{i}")).join(case.fixture);
    v3fix::copy_tree(&original, &copy);
    (case.edit)(&copy);
    run_case(label, BOUNDS, move || {
        // The undamaged store reads: the case cannot pass by accident.
        let before =
            read_all(&original).map_err(|e| format!("the undamaged fixture does not read: {e}"))?;
        if let Expect::WholeReadRefused = case.expect {
            read_all(&copy).map_err(|e| format!("a corner does not read: {e}"))?;
            return whole_read_refused(&copy);
        }
        let after = read_all(&copy);
        match (case.expect, after) {
            (Expect::SameAsOriginal, Ok(after)) if after == before => Ok(()),
            (Expect::SameAsOriginal, Ok(_)) => Err("reads other values than the original".into()),
            (Expect::SameAsOriginal, Err(e)) => Err(format!("refused: {e}")),
            (Expect::WholeReadRefused, _) => unreachable!("handled above"),
            (Expect::Error(_) | Expect::ErrorNamingEither(..), Ok(_)) => {
                Err("read without an error".into())
            }
            (Expect::Error(words), Err(e)) if words.iter().all(|w| e.contains(w)) => Ok(()),
            (Expect::ErrorNamingEither(a, b), Err(e)) if e.contains(a) || e.contains(b) => Ok(()),
            (Expect::Error(words), Err(e)) => Err(format!("error {e:?} does not name {words:?}")),
            (Expect::ErrorNamingEither(a, b), Err(e)) => {
                Err(format!("error {e:?} names neither {a:?} nor {b:?}"))
            }
        }
    })
}

#[test]
fn damaged_v3_stores_are_refused_by_key() {
    let Some(dir) = v3fix::stores() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let all = cases();
    let n = all.len();
    let failures: Vec<String> = all
        .into_iter()
        .enumerate()
        .filter_map(|(i, case)| run(dir, tmp.path(), i, case))
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {n} damaged stores not refused as they should be:\n  {}",
        failures.len(),
        failures.join("\n  ")
    );
}
