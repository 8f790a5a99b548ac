//! A classic variable's data as chunk references
//! ([`nctk_model::DataSource::chunk_refs`]): a fixed variable is one chunk
//! (its unpadded data from `begin`), a record variable one chunk per record
//! (record `r`'s part of it is one run at `begin + r * recsize`, whatever
//! the other record variables). Elements are big-endian, with no codecs.

use nctk_model::{ChunkRef, ChunkRefs, Endianness};

use crate::layout::{FileLayout, VarLayout};
use crate::ClassicError;

/// The references of the variable `name` of `shape` laid out as `var` in a
/// file of `file_len` bytes laid out as `layout` (the file is named `file`
/// in errors). Data the file ends before is an error: a reference must
/// never point past the bytes it names.
pub(crate) fn chunk_refs(
    file: &str,
    name: &str,
    shape: &[u64],
    layout: &FileLayout,
    var: &VarLayout,
    file_len: u64,
) -> Result<ChunkRefs, ClassicError> {
    let length = var.data_len();
    let mut chunk_shape: Vec<u64> = shape.iter().map(|&n| n.max(1)).collect();
    let mut chunks = vec![];
    let mut add = |coords: Vec<u64>, offset: u64| -> Result<(), ClassicError> {
        match offset.checked_add(length) {
            Some(end) if end <= file_len => {}
            _ => {
                return Err(ClassicError::Refs {
                    file: file.to_string(),
                    var: name.to_string(),
                    reason: format!(
                        "its data at bytes {offset}..{} lies past the end of the file ({file_len} bytes)",
                        offset.saturating_add(length)
                    ),
                })
            }
        }
        chunks.push((coords, ChunkRef::Range { offset, length }));
        Ok(())
    };
    if length > 0 {
        if var.is_record {
            chunk_shape[0] = 1;
            let records = shape.first().copied().unwrap_or(0);
            for r in 0..records {
                let offset = r
                    .checked_mul(layout.recsize)
                    .and_then(|o| o.checked_add(var.begin))
                    .unwrap_or(u64::MAX);
                let mut coords = vec![0; shape.len()];
                coords[0] = r;
                add(coords, offset)?;
            }
        } else {
            add(vec![0; shape.len()], var.begin)?;
        }
    }
    Ok(ChunkRefs {
        chunk_shape,
        endianness: Endianness::Big,
        codecs: vec![],
        chunks,
    })
}
