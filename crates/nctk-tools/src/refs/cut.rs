//! Large variables stored whole (a classic file's fixed variable, an
//! HDF5 contiguous dataset) cut into chunks along their first dimension,
//! so a reader of the references fetches a part and not the whole: every
//! piece is a byte range of the same stored bytes, raw, and the number of
//! rows per piece divides the first dimension, so no piece runs past the
//! variable's bytes.

use nctk::model::{ChunkRef, ChunkRefs};

/// `refs` of a variable of `shape` with `element_size` bytes per element,
/// cut into pieces of at most `target` bytes along the first dimension
/// when it is stored raw as one range larger than that; else as it is.
pub fn cut(refs: ChunkRefs, shape: &[u64], element_size: u64, target: u64) -> ChunkRefs {
    let whole = refs.codecs.is_empty() && refs.chunk_shape == shape && !shape.is_empty();
    let Some((_, ChunkRef::Range { offset, length })) = refs.chunks.first().filter(|_| whole)
    else {
        return refs;
    };
    let rows = shape[0];
    let row_bytes = shape[1..].iter().product::<u64>() * element_size;
    if refs.chunks.len() != 1 || *length <= target || rows < 2 || row_bytes == 0 {
        return refs;
    }
    let per_piece = rows_per_piece(rows, (target / row_bytes).max(1));
    let offset = *offset;
    let mut chunk_shape = refs.chunk_shape;
    chunk_shape[0] = per_piece;
    let chunks = (0..rows / per_piece)
        .map(|i| {
            let mut coords = vec![0; shape.len()];
            coords[0] = i;
            let piece = per_piece * row_bytes;
            let at = ChunkRef::Range {
                offset: offset + i * piece,
                length: piece,
            };
            (coords, at)
        })
        .collect();
    ChunkRefs {
        chunk_shape,
        chunks,
        ..refs
    }
}

/// The largest divisor of `rows` that is at most `most`.
fn rows_per_piece(rows: u64, most: u64) -> u64 {
    (1..=most.min(rows))
        .rev()
        .find(|k| rows % k == 0)
        .unwrap_or(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use nctk::model::Endianness;

    fn whole(shape: &[u64], offset: u64, element_size: u64) -> ChunkRefs {
        ChunkRefs {
            chunk_shape: shape.to_vec(),
            endianness: Endianness::Big,
            codecs: vec![],
            chunks: vec![(
                vec![0; shape.len()],
                ChunkRef::Range {
                    offset,
                    length: shape.iter().product::<u64>() * element_size,
                },
            )],
        }
    }

    /// The pieces cover the stored bytes once, in order, each a whole
    /// number of rows of at most the target.
    #[test]
    fn pieces_tile_the_stored_bytes() {
        for (rows, cols, target) in [
            (721u64, 1440u64, 1 << 20),
            (7, 3, 24),
            (10, 1, 8),
            (13, 2, 9),
        ] {
            let refs = cut(whole(&[rows, cols], 100, 4), &[rows, cols], 4, target);
            let k = refs.chunk_shape[0];
            assert_eq!(rows % k, 0);
            assert!(k * cols * 4 <= target.max(cols * 4));
            let mut next = 100;
            for (i, (coords, r)) in refs.chunks.iter().enumerate() {
                assert_eq!(coords, &[i as u64, 0]);
                let ChunkRef::Range { offset, length } = r else {
                    panic!("a range")
                };
                assert_eq!((*offset, *length), (next, k * cols * 4));
                next += length;
            }
            assert_eq!(next, 100 + rows * cols * 4);
        }
    }

    #[test]
    fn compressed_small_or_chunked_variables_stay_as_they_are() {
        let small = whole(&[4, 4], 0, 8);
        assert_eq!(cut(small.clone(), &[4, 4], 8, 1 << 20), small);
        let mut coded = whole(&[400, 400], 0, 8);
        coded.codecs = vec![r#"{"id":"zlib","level":1}"#.into()];
        assert_eq!(cut(coded.clone(), &[400, 400], 8, 1024), coded);
        let scalar = whole(&[], 0, 8);
        assert_eq!(cut(scalar.clone(), &[], 8, 1), scalar);
    }
}
