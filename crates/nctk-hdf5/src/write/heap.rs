//! A global heap collection (`GCOL`, version 1) holding the objects of
//! variable-length values: object `i + 1` is the `i`th given, each padded
//! to eight bytes, the rest of the collection (at least HDF5's 4096
//! bytes, which its library reads at once) one free-space object.

use super::encode::Enc;

/// HDF5's smallest collection: readers load this much at once.
const MIN_SIZE: usize = 4096;
/// The collection header: signature, version, reserved, size.
const HEADER: usize = 16;
/// An object's header: index, reference count, reserved, size.
const OBJECT_HEADER: usize = 16;

fn padded(n: usize) -> usize {
    n.div_ceil(8) * 8
}

/// The size in bytes of the collection holding objects of `sizes` bytes.
pub fn collection_size(sizes: impl IntoIterator<Item = usize>) -> usize {
    let used: usize = HEADER
        + sizes
            .into_iter()
            .map(|s| OBJECT_HEADER + padded(s))
            .sum::<usize>();
    // Room for the free-space object's header, whatever is left.
    (used + OBJECT_HEADER).max(MIN_SIZE)
}

/// The collection holding `objects` (indexes 1, 2, ... in order).
pub fn encode(objects: &[Vec<u8>]) -> Vec<u8> {
    let size = collection_size(objects.iter().map(Vec::len));
    let mut e = Enc::new();
    e.bytes(b"GCOL").u8(1).zeros(3).u64(size as u64);
    for (i, o) in objects.iter().enumerate() {
        e.u16(i as u16 + 1).u16(1).u32(0).u64(o.len() as u64);
        e.bytes(o).zeros(padded(o.len()) - o.len());
    }
    let free = size - e.len();
    e.u16(0).u16(0).u32(0).u64(free as u64);
    e.zeros(free - OBJECT_HEADER);
    e.into_bytes()
}
