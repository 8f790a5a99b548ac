//! Shards of a sharded Zarr v3 array (`sharding_indexed` with the index at
//! the end, coded `bytes` little-endian then `crc32c`, as zarr-python
//! writes it), assembled from their inner chunks.
//!
//! The writer's unit is the inner chunk: it is cached, completed and
//! encoded on a worker as an unsharded chunk is. Its encoded bytes go to
//! its shard's [`Assembly`]; once every inner chunk of the shard that lies
//! inside the array has arrived, the shard (the inner chunks in C order of
//! their position, then the index) is stored with one put. Inner chunks
//! are appended to the shard's bytes as soon as those before them have
//! arrived, so a shard written in order is held once, not twice. A shard whose
//! inner chunks all hold only the fill value is not stored (and one already
//! there is removed). A shard already stored that is written again is read
//! back and split into its inner chunks' encoded bytes; only those written
//! in part are decoded.

use nctk_codec::CodecError;
use nctk_store::kv::{Bytes, StoreKey};

use super::{ReadWriteStore, WriteError};
use crate::shard::{split, ShardLevel};

/// The index entry (offset and length) of an inner chunk not in its shard.
const MISSING: u64 = u64::MAX;

/// How a sharded array's shards hold its inner chunks.
#[derive(Debug, Clone)]
pub struct ShardLayout {
    /// The shards' lengths (the chunk grid's chunk shape).
    pub shard: Vec<u64>,
    /// The inner chunks' lengths (each divides the shard's).
    pub inner: Vec<u64>,
    /// How far along each dimension inner chunks hold data: the
    /// variable's length, or unbounded along unlimited dimensions.
    pub extent: Vec<u64>,
    /// Bytes per element of an inner chunk before its codecs.
    pub width: usize,
}

/// The most a shard's bytes reserve up front (see [`Assembly::append`]).
const MAX_RESERVE: usize = 256 << 20;

/// Where an inner chunk goes: its shard's grid index and its position in
/// the shard's index (C order).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Inner {
    /// The shard's index in the chunk grid.
    pub shard: Vec<u64>,
    /// The inner chunk's position in the shard.
    pub pos: usize,
}

impl ShardLayout {
    /// Inner chunks per shard along each dimension.
    fn per(&self) -> Vec<u64> {
        self.shard
            .iter()
            .zip(&self.inner)
            .map(|(s, c)| s / c)
            .collect()
    }

    /// The shard and position of the inner chunk of grid index `index`.
    pub fn place(&self, index: &[u64]) -> Inner {
        let per = self.per();
        let mut pos = 0u64;
        let shard = index
            .iter()
            .zip(&per)
            .map(|(&i, &p)| {
                pos = pos * p + i % p;
                i / p
            })
            .collect();
        Inner {
            shard,
            pos: pos as usize,
        }
    }

    /// Inner chunks of shard `shard` that lie (at least in part) inside the
    /// extent: the shard is complete once all of them have arrived.
    fn expected(&self, shard: &[u64]) -> usize {
        let per = self.per();
        (0..shard.len())
            .map(|d| {
                let start = shard[d] * self.shard[d];
                let left = self.extent[d].saturating_sub(start);
                left.div_ceil(self.inner[d]).min(per[d])
            })
            .product::<u64>() as usize
    }

    /// Room for shard `shard`'s bytes: its inner chunks inside the extent
    /// at their decoded size, and the index.
    fn reserve(&self, shard: &[u64]) -> usize {
        let inner = self.inner.iter().product::<u64>() as usize;
        let n = self.per().iter().product::<u64>() as usize;
        self.expected(shard)
            .saturating_mul(inner)
            .saturating_mul(self.width)
            .saturating_add(16 * n + 4)
            .min(MAX_RESERVE)
    }

    /// The index layout the reader checks a stored shard against.
    fn level(&self) -> ShardLevel {
        ShardLevel {
            shape: self.shard.clone(),
            inner: self.inner.clone(),
            index_big: false,
            index_crc: true,
            index_at_start: false,
        }
    }
}

/// One inner chunk of a shard being assembled.
enum Slot {
    /// Not arrived (missing from the shard unless it does).
    Unset,
    /// Only the fill value: left out of the shard.
    Empty,
    /// Its encoded bytes, waiting for those before it.
    Encoded(Vec<u8>),
    /// In the shard's bytes at this offset, of this length.
    Appended(usize, usize),
}

/// A shard being assembled from its encoded inner chunks; see the
/// [module docs](self).
pub struct Assembly {
    slots: Vec<Slot>,
    /// Slots not [`Slot::Unset`].
    arrived: usize,
    /// Inner chunks to arrive before the shard is complete.
    expected: usize,
    /// Inner chunks handed to the encoder that have not arrived.
    pending: usize,
    /// The shard's bytes so far: the inner chunks before `next`, in order.
    out: Vec<u8>,
    /// The first position whose inner chunk is not in `out`.
    next: usize,
    /// What `out` reserves when the first inner chunk is appended.
    reserve: usize,
}

impl Assembly {
    /// Shard `inner.shard` of `layout`, stored at `key` as `stored` when
    /// the store holds it (its inner chunks kept as they are encoded).
    pub fn open(
        layout: &ShardLayout,
        inner: &Inner,
        key: &StoreKey,
        stored: Option<&[u8]>,
    ) -> Result<Assembly, WriteError> {
        let n = layout.per().iter().product::<u64>() as usize;
        let mut slots: Vec<Slot> = (0..n).map(|_| Slot::Unset).collect();
        let mut arrived = 0;
        if let Some(shard) = stored {
            let ranges = split(&layout.level(), key, shard).map_err(|e| WriteError::Codec {
                key: key.to_string(),
                source: CodecError::Corrupt {
                    codec: "sharding_indexed",
                    offset: 0,
                    reason: e.to_string(),
                },
            })?;
            for (slot, r) in slots.iter_mut().zip(ranges) {
                if let Some(r) = r {
                    *slot = Slot::Encoded(shard[r].to_vec());
                    arrived += 1;
                }
            }
        }
        Ok(Assembly {
            slots,
            arrived,
            expected: layout.expected(&inner.shard),
            pending: 0,
            out: Vec::new(),
            next: 0,
            reserve: layout.reserve(&inner.shard),
        })
    }

    /// Notes an inner chunk handed to the encoder: the shard waits for it.
    pub fn expect_one(&mut self) {
        self.pending += 1;
    }

    /// Sets the inner chunk at `pos` to `part`, its encoded bytes (`None`:
    /// only the fill value), as one handed to the encoder arrives; true
    /// when the shard is then complete.
    pub fn arrive(&mut self, pos: usize, part: Option<Vec<u8>>) -> bool {
        self.pending -= 1;
        match self.slots[pos] {
            Slot::Unset => self.arrived += 1,
            Slot::Appended(..) => self.unappend(),
            _ => {}
        }
        // Codecs leave room for their worst case: only the bytes are kept.
        self.slots[pos] = part.map_or(Slot::Empty, |mut b| {
            b.shrink_to_fit();
            Slot::Encoded(b)
        });
        self.append(false);
        self.pending == 0 && self.arrived >= self.expected
    }

    /// Appends the inner chunks from `next` on to the shard's bytes, up to
    /// the first that has not arrived (past it when `all`: it is missing).
    fn append(&mut self, all: bool) {
        let n = self.slots.len();
        while self.next < n {
            let slot = &mut self.slots[self.next];
            match slot {
                Slot::Unset if !all => break,
                Slot::Encoded(b) => {
                    if self.out.capacity() == 0 {
                        // The decoded size bounds what codecs leave in
                        // all but rare cases, so the bytes are not copied
                        // as they grow. Pages never written cost no
                        // memory, and a reservation this large is mapped
                        // apart from the heap and returned when freed,
                        // rather than fragmenting it.
                        self.out.reserve_exact(self.reserve);
                    }
                    let at = self.out.len();
                    self.out.extend_from_slice(b);
                    *slot = Slot::Appended(at, b.len());
                }
                _ => {}
            }
            self.next += 1;
        }
    }

    /// Takes every appended inner chunk out of the shard's bytes again (one
    /// of them is replaced, and the order must hold).
    fn unappend(&mut self) {
        let out = std::mem::take(&mut self.out);
        for slot in &mut self.slots {
            if let Slot::Appended(at, len) = *slot {
                *slot = Slot::Encoded(out[at..at + len].to_vec());
            }
        }
        self.next = 0;
    }

    /// Takes the inner chunk at `pos` out, to be written again: its encoded
    /// bytes (`None` when it has none: never written, or only fill).
    pub fn take(&mut self, pos: usize) -> Option<Vec<u8>> {
        if matches!(self.slots[pos], Slot::Appended(..)) {
            self.unappend();
        }
        match std::mem::replace(&mut self.slots[pos], Slot::Unset) {
            Slot::Unset => None,
            Slot::Empty => {
                self.arrived -= 1;
                None
            }
            Slot::Encoded(b) => {
                self.arrived -= 1;
                Some(b)
            }
            Slot::Appended(..) => unreachable!("unappended above"),
        }
    }

    /// The stored shard: the inner chunks in order, then the index and its
    /// crc32c; `None` when no inner chunk has bytes.
    fn into_bytes(mut self) -> Option<Vec<u8>> {
        self.append(true);
        if !self.slots.iter().any(|s| matches!(s, Slot::Appended(..))) {
            return None;
        }
        let n = self.slots.len();
        let mut index = Vec::with_capacity(16 * n);
        for slot in &self.slots {
            let (offset, len) = match *slot {
                Slot::Appended(at, len) => (at as u64, len as u64),
                _ => (MISSING, MISSING),
            };
            index.extend_from_slice(&offset.to_le_bytes());
            index.extend_from_slice(&len.to_le_bytes());
        }
        let crc = crc32c::crc32c(&index);
        self.out.extend_from_slice(&index);
        self.out.extend_from_slice(&crc.to_le_bytes());
        Some(self.out)
    }
}

/// Stores the shard `a` assembled at `key`, or removes `key` when no inner
/// chunk of it has bytes.
pub fn store(store: &dyn ReadWriteStore, key: &StoreKey, a: Assembly) -> Result<(), WriteError> {
    match a.into_bytes() {
        Some(bytes) => store.put(key, Bytes::from(bytes))?,
        None => store.delete(key)?,
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use nctk_codec::Codec;

    /// The index with its crc32c as the codec library computes it.
    fn index_crc(index: &[u8]) -> Vec<u8> {
        Codec::Crc32c.encode(index).unwrap()
    }

    fn layout() -> ShardLayout {
        ShardLayout {
            shard: vec![4, 6],
            inner: vec![2, 3],
            extent: vec![3, u64::MAX],
            width: 1,
        }
    }

    #[test]
    fn places_inner_chunks_and_counts_those_inside_the_extent() {
        let l = layout();
        assert_eq!(
            l.place(&[3, 5]),
            Inner {
                shard: vec![1, 2],
                pos: 3
            }
        );
        // Rows 0..3 of 4: both rows of inner chunks are inside.
        assert_eq!(l.expected(&[0, 0]), 4);
        // Shard rows 4..8 lie past the extent.
        assert_eq!(l.expected(&[1, 0]), 0);
    }

    #[test]
    fn assembled_shard_splits_back_into_its_inner_chunks() {
        let l = layout();
        let key = StoreKey::new("v/c/0/0").unwrap();
        let inner = l.place(&[0, 0]);
        let mut a = Assembly::open(&l, &inner, &key, None).unwrap();
        for _ in 0..4 {
            a.expect_one();
        }
        assert!(!a.arrive(2, Some(b"two".to_vec())));
        assert!(!a.arrive(0, Some(b"zero".to_vec())));
        assert!(!a.arrive(1, None));
        assert!(a.arrive(3, Some(b"3".to_vec())));
        let bytes = a.into_bytes().unwrap();
        let n = 4 * 16;
        let index = &bytes[bytes.len() - n - 4..];
        assert_eq!(&index[n..], &index_crc(&index[..n])[n..]);
        assert_eq!(&index[16..32], &[0xff; 16]);
        let mut again = Assembly::open(&l, &inner, &key, Some(&bytes)).unwrap();
        assert_eq!(again.take(0).as_deref(), Some(&b"zero"[..]));
        assert_eq!(again.take(1), None);
        assert_eq!(again.take(2).as_deref(), Some(&b"two"[..]));
        assert_eq!(again.take(3).as_deref(), Some(&b"3"[..]));
        let mut bad = bytes.clone();
        *bad.last_mut().unwrap() ^= 1;
        let e = Assembly::open(&l, &inner, &key, Some(&bad)).err().unwrap();
        assert!(e.to_string().contains("v/c/0/0"), "{e}");
        // An inner chunk appended and written again: the shard keeps the
        // order of positions and the new bytes.
        let mut a = Assembly::open(&l, &inner, &key, None).unwrap();
        for _ in 0..5 {
            a.expect_one();
        }
        a.arrive(0, Some(b"old".to_vec()));
        a.arrive(1, Some(b"one".to_vec()));
        a.arrive(0, Some(b"new0".to_vec()));
        a.arrive(3, None);
        assert!(a.arrive(2, Some(b"2".to_vec())));
        let bytes = a.into_bytes().unwrap();
        assert!(bytes.starts_with(b"new0one2"));
        let mut again = Assembly::open(&l, &inner, &key, Some(&bytes)).unwrap();
        assert_eq!(again.take(0).as_deref(), Some(&b"new0"[..]));
        assert_eq!(again.take(3), None);
        // All fill: nothing to store.
        let mut empty = Assembly::open(&l, &inner, &key, None).unwrap();
        empty.expect_one();
        empty.arrive(0, None);
        assert!(empty.into_bytes().is_none());
    }
}
