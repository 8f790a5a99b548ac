//! How each variable of a netCDF-4/HDF5 output is stored, written into the
//! output schema's [`VarStorage`] for `nctk_hdf5`'s writer. This slice
//! follows nccopy for the flags it takes: a netCDF-4 input's storage
//! (layout, deflate, shuffle, fletcher32, byte order, `_NoFill`) is kept;
//! `-d n` deflates every variable at level n (with shuffle if `-s`; `-d 0`
//! removes deflate and shuffle); an input's chunks smaller than `-M`
//! bytes (default 8192) in a variable without unlimited dimensions are
//! not kept (nccopy's `CHUNK_THRESHOLD`); what is not chunked then is left
//! to the writer (contiguous unless filtered or unlimited, else chunked
//! with netCDF-C's default chunk sizes). `-c` asks for a layout
//! ([`asked_layout`]); `-F` for filters ([`asked_filters`]). Shards are
//! refused, named.

use nctk::codec::{format_filter_attr, Codec, CodecContext};
use nctk_model::{Layout, Schema, VarId, VarStorage};

use super::chunkspec::{ChunkSpec, VarLayout};
use super::error::BadFilter;
use super::filterspec::{Filter, FilterOption};
use super::storage::{self, DEFAULT_MIN_CHUNK_BYTES};
use super::{CopyError, CopyOptions};

/// The storage of every variable of `schema` (the output's, each
/// variable carrying the input's storage facts; `from_cdf` when the
/// input is a classic file, whose storage is no choice) under `opts`.
pub(crate) fn decide(
    schema: &Schema,
    opts: &CopyOptions,
    from_cdf: bool,
) -> Result<Vec<VarStorage>, CopyError> {
    let refused = [(!opts.shards.is_empty(), "shards")];
    if let Some((_, flag)) = refused.iter().find(|(given, _)| *given) {
        return Err(CopyError::Option(format!(
            "{flag} is not taken yet for a netCDF-4/HDF5 output (nctk takes -c, -d, -s, -F and -M)"
        )));
    }
    let (chunkspecs, filters) = super::storage::chunk_and_filter_options(schema, opts)?;
    schema
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
            asked_filters(schema, v, &filters, &mut st)?;
            let unlimited = var.dims.iter().any(|&d| schema.dim(d).unlimited);
            let filtered = st.deflate_level.is_some()
                || st.shuffle
                || st.fletcher32
                || st.filters.as_deref().is_some_and(|f| !f.is_empty());
            if let Some(layout) = asked_layout(schema, v, opts, &chunkspecs, filtered) {
                st.layout = layout;
            }
            let min = opts.min_chunk_bytes.unwrap_or(DEFAULT_MIN_CHUNK_BYTES) as u64;
            if let Layout::Chunked(c) = &st.layout {
                let bytes = c.iter().product::<u64>() * var.dtype.size().unwrap_or(1) as u64;
                if bytes < min && !unlimited {
                    st.layout = Layout::Unset;
                }
            }
            if st.layout == Layout::Contiguous && filtered {
                st.layout = Layout::Unset;
            }
            Ok(st)
        })
        .collect()
}

/// Applies the `-F` options naming `v` to its storage `st`, as nccopy
/// does: `none` removes every filter (deflate and shuffle too); filters
/// given replace the input's others, unless the variable is deflated
/// (nccopy then ignores them); deflate, shuffle and fletcher32 given
/// by id set those. A numcodecs codec goes by its HDF5 filter.
fn asked_filters(
    schema: &Schema,
    v: VarId,
    filters: &[FilterOption],
    st: &mut VarStorage,
) -> Result<(), CopyError> {
    let var = schema.var(v);
    if var.dims.is_empty() {
        return Ok(());
    }
    let path = format!(
        "{}/{}",
        schema.group_path(var.group).trim_end_matches('/'),
        var.name
    );
    let mine: Vec<&FilterOption> = filters.iter().filter(|f| f.names(&path)).collect();
    if mine.iter().any(|f| f.filters.is_none()) {
        (st.deflate_level, st.shuffle, st.fletcher32, st.filters) = (None, false, false, None);
        return Ok(());
    }
    if mine.is_empty() || st.deflate_level.is_some() {
        return Ok(());
    }
    let width = var.dtype.size().unwrap_or(1);
    let mut specs = Vec::new();
    for f in mine.iter().flat_map(|f| f.filters.iter().flatten()) {
        let spec = match f {
            Filter::Hdf5(s) => s.clone(),
            Filter::Numcodecs(json) => {
                let bad = |source| CopyError::Filter {
                    var: path.clone(),
                    source,
                };
                Codec::from_json_with(json, &CodecContext::new(width))
                    .and_then(|c| c.to_hdf5())
                    .map_err(|source| {
                        bad(BadFilter {
                            filter: json.to_string(),
                            source,
                        })
                    })?
            }
        };
        match spec.id {
            1 => st.deflate_level = Some(spec.params.first().copied().unwrap_or(0)),
            2 => st.shuffle = true,
            3 => st.fletcher32 = true,
            _ => specs.push(spec),
        }
    }
    st.filters = (!specs.is_empty()).then(|| format_filter_attr(&specs));
    Ok(())
}

/// The layout `-c` asks for `v` (`filtered` when it is filtered), as
/// nccopy takes it: `var:n1,...` those chunks; `var:`, `var:contiguous`
/// contiguous and `var:compact` compact (for a variable without an
/// unlimited dimension, which HDF5 must chunk; a scalar too). nccopy
/// 4.9.0 writes a variable asked to be compact as contiguous; nctk
/// writes it compact, as `ncgen` does for `_Storage = "compact"`; `/` contiguous when
/// nothing needs chunks; a `dim/n` naming one of its dimensions chunks
/// of those lengths, the others the input's or netCDF-C's default.
/// `None` when no specification applies.
fn asked_layout(
    schema: &Schema,
    v: VarId,
    opts: &CopyOptions,
    specs: &[ChunkSpec],
    filtered: bool,
) -> Option<Layout> {
    let var = schema.var(v);
    let unlimited = var.dims.iter().any(|&d| schema.dim(d).unlimited);
    let var_spec = specs.iter().rev().find_map(|s| match s {
        ChunkSpec::Var { var, layout } if schema.var_by_path(var) == Some(v) => Some(layout),
        _ => None,
    });
    if var.dims.is_empty() {
        return (var_spec == Some(&VarLayout::Compact)).then_some(Layout::Compact);
    }
    match var_spec {
        Some(VarLayout::Chunked(_)) => {}
        Some(VarLayout::Compact) if !unlimited => return Some(Layout::Compact),
        Some(_) if !unlimited => return Some(Layout::Contiguous),
        Some(_) => return None,
        None if specs.contains(&ChunkSpec::Off) && !unlimited && !filtered => {
            return Some(Layout::Contiguous)
        }
        None => {
            let named = var
                .dims
                .iter()
                .any(|&d| storage::dim_spec(schema, specs, d).is_some());
            if !named {
                return None;
            }
        }
    }
    Some(Layout::Chunked(storage::chunks(
        schema, v, opts, specs, filtered,
    )))
}
