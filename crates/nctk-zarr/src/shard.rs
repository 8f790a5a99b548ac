//! Sharded arrays (Zarr v3's `sharding_indexed` codec): where an inner
//! chunk's bytes are inside its shard, read from the shard's index.
//!
//! A shard is one object of the array's chunk grid; its index lists, for
//! each inner chunk in C order, the offset and length of its bytes (both
//! 2^64-1 for a chunk never written, read as fill). An inner chunk may
//! itself be a shard (nested sharding): each level has its own index,
//! inside the bytes its parent's index points to.
//!
//! [`Shards::locate`] resolves a batch of inner chunks level by level, one
//! batch of index reads per level (a suffix read for an index at the end),
//! so on an object store a batch of shards costs one round trip for the
//! indexes and one for the chunks. Indexes are kept in a bounded cache.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use nctk_codec::Pipeline;
use nctk_store::kv::{ByteRange, ReadableStore, StoreError, StoreKey};

use crate::ZarrError;

/// One level of sharding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ShardLevel {
    /// This level's shard shape (the chunk grid's chunk shape at the top).
    pub shape: Vec<u64>,
    /// The shape of the chunks inside it.
    pub inner: Vec<u64>,
    /// Index numbers are big-endian.
    pub index_big: bool,
    /// The index ends with a CRC-32C of its entries.
    pub index_crc: bool,
    /// The index is at the start of the shard (else at its end).
    pub index_at_start: bool,
}

impl ShardLevel {
    /// Inner chunks per shard along each axis.
    fn grid(&self) -> Vec<u64> {
        self.shape
            .iter()
            .zip(&self.inner)
            .map(|(s, i)| s.checked_div(*i).unwrap_or(0))
            .collect()
    }

    /// Entries in the index.
    fn entries(&self) -> u64 {
        self.grid().iter().product()
    }

    /// Length of the index in bytes.
    fn index_len(&self) -> u64 {
        self.entries() * 16 + if self.index_crc { 4 } else { 0 }
    }

    /// Where the index of a shard spanning `span` (`None`: a whole object)
    /// is.
    fn index_range(&self, span: &Option<Range<u64>>) -> Option<ByteRange> {
        let n = self.index_len();
        Some(match (span, self.index_at_start) {
            (None, true) => ByteRange::Bounded(0..n),
            (None, false) => ByteRange::Suffix(n),
            (Some(r), _) if r.end - r.start < n => return None,
            (Some(r), true) => ByteRange::Bounded(r.start..r.start + n),
            (Some(r), false) => ByteRange::Bounded(r.end - n..r.end),
        })
    }
}

/// An index: per inner chunk its (offset, length) relative to the shard's
/// start, `None` when missing.
type Index = Arc<[Option<(u64, u64)>]>;

/// The most indexes kept (the cache is emptied when it is full).
pub(crate) const CACHED_INDEXES: usize = 4096;

/// Where an inner chunk's bytes are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Located {
    /// Never written: read as fill.
    Missing,
    /// These bytes of this object.
    At(StoreKey, Range<u64>),
}

/// The sharding of an array: its levels, outermost first.
#[derive(Debug)]
pub(crate) struct Shards {
    /// The levels, outermost first.
    pub levels: Vec<ShardLevel>,
    /// Codecs on whole shards (zarr-python writes them when a sharding
    /// serializer keeps its default compressor): a shard is then read
    /// whole and decoded before its index is read.
    outer: Option<Pipeline>,
    /// Indexes read, by (shard key, start of the shard in it, level).
    cache: Mutex<HashMap<(String, u64, usize), Option<Index>>>,
    /// Shards decoded with `outer`, by key (at most [`DECODED_BYTES`]).
    decoded: Mutex<HashMap<String, Option<Bytes>>>,
}

/// The most bytes of decoded whole shards kept.
const DECODED_BYTES: usize = 256 << 20;

/// The most bytes one whole shard may decode to.
const SHARD_LIMIT: usize = 1 << 31;

/// A store whose shards are seen decoded (whole-shard codecs undone):
/// ranges are cut from the decoded shard, kept for the next requests.
struct Decoded<'a, S: ?Sized> {
    store: &'a S,
    shards: &'a Shards,
    outer: &'a Pipeline,
}

impl<S: ReadableStore + ?Sized> Decoded<'_, S> {
    /// The decoded shard at `key` (`None`: missing).
    fn shard(&self, key: &StoreKey) -> Result<Option<Bytes>, StoreError> {
        let lock = || {
            self.shards
                .decoded
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
        };
        if let Some(hit) = lock().get(key.as_str()) {
            return Ok(hit.clone());
        }
        let decoded = match self.store.get(key)? {
            None => None,
            Some(raw) => Some(Bytes::from(
                self.outer
                    .decode_unsized(&raw, SHARD_LIMIT)
                    .map_err(|e| StoreError::Backend {
                        key: key.to_string(),
                        op: "decode the whole shard",
                        source: e.into(),
                    })?,
            )),
        };
        let mut cache = lock();
        let held: usize = cache.values().flatten().map(Bytes::len).sum();
        if held + decoded.as_ref().map_or(0, Bytes::len) > DECODED_BYTES {
            cache.clear();
        }
        cache.insert(key.as_str().to_string(), decoded.clone());
        Ok(decoded)
    }
}

impl<S: ReadableStore + ?Sized> ReadableStore for Decoded<'_, S> {
    fn get(&self, key: &StoreKey) -> Result<Option<Bytes>, StoreError> {
        self.shard(key)
    }

    fn capabilities(&self) -> nctk_store::kv::Capabilities {
        self.store.capabilities()
    }
}

impl Shards {
    /// Whether inner-chunk reads see the stored shards themselves (no codec
    /// acts on whole shards), so reading an index costs only its bytes.
    pub(crate) fn plain(&self) -> bool {
        self.outer.is_none()
    }

    /// The store `store` as inner-chunk reads see it: itself, or its
    /// shards decoded when codecs act on whole shards.
    pub(crate) fn through<'a, S: ReadableStore + ?Sized>(
        &'a self,
        store: &'a S,
    ) -> Box<dyn ReadableStore + 'a> {
        match &self.outer {
            None => Box::new(Plain(store)),
            Some(outer) => Box::new(Decoded {
                store,
                shards: self,
                outer,
            }),
        }
    }
}

/// A store seen as it is.
struct Plain<'a, S: ?Sized>(&'a S);

impl<S: ReadableStore + ?Sized> ReadableStore for Plain<'_, S> {
    fn get(&self, key: &StoreKey) -> Result<Option<Bytes>, StoreError> {
        self.0.get(key)
    }
    fn get_range(&self, key: &StoreKey, range: Range<u64>) -> Result<Option<Bytes>, StoreError> {
        self.0.get_range(key, range)
    }
    fn size(&self, key: &StoreKey) -> Result<Option<u64>, StoreError> {
        self.0.size(key)
    }
    fn get_many(&self, keys: &[StoreKey]) -> Result<Vec<Option<Bytes>>, StoreError> {
        self.0.get_many(keys)
    }
    fn get_ranges(
        &self,
        requests: &[(StoreKey, ByteRange)],
    ) -> Result<Vec<Option<Bytes>>, StoreError> {
        self.0.get_ranges(requests)
    }
    fn capabilities(&self) -> nctk_store::kv::Capabilities {
        self.0.capabilities()
    }
}

/// Where the shard holding an inner chunk is at one level: its object and
/// its span in it (`None`: the whole object).
type Container = (StoreKey, Option<Range<u64>>);

impl Shards {
    /// Sharding with these levels (outermost first), checked: each level's
    /// inner chunks tile its shard exactly, and each inner level is the
    /// previous level's inner chunk.
    pub(crate) fn new(
        levels: Vec<ShardLevel>,
        outer: Option<Pipeline>,
        key: &str,
    ) -> Result<Shards, ZarrError> {
        for (k, l) in levels.iter().enumerate() {
            let tiles = l.shape.len() == l.inner.len()
                && l.shape
                    .iter()
                    .zip(&l.inner)
                    .all(|(&s, &i)| i > 0 && s % i == 0);
            let nested = k == 0 || levels[k - 1].inner == l.shape;
            let bounded = tiles
                && l.grid()
                    .iter()
                    .try_fold(1u64, |a, &g| a.checked_mul(g))
                    .and_then(|n| n.checked_mul(16))
                    .is_some_and(|n| n <= 1 << 32);
            if !tiles || !nested || !bounded {
                return Err(ZarrError::meta(
                    key,
                    format!(
                        "sharding_indexed: inner chunk shape {:?} does not tile the shard shape {:?}",
                        l.inner, l.shape
                    ),
                ));
            }
        }
        Ok(Shards {
            levels,
            outer,
            cache: Mutex::default(),
            decoded: Mutex::default(),
        })
    }

    /// The shape of the innermost chunks.
    pub(crate) fn leaf(&self) -> &[u64] {
        self.levels.last().map(|l| &l.inner[..]).unwrap_or(&[])
    }

    /// The shard grid coordinates of the inner chunk `leaf_idx`.
    pub(crate) fn shard_of(&self, leaf_idx: &[u64]) -> Vec<u64> {
        let top = &self.levels[0].shape;
        leaf_idx
            .iter()
            .zip(self.leaf())
            .zip(top)
            .map(|((&i, &c), &s)| i * c / s)
            .collect()
    }

    /// The position, in level `level`'s index, of the chunk holding the
    /// inner chunk `leaf_idx`.
    fn position(&self, level: usize, leaf_idx: &[u64]) -> u64 {
        let l = &self.levels[level];
        let grid = l.grid();
        let mut pos = 0;
        for d in 0..leaf_idx.len() {
            let elem = leaf_idx[d] * self.leaf()[d];
            pos = pos * grid[d] + (elem % l.shape[d]) / l.inner[d];
        }
        pos
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<(String, u64, usize), Option<Index>>> {
        self.cache
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Where each inner chunk of `leaves` (each with the key of its shard)
    /// is, reading the indexes it needs: one batch per level.
    pub(crate) fn locate<S: ReadableStore + ?Sized>(
        &self,
        store: &S,
        leaves: &[(StoreKey, Vec<u64>)],
    ) -> Result<Vec<Located>, ZarrError> {
        let mut at: Vec<Option<Container>> = leaves
            .iter()
            .map(|(key, _)| Some((key.clone(), None)))
            .collect();
        for (level, l) in self.levels.iter().enumerate() {
            let cache_key = |(key, span): &Container| {
                (
                    key.as_str().to_string(),
                    span.as_ref().map_or(u64::MAX, |r| r.start),
                    level,
                )
            };
            // The indexes this level needs that are not cached.
            let mut wanted: Vec<(StoreKey, ByteRange, Container)> = vec![];
            {
                let cache = self.lock();
                for c in at.iter().flatten() {
                    let ck = cache_key(c);
                    if cache.contains_key(&ck) || wanted.iter().any(|w| cache_key(&w.2) == ck) {
                        continue;
                    }
                    let range = l.index_range(&c.1).ok_or_else(|| ZarrError::Shard {
                        key: c.0.to_string(),
                        reason: format!(
                            "an inner shard of {} bytes cannot hold its {}-byte index",
                            c.1.as_ref().map_or(0, |r| r.end - r.start),
                            l.index_len()
                        ),
                    })?;
                    wanted.push((c.0.clone(), range, c.clone()));
                }
            }
            if !wanted.is_empty() {
                let requests: Vec<(StoreKey, ByteRange)> = wanted
                    .iter()
                    .map(|(k, r, _)| (k.clone(), r.clone()))
                    .collect();
                let got = store.get_ranges(&requests)?;
                let mut cache = self.lock();
                if cache.len() + wanted.len() > CACHED_INDEXES {
                    cache.clear();
                }
                for ((_, _, c), bytes) in wanted.into_iter().zip(got) {
                    let index = match bytes {
                        None => None,
                        Some(b) => Some(parse_index(l, &b, &c)?),
                    };
                    cache.insert(cache_key(&c), index);
                }
            }
            let cache = self.lock();
            for (slot, (_, leaf_idx)) in at.iter_mut().zip(leaves) {
                let Some(c) = slot.take() else { continue };
                let index = cache.get(&cache_key(&c)).cloned().flatten();
                *slot = index.and_then(|ix| {
                    let (off, len) = ix[self.position(level, leaf_idx) as usize]?;
                    let base = c.1.as_ref().map_or(0, |r| r.start);
                    Some((c.0, Some(base + off..base + off + len)))
                });
            }
        }
        Ok(at
            .into_iter()
            .map(|c| match c {
                Some((key, Some(range))) => Located::At(key, range),
                _ => Located::Missing,
            })
            .collect())
    }
}

/// The byte ranges of the inner chunks (C order; `None`: missing) of
/// `shard`, a whole stored shard at `key` of one level `l`, read from its
/// index and checked as [`Shards::locate`] checks it.
pub(crate) fn split(
    l: &ShardLevel,
    key: &StoreKey,
    shard: &[u8],
) -> Result<Vec<Option<Range<usize>>>, ZarrError> {
    let span = Some(0..shard.len() as u64);
    let range = match l.index_range(&span) {
        Some(ByteRange::Bounded(r)) => r.start as usize..r.end as usize,
        _ => {
            return Err(ZarrError::Shard {
                key: key.to_string(),
                reason: format!(
                    "{} bytes cannot hold the {}-byte index",
                    shard.len(),
                    l.index_len()
                ),
            })
        }
    };
    let index = parse_index(l, &shard[range], &(key.clone(), span))?;
    Ok(index
        .iter()
        .map(|e| e.map(|(off, len)| off as usize..(off + len) as usize))
        .collect())
}

/// Decodes and checks a shard's index: its checksum, entries that are
/// either both 2^64-1 or inside the shard, no two overlapping, none over the
/// index itself.
fn parse_index(l: &ShardLevel, bytes: &[u8], (key, span): &Container) -> Result<Index, ZarrError> {
    let bad = |reason: String| ZarrError::Shard {
        key: key.to_string(),
        reason,
    };
    if bytes.len() as u64 != l.index_len() {
        return Err(bad(format!(
            "{} bytes where the index takes {}",
            bytes.len(),
            l.index_len()
        )));
    }
    let n = (l.entries() * 16) as usize;
    if l.index_crc {
        let stored = u32::from_le_bytes([bytes[n], bytes[n + 1], bytes[n + 2], bytes[n + 3]]);
        let computed = crc32c::crc32c(&bytes[..n]);
        if stored != computed {
            return Err(bad(format!(
                "crc32c {stored:#010x} stored, {computed:#010x} computed"
            )));
        }
    }
    let word = |b: &[u8]| {
        let a: [u8; 8] = b.try_into().unwrap_or_default();
        if l.index_big {
            u64::from_be_bytes(a)
        } else {
            u64::from_le_bytes(a)
        }
    };
    let shard_len = span.as_ref().map(|r| r.end - r.start);
    // The bytes chunks may occupy: after a leading index, before a
    // trailing one (when the shard's length is known).
    let lo = if l.index_at_start { l.index_len() } else { 0 };
    let hi = shard_len.map(|len| {
        if l.index_at_start {
            len
        } else {
            len - l.index_len()
        }
    });
    let mut entries = Vec::with_capacity(l.entries() as usize);
    for e in bytes[..n].chunks_exact(16) {
        let (off, len) = (word(&e[..8]), word(&e[8..]));
        if off == u64::MAX && len == u64::MAX {
            entries.push(None);
            continue;
        }
        off.checked_add(len)
            .filter(|&end| off >= lo && hi.is_none_or(|hi| end <= hi))
            .ok_or_else(|| {
                bad(format!(
                    "entry {} ({off}, {len}) points outside the shard's chunk bytes",
                    entries.len()
                ))
            })?;
        entries.push(Some((off, len)));
    }
    let mut spans: Vec<(u64, u64)> = entries.iter().flatten().copied().collect();
    spans.sort_unstable();
    if let Some(w) = spans.windows(2).find(|w| w[0].0 + w[0].1 > w[1].0) {
        return Err(bad(format!(
            "entries ({}, {}) and ({}, {}) overlap",
            w[0].0, w[0].1, w[1].0, w[1].1
        )));
    }
    Ok(entries.into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use nctk_store::kv::{MemoryStore, WritableStore};

    fn level(shape: &[u64], inner: &[u64], at_start: bool) -> ShardLevel {
        ShardLevel {
            shape: shape.to_vec(),
            inner: inner.to_vec(),
            index_big: false,
            index_crc: true,
            index_at_start: at_start,
        }
    }

    fn index(entries: &[Option<(u64, u64)>]) -> Vec<u8> {
        let mut b = vec![];
        for e in entries {
            let (o, n) = e.unwrap_or((u64::MAX, u64::MAX));
            b.extend_from_slice(&o.to_le_bytes());
            b.extend_from_slice(&n.to_le_bytes());
        }
        let crc = crc32c::crc32c(&b);
        b.extend_from_slice(&crc.to_le_bytes());
        b
    }

    #[test]
    fn locates_inner_chunks_and_checks_the_index() {
        let store = MemoryStore::new();
        let key = StoreKey::new("a/c/0").unwrap();
        // Shard of 4 elements, inner chunks of 2: chunk 0 missing, chunk 1 at 0..3.
        let mut shard = b"xyz".to_vec();
        shard.extend(index(&[None, Some((0, 3))]));
        store.put(&key, shard.into()).unwrap();
        let s = Shards::new(vec![level(&[4], &[2], false)], None, "a/zarr.json").unwrap();
        let got = s
            .locate(&store, &[(key.clone(), vec![0]), (key.clone(), vec![1])])
            .unwrap();
        assert_eq!(got, vec![Located::Missing, Located::At(key.clone(), 0..3)]);
        assert_eq!(s.shard_of(&[3]), vec![1]);

        let mut bad = b"xyz".to_vec();
        bad.extend(index(&[Some((1, 3)), Some((0, 3))]));
        store.put(&key, bad.into()).unwrap();
        let fresh = Shards::new(vec![level(&[4], &[2], true)], None, "k").unwrap();
        let e = fresh.locate(&store, &[(key, vec![0])]).unwrap_err();
        assert!(e.to_string().contains("a/c/0"), "{e}");
    }

    #[test]
    fn refuses_inner_chunks_that_do_not_tile() {
        assert!(Shards::new(vec![level(&[5], &[2], false)], None, "k").is_err());
        assert!(Shards::new(vec![level(&[4], &[0], false)], None, "k").is_err());
    }
}
