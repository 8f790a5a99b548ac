//! How each variable of a netCDF-4/HDF5 output is stored, written into the
//! output schema's [`VarStorage`] for `nctk_hdf5`'s writer. This slice
//! follows nccopy for the flags it takes: a netCDF-4 input's storage
//! (layout, deflate, shuffle, fletcher32, byte order, `_NoFill`) is kept;
//! `-d n` deflates every variable at level n (with shuffle if `-s`; `-d 0`
//! removes deflate and shuffle); an input's chunks smaller than `-M`
//! bytes (default 8192) in a variable without unlimited dimensions are
//! not kept (nccopy's `CHUNK_THRESHOLD`); what is not chunked then is left
//! to the writer (contiguous unless filtered or unlimited, else chunked
//! with netCDF-C's default chunk sizes). `-c`, `-F` and shards are not
//! taken yet: they are refused, named.

use nctk_model::{Layout, Schema, VarStorage};

use super::storage::DEFAULT_MIN_CHUNK_BYTES;
use super::{CopyError, CopyOptions};

/// The storage of every variable of `schema` (the output's, each
/// variable carrying the input's storage facts; `from_cdf` when the
/// input is a classic file, whose storage is no choice) under `opts`.
pub(crate) fn decide(
    schema: &Schema,
    opts: &CopyOptions,
    from_cdf: bool,
) -> Result<Vec<VarStorage>, CopyError> {
    let refused = [
        (!opts.chunkspecs.is_empty(), "-c"),
        (!opts.filters.is_empty(), "-F"),
        (!opts.shards.is_empty(), "shards"),
    ];
    if let Some((_, flag)) = refused.iter().find(|(given, _)| *given) {
        return Err(CopyError::Option(format!(
            "{flag} is not taken yet for a netCDF-4/HDF5 output (nctk takes -d, -s and -M so far)"
        )));
    }
    Ok(schema
        .var_ids()
        .map(|v| {
            let input = &schema.var(v).storage;
            let mut st = if from_cdf {
                VarStorage::default()
            } else {
                VarStorage {
                    layout: input.layout.clone(),
                    filters: input.filters.clone(),
                    deflate_level: input.deflate_level,
                    shuffle: input.shuffle,
                    fletcher32: input.fletcher32,
                    endianness: input.endianness,
                    no_fill: input.no_fill,
                    ..VarStorage::default()
                }
            };
            match opts.deflate {
                Some(0) => {
                    st.deflate_level = None;
                    st.shuffle = false;
                }
                Some(level) => {
                    st.deflate_level = Some(level);
                    st.shuffle |= opts.shuffle;
                }
                None => {}
            }
            let var = schema.var(v);
            let unlimited = var.dims.iter().any(|&d| schema.dim(d).unlimited);
            let min = opts.min_chunk_bytes.unwrap_or(DEFAULT_MIN_CHUNK_BYTES) as u64;
            if let Layout::Chunked(c) = &st.layout {
                let bytes = c.iter().product::<u64>() * var.dtype.size().unwrap_or(1) as u64;
                if bytes < min && !unlimited {
                    st.layout = Layout::Unset;
                }
            }
            if st.layout == Layout::Contiguous && st.deflate_level.is_some() {
                st.layout = Layout::Unset;
            }
            st
        })
        .collect())
}
