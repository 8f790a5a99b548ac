//! Every key/value backend passes the same conformance checks.

use std::io::Cursor;
use std::sync::Arc;

use nctk_store::kv::{
    conformance, DirectoryStore, MemoryStore, ReadableStore, StoreKey, WritableStore, ZipRoot,
    ZipStore, ZipStoreWriter,
};

#[test]
fn memory_store() {
    conformance::run(&MemoryStore::new());
}

#[test]
fn memory_store_through_arc_dyn() {
    let store: Arc<MemoryStore> = Arc::new(MemoryStore::new());
    conformance::run(&store);
}

#[test]
fn directory_store() {
    let dir = tempfile::tempdir().unwrap();
    let store = DirectoryStore::new(dir.path().join("x.zarr"));
    conformance::run(&store);
}

#[test]
fn directory_store_leaves_no_temp_files() {
    let dir = tempfile::tempdir().unwrap();
    let store = DirectoryStore::new(dir.path());
    store
        .put(&StoreKey::new("a/b").unwrap(), vec![1u8; 10].into())
        .unwrap();
    let names: Vec<_> = std::fs::read_dir(dir.path().join("a"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(names, ["b"]);
}

fn zipped(dir: Option<&str>) -> Vec<u8> {
    let w = ZipStoreWriter::new(Cursor::new(Vec::new()), "test.zip", dir).unwrap();
    for (k, v) in conformance::fixture() {
        w.put(&k, v).unwrap();
    }
    let k = StoreKey::new(".zgroup").unwrap();
    assert!(w.put(&k, vec![].into()).is_err(), "zip is write-once");
    assert!(w.delete(&k).is_err(), "zip cannot delete");
    w.finish().unwrap().into_inner()
}

#[test]
fn zip_store_top_level() {
    let store = ZipStore::from_bytes(zipped(None)).unwrap();
    conformance::check_contents(&store);
    assert!(!store.capabilities().writable);
}

#[test]
fn zip_store_under_a_directory() {
    let store = ZipStore::from_bytes(zipped(Some("data.file"))).unwrap();
    conformance::check_contents(&store);
    let explicit = ZipStore::new(
        nctk_store::bytes::MemSource::new(zipped(Some("d"))),
        ZipRoot::Directory("d".into()),
    )
    .unwrap();
    conformance::check_contents(&explicit);
}

#[test]
fn zip_store_from_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.zip");
    std::fs::write(&path, zipped(None)).unwrap();
    conformance::check_contents(&ZipStore::open_file(&path).unwrap());
}

#[test]
fn zip_garbage_is_an_error() {
    assert!(ZipStore::from_bytes(vec![0u8; 100]).is_err());
    assert!(ZipStore::from_bytes(Vec::new()).is_err());
}
