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

use super::combine::{Chunks, Collection, VarLayout};
use super::stream::{stream, RefsSink};
use super::{RefsError, RefsProgress, RefsSummary};

/// The kerchunk reference document (`{"version": 1, "refs": {...}}`) of
/// every group and variable of the collection (the first input's groups,
/// variables and attributes; each chunk referenced as bytes of its
/// input's URL), the inputs read `window` at a time, each input opened
/// and each variable referenced reported to `progress`. The document is
/// held whole; the inputs are not.
pub fn kerchunk_json(
    inputs: &Collection,
    window: usize,
    progress: &mut dyn RefsProgress,
) -> Result<(Value, RefsSummary), RefsError> {
    let mut sink = JsonSink { refs: Map::new() };
    let layouts = stream(inputs, window, progress, &mut sink)?;
    let mut refs = sink.refs;
    // Version 1 holds each metadata document as a JSON string.
    for (key, value) in metadata(inputs.first(), &layouts)? {
        refs.insert(key, Value::from(value.to_string()));
    }
    Ok((json!({"version": 1, "refs": refs}), summary(&layouts)))
}

/// What the references of variables `layouts` hold.
pub(super) fn summary(layouts: &[VarLayout]) -> RefsSummary {
    RefsSummary {
        variables: layouts.len(),
        chunks: layouts.iter().map(|l| l.stored).sum(),
    }
}

/// The chunk references of kerchunk's JSON, by key.
struct JsonSink {
    refs: Map<String, Value>,
}

impl RefsSink for JsonSink {
    fn chunks(
        &mut self,
        inputs: &Collection,
        layout: &VarLayout,
        chunks: Chunks,
    ) -> Result<(), RefsError> {
        for (coords, input, r) in chunks {
            let url = inputs.url(input);
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
            self.refs
                .insert(format!("{}/{}", layout.name, chunk_key(&coords)), value);
        }
        Ok(())
    }

    fn close(&mut self, _: &Collection, _: &VarLayout) -> Result<(), RefsError> {
        Ok(())
    }
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

/// The Zarr v2 metadata (`.zgroup`, `.zattrs`, `.zarray`, as JSON
/// objects, by key) of every group of `ds` and every variable of
/// `layouts` (its variables combined).
pub(super) fn metadata(
    ds: &Dataset,
    layouts: &[VarLayout],
) -> Result<Map<String, Value>, RefsError> {
    let schema = ds.schema();
    let mut meta = Map::new();
    for g in schema.group_ids() {
        let prefix = group_prefix(schema, g);
        meta.insert(format!("{prefix}.zgroup"), json!({"zarr_format": 2}));
        meta.insert(format!("{prefix}.zattrs"), group_attributes(schema, g));
    }
    for layout in layouts {
        let (zarray, zattrs) = array(ds, layout)?;
        meta.insert(format!("{}/.zarray", layout.name), zarray);
        meta.insert(format!("{}/.zattrs", layout.name), zattrs);
    }
    Ok(meta)
}

/// The attributes of group `g` (its `.zattrs`).
pub(super) fn group_attributes(schema: &Schema, g: GroupId) -> Value {
    let attrs: Map<String, Value> = schema
        .group(g)
        .attributes
        .iter()
        .map(|a| (a.name.clone(), attribute(&a.value)))
        .collect();
    Value::Object(attrs)
}

/// The key prefix of group `g`: empty for the root, `a/b/` below it.
pub(super) fn group_prefix(schema: &Schema, g: GroupId) -> String {
    let path = schema.group_path(g);
    let path = path.trim_start_matches('/');
    if path.is_empty() {
        String::new()
    } else {
        format!("{path}/")
    }
}

/// Variable `v` of `ds` has a Zarr v2 dtype, else the error naming it.
pub(super) fn check_type(ds: &Dataset, v: VarId) -> Result<(), RefsError> {
    let schema = ds.schema();
    let dtype = schema.var(v).dtype;
    match zarr_dtype(dtype, Endianness::Little) {
        Some(_) => Ok(()),
        None => Err(RefsError::Type {
            file: ds.name().to_string(),
            var: schema.var_path(v),
            dtype,
        }),
    }
}

/// The metadata (`.zarray`, `.zattrs`) of the variable of `ds` that
/// `layout` describes (combined across the inputs).
pub(super) fn array(ds: &Dataset, layout: &VarLayout) -> Result<(Value, Value), RefsError> {
    let schema = ds.schema();
    let v = layout.var;
    let var = schema.var(v);
    check_type(ds, v)?;
    let dtype = zarr_dtype(var.dtype, layout.endianness).unwrap_or_default();
    let grid: u64 = layout.grid().iter().product();
    // `_FillValue` when the variable has one; else, where chunks were
    // never written, what they read as (the fill the format records, as
    // HDF5's fill value message, else netCDF's default); else none, so
    // xarray masks only what netCDF calls missing.
    let fill = if var.attribute("_FillValue").is_some() {
        jsonval::fill_value(&schema.fill_value(v), true)
    } else if (layout.stored as u64) < grid {
        let recorded = var.storage.fill_value.as_ref().filter(|f| !f.is_empty());
        jsonval::fill_value(recorded.unwrap_or(&schema.fill_value(v)), true)
    } else {
        Value::Null
    };
    let filters: Vec<Value> = layout
        .codecs
        .iter()
        .map(|c| serde_json::from_str(c).unwrap_or(Value::Null))
        .collect();
    let zarray = json!({
        "chunks": layout.chunk_shape,
        "compressor": null,
        "dtype": dtype,
        "fill_value": fill,
        "filters": if filters.is_empty() { Value::Null } else { Value::from(filters) },
        "order": "C",
        "shape": layout.shape,
        "zarr_format": 2,
    });
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
    Ok((zarray, Value::Object(attrs)))
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
