//! A block-compressed file's variables as chunk references: a variable's
//! blocks are the chunks of a regular grid over its shape when each
//! block holds whole rows (`[1, .., 1, m, n_k+1, .., n_r]` elements, with
//! `m` dividing its dimension), so no block starts inside a chunk or
//! spans two. Each block is then referenced by its offset and stored
//! length in the file, big-endian, with the variable's codec (shuffle,
//! then the compressor) as numcodecs codecs. Anything else is an error
//! naming the file and the variable: never a reference to the wrong bytes.

use nctk_model::{grid_coordinates, ChunkRef, ChunkRefs, Endianness};
use nctk_store::bytes::ByteSource;

use super::codec::{BlockCodec, CodecId};
use super::error::{CompressedError, Result};
use super::index::Index;

/// The references of the blocks of variable `var` (header order) of
/// `shape` in the stored file `stored` indexed by `index`.
pub(crate) fn chunk_refs(
    index: &Index,
    stored: &dyn ByteSource,
    var: usize,
    shape: &[u64],
) -> Result<ChunkRefs> {
    let refuse = |reason: String| CompressedError::Refs {
        file: index.file.clone(),
        var: index.var_name(var).to_string(),
        reason,
    };
    let entry = &index.entries[var];
    let esize = index.layout.vars[var].xsz.max(1);
    if entry.data_bytes == 0 {
        return Ok(ChunkRefs {
            chunk_shape: shape.iter().map(|&n| n.max(1)).collect(),
            endianness: Endianness::Big,
            codecs: vec![],
            chunks: vec![],
        });
    }
    let per_block = entry.block_bytes / esize;
    let chunk_shape = chunk_shape_of(shape, per_block).ok_or_else(|| {
        refuse(format!(
            "its blocks of {per_block} elements do not tile its shape {shape:?} as a chunk grid \
             does (a block starts inside a row, or spans two rows, of a dimension): no Zarr \
             chunk holds exactly one block; rewrite it with a block size of whole rows \
             (nctk copy -k compressed)"
        ))
    })?;
    let blocks = index.blocks(stored, var, 0..entry.nblocks)?;
    let raw = |b: u64| u64::from(blocks[b as usize].stored_len) == entry.block_len(b);
    let compressed = entry.codec.id != CodecId::None;
    let all_raw = (0..entry.nblocks).all(raw);
    if compressed && !all_raw {
        if let Some(b) = (0..entry.nblocks).find(|&b| raw(b)) {
            return Err(refuse(format!(
                "block {b} is stored uncompressed (compression would not have made it smaller) \
                 among compressed blocks: no one codec chain decodes every block"
            )));
        }
    }
    let codecs = if compressed && !all_raw {
        numcodecs(&entry.codec).map_err(refuse)?
    } else {
        vec![]
    };
    let counts: Vec<u64> = shape
        .iter()
        .zip(&chunk_shape)
        .map(|(&n, &c)| n / c)
        .collect();
    let chunks = grid_coordinates(&counts)
        .zip(&blocks)
        .map(|(coords, b)| {
            (
                coords,
                ChunkRef::Range {
                    offset: b.offset,
                    length: u64::from(b.stored_len),
                },
            )
        })
        .collect();
    Ok(ChunkRefs {
        chunk_shape,
        endianness: Endianness::Big,
        codecs,
        chunks,
    })
}

/// The chunk shape whose chunks, in row-major order, are the blocks of
/// `per_block` elements of an array of `shape`: `[1, .., 1, m, n_k+1, ..]`
/// with `m` dividing `n_k`; `None` when there is none.
fn chunk_shape_of(shape: &[u64], per_block: u64) -> Option<Vec<u64>> {
    if shape.is_empty() {
        return (per_block == 1).then(Vec::new);
    }
    let mut inner = 1u64;
    for d in (0..shape.len()).rev() {
        let n = shape[d];
        if per_block % inner == 0 {
            let m = per_block / inner;
            if m >= 1 && m <= n && n % m == 0 {
                let mut c = vec![1; shape.len()];
                c[d] = m;
                c[d + 1..].copy_from_slice(&shape[d + 1..]);
                return Some(c);
            }
        }
        inner = inner.checked_mul(n)?;
    }
    None
}

/// The numcodecs codecs of blocks encoded by `codec`: the shuffle, then
/// the compressor.
fn numcodecs(codec: &BlockCodec) -> std::result::Result<Vec<String>, String> {
    let mut out = vec![];
    if codec.shuffle > 1 {
        out.push(serde_json::json!({"id": "shuffle", "elementsize": codec.shuffle}).to_string());
    }
    match codec.codec() {
        Ok(Some(c)) => out.push(c.to_json().to_string()),
        Ok(None) => {}
        Err(e) => return Err(format!("codec {}: {e}", codec.id.name())),
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::chunk_shape_of;

    #[test]
    fn blocks_of_whole_rows_are_chunks() {
        assert_eq!(chunk_shape_of(&[10, 4, 6], 24), Some(vec![1, 4, 6]));
        assert_eq!(chunk_shape_of(&[10, 4, 6], 48), Some(vec![2, 4, 6]));
        assert_eq!(chunk_shape_of(&[10, 4, 6], 12), Some(vec![1, 2, 6]));
        assert_eq!(chunk_shape_of(&[10, 4, 6], 3), Some(vec![1, 1, 3]));
        assert_eq!(chunk_shape_of(&[10, 4, 6], 240), Some(vec![10, 4, 6]));
        assert_eq!(chunk_shape_of(&[], 1), Some(vec![]));
        // three records of ten, the last block short; rows that spill over
        assert_eq!(chunk_shape_of(&[10, 4, 6], 72), None);
        assert_eq!(chunk_shape_of(&[10, 4, 6], 18), None);
        assert_eq!(chunk_shape_of(&[10, 4, 6], 5), None);
    }
}
