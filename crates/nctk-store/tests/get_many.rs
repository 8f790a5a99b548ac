//! `DirectoryStore::get_many` reads in parallel, with a bound of its own.

use std::fs::OpenOptions;
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::time::{Duration, Instant};

use nctk_store::kv::{DirectoryStore, ReadableStore, StoreKey};

/// Linux's `O_NONBLOCK`: opening a FIFO for writing fails unless a reader
/// has it open.
const O_NONBLOCK: i32 = 0o4000;

/// Opens `fifo` for writing if a reader is waiting on it.
fn writer_if_read(fifo: &Path) -> Option<std::fs::File> {
    OpenOptions::new()
        .write(true)
        .custom_flags(O_NONBLOCK)
        .open(fifo)
        .ok()
}

/// Each key is a FIFO, so a read blocks until this test writes it: the
/// FIFOs with a reader waiting show how many reads are in flight at once.
#[test]
fn directory_get_many_has_more_reads_in_flight_than_cores_but_bounded() {
    if !nctk_test_support::require::tools(&["mkfifo"]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let n = 40;
    let keys: Vec<StoreKey> = (0..n)
        .map(|i| StoreKey::new(format!("f{i}")).unwrap())
        .collect();
    let paths: Vec<_> = keys.iter().map(|k| dir.path().join(k.as_str())).collect();
    let status = std::process::Command::new("mkfifo")
        .args(&paths)
        .status()
        .unwrap();
    assert!(status.success());
    let store = DirectoryStore::new(dir.path());
    let cores = std::thread::available_parallelism().map_or(1, |c| c.get());

    std::thread::scope(|s| {
        let reading = s.spawn(|| store.get_many(&keys));
        let mut done = vec![false; n];
        let mut most = 0;
        let deadline = Instant::now() + Duration::from_secs(20);
        while done.iter().any(|d| !d) {
            assert!(Instant::now() < deadline, "get_many stalled");
            // Every FIFO with a reader waiting, at this moment.
            let waiting: Vec<(usize, std::fs::File)> = (0..n)
                .filter(|&i| !done[i])
                .filter_map(|i| writer_if_read(&paths[i]).map(|f| (i, f)))
                .collect();
            if waiting.is_empty() {
                std::thread::sleep(Duration::from_millis(5));
                continue;
            }
            // Let stragglers arrive before counting.
            std::thread::sleep(Duration::from_millis(50));
            let late: Vec<(usize, std::fs::File)> = (0..n)
                .filter(|&i| !done[i] && waiting.iter().all(|(j, _)| *j != i))
                .filter_map(|i| writer_if_read(&paths[i]).map(|f| (i, f)))
                .collect();
            most = most.max(waiting.len() + late.len());
            for (i, mut f) in waiting.into_iter().chain(late) {
                f.write_all(keys[i].as_str().as_bytes()).unwrap();
                done[i] = true;
            }
        }
        let got = reading.join().unwrap().unwrap();
        for (k, v) in keys.iter().zip(got) {
            assert_eq!(v.as_deref(), Some(k.as_str().as_bytes()), "get_many {k}");
        }
        assert!(
            most > cores,
            "at most {most} reads in flight on {cores} cores"
        );
        assert!(most < n, "all {n} reads in flight at once: no bound");
    });
}

/// The first failing key, in key order, is the error; values come back in
/// key order.
#[test]
fn directory_get_many_reports_the_first_failure_in_key_order() {
    let dir = tempfile::tempdir().unwrap();
    let store = DirectoryStore::new(dir.path());
    let mut keys = Vec::new();
    for i in 0..30 {
        let k = StoreKey::new(format!("k{i:02}")).unwrap();
        std::fs::write(dir.path().join(k.as_str()), format!("value {i}")).unwrap();
        keys.push(k);
    }
    let got = store.get_many(&keys).unwrap();
    for (i, v) in got.iter().enumerate() {
        assert_eq!(v.as_deref(), Some(format!("value {i}").as_bytes()));
    }
    // Symbolic links to themselves cannot be read (ELOOP): a real error.
    for name in ["loop_b", "loop_a"] {
        std::os::unix::fs::symlink(name, dir.path().join(name)).unwrap();
    }
    let mut with_loops = keys.clone();
    with_loops.insert(20, StoreKey::new("loop_b").unwrap());
    with_loops.insert(25, StoreKey::new("loop_a").unwrap());
    let err = store.get_many(&with_loops).unwrap_err().to_string();
    assert!(err.starts_with("loop_b"), "{err}");
}
