//! Every byte source and sink passes the same conformance checks.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use nctk_store::bytes::{ByteSink, ByteSource, FileSink, FileSource, MemSink, MemSource};
use nctk_store::conformance;
use nctk_store::kv::{
    DirectoryStore, MemoryStore, ReadableStore, StoreKey, ValueSource, WritableStore, ZipStore,
    ZipStoreWriter,
};

/// A fresh path in `dir` per call.
fn fresh(dir: &tempfile::TempDir) -> std::path::PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    dir.path()
        .join(format!("b{}.bin", N.fetch_add(1, Ordering::Relaxed)))
}

#[test]
fn memory_source() {
    conformance::byte_source(|d| MemSource::new(d.to_vec()));
}

#[test]
fn memory_sink() {
    conformance::byte_sink(MemSink::new);
    conformance::byte_source(|d| MemSink::from_vec(d.to_vec()));
}

#[test]
fn file_source() {
    let dir = tempfile::tempdir().unwrap();
    conformance::byte_source(|d| {
        let p = fresh(&dir);
        std::fs::write(&p, d).unwrap();
        FileSource::open(p).unwrap()
    });
}

#[test]
fn file_sink() {
    let dir = tempfile::tempdir().unwrap();
    conformance::byte_sink(|| FileSink::create(fresh(&dir)).unwrap());
}

#[test]
fn shared_and_boxed_sources() {
    conformance::byte_source(|d| Arc::new(MemSource::new(d.to_vec())) as Arc<dyn ByteSource>);
    conformance::byte_sink(|| Box::new(MemSink::new()) as Box<dyn ByteSink>);
}

#[test]
fn value_source_over_stores_with_partial_reads() {
    let key = StoreKey::new("a/blob").unwrap();
    conformance::byte_source(|d| {
        let store = MemoryStore::new();
        store.put(&key, d.to_vec().into()).unwrap();
        ValueSource::open(store, key.clone()).unwrap().unwrap()
    });
    let dir = tempfile::tempdir().unwrap();
    conformance::byte_source(|d| {
        let store = DirectoryStore::new(fresh(&dir));
        store.put(&key, d.to_vec().into()).unwrap();
        assert!(store.capabilities().partial_reads);
        ValueSource::open(store, key.clone()).unwrap().unwrap()
    });
}

/// A zip store reads whole entries only, so the adapter holds the value.
#[test]
fn value_source_over_a_store_without_partial_reads() {
    conformance::byte_source(|d| {
        let w = ZipStoreWriter::new(std::io::Cursor::new(Vec::new()), "t.zip", None).unwrap();
        w.put(&StoreKey::new("blob").unwrap(), d.to_vec().into())
            .unwrap();
        let zip = ZipStore::from_bytes(w.finish().unwrap().into_inner()).unwrap();
        assert!(!zip.capabilities().partial_reads);
        ValueSource::open(zip, StoreKey::new("blob").unwrap())
            .unwrap()
            .unwrap()
    });
}

#[test]
fn value_source_of_a_missing_key_is_none() {
    let missing = StoreKey::new("nope").unwrap();
    assert!(ValueSource::open(MemoryStore::new(), missing)
        .unwrap()
        .is_none());
}

/// The length rule: an open source sees a file grown afterwards by our own
/// sink (and by anyone), and the sink sees its own writes.
#[test]
fn file_lengths_follow_growth_by_our_sink() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("grow.bin");
    std::fs::write(&path, b"0123").unwrap();
    let source = FileSource::open(&path).unwrap();
    assert_eq!(&source.read_range(0..100).unwrap()[..], b"0123");
    let sink = FileSink::open(&path).unwrap();
    sink.write_at(4, b"4567").unwrap();
    assert_eq!(&sink.read_range(2..100).unwrap()[..], b"234567");
    assert_eq!(&source.read_range(2..100).unwrap()[..], b"234567");
    assert_eq!(source.len().unwrap(), 8);
    assert_eq!(std::fs::read(&path).unwrap(), b"01234567");
    // Shrunk by someone else: short reads, never stale bytes.
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(3)
        .unwrap();
    assert_eq!(&source.read_range(0..8).unwrap()[..], b"012");
    assert_eq!(&sink.read_range(0..8).unwrap()[..], b"012");
}

#[test]
fn file_open_errors_name_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let err = FileSource::open(dir.path().join("missing")).unwrap_err();
    assert!(err.to_string().contains("missing"), "{err}");
}

/// Environment variable naming the file [`stat_probe`] reads.
const STAT_PROBE: &str = "NCTK_STAT_PROBE";

/// Run by [`file_reads_do_not_stat`] under strace: 200 ranged reads of one
/// file through a `FileSource`.
#[test]
#[ignore = "a helper run under strace by file_reads_do_not_stat"]
fn stat_probe() {
    let Some(path) = std::env::var_os(STAT_PROBE) else {
        return;
    };
    let source = FileSource::open(path).unwrap();
    for i in 0..200u64 {
        assert_eq!(source.read_range(i..i + 10).unwrap().len(), 10);
    }
}

/// The length cache: strace (an independent observer) counts the `stat`
/// calls on the file while 200 ranged reads run; there must be far fewer
/// than reads.
#[test]
fn file_reads_do_not_stat() {
    if !nctk_test_support::require::tools(&["strace"]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("probe.bin");
    std::fs::write(&data, vec![7u8; 4096]).unwrap();
    let log = dir.path().join("strace.log");
    let status = std::process::Command::new("strace")
        .arg("-f")
        .arg("-o")
        .arg(&log)
        .arg("-P")
        .arg(&data)
        .args(["-e", "trace=fstat,statx,newfstatat,stat,lstat,pread64"])
        .arg(std::env::current_exe().unwrap())
        .args(["--exact", "stat_probe", "--ignored", "--test-threads=1"])
        .env(STAT_PROBE, &data)
        .stdout(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "strace run failed: {status}");
    let log = std::fs::read_to_string(&log).unwrap();
    let count = |names: &[&str]| {
        log.lines()
            .filter(|l| names.iter().any(|n| l.contains(&format!("{n}("))))
            .count()
    };
    assert!(count(&["pread64"]) >= 200, "the probe did not run:\n{log}");
    let stats = count(&["fstat", "statx", "newfstatat", "stat", "lstat"]);
    assert!(stats <= 3, "{stats} stat calls for 200 reads:\n{log}");
}

/// A replacement is invisible until committed; dropped uncommitted it
/// leaves the blob as it was (and, for a file, no temporary beside it).
#[test]
fn staged_replacement_swaps_in_on_commit_only() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f.nc");
    let file: Arc<dyn ByteSink> = Arc::new(FileSink::create(&path).unwrap());
    for original in [file, Arc::new(MemSink::new()) as Arc<dyn ByteSink>] {
        original.write_at(0, b"old content").unwrap();
        let abandoned = original.replacement().unwrap();
        abandoned.sink().write_at(0, b"half").unwrap();
        drop(abandoned);
        assert_eq!(original.read_range(0..100).unwrap(), &b"old content"[..]);
        let r = original.replacement().unwrap();
        r.sink().write_at(0, b"new").unwrap();
        assert_eq!(original.read_range(0..100).unwrap(), &b"old content"[..]);
        let now = r.commit(original.clone()).unwrap();
        assert_eq!(now.read_range(0..100).unwrap(), &b"new"[..]);
    }
    assert_eq!(std::fs::read(&path).unwrap(), b"new");
    let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(names.len(), 1, "no temporary left beside the file");
}
