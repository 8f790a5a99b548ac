//! A netCDF-4 variable's chunks handed out as stored, for copies that move
//! them without decoding ([`nctk_model::DataSource::stored_chunks`]).

use nctk_model::{is_zlib_stream, ChunkCodec};

use crate::filter::FilterPipeline;
use crate::layout::Layout;

use super::build::VarSource;
use super::convert::Stored;
use super::error::Nc4Error;

/// HDF5's deflate filter id.
const DEFLATE: u16 = 1;
/// HDF5's shuffle filter id.
const SHUFFLE: u16 = 2;

/// The codec chain of the variable's stored chunks, when they can be
/// handed out as stored: fixed-width elements stored little-endian (or one
/// byte wide), chunked, every filter deflate or shuffle of the element's
/// size, deflate (if any) last, since only its output is checked to be a
/// zlib stream. `None` otherwise.
pub(crate) fn codecs(src: &VarSource) -> Option<Vec<ChunkCodec>> {
    let Stored::Atomic { dtype, big_endian } = src.stored else {
        return None;
    };
    let size = dtype.size()?;
    if src.null
        || (big_endian && size > 1)
        || !matches!(src.reader.layout(), Layout::Chunked { .. })
    {
        return None;
    }
    let filters = src
        .reader
        .filters()
        .map_or(&[][..], |p: &FilterPipeline| &p.filters);
    let mut chain = Vec::with_capacity(filters.len());
    for (i, f) in filters.iter().enumerate() {
        chain.push(match f.id {
            DEFLATE if i + 1 == filters.len() => ChunkCodec::Zlib,
            // netCDF-C and h5py store the element size as the parameter
            SHUFFLE if f.params.first().is_none_or(|&p| p as usize == size) => {
                ChunkCodec::Shuffle { element_size: size }
            }
            _ => return None,
        });
    }
    Some(chain)
}

/// The stored bytes of the chunks at `chunks` of a variable of `shape`
/// whose chunks are `chain` ([`codecs`]): `None` for a chunk never written,
/// one reaching past the dataset's own extent (which reads as fill), one
/// that skipped a filter, or one whose bytes are not what the chain makes
/// (not a zlib stream; an unfiltered chunk of another size).
pub(crate) fn read(
    src: &VarSource,
    shape: &[u64],
    chain: &[ChunkCodec],
    chunks: &[Vec<u64>],
) -> Result<Vec<Option<Vec<u8>>>, Nc4Error> {
    let Layout::Chunked {
        chunk,
        element_size,
        ..
    } = src.reader.layout()
    else {
        return Ok(vec![None; chunks.len()]);
    };
    // the chunk's part of the variable lies inside the dataset's extent
    let inside = |w: &Vec<u64>| {
        w.len() == chunk.len()
            && (0..chunk.len()).all(|d| {
                let start = w[d].saturating_mul(chunk[d]);
                let end = start.saturating_add(chunk[d]).min(shape[d]);
                start < shape[d] && end <= src.extent[d]
            })
    };
    let wanted: Vec<Vec<u64>> = chunks.iter().filter(|w| inside(w)).cloned().collect();
    let mut got = src.reader.stored_chunks(&wanted)?.into_iter();
    let raw_len = chunk.iter().product::<u64>().saturating_mul(*element_size);
    let usable = |bytes: &[u8]| match chain.last() {
        Some(ChunkCodec::Zlib) => is_zlib_stream(bytes),
        _ => bytes.len() as u64 == raw_len,
    };
    Ok(chunks
        .iter()
        .map(|w| {
            let raw = if inside(w) {
                got.next().flatten()
            } else {
                None
            };
            raw.filter(|r| r.mask == 0 && usable(&r.bytes))
                .map(|r| r.bytes)
        })
        .collect())
}
