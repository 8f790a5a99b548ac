//! A Zarr array's storage as nctk reads and reports it: the codec pipeline
//! that decodes its chunks, and its variable's [`VarStorage`] (layout,
//! `_Codecs`, `_Filter`, endianness, fill).

use nctk_codec::{CodecContext, CodecError, Pipeline};
use nctk_model::{Endianness, Layout, VarStorage};
use serde_json::Value;

use crate::cell::Cell;
use crate::meta::ZArray;

/// What the variable of an array reports of its storage (`ncdump -s`'s
/// special attributes): layout, codecs, endianness, fill.
/// `stored_fill` is the `fill_value` cell when it is the fill used.
pub(crate) fn var_storage(
    za: &ZArray,
    dtype_text: &str,
    cell: Cell,
    nc_scalar: bool,
    stored_fill: Option<Vec<u8>>,
) -> VarStorage {
    VarStorage {
        layout: if nc_scalar || za.shape.is_empty() {
            Layout::Contiguous
        } else {
            Layout::Chunked(za.chunks.clone())
        },
        filters: filter_text(za, dtype_text),
        codecs: codecs_text(za),
        endianness: match cell {
            Cell::Char | Cell::FixedBytes { .. } | Cell::VlenString => None,
            c if c.big_endian() => Some(Endianness::Big),
            _ => Some(Endianness::Little),
        },
        // netCDF-C reads `fill_value: null` as "written without fill".
        no_fill: za.fill_value.is_null(),
        fill_value: stored_fill.map(|b| cell.decode(&b)),
        string_width: match cell {
            Cell::FixedBytes { n } => Some(n),
            Cell::Utf32 { n, .. } => n.checked_mul(4),
            _ => None,
        },
        ..VarStorage::default()
    }
}

fn has_codecs(za: &ZArray) -> bool {
    !za.compressor.is_null() || za.filters.as_array().is_some_and(|f| !f.is_empty())
}

/// The codec pipeline that decodes the array's chunks (`None` when they
/// are stored as they are), or why its codecs cannot be used.
pub(crate) fn pipeline_for(za: &ZArray, dtype: &str) -> (Option<Pipeline>, Option<CodecError>) {
    if !has_codecs(za) {
        return (None, None);
    }
    match Pipeline::from_zarr_json(
        &za.compressor,
        &za.filters,
        &CodecContext::from_dtype(dtype),
    ) {
        Ok(p) if p.is_empty() => (None, None),
        Ok(p) => (Some(p), None),
        Err(e) => (None, Some(e)),
    }
}

/// The `_Codecs` text: the filters then the compressor, as numcodecs JSON.
fn codecs_text(za: &ZArray) -> Option<String> {
    if !has_codecs(za) {
        return None;
    }
    let mut list: Vec<Value> = za.filters.as_array().cloned().unwrap_or_default();
    if !za.compressor.is_null() {
        list.push(za.compressor.clone());
    }
    serde_json::to_string(&list).ok()
}

/// The `_Filter` text (HDF5 filter ids and parameters), when every codec has one.
fn filter_text(za: &ZArray, dtype: &str) -> Option<String> {
    if !has_codecs(za) {
        return None;
    }
    let ctx = CodecContext::from_dtype(dtype);
    let mut list: Vec<Value> = za.filters.as_array().cloned().unwrap_or_default();
    if !za.compressor.is_null() {
        list.push(za.compressor.clone());
    }
    let specs: Option<Vec<_>> = list
        .iter()
        .map(|c| {
            nctk_codec::Codec::from_json_with(c, &ctx)
                .ok()?
                .to_hdf5()
                .ok()
        })
        .collect();
    specs.map(|s| nctk_codec::format_filter_attr(&s))
}
