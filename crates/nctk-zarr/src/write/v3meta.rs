//! The `zarr.json` of each group and array of a Zarr v3 store, as
//! zarr-python 3 and xarray write them (attributes in the node, dimension
//! names as `dimension_names`, `_FillValue` as xarray encodes it, the
//! consolidated metadata inline in the root group), plus, in NCZarr mode,
//! the annotations of netCDF-C's draft appendix "NCZarr Version 3
//! Meta-Data Representation": `_nczarr_superblock`, `_nczarr_group`,
//! `_nczarr_array` and `_nczarr_attrs`.

use base64::Engine;
use nctk_model::{Attribute, DataType, GroupId, Schema, VarId};
use serde_json::{json, Map, Value};

use super::jsonval;
use super::plan::ArrayPlan;
use super::v3chain::json_map as map;
use crate::attrs::is_hidden;
use crate::v3::meta::{Consolidated, Named, ZarrJson};

/// The NCZarr v3 type of an attribute: the Zarr v3 data type name, or
/// `char` / `string` for netCDF's text types.
fn attr_type(t: DataType) -> &'static str {
    match t {
        DataType::Byte => "int8",
        DataType::UByte => "uint8",
        DataType::Short => "int16",
        DataType::UShort => "uint16",
        DataType::Int => "int32",
        DataType::UInt => "uint32",
        DataType::Int64 => "int64",
        DataType::UInt64 => "uint64",
        DataType::Float => "float32",
        DataType::Double => "float64",
        DataType::Char => "char",
        _ => "string",
    }
}

/// `_FillValue` as xarray's Zarr backend encodes it for Zarr v3
/// (`FillValueCoder`): floats as the base64 of their little-endian
/// float64 bytes, integers as numbers, text as text.
fn xarray_fill(a: &Attribute) -> Value {
    let b64 =
        |x: f64| Value::from(base64::engine::general_purpose::STANDARD.encode(x.to_le_bytes()));
    match &a.value {
        nctk_model::Values::Float(x) if x.len() == 1 => b64(x[0] as f64),
        nctk_model::Values::Double(x) if x.len() == 1 => b64(x[0]),
        // Char as the uint8 the array is stored as.
        nctk_model::Values::Char(x) if x.len() == 1 => Value::from(x[0]),
        v => jsonval::attribute(v),
    }
}

/// The user attributes of a node as JSON and, per attribute, its NCZarr
/// type entry.
fn attributes(attrs: &[Attribute], var_type: Option<DataType>) -> (Map<String, Value>, Vec<Value>) {
    let mut out = Map::new();
    let mut types = vec![];
    for a in attrs.iter().filter(|a| !is_hidden(&a.name)) {
        let value = match var_type {
            Some(_) if a.name == "_FillValue" => xarray_fill(a),
            _ => jsonval::attribute(&a.value),
        };
        out.insert(a.name.clone(), value);
        let t = attr_type(a.value.dtype());
        types.push(json!({"name": a.name, "configuration": {"type": t}}));
    }
    (out, types)
}

/// Adds `_nczarr_attrs` (every attribute's type, itself and the other
/// NCZarr annotations as `json`) to `attrs`.
fn add_attr_types(attrs: &mut Map<String, Value>, mut types: Vec<Value>) {
    let annotations: Vec<String> = attrs
        .keys()
        .filter(|k| k.starts_with("_nczarr_"))
        .cloned()
        .chain(["_nczarr_attrs".to_string()])
        .collect();
    for name in annotations {
        types.push(json!({"name": name, "configuration": {"type": "json"}}));
    }
    attrs.insert("_nczarr_attrs".into(), json!({ "attribute_types": types }));
}

/// A fully qualified dimension name (`/x`, `/g/y`).
fn dim_ref(schema: &Schema, d: nctk_model::DimId) -> String {
    let dim = schema.dim(d);
    let g = schema.group_path(dim.group);
    format!("{}/{}", g.trim_end_matches('/'), dim.name)
}

fn node(node_type: &str, attributes: Map<String, Value>) -> ZarrJson {
    ZarrJson {
        zarr_format: 3,
        node_type: node_type.into(),
        attributes: Some(attributes),
        shape: None,
        data_type: None,
        chunk_grid: None,
        chunk_key_encoding: None,
        fill_value: None,
        codecs: None,
        dimension_names: None,
        storage_transformers: None,
        consolidated_metadata: None,
        extra: Map::new(),
    }
}

/// The `zarr.json` of group `g` (without consolidated metadata).
pub fn group(schema: &Schema, g: GroupId, nczarr: bool) -> ZarrJson {
    let group = schema.group(g);
    let (mut attrs, types) = attributes(&group.attributes, None);
    if nczarr {
        let dims: Vec<Value> = group
            .dims
            .iter()
            .map(|&d| {
                let dim = schema.dim(d);
                json!({"name": dim.name, "size": dim.len, "unlimited": u8::from(dim.unlimited)})
            })
            .collect();
        let arrays: Vec<&str> = group
            .vars
            .iter()
            .map(|&v| schema.var(v).name.as_str())
            .collect();
        let subgroups: Vec<&str> = group
            .groups
            .iter()
            .map(|&c| schema.group(c).name.as_str())
            .collect();
        attrs.insert(
            "_nczarr_group".into(),
            json!({"dimensions": dims, "arrays": arrays, "subgroups": subgroups}),
        );
        if g == GroupId::ROOT {
            attrs.insert(
                "_nczarr_superblock".into(),
                json!({"version": "3.0.0", "format": 3}),
            );
        }
        add_attr_types(&mut attrs, types);
    }
    node("group", attrs)
}

/// The `zarr.json` of variable `v`.
pub fn array(schema: &Schema, v: VarId, plan: &ArrayPlan, nczarr: bool) -> ZarrJson {
    let var = schema.var(v);
    let v3 = plan.v3.as_ref().expect("a Zarr v3 plan");
    let (mut attrs, types) = attributes(&var.attributes, Some(var.dtype));
    if nczarr {
        let refs: Vec<String> = var.dims.iter().map(|&d| dim_ref(schema, d)).collect();
        let mut info = Map::new();
        info.insert("dimension_references".into(), json!(refs));
        if let Some(alias) = v3.type_alias {
            info.insert("type_alias".into(), alias.into());
        }
        attrs.insert("_nczarr_array".into(), Value::Object(info));
        add_attr_types(&mut attrs, types);
    }
    let fill = match &plan.fill {
        // zarr-python refuses a null string fill value: a null one is "".
        nctk_model::Values::String(s) => Value::from(s[0].as_deref().unwrap_or_default()),
        f => jsonval::number_at(f, 0),
    };
    let names = var.dims.iter().map(|&d| Some(schema.dim(d).name.clone()));
    let mut z = node("array", attrs);
    z.shape = Some(schema.shape(v));
    z.data_type = Some(Named::bare(v3.data_type));
    z.chunk_grid = Some(Named::new(
        "regular",
        map(json!({ "chunk_shape": plan.shards.as_ref().map_or(&plan.chunks, |s| &s.shard) })),
    ));
    z.chunk_key_encoding = Some(Named::new("default", map(json!({"separator": "/"}))));
    z.fill_value = Some(fill);
    z.codecs = Some(v3.codecs.clone());
    z.dimension_names = (!var.dims.is_empty()).then(|| names.collect());
    z
}

/// The root group's `zarr.json` holding every other node's, by path, as
/// zarr-python's `consolidate_metadata` writes it (a subgroup's own entry
/// carries an empty consolidated map).
pub fn consolidate(mut root: ZarrJson, nodes: &[(String, ZarrJson)]) -> ZarrJson {
    let inline = |metadata: Map<String, Value>| Consolidated {
        kind: "inline".into(),
        must_understand: false,
        metadata: Some(metadata),
    };
    let metadata = nodes
        .iter()
        .map(|(path, z)| {
            let mut z = z.clone();
            if z.node_type == "group" {
                z.consolidated_metadata = Some(inline(Map::new()));
            }
            (path.clone(), to_json(&z))
        })
        .collect();
    root.consolidated_metadata = Some(inline(metadata));
    root
}

/// The JSON of a node as zarr-python writes it: a data type without
/// configuration as its bare name (`"float32"`).
pub fn to_json(z: &ZarrJson) -> Value {
    let mut v = serde_json::to_value(z).unwrap_or(Value::Null);
    if let Some(t) = z.data_type.as_ref().filter(|t| t.configuration.is_empty()) {
        v["data_type"] = Value::from(t.name.clone());
    }
    v
}
