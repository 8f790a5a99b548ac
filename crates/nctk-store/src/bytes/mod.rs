//! Positioned byte sources and sinks (single-blob formats).
//!
//! [`ByteSource`] is the read seam under the classic netCDF reader (like
//! netCDF-C's `ncio` and parquet's `ChunkReader`): positioned reads that take
//! `&self`, so one source is shared by many threads without a lock.
//! [`ByteSink`] adds positioned writes. Both are implemented for a local file
//! ([`FileSource`], [`FileSink`]) and for memory ([`MemSource`], [`MemSink`]).
//!
//! Readers hand a source whole batches of ranges
//! ([`ByteSource::read_ranges_into`], [`ByteSource::read_ranges`]); the
//! source decides which to merge ([`ByteSource::coalesce`]) and may run
//! the requests concurrently, so a remote source pays one round trip per
//! batch, not per range.

mod cursor;
mod error;
mod file;
mod mem;
mod ranges;
mod replace;
mod write_behind;

pub use cursor::SinkCursor;
pub use error::ByteError;
pub use file::{FileSink, FileSource};
pub use mem::{MemSink, MemSource};
pub use ranges::{Coalesce, MergedRequest, COALESCE_GAP};
pub use replace::{MemReplacement, Replacement};
pub use write_behind::{WriteBehind, WRITE_BEHIND_BYTES};

use bytes::Bytes;
use std::ops::Range;

/// Positioned read access to one blob of bytes.
pub trait ByteSource: Send + Sync {
    /// The current length of the blob in bytes.
    fn len(&self) -> Result<u64, ByteError>;

    /// True when the blob is empty.
    fn is_empty(&self) -> Result<bool, ByteError> {
        Ok(self.len()? == 0)
    }

    /// Reads bytes from `offset` into `buf`; returns how many were read,
    /// which may be fewer than asked (0 means the blob ends at `offset`).
    /// Use [`read_full`](Self::read_full) to fill as much of `buf` as the blob allows.
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<usize, ByteError>;

    /// Reads from `offset` until `buf` is full or the blob ends; returns
    /// how many bytes were read. The rest of `buf` is left untouched.
    fn read_full(&self, offset: u64, buf: &mut [u8]) -> Result<usize, ByteError> {
        let mut done = 0;
        while done < buf.len() {
            match self.read_at(offset + done as u64, &mut buf[done..])? {
                0 => break,
                n => done += n,
            }
        }
        Ok(done)
    }

    /// A name for error messages: the path of a file, `<memory>` otherwise.
    fn name(&self) -> String;

    /// Reads exactly `buf.len()` bytes from `offset`, failing with
    /// [`ByteError::UnexpectedEof`] when the blob is shorter.
    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> Result<(), ByteError> {
        let n = self.read_full(offset, buf)?;
        if n < buf.len() {
            return Err(ByteError::UnexpectedEof {
                path: self.name(),
                offset: offset + n as u64,
                wanted: (buf.len() - n) as u64,
            });
        }
        Ok(())
    }

    /// Reads the bytes of `range` (shorter when the blob ends inside it).
    fn read_range(&self, range: Range<u64>) -> Result<Bytes, ByteError> {
        read_new(self, range, self.len()?)
    }

    /// How this source merges nearby ranges of a batch
    /// ([`read_ranges`](Self::read_ranges),
    /// [`read_ranges_into`](Self::read_ranges_into)) into one request.
    fn coalesce(&self) -> Coalesce {
        Coalesce::DEFAULT
    }

    /// How many bytes a reader should hand over in one batch
    /// ([`read_ranges_into`](Self::read_ranges_into)): batches run one
    /// after another, so a source whose requests cost a round trip asks
    /// for larger ones. 8 MiB by default.
    fn batch_bytes(&self) -> u64 {
        8 << 20
    }

    /// Reads several ranges, merging nearby ones as [`coalesce`](Self::coalesce)
    /// says. Results come back in the order of `ranges`, each shorter when
    /// the blob ends inside its range (empty for an empty or reversed range).
    fn read_ranges(&self, ranges: &[Range<u64>]) -> Result<Vec<Bytes>, ByteError> {
        ranges::read_ranges(self, ranges)
    }

    /// Reads a batch of ranges, each `(offset, buf)` filling `buf` from
    /// `offset`, merging nearby ones as [`coalesce`](Self::coalesce) says (a
    /// range read on its own goes straight into its buffer). Returns, in
    /// the order of `reads`, how many bytes of each buffer were read: fewer
    /// when the blob ends inside it, the rest of the buffer left untouched.
    /// The batch is the unit a source may run concurrently; callers bound
    /// its size.
    fn read_ranges_into(&self, reads: &mut [(u64, &mut [u8])]) -> Result<Vec<usize>, ByteError> {
        ranges::read_ranges_into(self, reads)
    }
}

/// Reads `range` clipped to a blob of `len` bytes into a new buffer (shorter
/// still when the blob turns out to end sooner).
pub(crate) fn read_new<S: ByteSource + ?Sized>(
    source: &S,
    range: Range<u64>,
    len: u64,
) -> Result<Bytes, ByteError> {
    let avail = range.end.min(len).saturating_sub(range.start);
    let n = usize::try_from(avail).map_err(|_| ByteError::TooLarge {
        path: source.name(),
        offset: range.start,
        len: avail,
    })?;
    let mut buf = vec![0u8; n];
    let got = source.read_full(range.start, &mut buf)?;
    buf.truncate(got);
    Ok(Bytes::from(buf))
}

/// Positioned write access to one blob of bytes (which can also be read).
pub trait ByteSink: ByteSource {
    /// Writes `data` at `offset`, growing the blob when needed (a gap reads
    /// as zero bytes).
    fn write_at(&self, offset: u64, data: &[u8]) -> Result<(), ByteError>;

    /// Truncates or extends (with zero bytes) the blob to `len` bytes.
    fn set_len(&self, len: u64) -> Result<(), ByteError>;

    /// Pushes written data to where other readers see it (for a file with
    /// positioned writes this is already the case: a no-op).
    fn flush(&self) -> Result<(), ByteError>;

    /// Makes written data durable (for a file: `fdatasync`). Defaults to [`flush`](Self::flush).
    fn sync(&self) -> Result<(), ByteError> {
        self.flush()
    }

    /// Starts making bytes `offset..offset + len`, already written,
    /// durable without waiting for it (for a file on Linux:
    /// `sync_file_range` with `SYNC_FILE_RANGE_WRITE`), so that a later
    /// [`sync`](Self::sync) has less left to wait for: a writer that
    /// syncs at the end calls it as it goes. A hint; the default does
    /// nothing.
    fn start_sync(&self, offset: u64, len: u64) -> Result<(), ByteError> {
        let _ = (offset, len);
        Ok(())
    }

    /// Starts new content for the whole blob, built apart from it and put
    /// in its place by [`Replacement::commit`] (a file: a sibling
    /// temporary renamed over it). The default builds it in memory and
    /// copies it over on commit.
    fn replacement(&self) -> Result<Box<dyn Replacement>, ByteError> {
        Ok(Box::<MemReplacement>::default())
    }
}

macro_rules! forward_source {
    ($($ty:ty),*) => {$(
        impl<T: ByteSource + ?Sized> ByteSource for $ty {
            fn len(&self) -> Result<u64, ByteError> {
                (**self).len()
            }
            fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<usize, ByteError> {
                (**self).read_at(offset, buf)
            }
            fn read_full(&self, offset: u64, buf: &mut [u8]) -> Result<usize, ByteError> {
                (**self).read_full(offset, buf)
            }
            fn name(&self) -> String {
                (**self).name()
            }
            fn read_range(&self, range: Range<u64>) -> Result<Bytes, ByteError> {
                (**self).read_range(range)
            }
            fn coalesce(&self) -> Coalesce {
                (**self).coalesce()
            }
            fn batch_bytes(&self) -> u64 {
                (**self).batch_bytes()
            }
            fn read_ranges(&self, ranges: &[Range<u64>]) -> Result<Vec<Bytes>, ByteError> {
                (**self).read_ranges(ranges)
            }
            fn read_ranges_into(
                &self,
                reads: &mut [(u64, &mut [u8])],
            ) -> Result<Vec<usize>, ByteError> {
                (**self).read_ranges_into(reads)
            }
        }
    )*};
}

forward_source!(std::sync::Arc<T>, Box<T>);

macro_rules! forward_sink {
    ($($ty:ty),*) => {$(
        impl<T: ByteSink + ?Sized> ByteSink for $ty {
            fn write_at(&self, offset: u64, data: &[u8]) -> Result<(), ByteError> {
                (**self).write_at(offset, data)
            }
            fn set_len(&self, len: u64) -> Result<(), ByteError> {
                (**self).set_len(len)
            }
            fn flush(&self) -> Result<(), ByteError> {
                (**self).flush()
            }
            fn sync(&self) -> Result<(), ByteError> {
                (**self).sync()
            }
            fn start_sync(&self, offset: u64, len: u64) -> Result<(), ByteError> {
                (**self).start_sync(offset, len)
            }
            fn replacement(&self) -> Result<Box<dyn Replacement>, ByteError> {
                (**self).replacement()
            }
        }
    )*};
}

forward_sink!(std::sync::Arc<T>, Box<T>);
