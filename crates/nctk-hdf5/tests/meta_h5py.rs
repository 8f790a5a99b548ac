//! nctk-hdf5's metadata reader against h5py: fixtures written by h5py
//! (every superblock version, object header v1 and v2, old-style, compact
//! and dense groups, compact and dense attributes, committed types, every
//! datatype class, big-endian values, fill values, vlen data) described by
//! nctk-hdf5 and by h5py itself (`meta/h5py_fixture.py`), compared.

#[path = "meta/walk.rs"]
mod walk;

use serde_json::Value;

const FIXTURE: &str = include_str!("meta/h5py_fixture.py");

/// Writes the fixture `scenario` and returns its bytes and h5py's description.
fn fixture(scenario: &str) -> Option<(Vec<u8>, serde_json::Map<String, Value>)> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(format!("{scenario}.h5"));
    let out = nctk_test_support::require::python_output(
        &["h5py", "numpy"],
        FIXTURE,
        [scenario, path.to_str().unwrap()],
    )?;
    let truth: Value = serde_json::from_str(&out).unwrap();
    Some((
        std::fs::read(&path).unwrap(),
        truth.as_object().unwrap().clone(),
    ))
}

/// Drops what the two sides legitimately differ on: sizes of vlen types
/// (h5py reports in-memory sizes) and, where creation order is not
/// tracked, attribute order (h5py lists by name, HDF5 stores by message).
fn normalise(desc: &mut Value, ordered: bool) {
    let strip_vlen_size = |t: &mut Value| {
        if t["class"] == 9 || t["vlen"] == true {
            t.as_object_mut().unwrap().remove("size");
        }
    };
    if let Some(t) = desc.get_mut("type") {
        strip_vlen_size(t);
    }
    if let Some(Value::Array(attrs)) = desc.get_mut("attrs") {
        for a in attrs.iter_mut() {
            strip_vlen_size(&mut a["type"]);
        }
        if !ordered {
            attrs.sort_by(|a, b| a["name"].as_str().cmp(&b["name"].as_str()));
        }
    }
    desc.as_object_mut().unwrap().remove("attrs_ordered");
}

fn check(scenario: &str, superblock: u8) {
    let Some((bytes, truth)) = fixture(scenario) else {
        return;
    };
    let file = walk::open(bytes).unwrap();
    assert_eq!(file.superblock().version, superblock);
    assert_eq!(truth["#superblock"], superblock);
    // HDF5's default indexed storage K is 32 where the file stores none.
    let k = file.superblock().indexed_storage_k.unwrap_or(32);
    assert_eq!(truth["#istore_k"], k, "{scenario}: indexed storage K");
    let ours = walk::describe(&file).unwrap();
    let mut paths: Vec<_> = truth.keys().filter(|k| !k.starts_with('#')).collect();
    paths.sort();
    let mut our_paths: Vec<_> = ours.keys().collect();
    our_paths.sort();
    assert_eq!(our_paths, paths, "{scenario}: objects");
    for path in paths {
        let mut want = truth[path].clone();
        let ordered = want["attrs_ordered"] == true;
        normalise(&mut want, ordered);
        let mut got = ours[path].clone();
        normalise(&mut got, ordered);
        assert_eq!(got, want, "{scenario}: {path}");
    }
}

/// Superblock 0, object header v1, old-style groups (B-tree v1, symbol
/// nodes, local heap), attributes message v1.
#[test]
fn superblock_0_old_style_groups() {
    check("sb0", 0);
}

/// Superblock 1 (a non-default indexed storage K).
#[test]
fn superblock_1() {
    check("sb1", 1);
}

/// Superblock 2, object header v2, compact link and attribute messages.
#[test]
fn superblock_2_compact_groups() {
    check("sb2", 2);
}

/// Superblock 3, as HDF5 1.10 writes it.
#[test]
fn superblock_3() {
    check("sb3", 3);
}

/// Dense links and attributes (fractal heap, B-tree v2 name indexes) with
/// creation order tracked, and a huge attribute.
#[test]
fn dense_storage_in_creation_order() {
    check("dense", 3);
}

/// Dense links and attributes without creation order: listed by name.
#[test]
fn dense_storage_in_name_order() {
    check("dense_name_order", 3);
}

/// `libver="latest"` (HDF5 2.0's newest format).
#[test]
fn latest_format() {
    check("latest", 3);
}

/// Shared object header messages (datatypes, dataspaces, fill values,
/// filters and attributes in the SOHM heap of the superblock extension).
#[test]
fn shared_message_heap() {
    check("sohm", 3);
}

/// Thousands of links and hundreds of attributes, in creation and in name
/// order: B-tree v2 internal nodes and fractal heap indirect blocks.
#[test]
fn wide_dense_storage() {
    check("wide", 3);
}

/// A 512-byte user block before a version-0 superblock.
#[test]
fn user_block_before_superblock_0() {
    check("userblock_sb0", 0);
}

/// A 2048-byte user block before a version-3 superblock.
#[test]
fn user_block_before_superblock_3() {
    check("userblock_sb3", 3);
}

/// Superblock 3 with a non-default indexed storage K (kept in the
/// superblock extension's B-tree K message).
#[test]
fn superblock_3_extension_btree_k() {
    check("sb3_istore_k", 3);
}
