//! A Zarr array's chunks as references to their own objects
//! ([`nctk_model::DataSource::chunk_refs`]): each stored chunk is its
//! whole object (offset 0, the object's length), or, in a sharded array,
//! its byte range inside its shard (read from the shard's index); the
//! codecs are the array's, as numcodecs (Zarr v2) codecs. Chunks never
//! written are left out (they read as the fill value).

use nctk_codec::Codec;
use nctk_model::{grid_coordinates, ChunkRef, ChunkRefs, Endianness};
use nctk_store::kv::{ReadableStore, StoreKey};

use crate::cell::Cell;
use crate::selection::ArrayMeta;
use crate::shard::Located;
use crate::ZarrError;

/// Inner chunks located in one batch of shard index reads.
const LOCATE_BATCH: usize = 4096;

/// The references of the chunks of the array `meta` in `store`, the
/// variable `var` of netCDF shape `shape`; keys are the objects' keys in
/// the store.
pub(crate) fn chunk_refs<S: ReadableStore + ?Sized>(
    store: &S,
    meta: &ArrayMeta,
    var: &str,
    shape: &[u64],
) -> Result<ChunkRefs, ZarrError> {
    let refuse = |reason: String| ZarrError::Refs {
        var: var.to_string(),
        reason,
    };
    match meta.cell {
        Cell::Number { .. } | Cell::Bool | Cell::Char => {}
        _ => {
            return Err(refuse(
                "only arrays of fixed-width numbers and single characters have a Zarr v2 dtype \
                 the references can give"
                    .into(),
            ))
        }
    }
    if meta.grid.is_some() {
        return Err(refuse(
            "a rectilinear chunk grid has no Zarr v2 form".into(),
        ));
    }
    if !meta.order.is_c(&meta.chunks) {
        return Err(refuse(
            "its chunks store their elements in an order other than C (Zarr v2 order F or a \
             transpose codec)"
                .into(),
        ));
    }
    meta.check_codecs()?;
    let codecs = match &meta.pipeline {
        None => vec![],
        Some(p) => p
            .filters
            .iter()
            .chain(p.compressor.as_ref())
            .map(|c| numcodecs(c).map_err(&refuse))
            .collect::<Result<Vec<_>, _>>()?,
    };
    if meta.shards.as_ref().is_some_and(|s| !s.plain()) {
        return Err(refuse(
            "codecs after sharding_indexed act on whole shards, so no inner chunk can be \
             referenced by its bytes in the shard"
                .into(),
        ));
    }
    // A netCDF scalar is stored as a Zarr array of shape [1].
    let nc_scalar = shape.is_empty() && !meta.shape.is_empty();
    // An array shorter than its (unlimited) dimension: a chunk reaching
    // past the array's end would be read past it, where its bytes hold
    // what the writer put there, not necessarily the fill.
    if !nc_scalar {
        for (d, &full) in shape.iter().enumerate() {
            let (len, c) = (meta.shape[d], meta.chunks[d]);
            if len < full && len % c != 0 {
                return Err(refuse(format!(
                    "the array is {len} long along dimension {d}, shorter than the variable's \
                     {full}, and its last chunk there reaches past its end"
                )));
            }
        }
    }
    let counts: Vec<u64> = meta
        .shape
        .iter()
        .zip(&meta.chunks)
        .map(|(&n, &c)| n.div_ceil(c.max(1)))
        .collect();
    let grid: Vec<Vec<u64>> = grid_coordinates(&counts).collect();
    let keys = grid
        .iter()
        .map(|idx| meta.prefix.key(&meta.chunk_key(idx)))
        .collect::<Result<Vec<StoreKey>, _>>()?;
    let located: Vec<Option<(String, u64, u64)>> = match &meta.shards {
        None => keys
            .iter()
            .zip(store.sizes(&keys)?)
            .map(|(k, n)| n.map(|n| (k.to_string(), 0, n)))
            .collect(),
        Some(shards) => {
            let leaves: Vec<(StoreKey, Vec<u64>)> = keys.into_iter().zip(grid.clone()).collect();
            let mut out = Vec::with_capacity(leaves.len());
            for batch in leaves.chunks(LOCATE_BATCH) {
                for l in shards.locate(store, batch)? {
                    out.push(match l {
                        Located::Missing => None,
                        Located::At(key, r) => Some((key.to_string(), r.start, r.end - r.start)),
                    });
                }
            }
            out
        }
    };
    let chunks = grid
        .into_iter()
        .zip(located)
        .filter_map(|(idx, at)| {
            let (object, offset, length) = at?;
            let coords = if nc_scalar { vec![] } else { idx };
            Some((
                coords,
                ChunkRef::Object {
                    object,
                    offset,
                    length,
                },
            ))
        })
        .collect();
    Ok(ChunkRefs {
        chunk_shape: if nc_scalar {
            vec![]
        } else {
            meta.chunks.clone()
        },
        endianness: if meta.cell.big_endian() {
            Endianness::Big
        } else {
            Endianness::Little
        },
        codecs,
        chunks,
    })
}

/// The numcodecs JSON of one codec, or why it has none (HDF5's LZ4
/// framing and szip, which only HDF5 filters read).
fn numcodecs(codec: &Codec) -> Result<String, String> {
    match codec {
        Codec::Lz4Hdf5 { .. } | Codec::Szip(_) => Err(format!(
            "codec {} has no numcodecs codec that reads its stored bytes",
            codec.to_json()
        )),
        c => Ok(c.to_json().to_string()),
    }
}
