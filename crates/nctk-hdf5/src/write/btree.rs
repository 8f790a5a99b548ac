//! The version-1 B-tree (node type 1) indexing a chunked dataset's
//! chunks, as HDF5 writes it with the 1.8 format bounds: every node sized
//! for `2K` entries (HDF5's default `K` of 32), leaves pointing at chunks,
//! inner nodes at nodes, siblings linked.

use super::encode::{Enc, UNDEFINED};

/// HDF5's default chunk B-tree `K` (`ISTORE_K`): nodes hold up to `2K` entries.
const K: usize = 32;

/// One stored chunk: its first element, stored size, filter mask and address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChunkEntry {
    /// The chunk's offset in elements, one per dimension.
    pub offset: Vec<u64>,
    /// Bytes stored (after filters).
    pub size: u32,
    /// Filters skipped (bit `i`: filter `i`).
    pub mask: u32,
    /// Where the stored bytes are.
    pub addr: u64,
}

/// A key: stored size, filter mask, offset with the element dimension (0).
#[derive(Debug, Clone)]
struct Key {
    size: u32,
    mask: u32,
    offset: Vec<u64>,
}

/// Bytes of one node of a dataset of `rank` dimensions.
pub fn node_size(rank: usize) -> u64 {
    let key = 8 + 8 * (rank + 1);
    (24 + (2 * K + 1) * key + 2 * K * 8) as u64
}

/// The nodes of the B-tree indexing `chunks` (of lengths `chunk`), laid
/// out from address `at`: the encoded nodes in order and the root's
/// address (undefined when there are no chunks).
pub fn encode(chunks: &[ChunkEntry], chunk: &[u64], at: u64) -> (Vec<u8>, u64) {
    if chunks.is_empty() {
        return (Vec::new(), UNDEFINED);
    }
    let rank = chunk.len();
    let size = node_size(rank);
    let mut sorted: Vec<&ChunkEntry> = chunks.iter().collect();
    sorted.sort_by(|a, b| a.offset.cmp(&b.offset));
    // Entries of the level being built: (left key, child address), and the
    // right key of the last one.
    let mut entries: Vec<(Key, u64)> = sorted
        .iter()
        .map(|c| (key(c.size, c.mask, &c.offset), c.addr))
        .collect();
    let last = &sorted[sorted.len() - 1].offset;
    let end: Vec<u64> = last.iter().zip(chunk).map(|(o, c)| o + c).collect();
    let right = key(0, 0, &end);
    let mut out = Enc::new();
    let mut next = at;
    let mut level = 0u8;
    loop {
        let groups: Vec<&[(Key, u64)]> = entries.chunks(2 * K).collect();
        let first = next;
        let mut parents = Vec::with_capacity(groups.len());
        for (i, g) in groups.iter().enumerate() {
            let addr = first + i as u64 * size;
            let left = if i == 0 { UNDEFINED } else { addr - size };
            let right_sib = if i + 1 == groups.len() {
                UNDEFINED
            } else {
                addr + size
            };
            let rkey = match groups.get(i + 1) {
                Some(n) => n[0].0.clone(),
                None => right.clone(),
            };
            let start = out.len();
            out.bytes(b"TREE").u8(1).u8(level).u16(g.len() as u16);
            out.u64(left).u64(right_sib);
            for (k, child) in g.iter() {
                put_key(&mut out, k);
                out.u64(*child);
            }
            put_key(&mut out, &rkey);
            out.zeros(size as usize - (out.len() - start));
            parents.push((g[0].0.clone(), addr));
        }
        next = first + groups.len() as u64 * size;
        if parents.len() == 1 {
            return (out.into_bytes(), parents[0].1);
        }
        entries = parents;
        level += 1;
    }
}

fn key(size: u32, mask: u32, offset: &[u64]) -> Key {
    let mut offset = offset.to_vec();
    offset.push(0);
    Key { size, mask, offset }
}

fn put_key(e: &mut Enc, k: &Key) {
    e.u32(k.size).u32(k.mask);
    for &o in &k.offset {
        e.u64(o);
    }
}
