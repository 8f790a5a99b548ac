//! A netCDF-4 variable's chunks as references
//! ([`nctk_model::DataSource::chunk_refs`]): where each stored chunk is in
//! the file, and its filters as numcodecs codecs.

use nctk_codec::{
    Codec, CodecContext, H5Z_FILTER_BLOSC, H5Z_FILTER_BZIP2, H5Z_FILTER_DEFLATE,
    H5Z_FILTER_FLETCHER32, H5Z_FILTER_LZ4, H5Z_FILTER_SHUFFLE, H5Z_FILTER_ZSTD,
};
use nctk_model::{ChunkRef, ChunkRefs, Endianness};

use crate::filter::Filter;
use crate::layout::Layout;

use super::build::VarSource;
use super::convert::Stored;
use super::error::Nc4Error;

/// The HDF5 filters whose stored bytes a numcodecs codec of the same
/// parameters decodes (HDF5's LZ4 framing is imagecodecs' `lz4h5`, and
/// szip's has none).
const WITH_NUMCODECS: [u32; 6] = [
    H5Z_FILTER_DEFLATE,
    H5Z_FILTER_SHUFFLE,
    H5Z_FILTER_FLETCHER32,
    H5Z_FILTER_BZIP2,
    H5Z_FILTER_ZSTD,
    H5Z_FILTER_BLOSC,
];

/// The references of the variable of `shape` read through `src` (`path`
/// names it in errors; `file` is the file's name).
pub(crate) fn chunk_refs(
    file: &str,
    path: &str,
    shape: &[u64],
    src: &VarSource,
) -> Result<ChunkRefs, Nc4Error> {
    let unsupported = |reason: String| Nc4Error::Unsupported {
        file: file.to_string(),
        object: path.to_string(),
        reason,
    };
    let Stored::Atomic { big_endian, .. } = src.stored else {
        return Err(unsupported(
            "references: only variables of fixed-width numbers and chars have a Zarr dtype".into(),
        ));
    };
    if src.null {
        return Err(unsupported(
            "references: the dataset's dataspace is null".into(),
        ));
    }
    let esize = src.fill.len();
    let filters = src.reader.filters().map_or(&[][..], |p| &p.filters);
    let codecs = filters
        .iter()
        .map(|f| numcodecs(f, esize).map_err(&unsupported))
        .collect::<Result<Vec<_>, _>>()?;
    let endianness = if big_endian {
        Endianness::Big
    } else {
        Endianness::Little
    };
    let whole: Vec<u64> = src.extent.iter().map(|&n| n.max(1)).collect();
    let total = src
        .extent
        .iter()
        .try_fold(esize as u64, |a, &n| a.checked_mul(n))
        .ok_or_else(|| unsupported("references: the variable's size overflows".into()))?;
    let one = |r: ChunkRef| vec![(vec![0; src.extent.len()], r)];
    let (chunk_shape, chunks) = match src.reader.layout() {
        Layout::Compact { data } => {
            let stored = data
                .get(..total as usize)
                .ok_or_else(|| Nc4Error::Invalid {
                    file: file.to_string(),
                    object: path.to_string(),
                    reason: format!(
                        "compact data of {} bytes for {total} bytes of elements",
                        data.len()
                    ),
                })?;
            let chunks = if total == 0 {
                vec![]
            } else {
                one(ChunkRef::Inline(stored.to_vec()))
            };
            (whole, chunks)
        }
        Layout::Contiguous { addr: None, .. } => (whole, vec![]),
        Layout::Contiguous {
            addr: Some(addr),
            size,
        } => {
            if *size < total {
                return Err(Nc4Error::Invalid {
                    file: file.to_string(),
                    object: path.to_string(),
                    reason: format!(
                        "contiguous data of {size} bytes for {total} bytes of elements"
                    ),
                });
            }
            let offset = src.reader.span(*addr, total, "contiguous data")?;
            let chunks = if total == 0 {
                vec![]
            } else {
                one(ChunkRef::Range {
                    offset,
                    length: total,
                })
            };
            (whole, chunks)
        }
        Layout::Chunked { chunk, .. } => {
            let all = src.reader.chunk_locations()?;
            let mut chunks = Vec::with_capacity(all.len());
            let used = if filters.len() >= 32 {
                u32::MAX
            } else {
                (1u32 << filters.len()) - 1
            };
            for c in all {
                // the first element of the chunk along dimension d, and the
                // one past its end (saturating: the coordinates come from
                // the file)
                let start = |d: usize| c.coords[d].saturating_mul(chunk[d]);
                let end = |d: usize| start(d).saturating_add(chunk[d]);
                // a dataset longer than its variable (its extent past the
                // length of a dimension its DIMENSION_LIST names): a chunk
                // that starts past the variable's shape holds nothing the
                // variable reads, and lies outside its chunk grid
                let outside = (0..shape.len()).any(|d| start(d) >= shape[d]);
                if outside {
                    continue;
                }
                // a dataset shorter than its variable (an unlimited
                // dimension grown by another): netCDF reads the part of a
                // chunk past the dataset's extent as fill, which the
                // chunk's bytes hold only when the dataset has a fill value
                let straddles = (0..shape.len()).any(|d| {
                    src.extent[d] < shape[d] && start(d) < src.extent[d] && src.extent[d] < end(d)
                });
                if straddles && !src.reader.has_fill() {
                    return Err(unsupported(format!(
                        "references: chunk {:?} reaches past the dataset's extent {:?} inside the \
                         variable's shape {shape:?}, and the dataset has no fill value for the \
                         elements there",
                        c.coords, src.extent
                    )));
                }
                if c.mask & used != 0 || (c.unfiltered_edge && !filters.is_empty()) {
                    return Err(unsupported(format!(
                        "references: chunk {:?} skipped filters the other chunks went through \
                         (filter mask {:#x}), so no one codec chain decodes every chunk",
                        c.coords,
                        if c.unfiltered_edge { used } else { c.mask }
                    )));
                }
                chunks.push((
                    c.coords,
                    ChunkRef::Range {
                        offset: c.offset,
                        length: c.size,
                    },
                ));
            }
            (chunk.clone(), chunks)
        }
    };
    Ok(ChunkRefs {
        chunk_shape,
        endianness,
        codecs,
        chunks,
    })
}

/// The numcodecs JSON of one HDF5 filter applied to elements of `esize`
/// bytes; an error saying why for a filter with no numcodecs codec.
fn numcodecs(filter: &Filter, esize: usize) -> Result<String, String> {
    let id = u32::from(filter.id);
    let named = || match &filter.name {
        Some(n) => format!("{id} ({n})"),
        None => id.to_string(),
    };
    if id == H5Z_FILTER_LZ4 {
        // The HDF5 LZ4 plugin's framing (the original size, the block
        // size, then each block's compressed size and bytes), which
        // imagecodecs registers with numcodecs; its block size is in the
        // stream, so the codec needs no parameter to decode.
        return Ok(r#"{"id":"imagecodecs_lz4h5"}"#.to_string());
    }
    if !WITH_NUMCODECS.contains(&id) {
        return Err(format!(
            "references: HDF5 filter {} has no numcodecs codec that reads its stored bytes",
            named()
        ));
    }
    let codec = Codec::from_hdf5(id, &filter.params, &CodecContext::new(esize))
        .map_err(|e| format!("references: HDF5 filter {}: {e}", named()))?;
    Ok(codec.to_json().to_string())
}
