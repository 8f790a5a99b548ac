//! kerchunk's reference JSON (version 1): every group a Zarr group
//! (`.zgroup`, `.zattrs` with its attributes), every variable a Zarr v2
//! array (`.zarray` with the chunk grid, dtype, codecs and fill value;
//! `.zattrs` with its attributes and xarray's `_ARRAY_DIMENSIONS`), every
//! stored chunk a reference `[url, offset, length]` (or its bytes inline,
//! `"base64:..."`, for HDF5 compact data).

use base64::Engine;
use nctk::model::{ChunkRef, DataType, Endianness, GroupId, Schema, Values, VarId};
use nctk::Dataset;
use nctk_zarr::write::{jsonval, numeric_dtype};
use serde_json::{json, Map, Value};

use super::combine::{self, Collection, VarRefs};
use super::{RefsError, RefsProgress, RefsSummary};

/// The kerchunk reference document (`{"version": 1, "refs": {...}}`) of
/// every group and variable of the collection (the first input's groups,
/// variables and attributes; each chunk referenced as bytes of its
/// input's URL), each variable reported to `progress` when referenced.
pub fn kerchunk_json(
    inputs: &Collection<'_>,
    progress: &mut dyn RefsProgress,
) -> Result<(Value, RefsSummary), RefsError> {
    let mut refs = Map::new();
    let summary = walk(inputs, &mut refs, progress, |refs, name, chunks| {
        for (coords, input, r) in &chunks.chunks {
            let url = inputs.url(*input);
            let value = match r {
                ChunkRef::Range { offset, length } => json!([url, offset, length]),
                ChunkRef::Object {
                    object,
                    offset,
                    length,
                } => json!([object, offset, length]),
                ChunkRef::Inline(bytes) => Value::from(format!(
                    "base64:{}",
                    base64::engine::general_purpose::STANDARD.encode(bytes)
                )),
            };
            refs.insert(format!("{name}/{}", chunk_key(coords)), value);
        }
        Ok(())
    })?;
    // Version 1 holds each metadata document as a JSON string.
    for value in refs.values_mut() {
        if value.is_object() {
            *value = Value::from(value.to_string());
        }
    }
    Ok((json!({"version": 1, "refs": refs}), summary))
}

/// Zarr's key of the chunk at grid coordinates `coords` (`0` for a
/// scalar).
pub(super) fn chunk_key(coords: &[u64]) -> String {
    if coords.is_empty() {
        "0".to_string()
    } else {
        coords
            .iter()
            .map(u64::to_string)
            .collect::<Vec<_>>()
            .join(".")
    }
}

/// Puts the Zarr metadata (`.zgroup`, `.zattrs`, `.zarray`, as JSON
/// objects) of every group and variable of the collection into `meta`,
/// and hands each variable's key prefix and chunks to `chunks`, one
/// variable at a time, each reported to `progress` when done.
pub(super) fn walk(
    inputs: &Collection<'_>,
    meta: &mut Map<String, Value>,
    progress: &mut dyn RefsProgress,
    mut chunks: impl FnMut(&mut Map<String, Value>, &str, &VarRefs) -> Result<(), RefsError>,
) -> Result<RefsSummary, RefsError> {
    let ds = inputs.first();
    let schema = ds.schema();
    let mut summary = RefsSummary {
        variables: 0,
        chunks: 0,
    };
    for g in schema.group_ids() {
        let prefix = group_prefix(schema, g);
        let group = schema.group(g);
        meta.insert(format!("{prefix}.zgroup"), json!({"zarr_format": 2}));
        let attrs: Map<String, Value> = group
            .attributes
            .iter()
            .map(|a| (a.name.clone(), attribute(&a.value)))
            .collect();
        meta.insert(format!("{prefix}.zattrs"), Value::Object(attrs));
        for &v in &group.vars {
            let var_refs = combine::variable(inputs, v)?;
            let name = format!("{prefix}{}", schema.var(v).name);
            array(ds, v, &name, &var_refs, meta)?;
            chunks(meta, &name, &var_refs)?;
            summary.chunks += var_refs.chunks.len();
            summary.variables += 1;
            progress.advance(&name);
        }
    }
    Ok(summary)
}

/// The reference names of the collection's variables that have a
/// `_FillValue` attribute (their `.zarray`'s fill value masks; another
/// variable's only says what never-written chunks read as).
pub fn arrays_with_fill_value(inputs: &Collection<'_>) -> Vec<String> {
    let schema = inputs.first().schema();
    schema
        .group_ids()
        .flat_map(|g| {
            let prefix = group_prefix(schema, g);
            schema.group(g).vars.iter().filter_map(move |&v| {
                let var = schema.var(v);
                var.attribute("_FillValue")
                    .map(|_| format!("{prefix}{}", var.name))
            })
        })
        .collect()
}

/// The key prefix of group `g`: empty for the root, `a/b/` below it.
fn group_prefix(schema: &Schema, g: GroupId) -> String {
    let path = schema.group_path(g);
    let path = path.trim_start_matches('/');
    if path.is_empty() {
        String::new()
    } else {
        format!("{path}/")
    }
}

/// Puts the metadata of variable `v` of `ds` (named `name` in the
/// references, its chunks `chunks` across the inputs) into `refs`.
fn array(
    ds: &Dataset,
    v: VarId,
    name: &str,
    chunks: &VarRefs,
    refs: &mut Map<String, Value>,
) -> Result<(), RefsError> {
    let schema = ds.schema();
    let var = schema.var(v);
    let shape = &chunks.shape;
    let dtype = zarr_dtype(var.dtype, chunks.endianness).ok_or_else(|| RefsError::Type {
        file: ds.name().to_string(),
        var: schema.var_path(v),
        dtype: var.dtype,
    })?;
    let grid: u64 = shape
        .iter()
        .zip(&chunks.chunk_shape)
        .map(|(n, c)| n.div_ceil(*c))
        .product();
    // `_FillValue` when the variable has one; else, where chunks were
    // never written, what they read as (the fill the format records, as
    // HDF5's fill value message, else netCDF's default); else none, so
    // xarray masks only what netCDF calls missing.
    let fill = if var.attribute("_FillValue").is_some() {
        jsonval::fill_value(&schema.fill_value(v), true)
    } else if (chunks.chunks.len() as u64) < grid {
        let recorded = var.storage.fill_value.as_ref().filter(|f| !f.is_empty());
        jsonval::fill_value(recorded.unwrap_or(&schema.fill_value(v)), true)
    } else {
        Value::Null
    };
    let filters: Vec<Value> = chunks
        .codecs
        .iter()
        .map(|c| serde_json::from_str(c).unwrap_or(Value::Null))
        .collect();
    let zarray = json!({
        "chunks": chunks.chunk_shape,
        "compressor": null,
        "dtype": dtype,
        "fill_value": fill,
        "filters": if filters.is_empty() { Value::Null } else { Value::from(filters) },
        "order": "C",
        "shape": shape,
        "zarr_format": 2,
    });
    refs.insert(format!("{name}/.zarray"), zarray);
    let mut attrs = Map::new();
    let dims: Vec<&str> = var
        .dims
        .iter()
        .map(|&d| schema.dim(d).name.as_str())
        .collect();
    attrs.insert("_ARRAY_DIMENSIONS".into(), json!(dims));
    for a in var.attributes.iter().filter(|a| a.name != "_FillValue") {
        attrs.insert(a.name.clone(), attribute(&a.value));
    }
    refs.insert(format!("{name}/.zattrs"), Value::Object(attrs));
    Ok(())
}

/// An attribute's value as JSON for readers that do not know its type
/// (xarray over Zarr, which reads numbers as float64 or int64): a float
/// is written as the float64 it is exactly, so that a float32
/// `missing_value` of 1e36 still equals the float32 data it marks.
fn attribute(value: &Values) -> Value {
    match value {
        Values::Float(x) => {
            jsonval::attribute(&Values::Double(x.iter().map(|&v| f64::from(v)).collect()))
        }
        other => jsonval::attribute(other),
    }
}

/// The Zarr v2 (NumPy) dtype of elements of `t` stored in `order`: `|`
/// for one-byte types, `|S1` for chars; `None` for types with no
/// fixed-width NumPy dtype (strings, user types).
fn zarr_dtype(t: DataType, order: Endianness) -> Option<String> {
    match t {
        DataType::Char => Some("|S1".into()),
        t if t.is_numeric() && t.size() == Some(1) => {
            Some(numeric_dtype(t, false).replace('<', "|"))
        }
        t if t.is_numeric() => Some(numeric_dtype(t, order == Endianness::Big)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dtypes_say_their_byte_order() {
        assert_eq!(
            zarr_dtype(DataType::Float, Endianness::Big).as_deref(),
            Some(">f4")
        );
        assert_eq!(
            zarr_dtype(DataType::Int64, Endianness::Little).as_deref(),
            Some("<i8")
        );
        assert_eq!(
            zarr_dtype(DataType::Byte, Endianness::Big).as_deref(),
            Some("|i1")
        );
        assert_eq!(
            zarr_dtype(DataType::Char, Endianness::Big).as_deref(),
            Some("|S1")
        );
        assert_eq!(zarr_dtype(DataType::String, Endianness::Little), None);
    }
}
