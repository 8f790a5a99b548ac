//! The rectilinear chunk grid (zarr-python 3.2's, `chunk_shapes` with
//! integers, explicit lengths and run-length pairs): a store laid out by a
//! Python script straight from the extension's text (zarr-python 3.1 does
//! not write the grid yet) reads as the array it was cut from, whole and in
//! strided selections; bad grids are refused naming the key.

use std::sync::Arc;

use nctk_model::{DataSource, Selection, Values, VarId};
use nctk_store::kv::DirectoryStore;
use nctk_test_support::require;
use nctk_zarr::{ZarrOptions, ZarrReader};

/// Cuts `data` (30 x 7 int32) into a rectilinear grid (rows: lengths
/// [16, 10, 4], the last overflowing by 0; columns: run-length [[2, 3], 1]
/// = [2, 2, 2, 1]) and writes each chunk as `bytes` + `zstd` under
/// `c/i/j`, with chunk (1, 3) never written; prints the array.
const PY_WRITE: &str = r#"
import sys, os, json
import numpy as np
import numcodecs
root = sys.argv[1]
os.makedirs(os.path.join(root, "a"))
data = (np.arange(30 * 7, dtype="<i4") * 3 - 100).reshape(30, 7)
rows, cols = [16, 10, 4], [2, 2, 2, 1]
meta = {"zarr_format": 3, "node_type": "array", "shape": [30, 7], "data_type": "int32",
        "chunk_grid": {"name": "rectilinear", "configuration": {"kind": "inline",
            "chunk_shapes": [rows, [[2, 3], 1]]}},
        "chunk_key_encoding": {"name": "default"}, "fill_value": -5,
        "codecs": [{"name": "bytes", "configuration": {"endian": "little"}},
                   {"name": "zstd", "configuration": {"level": 1, "checksum": False}}],
        "dimension_names": ["y", "x"], "attributes": {}}
json.dump(meta, open(os.path.join(root, "a", "zarr.json"), "w"))
json.dump({"zarr_format": 3, "node_type": "group", "attributes": {}},
          open(os.path.join(root, "zarr.json"), "w"))
zstd = numcodecs.Zstd(level=1)
out = data.copy()
r0 = 0
for i, h in enumerate(rows):
    c0 = 0
    for j, w in enumerate(cols):
        if (i, j) == (1, 3):
            out[r0:r0 + h, c0:c0 + w] = -5
        else:
            chunk = data[r0:r0 + h, c0:c0 + w]
            os.makedirs(os.path.join(root, "a", "c", str(i)), exist_ok=True)
            open(os.path.join(root, "a", "c", str(i), str(j)), "wb").write(
                zstd.encode(np.ascontiguousarray(chunk).tobytes()))
        c0 += w
    r0 += h
print(json.dumps(out.ravel().tolist()))
"#;

fn ints(v: &Values) -> Vec<i64> {
    match v {
        Values::Int(a) => a.iter().map(|&x| i64::from(x)).collect(),
        other => panic!("expected ints, got {other:?}"),
    }
}

#[test]
fn rectilinear_grids_read_as_the_array_they_cut() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("rect.zarr");
    let Some(out) = require::python_output(&["numpy", "numcodecs"], PY_WRITE, [&root]) else {
        return;
    };
    let want: Vec<i64> = serde_json::from_str(out.trim()).unwrap();
    let store = Arc::new(DirectoryStore::open(&root).unwrap());
    let reader = ZarrReader::open(store, ZarrOptions::default()).unwrap();
    let v = VarId(0);
    assert_eq!(
        ints(&reader.read(v, &Selection::all(&[30, 7])).unwrap()),
        want
    );
    for (start, count, stride) in [
        ([3, 1], [9, 3], [3, 2]),
        ([15, 0], [2, 7], [1, 1]),
        ([0, 6], [30, 1], [1, 1]),
        ([29, 5], [1, 2], [1, 1]),
    ] {
        let sel = Selection {
            start: start.to_vec(),
            count: count.to_vec(),
            stride: stride.to_vec(),
        };
        let mut expected = vec![];
        for a in 0..count[0] {
            for b in 0..count[1] {
                let (y, x) = (start[0] + a * stride[0], start[1] + b * stride[1]);
                expected.push(want[(y * 7 + x) as usize]);
            }
        }
        assert_eq!(ints(&reader.read(v, &sel).unwrap()), expected, "{sel:?}");
    }
}

#[test]
fn bad_rectilinear_grids_are_refused_by_key() {
    let dir = tempfile::tempdir().unwrap();
    for (shapes, why) in [
        (r#"[[16, 10], 2]"#, "do not cover"),
        (r#"[[0, 30], 2]"#, "at least 1"),
        (r#"[[[1, 100000000]], 2]"#, "more than"),
        (r#"[[30]]"#, "entries"),
    ] {
        let root = dir.path().join(format!("bad{}.zarr", why.len()));
        std::fs::create_dir_all(root.join("a")).unwrap();
        std::fs::write(
            root.join("zarr.json"),
            r#"{"zarr_format": 3, "node_type": "group"}"#,
        )
        .unwrap();
        std::fs::write(
            root.join("a/zarr.json"),
            format!(
                r#"{{"zarr_format": 3, "node_type": "array", "shape": [30, 7], "data_type": "int8",
                "chunk_grid": {{"name": "rectilinear", "configuration": {{"kind": "inline", "chunk_shapes": {shapes}}}}},
                "chunk_key_encoding": {{"name": "default"}}, "fill_value": 0,
                "codecs": [{{"name": "bytes"}}]}}"#
            ),
        )
        .unwrap();
        let store = Arc::new(DirectoryStore::open(&root).unwrap());
        let err = ZarrReader::open(store, ZarrOptions::default()).unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains("a/zarr.json") && text.contains(why),
            "{shapes}: {text}"
        );
    }
}
