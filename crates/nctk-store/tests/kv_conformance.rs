//! Every key/value backend passes the same conformance checks.

use std::collections::BTreeMap;
use std::io::Cursor;
use std::sync::Arc;

use nctk_store::bytes::{ByteSink, ByteSource, FileSink, MemSink};
use nctk_store::conformance;
use nctk_store::kv::{
    Bytes, DirectoryStore, MemoryStore, ReadableStore, StagedZipStore, StoreKey, ValueSource,
    WritableStore, ZipRoot, ZipStore, ZipStoreWriter,
};

#[test]
fn memory_store() {
    conformance::kv_store(MemoryStore::new);
}

#[test]
fn memory_store_through_arc_dyn() {
    conformance::kv_store(|| Arc::new(MemoryStore::new()));
}

#[test]
fn directory_store() {
    let dir = tempfile::tempdir().unwrap();
    conformance::kv_store(|| DirectoryStore::new(dir.path().join("x.zarr")));
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

#[test]
fn staged_zip_store_is_a_store_while_staged() {
    let dir = tempfile::tempdir().unwrap();
    let sink = Arc::new(MemSink::new());
    conformance::kv_store(|| {
        StagedZipStore::in_directory(dir.path().join("scratch"), sink.clone(), None).unwrap()
    });
    assert!(
        !dir.path().join("scratch").exists(),
        "scratch removed on drop"
    );
    assert_eq!(sink.len().unwrap(), 0, "nothing archived without close");
}

/// What a staged zip store archives on close reads back as the fixture, in
/// both archive shapes, from memory and from a scratch directory (which is
/// gone afterwards); re-puts keep the last value.
#[test]
fn staged_zip_store_archives_on_close() {
    let tmp = tempfile::tempdir().unwrap();
    for (n, top) in [None, Some("x.file")].into_iter().enumerate() {
        for on_disk in [false, true] {
            let scratch = tmp.path().join(format!("scratch{n}{on_disk}"));
            let path = tmp.path().join(format!("out{n}{on_disk}.zip"));
            conformance::kv_contents(|objects| {
                let sink: Arc<dyn ByteSink> = Arc::new(FileSink::create(&path).unwrap());
                let staged = if on_disk {
                    StagedZipStore::in_directory(&scratch, sink, top).unwrap()
                } else {
                    StagedZipStore::in_memory(sink, top)
                };
                for (k, v) in objects {
                    staged
                        .put(k, Bytes::from_static(b"replaced below"))
                        .unwrap();
                    staged.put(k, v.clone()).unwrap();
                }
                staged.close().unwrap();
                staged.close().unwrap();
                assert!(!scratch.exists());
                ZipStore::open_file(&path).unwrap()
            });
        }
    }
}

fn zipped(dir: Option<&str>) -> Vec<u8> {
    zip_of(&conformance::fixture(), dir)
}

/// `objects` written by our zip writer, at the top level or under `dir`.
fn zip_of(objects: &BTreeMap<StoreKey, Bytes>, dir: Option<&str>) -> Vec<u8> {
    let w = ZipStoreWriter::new(Cursor::new(Vec::new()), "test.zip", dir).unwrap();
    for (k, v) in objects {
        w.put(k, v.clone()).unwrap();
    }
    let k = StoreKey::new(".zgroup").unwrap();
    assert!(w.put(&k, vec![].into()).is_err(), "zip is write-once");
    assert!(w.delete(&k).is_err(), "zip cannot delete");
    w.finish().unwrap().into_inner()
}

#[test]
fn zip_store_top_level() {
    conformance::kv_contents(|f| ZipStore::from_bytes(zip_of(f, None)).unwrap());
    assert!(
        !ZipStore::from_bytes(zipped(None))
            .unwrap()
            .capabilities()
            .writable
    );
}

#[test]
fn zip_store_under_a_directory() {
    conformance::kv_contents(|f| ZipStore::from_bytes(zip_of(f, Some("data.file"))).unwrap());
    conformance::kv_contents(|f| {
        ZipStore::new(
            nctk_store::bytes::MemSource::new(zip_of(f, Some("d"))),
            ZipRoot::Directory("d".into()),
        )
        .unwrap()
    });
}

#[test]
fn zip_store_from_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.zip");
    conformance::kv_contents(|f| {
        std::fs::write(&path, zip_of(f, None)).unwrap();
        ZipStore::open_file(&path).unwrap()
    });
}

/// A zip kept as one object of a directory store reads through the stored
/// value adapter (partial reads of the object).
#[test]
fn zip_inside_a_directory_store() {
    let dir = tempfile::tempdir().unwrap();
    let key = StoreKey::new("archives/x.zip").unwrap();
    conformance::kv_contents(|f| {
        let outer = DirectoryStore::new(dir.path());
        outer.put(&key, zip_of(f, Some("x.file")).into()).unwrap();
        let source = ValueSource::open(outer, key.clone()).unwrap().unwrap();
        ZipStore::new(source, ZipRoot::Auto).unwrap()
    });
}

#[test]
fn zip_garbage_is_an_error() {
    assert!(ZipStore::from_bytes(vec![0u8; 100]).is_err());
    assert!(ZipStore::from_bytes(Vec::new()).is_err());
}

/// Runs Python's `zipfile` (an independent zip implementation) on `args`;
/// `None` (after `nctk_test_support::require`) when python3 is absent.
fn python_zipfile(script: &str, args: &[&std::path::Path]) -> Option<()> {
    if !nctk_test_support::require::python(&["zipfile"]) {
        return None;
    }
    nctk_test_support::peer::python(script, args).unwrap_or_else(|e| panic!("python zipfile: {e}"));
    Some(())
}

/// Zipping a directory store with another zip tool gives a readable zip
/// store, at the top level or under the store's directory name.
#[test]
fn zipped_directory_store_reads_as_a_zip_store() {
    const ZIP_DIR: &str = r#"
import os, sys, zipfile
src, dst, top = sys.argv[1], sys.argv[2], sys.argv[3] == "top"
with zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as z:
    for root, _, files in os.walk(src):
        for f in files:
            p = os.path.join(root, f)
            rel = os.path.relpath(p, src if top else os.path.dirname(src))
            z.write(p, rel)
"#;
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("data.zarr");
    let store = DirectoryStore::new(&src);
    for (k, v) in conformance::fixture() {
        store.put(&k, v).unwrap();
    }
    for top in ["top", "nested"] {
        let zip = dir.path().join(format!("{top}.zip"));
        let Some(()) = python_zipfile(ZIP_DIR, &[&src, &zip, std::path::Path::new(top)]) else {
            return;
        };
        let root = if top == "top" {
            ZipRoot::Top
        } else {
            ZipRoot::Directory("data.zarr".into())
        };
        conformance::kv_contents(|_| {
            let source = nctk_store::bytes::FileSource::open(&zip).unwrap();
            ZipStore::new(source, root).unwrap()
        });
        // The same archive (deflated by Python) kept in a memory store.
        let outer = MemoryStore::new();
        let key = StoreKey::new("z.zip").unwrap();
        outer
            .put(&key, std::fs::read(&zip).unwrap().into())
            .unwrap();
        conformance::kv_contents(|_| {
            let source = ValueSource::open(&outer, key.clone()).unwrap().unwrap();
            ZipStore::new(source, ZipRoot::Auto).unwrap()
        });
    }
}

/// Unzipping a zip store nctk wrote with another zip tool gives a readable
/// directory store.
#[test]
fn unzipped_zip_store_reads_as_a_directory_store() {
    const UNZIP: &str = "import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])";
    let dir = tempfile::tempdir().unwrap();
    let zip = dir.path().join("x.zip");
    std::fs::write(&zip, zipped(Some("x.file"))).unwrap();
    let out = dir.path().join("out");
    let Some(()) = python_zipfile(UNZIP, &[&zip, &out]) else {
        return;
    };
    conformance::kv_contents(|_| DirectoryStore::open(out.join("x.file")).unwrap());
}
