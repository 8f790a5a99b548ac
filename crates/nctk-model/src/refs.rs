//! Chunk references: where the stored bytes of each chunk of a variable
//! are, so a variable can be read as a Zarr array without copying a byte
//! (kerchunk's references, Icechunk's virtual chunks). What a
//! [`crate::DataSource`] reports through
//! [`chunk_refs`](crate::DataSource::chunk_refs).

use crate::Endianness;

/// Where one chunk's stored bytes are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChunkRef {
    /// `length` bytes from byte `offset` of the bytes the source reads
    /// (the file itself for a classic or HDF5 file).
    Range {
        /// Byte offset of the chunk's first stored byte.
        offset: u64,
        /// Stored bytes of the chunk.
        length: u64,
    },
    /// The stored bytes themselves, where the format keeps them inside its
    /// metadata (HDF5 compact data).
    Inline(Vec<u8>),
    /// `length` bytes from byte `offset` of an object of its own (a Zarr
    /// store's chunk or shard object). A reader names the object by its
    /// key in the store (`temp/0.1`, `temp/c/0/1`); the facade
    /// (`nctk::Variable::chunk_refs`) gives it as the object's URL, or its
    /// absolute path in a directory store.
    Object {
        /// The object's key, or its URL or path (see above).
        object: String,
        /// Byte offset of the chunk's first stored byte in the object
        /// (0 for a whole object).
        offset: u64,
        /// Stored bytes of the chunk.
        length: u64,
    },
}

/// A variable's stored chunks as references: its chunk grid, how each
/// chunk is encoded, and where each chunk that was written is.
///
/// The grid is regular over the variable's shape (the schema's): chunk
/// `c` holds elements `c[d] * chunk_shape[d] ..` along each dimension, row
/// major, every chunk (edge chunks too) stored at the full chunk shape as
/// Zarr stores them. A scalar has an empty `chunk_shape` and one chunk at
/// coordinates `[]`.
#[derive(Debug, Clone, PartialEq)]
pub struct ChunkRefs {
    /// Elements per chunk along each dimension (each at least 1).
    pub chunk_shape: Vec<u64>,
    /// Byte order of the elements in a decoded chunk.
    pub endianness: Endianness,
    /// The codecs the stored chunks went through, in the order applied
    /// when writing, each as its numcodecs JSON object (`{"id": "zlib",
    /// "level": 4}`); empty when chunks are stored raw.
    pub codecs: Vec<String>,
    /// The chunks that were written, by chunk-grid coordinates, in row
    /// major order. A chunk not listed was never written: its elements
    /// read as the variable's fill value.
    pub chunks: Vec<(Vec<u64>, ChunkRef)>,
}

/// The chunk-grid coordinates of every chunk of a grid of `counts` chunks
/// along each dimension, row major (one `[]` for a scalar grid).
pub fn grid_coordinates(counts: &[u64]) -> impl Iterator<Item = Vec<u64>> + '_ {
    let total = counts.iter().try_fold(1u64, |a, &c| a.checked_mul(c));
    let total = total.unwrap_or(0);
    (0..total).map(move |mut i| {
        let mut c = vec![0u64; counts.len()];
        for d in (0..counts.len()).rev() {
            c[d] = i % counts[d];
            i /= counts[d];
        }
        c
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grid_coordinates_are_row_major() {
        let all: Vec<Vec<u64>> = grid_coordinates(&[2, 3]).collect();
        assert_eq!(all, [[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2]]);
        assert_eq!(
            grid_coordinates(&[]).collect::<Vec<_>>(),
            [Vec::<u64>::new()]
        );
        assert_eq!(grid_coordinates(&[0, 4]).count(), 0);
    }
}
