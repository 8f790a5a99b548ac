//! One stored value presented as a [`ByteSource`], so a single-blob format
//! (a zip archive, a classic netCDF file) can sit inside any store.

use std::ops::Range;

use bytes::Bytes;

use super::{ReadableStore, StoreError, StoreKey};
use crate::bytes::{ByteError, ByteSource, MemSource};

/// How the value's bytes are reached.
#[derive(Debug)]
enum Access {
    /// The store reads ranges itself (`get_range`).
    Ranged { len: u64 },
    /// The store reads whole values only: one `get`, held in memory.
    Held(MemSource),
}

/// The value at one key of a readable store, read as a [`ByteSource`].
///
/// Over a store with partial reads
/// ([`Capabilities::partial_reads`](super::Capabilities)) every read is a
/// `get_range` of the bytes asked for; otherwise the value is fetched once,
/// when the source is opened, and served from memory. The value's length is
/// taken once at open: the value is assumed not to change while it is read.
#[derive(Debug)]
pub struct ValueSource<S> {
    store: S,
    key: StoreKey,
    access: Access,
}

impl<S: ReadableStore> ValueSource<S> {
    /// Opens the value at `key`; `None` when no object has that key.
    pub fn open(store: S, key: StoreKey) -> Result<Option<Self>, StoreError> {
        let access = if store.capabilities().partial_reads {
            match store.size(&key)? {
                Some(len) => Access::Ranged { len },
                None => return Ok(None),
            }
        } else {
            match store.get(&key)? {
                Some(all) => Access::Held(MemSource::new(all)),
                None => return Ok(None),
            }
        };
        Ok(Some(ValueSource { store, key, access }))
    }

    /// The key of the value.
    pub fn key(&self) -> &StoreKey {
        &self.key
    }

    /// `get_range` of `range` (already clipped to the value), mapping a
    /// vanished key or a store failure to a [`ByteError`] naming the offset.
    fn fetch(&self, range: Range<u64>) -> Result<Bytes, ByteError> {
        let offset = range.start;
        let store_err = |source: StoreError| ByteError::Store {
            path: self.name(),
            offset,
            source: Box::new(source),
        };
        match self.store.get_range(&self.key, range) {
            Ok(Some(b)) => Ok(b),
            Ok(None) => Err(store_err(StoreError::io(
                self.key.as_str(),
                "read",
                std::io::Error::from(std::io::ErrorKind::NotFound),
            ))),
            Err(e) => Err(store_err(e)),
        }
    }
}

impl<S: ReadableStore> ByteSource for ValueSource<S> {
    fn len(&self) -> Result<u64, ByteError> {
        match &self.access {
            Access::Ranged { len } => Ok(*len),
            Access::Held(m) => m.len(),
        }
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<usize, ByteError> {
        match &self.access {
            Access::Held(m) => m.read_at(offset, buf),
            Access::Ranged { .. } => {
                let got = self.read_range(offset..offset.saturating_add(buf.len() as u64))?;
                buf[..got.len()].copy_from_slice(&got);
                Ok(got.len())
            }
        }
    }

    fn name(&self) -> String {
        self.key.to_string()
    }

    fn read_range(&self, range: Range<u64>) -> Result<Bytes, ByteError> {
        match &self.access {
            Access::Held(m) => m.read_range(range),
            Access::Ranged { len } => {
                let start = range.start.min(*len);
                let end = range.end.clamp(start, *len);
                if start == end {
                    return Ok(Bytes::new());
                }
                self.fetch(start..end)
            }
        }
    }
}
