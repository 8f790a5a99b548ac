use std::ops::Range;

use bytes::Bytes;

use super::{Capabilities, StoreError, StoreKey, StorePrefix};

/// Reading objects by key.
pub trait ReadableStore: Send + Sync {
    /// The whole object at `key`, or `None` when no object has that key.
    fn get(&self, key: &StoreKey) -> Result<Option<Bytes>, StoreError>;

    /// Bytes `range` of the object at `key`, or `None` when no object has
    /// that key. A range reaching past the object's end is an error.
    ///
    /// The default reads the whole object and slices it; backends with
    /// positioned reads override it.
    fn get_range(&self, key: &StoreKey, range: Range<u64>) -> Result<Option<Bytes>, StoreError> {
        let Some(all) = self.get(key)? else {
            return Ok(None);
        };
        slice_range(key, all, range).map(Some)
    }

    /// The length of the object at `key`, or `None` when it does not exist.
    fn size(&self, key: &StoreKey) -> Result<Option<u64>, StoreError> {
        Ok(self.get(key)?.map(|b| b.len() as u64))
    }

    /// The lengths of the objects at `keys`, in the order of `keys`
    /// (`None` for a missing key); the first failure, in key order, is the
    /// error.
    ///
    /// The default asks for each one after another; backends where each
    /// question is a round trip override it (an object store lists the
    /// keys' common prefix once).
    fn sizes(&self, keys: &[StoreKey]) -> Result<Vec<Option<u64>>, StoreError> {
        keys.iter().map(|k| self.size(k)).collect()
    }

    /// The whole objects at `keys`, in the order of `keys` (`None` for a
    /// missing key); the first failure, in key order, is the error.
    ///
    /// The default reads them one after another; backends that can have
    /// several reads in flight override it.
    fn get_many(&self, keys: &[StoreKey]) -> Result<Vec<Option<Bytes>>, StoreError> {
        keys.iter().map(|k| self.get(k)).collect()
    }

    /// Byte ranges of objects, in the order of `requests` (`None` for a
    /// missing key); the first failure, in request order, is the error. A
    /// range past an object's end is an error, as in
    /// [`get_range`](Self::get_range).
    ///
    /// The default reads them one after another (a suffix through
    /// [`size`](Self::size) first); backends that can have several reads in
    /// flight, or ask for a suffix in one request, override it.
    fn get_ranges(
        &self,
        requests: &[(StoreKey, ByteRange)],
    ) -> Result<Vec<Option<Bytes>>, StoreError> {
        requests
            .iter()
            .map(|(key, range)| match range {
                ByteRange::Bounded(r) => self.get_range(key, r.clone()),
                ByteRange::Suffix(n) => match self.size(key)? {
                    None => Ok(None),
                    Some(len) if *n > len => Err(StoreError::RangeOutOfBounds {
                        key: key.to_string(),
                        start: 0,
                        end: *n,
                        len,
                    }),
                    Some(len) => self.get_range(key, len - n..len),
                },
            })
            .collect()
    }

    /// What this backend can do.
    fn capabilities(&self) -> Capabilities;
}

/// Which bytes of an object a [`ReadableStore::get_ranges`] request asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ByteRange {
    /// These bytes.
    Bounded(Range<u64>),
    /// The last `n` bytes (an object shorter than `n` is an error).
    Suffix(u64),
}

/// The immediate children of a prefix: objects and sub-prefixes, each sorted.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Listing {
    /// Objects directly under the prefix.
    pub keys: Vec<StoreKey>,
    /// Prefixes directly under the prefix that hold at least one object
    /// (deeper down).
    pub prefixes: Vec<StorePrefix>,
}

impl Listing {
    /// True when there are neither keys nor prefixes.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty() && self.prefixes.is_empty()
    }

    /// Sorts both lists and removes duplicates.
    pub fn normalize(&mut self) {
        self.keys.sort();
        self.keys.dedup();
        self.prefixes.sort();
        self.prefixes.dedup();
    }
}

/// Listing the immediate children of a prefix (S3's delimiter listing).
pub trait ListableStore: Send + Sync {
    /// The objects and prefixes directly under `prefix`. A prefix with
    /// nothing under it lists as empty, not as an error.
    fn list_dir(&self, prefix: &StorePrefix) -> Result<Listing, StoreError>;
}

/// Writing and deleting objects.
pub trait WritableStore: Send + Sync {
    /// Stores `value` at `key`, replacing any object there (unless the
    /// backend is write-once, which refuses).
    fn put(&self, key: &StoreKey, value: Bytes) -> Result<(), StoreError>;

    /// Removes the object at `key`; removing a missing key succeeds.
    fn delete(&self, key: &StoreKey) -> Result<(), StoreError>;

    /// Completes the store after the last `put`: a store that writes an
    /// archive (such as [`StagedZipStore`](crate::kv::StagedZipStore))
    /// writes it now. The default does nothing.
    fn close(&self) -> Result<(), StoreError> {
        Ok(())
    }
}

/// A store that can be read and listed: what a Zarr reader needs.
pub trait ReadListStore: ReadableStore + ListableStore {}

impl<T: ReadableStore + ListableStore + ?Sized> ReadListStore for T {}

/// Slices `range` out of a whole object, checking bounds.
pub(crate) fn slice_range(
    key: &StoreKey,
    all: Bytes,
    range: Range<u64>,
) -> Result<Bytes, StoreError> {
    let len = all.len() as u64;
    if range.start > range.end || range.end > len {
        return Err(StoreError::RangeOutOfBounds {
            key: key.to_string(),
            start: range.start,
            end: range.end,
            len,
        });
    }
    Ok(all.slice(range.start as usize..range.end as usize))
}

macro_rules! forward_readable {
    ($($ty:ty),*) => {$(
        impl<T: ReadableStore + ?Sized> ReadableStore for $ty {
            fn get(&self, key: &StoreKey) -> Result<Option<Bytes>, StoreError> {
                (**self).get(key)
            }
            fn get_range(&self, key: &StoreKey, range: Range<u64>) -> Result<Option<Bytes>, StoreError> {
                (**self).get_range(key, range)
            }
            fn size(&self, key: &StoreKey) -> Result<Option<u64>, StoreError> {
                (**self).size(key)
            }
            fn sizes(&self, keys: &[StoreKey]) -> Result<Vec<Option<u64>>, StoreError> {
                (**self).sizes(keys)
            }
            fn get_many(&self, keys: &[StoreKey]) -> Result<Vec<Option<Bytes>>, StoreError> {
                (**self).get_many(keys)
            }
            fn get_ranges(&self, requests: &[(StoreKey, ByteRange)]) -> Result<Vec<Option<Bytes>>, StoreError> {
                (**self).get_ranges(requests)
            }
            fn capabilities(&self) -> Capabilities {
                (**self).capabilities()
            }
        }
        impl<T: ListableStore + ?Sized> ListableStore for $ty {
            fn list_dir(&self, prefix: &StorePrefix) -> Result<Listing, StoreError> {
                (**self).list_dir(prefix)
            }
        }
        impl<T: WritableStore + ?Sized> WritableStore for $ty {
            fn put(&self, key: &StoreKey, value: Bytes) -> Result<(), StoreError> {
                (**self).put(key, value)
            }
            fn delete(&self, key: &StoreKey) -> Result<(), StoreError> {
                (**self).delete(key)
            }
            fn close(&self) -> Result<(), StoreError> {
                (**self).close()
            }
        }
    )*};
}

forward_readable!(std::sync::Arc<T>, Box<T>, &T);
