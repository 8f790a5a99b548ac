//! The metadata objects of each layout: `.zgroup`, `.zarray`, `.zattrs`.

use nctk_model::{Attribute, DataType, GroupId, Schema, VarId};
use serde_json::{json, Map, Value};

use super::jsonval;
use super::options::WriteLayout;
use super::plan::ArrayPlan;
use crate::attrs::is_hidden;
use nctk_model::string_width as strlen;

/// The NCZarr type tag of an attribute.
fn attr_type(a: &Attribute, layout: WriteLayout) -> String {
    let legacy = layout == WriteLayout::NcZarr490;
    match a.value.dtype() {
        DataType::Char if legacy => "<U1".into(),
        DataType::Char => ">S1".into(),
        // netCDF-C 4.9.0 crashes on string-typed attributes: text there.
        DataType::String if legacy => "<U1".into(),
        DataType::String => "|S128".into(),
        t => numeric_dtype(t, false),
    }
}

/// The NumPy dtype of a numeric netCDF type.
pub fn numeric_dtype(t: DataType, big: bool) -> String {
    let o = if big { '>' } else { '<' };
    match t {
        DataType::Byte => format!("{o}i1"),
        DataType::UByte => format!("{o}u1"),
        DataType::Short => format!("{o}i2"),
        DataType::UShort => format!("{o}u2"),
        DataType::Int => format!("{o}i4"),
        DataType::UInt => format!("{o}u4"),
        DataType::Int64 => format!("{o}i8"),
        DataType::UInt64 => format!("{o}u8"),
        DataType::Float => format!("{o}f4"),
        DataType::Double => format!("{o}f8"),
        DataType::Char => ">S1".into(),
        // Strings, and any type without a NumPy number dtype (callers
        // handle strings first and refuse variables of other types).
        _ => "|S128".into(),
    }
}

/// User attributes as a JSON map, and their NCZarr types.
fn user_attributes(
    attrs: &[Attribute],
    layout: WriteLayout,
) -> (Map<String, Value>, Map<String, Value>) {
    let mut out = Map::new();
    let mut types = Map::new();
    // Never written from the schema: what the reader hides (NCZarr's own
    // keys but the string widths, xarray's dimension names, provenance).
    for a in attrs.iter().filter(|a| !is_hidden(&a.name)) {
        out.insert(a.name.clone(), jsonval::attribute(&a.value));
        types.insert(a.name.clone(), Value::from(attr_type(a, layout)));
    }
    (out, types)
}

/// A fully qualified dimension name (`/x`, `/g/y`).
fn dim_ref(schema: &Schema, d: nctk_model::DimId) -> String {
    let dim = schema.dim(d);
    let g = schema.group_path(dim.group);
    if g == "/" {
        format!("/{}", dim.name)
    } else {
        format!("{g}/{}", dim.name)
    }
}

/// The `.zgroup` and `.zattrs` of a group (`.zattrs` is `None` when
/// nothing needs writing).
pub fn group_objects(schema: &Schema, g: GroupId, layout: WriteLayout) -> (Value, Option<Value>) {
    let group = schema.group(g);
    let (mut attrs, mut types) = user_attributes(&group.attributes, layout);
    let dims = || -> Vec<(String, Value)> {
        group
            .dims
            .iter()
            .map(|&d| {
                let dim = schema.dim(d);
                let v = if dim.unlimited && layout == WriteLayout::NcZarr {
                    json!({"size": dim.len, "unlimited": 1})
                } else {
                    Value::from(dim.len)
                };
                (dim.name.clone(), v)
            })
            .collect()
    };
    let names = |ids: Vec<String>| Value::Array(ids.into_iter().map(Value::from).collect());
    let arrays = names(
        group
            .vars
            .iter()
            .map(|&v| schema.var(v).name.clone())
            .collect(),
    );
    let groups = names(
        group
            .groups
            .iter()
            .map(|&c| schema.group(c).name.clone())
            .collect(),
    );
    let root = g == GroupId::ROOT;
    let superblock = json!({"version": "2.0.0"});
    match layout {
        WriteLayout::NcZarr => {
            let mut info = Map::new();
            info.insert(
                "dimensions".into(),
                Value::Object(dims().into_iter().collect()),
            );
            info.insert("arrays".into(), arrays);
            info.insert("groups".into(), groups);
            attrs.insert("_nczarr_group".into(), Value::Object(info));
            types.insert("_nczarr_group".into(), "|J0".into());
            if root {
                attrs.insert("_nczarr_superblock".into(), superblock);
                types.insert("_nczarr_superblock".into(), "|J0".into());
            }
            types.insert("_nczarr_attr".into(), "|J0".into());
            attrs.insert("_nczarr_attr".into(), json!({ "types": types }));
            (json!({"zarr_format": 2}), Some(Value::Object(attrs)))
        }
        WriteLayout::NcZarr490 => {
            let mut zgroup = Map::new();
            zgroup.insert("zarr_format".into(), 2.into());
            if root {
                zgroup.insert("_NCZARR_SUPERBLOCK".into(), superblock);
            }
            let mut info = Map::new();
            info.insert("dims".into(), Value::Object(dims().into_iter().collect()));
            info.insert("vars".into(), arrays);
            info.insert("groups".into(), groups);
            zgroup.insert("_NCZARR_GROUP".into(), Value::Object(info));
            let zattrs = (!attrs.is_empty()).then(|| {
                attrs.insert("_NCZARR_ATTR".into(), json!({ "types": types }));
                Value::Object(attrs)
            });
            (Value::Object(zgroup), zattrs)
        }
        // Zarr v3 nodes are `v3meta`'s; a group's plain objects.
        WriteLayout::PureZarr { .. } | WriteLayout::ZarrV3 { .. } => {
            let zattrs = (!attrs.is_empty()).then_some(Value::Object(attrs));
            (json!({"zarr_format": 2}), zattrs)
        }
    }
}

/// The `.zarray` and `.zattrs` of a variable.
pub fn array_objects(
    schema: &Schema,
    v: VarId,
    plan: &ArrayPlan,
    layout: WriteLayout,
) -> (Value, Value) {
    let var = schema.var(v);
    let scalar = var.dims.is_empty();
    let mut shape: Vec<u64> = schema.shape(v);
    let mut chunks = plan.chunks.clone();
    if scalar {
        shape = vec![1];
        chunks = vec![1];
    }
    let pure = matches!(layout, WriteLayout::PureZarr { .. });
    let mut zarray = Map::new();
    zarray.insert("zarr_format".into(), 2.into());
    zarray.insert("shape".into(), json!(shape));
    zarray.insert("dtype".into(), Value::from(plan.dtype.clone()));
    zarray.insert("chunks".into(), json!(chunks));
    zarray.insert("fill_value".into(), jsonval::fill_value(&plan.fill, pure));
    zarray.insert("order".into(), "C".into());
    zarray.insert("compressor".into(), plan.compressor.clone());
    zarray.insert("filters".into(), plan.filters.clone());
    let dimrefs: Vec<String> = var.dims.iter().map(|&d| dim_ref(schema, d)).collect();
    let dimnames: Vec<String> = var
        .dims
        .iter()
        .map(|&d| schema.dim(d).name.clone())
        .collect();
    let (mut attrs, mut types) = user_attributes(&var.attributes, layout);
    if let Some(n) = plan.max_strlen_attr {
        attrs.insert(strlen::VAR_WIDTH_ATTR.into(), n.into());
        types.insert(strlen::VAR_WIDTH_ATTR.into(), "<i4".into());
    }
    match layout {
        WriteLayout::NcZarr => {
            let names = if scalar {
                vec!["_scalar_".to_string()]
            } else {
                dimnames
            };
            attrs.insert("_ARRAY_DIMENSIONS".into(), json!(names));
            let mut info = Map::new();
            info.insert("dimension_references".into(), json!(dimrefs));
            if scalar {
                info.insert("scalar".into(), 1.into());
            }
            info.insert("storage".into(), "chunked".into());
            attrs.insert("_nczarr_array".into(), Value::Object(info));
            types.insert("_nczarr_array".into(), "|J0".into());
            types.insert("_nczarr_attr".into(), "|J0".into());
            attrs.insert("_nczarr_attr".into(), json!({ "types": types }));
        }
        WriteLayout::NcZarr490 => {
            zarray.insert(
                "_NCZARR_ARRAY".into(),
                json!({"dimrefs": dimrefs, "storage": if scalar { "scalar" } else { "chunked" }}),
            );
            attrs.insert("_ARRAY_DIMENSIONS".into(), json!(dimnames));
            let attr = if types.is_empty() {
                json!({})
            } else {
                json!({ "types": types })
            };
            attrs.insert("_NCZARR_ATTR".into(), attr);
        }
        WriteLayout::PureZarr { xarray } => {
            if xarray {
                let names = if scalar {
                    vec!["_scalar_".to_string()]
                } else {
                    dimnames
                };
                attrs.insert("_ARRAY_DIMENSIONS".into(), json!(names));
            }
        }
        // Zarr v3 nodes are `v3meta`'s.
        WriteLayout::ZarrV3 { .. } => {}
    }
    (Value::Object(zarray), Value::Object(attrs))
}
