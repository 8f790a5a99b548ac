//! The HDF5 writer's files as HDF5's own tools see them: `h5dump` reads
//! every object and h5py reads the values, names and creation order
//! written (contiguous and chunked datasets, filters, an unlimited
//! dimension, a two-level chunk B-tree, groups and attributes).

use std::path::Path;
use std::sync::Arc;

use nctk_hdf5::write::{AttrValue, AttributeSpec, DatasetSpec, Hdf5Writer, ObjectId, Storage};
use nctk_hdf5::{Dataspace, DataspaceKind, Datatype, FillValue, Filter, StringPadding};
use nctk_store::bytes::FileSink;
use nctk_test_support::{peer, require};

fn simple(dims: &[u64], max: Option<&[u64]>) -> Dataspace {
    Dataspace {
        kind: DataspaceKind::Simple,
        dims: dims.to_vec(),
        max_dims: max.map(<[u64]>::to_vec),
    }
}

fn int(size: u32, signed: bool) -> Datatype {
    Datatype::Integer {
        size,
        signed,
        big_endian: false,
    }
}

/// HDF5's default fill settings: allocated late, filled if set, the
/// default value (zeros).
fn library_default_fill() -> FillValue {
    FillValue {
        alloc_time: 2,
        fill_time: 2,
        defined: true,
        value: None,
    }
}

fn filter(id: u16, params: &[u32]) -> Filter {
    Filter {
        id,
        name: None,
        optional: false,
        params: params.to_vec(),
    }
}

fn le<T: Copy, const N: usize>(values: &[T], f: impl Fn(T) -> [u8; N]) -> Vec<u8> {
    values.iter().flat_map(|&v| f(v)).collect()
}

/// Writes the sample file: see the module doc.
fn write_sample(path: &Path) {
    let sink = Arc::new(FileSink::create(path).unwrap());
    let mut w = Hdf5Writer::new(sink);
    let root = ObjectId::ROOT;
    w.add_attribute(
        root,
        AttributeSpec {
            named_type: None,
            name: "title".into(),
            datatype: Datatype::String {
                size: 5,
                padding: StringPadding::NullTerminate,
                utf8: false,
            },
            dataspace: Dataspace {
                kind: DataspaceKind::Scalar,
                dims: vec![],
                max_dims: None,
            },
            value: AttrValue::Bytes(b"hello".to_vec()),
        },
    )
    .unwrap();
    let g = w.add_group(root, "g").unwrap();
    let a = w
        .add_dataset(
            g,
            "a",
            DatasetSpec {
                named_type: None,
                datatype: int(2, true),
                dataspace: simple(&[2, 3], None),
                fill: FillValue {
                    alloc_time: 2,
                    fill_time: 2,
                    defined: true,
                    value: Some((-7i16).to_le_bytes().to_vec()),
                },
                storage: Storage::Contiguous,
            },
        )
        .unwrap();
    w.write_contiguous(a, 0, &le(&[1i16, -2, 3, 4, 5, 6], i16::to_le_bytes))
        .unwrap();
    // Ten attributes: more than HDF5's eight compact by default.
    for i in 0..10u32 {
        let name = format!("z{}", 9 - i);
        let raw = le(&[i, i * 2], u32::to_le_bytes);
        let attr = AttributeSpec {
            named_type: None,
            name,
            datatype: int(4, false),
            dataspace: simple(&[2], None),
            value: AttrValue::Bytes(raw),
        };
        w.add_attribute(a, attr).unwrap();
    }
    let t = w
        .add_dataset(
            root,
            "t",
            DatasetSpec {
                named_type: None,
                datatype: Datatype::Float {
                    size: 8,
                    big_endian: false,
                },
                dataspace: simple(&[5, 4], Some(&[u64::MAX, 4])),
                fill: FillValue {
                    alloc_time: 3,
                    fill_time: 2,
                    defined: true,
                    value: Some(9.5f64.to_le_bytes().to_vec()),
                },
                storage: Storage::Chunked {
                    chunk: vec![2, 4],
                    filters: vec![filter(2, &[8]), filter(1, &[4]), filter(3, &[])],
                },
            },
        )
        .unwrap();
    for r0 in [0u64, 2, 4] {
        let vals: Vec<f64> = (0..8).map(|k| (r0 * 4 + k) as f64 * 0.5).collect();
        w.write_chunk(t, &[r0, 0], le(&vals, f64::to_le_bytes))
            .unwrap();
    }
    let many = w
        .add_dataset(
            root,
            "many",
            DatasetSpec {
                named_type: None,
                datatype: int(8, true),
                dataspace: simple(&[300], None),
                fill: library_default_fill(),
                storage: Storage::Chunked {
                    chunk: vec![2],
                    filters: vec![],
                },
            },
        )
        .unwrap();
    // Written backwards: the B-tree sorts them.
    for c in (0..150u64).rev() {
        let vals = [c as i64 * 2, c as i64 * 2 + 1];
        w.write_chunk(many, &[c * 2], le(&vals, i64::to_le_bytes))
            .unwrap();
    }
    // A dimension scale "x" attached to "t"'s second dimension and to
    // "many"'s only one: references both ways.
    let x = w
        .add_dataset(
            root,
            "x",
            DatasetSpec {
                named_type: None,
                datatype: int(4, true),
                dataspace: simple(&[4], None),
                fill: library_default_fill(),
                storage: Storage::Contiguous,
            },
        )
        .unwrap();
    let text = |s: &str| AttributeSpec {
        named_type: None,
        name: String::new(),
        datatype: Datatype::String {
            size: s.len() as u32 + 1,
            padding: StringPadding::NullTerminate,
            utf8: false,
        },
        dataspace: Dataspace {
            kind: DataspaceKind::Scalar,
            dims: vec![],
            max_dims: None,
        },
        value: AttrValue::Bytes([s.as_bytes(), &[0]].concat()),
    };
    for (name, value) in [("CLASS", "DIMENSION_SCALE"), ("NAME", "x")] {
        let attr = AttributeSpec {
            named_type: None,
            name: name.into(),
            ..text(value)
        };
        w.add_attribute(x, attr).unwrap();
    }
    let reference = Datatype::Reference {
        size: 8,
        kind: nctk_hdf5::ReferenceKind::Object,
    };
    let ref_list = Datatype::Compound {
        size: 16,
        members: vec![
            nctk_hdf5::CompoundMember {
                name: "dataset".into(),
                offset: 0,
                datatype: reference.clone(),
            },
            nctk_hdf5::CompoundMember {
                name: "dimension".into(),
                offset: 8,
                datatype: int(4, true),
            },
        ],
    };
    let attr = AttributeSpec {
        named_type: None,
        name: "REFERENCE_LIST".into(),
        datatype: ref_list,
        dataspace: simple(&[1], None),
        value: AttrValue::ReferenceList(vec![(t, 1)]),
    };
    w.add_attribute(x, attr).unwrap();
    let attr = AttributeSpec {
        named_type: None,
        name: "DIMENSION_LIST".into(),
        datatype: Datatype::VarLen {
            base: Box::new(reference),
        },
        dataspace: simple(&[2], None),
        value: AttrValue::ReferenceSequences(vec![vec![], vec![x]]),
    };
    w.add_attribute(t, attr).unwrap();
    w.finish().unwrap();
}

#[test]
fn h5dump_and_h5py_read_what_was_written() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("w.h5");
    write_sample(&path);
    if require::tools(&["h5dump"]) {
        let dump = peer::run("h5dump", [&path]).unwrap_or_else(|e| panic!("h5dump: {e}"));
        for object in [
            "GROUP \"g\"",
            "DATASET \"a\"",
            "DATASET \"t\"",
            "DATASET \"many\"",
        ] {
            assert!(dump.contains(object), "{object} missing from\n{dump}");
        }
    }
    let script = r#"
import sys, json, h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
t = f["t"]
print(json.dumps({
  "title": f.attrs["title"].decode(),
  "root": list(f.keys()),
  "a": f["g/a"][...].tolist(),
  "a_fill": int(f["g/a"].fillvalue),
  "a_attrs": list(f["g/a"].attrs.keys()),
  "z0": f["g/a"].attrs["z0"].tolist(),
  "t": t[...].tolist(),
  "t_max": [m if m is not None else -1 for m in t.maxshape],
  "t_chunks": list(t.chunks),
  "t_filters": [t.compression, t.compression_opts, t.shuffle, t.fletcher32],
  "many": f["many"][...].tolist(),
  "x": f["x"][...].tolist(),
  "scale": [t.dims[1][0].name, len(t.dims[0]), f["x"].attrs["REFERENCE_LIST"][0][1].item()],
  "ref_target": f[f["x"].attrs["REFERENCE_LIST"][0][0]].name,
}))
"#;
    let Some(out) = require::python_output(&["h5py"], script, [&path]) else {
        return;
    };
    let got: serde_json::Value = serde_json::from_str(&out).unwrap();
    let want = serde_json::json!({
        "title": "hello",
        "root": ["g", "t", "many", "x"],
        "a": [[1, -2, 3], [4, 5, 6]],
        "a_fill": -7,
        "a_attrs": (0..10).map(|i| format!("z{}", 9 - i)).collect::<Vec<_>>(),
        "z0": [9, 18],
        "t": (0..5).map(|r| (0..4).map(|c| (r * 4 + c) as f64 * 0.5).collect::<Vec<_>>()).collect::<Vec<_>>(),
        "t_max": [-1, 4],
        "t_chunks": [2, 4],
        "t_filters": ["gzip", 4, true, true],
        "many": (0..300).collect::<Vec<i64>>(),
        "x": [0, 0, 0, 0],
        "scale": ["/x", 0, 1],
        "ref_target": "/t",
    });
    assert_eq!(got, want);
}

#[test]
fn nctk_reads_back_what_was_written() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("w.h5");
    write_sample(&path);
    let source = nctk_store::bytes::FileSource::open(&path).unwrap();
    let file = nctk_hdf5::Hdf5File::open(Arc::new(source)).unwrap();
    let root = file.group(file.root_addr()).unwrap();
    let names: Vec<_> = root.links.iter().map(|l| l.name.clone()).collect();
    assert_eq!(names, ["g", "t", "many", "x"]);
}
