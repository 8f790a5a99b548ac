//! Global heap collections (`GCOL`, version 1) holding the objects of
//! variable-length values: object `i + 1` of a collection is the `i`th
//! placed in it, each padded to eight bytes, the rest of the collection
//! (at least HDF5's 4096 bytes, which its library reads at once) one
//! free-space object. [`Collections`] places objects as they come,
//! opening a new collection when the open one is full, so only one
//! collection is held in memory at a time.

use super::encode::Enc;

/// HDF5's smallest collection: readers load this much at once.
const MIN_SIZE: usize = 4096;
/// The collection header: signature, version, reserved, size.
const HEADER: usize = 16;
/// An object's header: index, reference count, reserved, size.
const OBJECT_HEADER: usize = 16;
/// The most objects a collection numbers (16-bit indexes, 0 the free space).
const MAX_OBJECTS: usize = u16::MAX as usize;

fn padded(n: usize) -> usize {
    n.div_ceil(8) * 8
}

/// One collection: where it is, its size and its objects.
#[derive(Debug)]
pub struct Collection {
    /// Its address in the file.
    pub addr: u64,
    size: usize,
    used: usize,
    /// Its objects (index `i + 1` is `objects[i]`).
    pub objects: Vec<Vec<u8>>,
}

impl Collection {
    /// The encoded collection.
    pub fn encode(&self) -> Vec<u8> {
        let mut e = Enc::new();
        e.bytes(b"GCOL").u8(1).zeros(3).u64(self.size as u64);
        for (i, o) in self.objects.iter().enumerate() {
            e.u16(i as u16 + 1).u16(1).u32(0).u64(o.len() as u64);
            e.bytes(o).zeros(padded(o.len()) - o.len());
        }
        let free = self.size - e.len();
        e.u16(0).u16(0).u32(0).u64(free as u64);
        e.zeros(free - OBJECT_HEADER);
        e.into_bytes()
    }
}

/// Global heap objects being placed: the collection open for more.
#[derive(Debug, Default)]
pub struct Collections {
    open: Option<Collection>,
}

impl Collections {
    /// Places `object`, returning its collection's address and its index
    /// there, and the collection closed to make room for it (to be
    /// written). A new collection's space comes from `alloc` (given a
    /// size, it returns the address).
    pub fn insert(
        &mut self,
        object: Vec<u8>,
        alloc: impl FnOnce(u64) -> u64,
    ) -> ((u64, u32), Option<Collection>) {
        let need = OBJECT_HEADER + padded(object.len());
        let fits = self.open.as_ref().is_some_and(|c| {
            c.objects.len() < MAX_OBJECTS && c.used + need + OBJECT_HEADER <= c.size
        });
        let closed = if fits { None } else { self.open.take() };
        let c = self.open.get_or_insert_with(|| {
            let size = (HEADER + need + OBJECT_HEADER).max(MIN_SIZE);
            Collection {
                addr: alloc(size as u64),
                size,
                used: HEADER,
                objects: Vec::new(),
            }
        });
        c.used += need;
        c.objects.push(object);
        ((c.addr, c.objects.len() as u32), closed)
    }

    /// The open collection, closed (to be written).
    pub fn close(&mut self) -> Option<Collection> {
        self.open.take()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_collection_closes_and_the_next_opens_after_it() {
        let mut heap = Collections::default();
        let mut eof = 100;
        let mut alloc = |n: u64| {
            let at = eof;
            eof += n;
            at
        };
        let mut places = Vec::new();
        let mut closed = Vec::new();
        for i in 0..300 {
            let (place, c) = heap.insert(vec![i as u8; 20], &mut alloc);
            places.push(place);
            closed.extend(c);
        }
        closed.extend(heap.close());
        // 4096 bytes hold (4096 - 16 - 16) / 40 = 101 objects of 20 bytes.
        assert_eq!(places[100], (100, 101));
        assert_eq!(places[101], (4196, 1));
        assert_eq!(closed.len(), 3);
        for c in &closed {
            let bytes = c.encode();
            assert_eq!(bytes.len(), 4096);
            assert_eq!(&bytes[..4], b"GCOL");
        }
    }
}
