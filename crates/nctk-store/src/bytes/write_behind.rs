//! Write-back started as a file is written, for writers that sync at the
//! end: without it, every byte of a large output waits for the final
//! sync, after the work is done; with it, the kernel writes the file back
//! while the writer goes on, and the sync waits for the last stretch only.

use std::sync::atomic::{AtomicU64, Ordering};

use super::{ByteError, ByteSink};

/// How far behind the end of the file write-back may start, by default:
/// large enough that each hint covers many pages, small enough that the
/// final sync has little left.
pub const WRITE_BEHIND_BYTES: u64 = 16 << 20;

/// Tracks the bytes written to a sink (from any thread) and asks it to
/// start writing them back ([`ByteSink::start_sync`]) each time
/// [`WRITE_BEHIND_BYTES`] more lie before the furthest end written.
#[derive(Debug, Default)]
pub struct WriteBehind {
    /// Where the last write-back asked for ended.
    started: AtomicU64,
}

impl WriteBehind {
    /// A tracker whose write-back starts at byte `from` (what lies before
    /// it is left to the final sync).
    pub fn from(from: u64) -> WriteBehind {
        WriteBehind {
            started: AtomicU64::new(from),
        }
    }

    /// Records that bytes up to `end` of `sink` were written; starts the
    /// write-back of everything since the last one when that is
    /// [`WRITE_BEHIND_BYTES`] or more. Bytes still being written by
    /// another thread in that range are left to the final sync.
    pub fn written(&self, sink: &dyn ByteSink, end: u64) -> Result<(), ByteError> {
        let start = self.started.load(Ordering::Relaxed);
        if end < start.saturating_add(WRITE_BEHIND_BYTES) {
            return Ok(());
        }
        // One thread claims the range; another that raced it skips.
        if self
            .started
            .compare_exchange(start, end, Ordering::Relaxed, Ordering::Relaxed)
            .is_err()
        {
            return Ok(());
        }
        sink.start_sync(start, end - start)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bytes::ByteSource;

    /// A sink that keeps nothing but the write-backs asked of it.
    #[derive(Default)]
    struct Recording {
        asked: std::sync::Mutex<Vec<(u64, u64)>>,
    }

    impl ByteSource for Recording {
        fn len(&self) -> Result<u64, ByteError> {
            Ok(0)
        }
        fn read_at(&self, _: u64, _: &mut [u8]) -> Result<usize, ByteError> {
            Ok(0)
        }
        fn name(&self) -> String {
            "<recording>".into()
        }
    }

    impl ByteSink for Recording {
        fn write_at(&self, _: u64, _: &[u8]) -> Result<(), ByteError> {
            Ok(())
        }
        fn set_len(&self, _: u64) -> Result<(), ByteError> {
            Ok(())
        }
        fn flush(&self) -> Result<(), ByteError> {
            Ok(())
        }
        fn start_sync(&self, offset: u64, len: u64) -> Result<(), ByteError> {
            self.asked.lock().unwrap().push((offset, len));
            Ok(())
        }
    }

    #[test]
    fn write_back_starts_once_per_stretch_and_covers_every_byte_once() {
        let sink = Recording::default();
        let behind = WriteBehind::from(100);
        // a quarter stretch per write: a hint every fourth write
        let step = WRITE_BEHIND_BYTES / 4;
        let mut end = 100;
        for _ in 0..10 {
            end += step;
            behind.written(&sink, end).unwrap();
        }
        let asked = sink.asked.lock().unwrap().clone();
        assert_eq!(asked.len(), 10 / 4, "{asked:?}");
        // contiguous, from the start, each at least the stretch
        let mut at = 100;
        for (offset, len) in asked {
            assert_eq!(offset, at);
            assert!(len >= WRITE_BEHIND_BYTES);
            at += len;
        }
        assert!(at <= end && end - at < WRITE_BEHIND_BYTES);
    }
}
