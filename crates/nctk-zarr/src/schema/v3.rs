//! Zarr v3 hierarchies read into the schema: `zarr.json` of groups and
//! arrays (or the root's inline consolidated metadata), data types, chunk
//! grids, chunk key encodings and codec chains, `dimension_names` as
//! netCDF dimensions, and NCZarr's v3 annotations (`_nczarr_superblock`,
//! `_nczarr_group`, `_nczarr_array`, `_nczarr_attrs`) as netCDF-C's draft
//! appendix means them.

use std::collections::HashMap;

use base64::Engine;
use nctk_codec::CodecContext;
use nctk_model::{
    Attribute, CompoundField, DataType, DimId, Endianness, GroupId, Layout, UserTypeKind, Values,
    VarStorage,
};
use nctk_store::kv::{StoreKey, StorePrefix};
use serde_json::{Map, Value};

use super::{fill_attribute, fills, var_attributes, Builder};
use crate::cell::Cell;
use crate::layout::{Axis, ChunkKeys, ChunkOrder};
use crate::nczarr;
use crate::selection::ArrayMeta;
use crate::shard::{ShardLevel, Shards};
use crate::v3::codecs::{self, ChainError, ChunkCodecs, Repr};
use crate::v3::meta::{Named, ZarrJson};
use crate::ZarrError;

/// The metadata object of every Zarr v3 node.
pub(super) const ZARR_JSON: &str = "zarr.json";

/// Top-level keys of `zarr.json` this reader knows (serde keeps the rest
/// in `extra`).
fn check_extensions(node: &ZarrJson, key: &StoreKey) -> Result<(), ZarrError> {
    for (name, v) in &node.extra {
        let optional = v.get("must_understand").and_then(Value::as_bool) == Some(false);
        if !optional {
            return Err(ZarrError::Unsupported {
                key: key.to_string(),
                what: format!("the extension {name:?} (not marked must_understand: false)"),
            });
        }
    }
    if let Some(t) = node.storage_transformers.as_ref().and_then(|t| t.first()) {
        return Err(ZarrError::Unsupported {
            key: key.to_string(),
            what: format!("the storage transformer {:?}", t.name),
        });
    }
    Ok(())
}

fn parse_node(key: &StoreKey, v: Value) -> Result<ZarrJson, ZarrError> {
    let node: ZarrJson = crate::meta::from_value(key.as_str(), v)?;
    if node.zarr_format != 3 {
        return Err(ZarrError::meta(
            key,
            format!("zarr_format {} in a zarr.json (only 3)", node.zarr_format),
        ));
    }
    match node.node_type.as_str() {
        "group" | "array" => {}
        other => {
            return Err(ZarrError::meta(
                key,
                format!("node_type {other:?} is neither \"group\" nor \"array\""),
            ))
        }
    }
    check_extensions(&node, key)?;
    Ok(node)
}

/// NCZarr's v3 attribute types (`_nczarr_attrs.attribute_types`) as the
/// dtype hints the attribute reader takes.
fn attribute_types(attrs: &Map<String, Value>) -> HashMap<String, String> {
    let Some(list) = attrs
        .get("_nczarr_attrs")
        .and_then(|a| a.get("attribute_types"))
        .and_then(Value::as_array)
    else {
        return HashMap::new();
    };
    list.iter()
        .filter_map(|e| {
            let name = e.get("name")?.as_str()?;
            let ty = e.get("configuration")?.get("type")?.as_str()?;
            Some((name.to_string(), type_hint(ty)?.to_string()))
        })
        .collect()
}

/// The numpy dtype text for a v3 type name, as the attribute reader takes it.
fn type_hint(v3: &str) -> Option<&'static str> {
    Some(match v3 {
        "bool" => "|b1",
        "int8" => "|i1",
        "uint8" => "|u1",
        "int16" => "<i2",
        "uint16" => "<u2",
        "int32" => "<i4",
        "uint32" => "<u4",
        "int64" => "<i8",
        "uint64" => "<u8",
        "float32" => "<f4",
        "float64" => "<f8",
        "char" => ">S1",
        "string" => "|S2",
        "json" => "|J0",
        _ => return None,
    })
}

/// What a v3 data type is read as: the cell (byte order set later), the
/// stored bytes per element, the numpy dtype text codecs see, and the
/// units attribute it implies (datetimes).
struct TypeInfo {
    cell: Maker,
    itemsize: u64,
    numpy: String,
    units: Option<String>,
    n: usize,
}

/// How the cell of a data type is made once the byte order is known.
#[derive(Clone, Copy)]
enum Maker {
    /// From the byte order alone.
    Simple(fn(bool) -> Cell),
    /// A complex number: a compound type of two reals in the root group.
    Complex {
        /// Parts are doubles.
        double: bool,
    },
    /// Raw bits: an opaque type of `size` bytes in the root group.
    Raw {
        /// Bytes per value.
        size: usize,
    },
    /// Variable-length bytes: a vlen type of `ubyte` in the root group.
    VlenBytes,
}

fn number(dtype: DataType) -> Maker {
    macro_rules! num {
        ($t:expr) => {
            Maker::Simple(|big| Cell::Number { dtype: $t, big })
        };
    }
    match dtype {
        DataType::Byte => num!(DataType::Byte),
        DataType::UByte => num!(DataType::UByte),
        DataType::Short => num!(DataType::Short),
        DataType::UShort => num!(DataType::UShort),
        DataType::Int => num!(DataType::Int),
        DataType::UInt => num!(DataType::UInt),
        DataType::Int64 => num!(DataType::Int64),
        DataType::UInt64 => num!(DataType::UInt64),
        DataType::Float => num!(DataType::Float),
        _ => num!(DataType::Double),
    }
}

/// The CF units of a numpy datetime64 / timedelta64 unit.
fn time_units(unit: &str) -> Option<&'static str> {
    Some(match unit {
        "W" => "weeks",
        "D" => "days",
        "h" => "hours",
        "m" => "minutes",
        "s" => "seconds",
        "ms" => "milliseconds",
        "us" => "microseconds",
        "ns" => "nanoseconds",
        _ => return None,
    })
}

fn type_info(dt: &Named, alias: Option<&str>) -> Result<TypeInfo, &'static str> {
    let fixed = |dtype: DataType, numpy: &str| {
        let n = dtype.size().unwrap_or(1);
        TypeInfo {
            cell: number(dtype),
            itemsize: n as u64,
            numpy: format!("<{numpy}"),
            units: None,
            n,
        }
    };
    Ok(match (dt.name.as_str(), alias) {
        ("uint8", Some("char")) => TypeInfo {
            cell: Maker::Simple(|_| Cell::Char),
            ..fixed(DataType::UByte, "u1")
        },
        (r, Some("string")) if r.starts_with('r') => {
            let bits: usize = r[1..].parse().map_err(|_| "raw bits type without a size")?;
            if bits == 0 || bits % 8 != 0 {
                return Err("raw bits of a size that is not a whole number of bytes");
            }
            TypeInfo {
                cell: Maker::Simple(|_| Cell::FixedBytes { n: 0 }),
                itemsize: (bits / 8) as u64,
                numpy: format!("|S{}", bits / 8),
                units: None,
                n: bits / 8,
            }
        }
        ("bool", _) => TypeInfo {
            cell: Maker::Simple(|_| Cell::Bool),
            ..fixed(DataType::UByte, "b1")
        },
        ("int8", _) => fixed(DataType::Byte, "i1"),
        ("uint8", _) => fixed(DataType::UByte, "u1"),
        ("int16", _) => fixed(DataType::Short, "i2"),
        ("uint16", _) => fixed(DataType::UShort, "u2"),
        ("int32", _) => fixed(DataType::Int, "i4"),
        ("uint32", _) => fixed(DataType::UInt, "u4"),
        ("int64", _) => fixed(DataType::Int64, "i8"),
        ("uint64", _) => fixed(DataType::UInt64, "u8"),
        ("float16", _) => TypeInfo {
            cell: Maker::Simple(|big| Cell::Half { big }),
            itemsize: 2,
            numpy: "<f2".into(),
            units: None,
            n: 2,
        },
        ("float32", _) => fixed(DataType::Float, "f4"),
        ("float64", _) => fixed(DataType::Double, "f8"),
        ("complex64" | "complex128", _) => {
            let double = dt.name == "complex128";
            let n = if double { 16 } else { 8 };
            TypeInfo {
                cell: Maker::Complex { double },
                itemsize: n as u64,
                numpy: format!("<c{n}"),
                units: None,
                n,
            }
        }
        (r, None) if r.starts_with('r') && r[1..].parse::<usize>().is_ok() => {
            let bits: usize = r[1..].parse().unwrap_or(0);
            if bits == 0 || bits % 8 != 0 {
                return Err("raw bits of a size that is not a whole number of bytes");
            }
            TypeInfo {
                cell: Maker::Raw { size: bits / 8 },
                itemsize: (bits / 8) as u64,
                numpy: format!("|V{}", bits / 8),
                units: None,
                n: bits / 8,
            }
        }
        ("raw_bytes", _) => {
            let size = dt
                .get("length_bytes")
                .and_then(Value::as_u64)
                .filter(|b| *b > 0)
                .ok_or("raw_bytes needs length_bytes, a positive integer")?
                as usize;
            TypeInfo {
                cell: Maker::Raw { size },
                itemsize: size as u64,
                numpy: format!("|V{size}"),
                units: None,
                n: size,
            }
        }
        ("bytes" | "variable_length_bytes", _) => TypeInfo {
            cell: Maker::VlenBytes,
            itemsize: 8,
            numpy: "|O".into(),
            units: None,
            n: 8,
        },
        ("string" | "variable_length_utf8", _) => TypeInfo {
            cell: Maker::Simple(|_| Cell::VlenString),
            itemsize: 8,
            numpy: "|O".into(),
            units: None,
            n: 8,
        },
        ("null_terminated_bytes" | "fixed_length_ascii", _) => {
            let n = dt
                .get("length_bytes")
                .and_then(Value::as_u64)
                .filter(|b| *b > 0)
                .ok_or("null_terminated_bytes needs length_bytes, a positive integer")?;
            TypeInfo {
                cell: Maker::Simple(|_| Cell::FixedBytes { n: 0 }),
                itemsize: n,
                numpy: format!("|S{n}"),
                units: None,
                n: n as usize,
            }
        }
        ("fixed_length_utf32", _) => {
            let bytes = dt
                .get("length_bytes")
                .and_then(Value::as_u64)
                .filter(|b| *b > 0 && b % 4 == 0)
                .ok_or("fixed_length_utf32 needs length_bytes, a positive multiple of 4")?;
            TypeInfo {
                cell: Maker::Simple(|big| Cell::Utf32 { n: 0, big }),
                itemsize: bytes,
                numpy: format!("<U{}", bytes / 4),
                units: None,
                n: (bytes / 4) as usize,
            }
        }
        ("numpy.datetime64" | "numpy.timedelta64", _) => {
            let unit = dt.get("unit").and_then(Value::as_str).unwrap_or("");
            let scale = dt.get("scale_factor").and_then(Value::as_u64).unwrap_or(1);
            let units = time_units(unit)
                .filter(|_| scale == 1)
                .ok_or("a datetime unit CF cannot name (only W, D, h, m, s, ms, us, ns with scale_factor 1)")?;
            let units = if dt.name == "numpy.datetime64" {
                format!("{units} since 1970-01-01")
            } else {
                units.to_string()
            };
            TypeInfo {
                units: Some(units),
                ..fixed(DataType::Int64, "i8")
            }
        }
        _ => return Err("not a data type netCDF can hold"),
    })
}

/// The most chunks a rectilinear grid may list along one axis.
const MAX_LISTED_CHUNKS: usize = 1 << 24;

/// The chunk grid: the chunk shape (for a rectilinear grid, each axis's
/// longest chunk) and, for a rectilinear grid with listed lengths, its
/// axes.
fn chunk_grid(
    node: &ZarrJson,
    shape: &[u64],
    key: &StoreKey,
) -> Result<(Vec<u64>, Option<Vec<Axis>>), ZarrError> {
    let rank = shape.len();
    let grid = node
        .chunk_grid
        .as_ref()
        .ok_or_else(|| ZarrError::meta(key, "an array without chunk_grid"))?;
    let axes: Vec<Axis> = match grid.name.as_str() {
        "regular" => grid
            .get("chunk_shape")
            .and_then(Value::as_array)
            .and_then(|a| a.iter().map(Value::as_u64).collect::<Option<Vec<_>>>())
            .ok_or_else(|| {
                ZarrError::meta(key, "chunk_grid: chunk_shape is not a list of integers")
            })?
            .into_iter()
            .map(Axis::Regular)
            .collect(),
        "rectilinear" => {
            let list = grid
                .get("chunk_shapes")
                .and_then(Value::as_array)
                .ok_or_else(|| {
                    ZarrError::meta(key, "rectilinear chunk_grid without chunk_shapes")
                })?;
            if list.len() != rank {
                return Err(ZarrError::meta(
                    key,
                    format!(
                        "chunk_shapes has {} entries but shape has {rank}",
                        list.len()
                    ),
                ));
            }
            list.iter()
                .zip(shape)
                .map(|(v, &len)| {
                    rectilinear_axis(v, len)
                        .map_err(|m| ZarrError::meta(key, format!("chunk_shapes: {m}")))
                })
                .collect::<Result<_, _>>()?
        }
        other => {
            return Err(ZarrError::Unsupported {
                key: key.to_string(),
                what: format!("the chunk grid {other:?}"),
            })
        }
    };
    if axes.len() != rank {
        return Err(ZarrError::meta(
            key,
            format!(
                "chunk_shape has {} entries but shape has {rank}",
                axes.len()
            ),
        ));
    }
    if let Some(d) = axes.iter().position(|a| a.max_len() == 0) {
        return Err(ZarrError::meta(
            key,
            format!("chunk length 0 in dimension {d}"),
        ));
    }
    let chunks = axes.iter().map(Axis::max_len).collect();
    let listed = axes.iter().any(|a| matches!(a, Axis::Bounds(_)));
    Ok((chunks, listed.then_some(axes)))
}

/// One axis of a rectilinear grid of an axis of length `len`: an integer
/// (a regular step), or a list of lengths and run-length pairs `[v, n]`.
fn rectilinear_axis(v: &Value, len: u64) -> Result<Axis, String> {
    if let Some(step) = v.as_u64() {
        return Ok(Axis::Regular(step));
    }
    let items = v
        .as_array()
        .ok_or_else(|| format!("{v} is neither an integer nor a list"))?;
    let mut bounds = vec![0u64];
    let mut push = |edge: u64, times: u64| -> Result<(), String> {
        if edge == 0 || times == 0 {
            return Err("edge lengths and repeat counts must be at least 1".into());
        }
        if (bounds.len() as u64).saturating_add(times) > MAX_LISTED_CHUNKS as u64 {
            return Err(format!(
                "more than {MAX_LISTED_CHUNKS} chunks along one axis"
            ));
        }
        for _ in 0..times {
            let last = *bounds.last().unwrap_or(&0);
            bounds.push(last.checked_add(edge).ok_or("edge lengths overflow")?);
        }
        Ok(())
    };
    for item in items {
        match (item.as_u64(), item.as_array().map(Vec::as_slice)) {
            (Some(e), _) => push(e, 1)?,
            (None, Some([e, n])) => push(
                e.as_u64().ok_or("a run-length value is not an integer")?,
                n.as_u64().ok_or("a run-length count is not an integer")?,
            )?,
            _ => {
                return Err(format!(
                    "{item} is neither a length nor a [length, count] pair"
                ))
            }
        }
    }
    if bounds.last().copied().unwrap_or(0) < len {
        return Err(format!(
            "the lengths {v} do not cover the axis length {len}"
        ));
    }
    Ok(Axis::Bounds(bounds))
}

fn chunk_keys(node: &ZarrJson, key: &StoreKey) -> Result<ChunkKeys, ZarrError> {
    let Some(enc) = &node.chunk_key_encoding else {
        return Err(ZarrError::meta(key, "an array without chunk_key_encoding"));
    };
    let sep = |default: char| match enc.get("separator").and_then(Value::as_str) {
        None => Ok(default),
        Some("/") => Ok('/'),
        Some(".") => Ok('.'),
        Some(other) => Err(ZarrError::meta(
            key,
            format!("chunk key separator {other:?} is neither \"/\" nor \".\""),
        )),
    };
    match enc.name.as_str() {
        "default" => Ok(ChunkKeys::Default {
            separator: sep('/')?,
        }),
        "v2" => Ok(ChunkKeys::V2 {
            separator: sep('.')?,
        }),
        other => Err(ZarrError::Unsupported {
            key: key.to_string(),
            what: format!("the chunk key encoding {other:?}"),
        }),
    }
}

/// xarray's `_FillValue` attribute for a float variable: base64 of the
/// little-endian value (8 bytes for a double, 4 for a float), read back as
/// the number it encodes.
fn decode_xarray_fill(attrs: &mut Map<String, Value>, cell: Cell) {
    let float = matches!(cell.data_type(), DataType::Float | DataType::Double);
    let Some(Value::String(text)) = attrs.get("_FillValue") else {
        return;
    };
    if !float {
        return;
    }
    let Ok(b) = base64::engine::general_purpose::STANDARD.decode(text) else {
        return;
    };
    let x = match b.len() {
        8 => f64::from_le_bytes(b.try_into().unwrap_or_default()),
        4 => f64::from(f32::from_le_bytes(b.try_into().unwrap_or_default())),
        _ => return,
    };
    let v = match x {
        x if x.is_nan() => Value::from("NaN"),
        x if x.is_infinite() => Value::from(if x > 0.0 { "Infinity" } else { "-Infinity" }),
        x => serde_json::Number::from_f64(x).map_or(Value::Null, Value::Number),
    };
    attrs.insert("_FillValue".into(), v);
}

impl Builder<'_> {
    /// Reads the Zarr v3 hierarchy whose root `zarr.json` is `root`.
    pub(super) fn v3_root(&mut self, root: Value, key: &StoreKey) -> Result<(), ZarrError> {
        let mut node = parse_node(key, root)?;
        if node.node_type == "array" {
            // A lone array at the root: an empty dataset, as for Zarr v2.
            return Ok(());
        }
        if let Some(meta) = node.consolidated_metadata.take().and_then(|c| c.metadata) {
            self.v3_nodes = Some(meta);
        }
        let attrs = node.attributes.clone().unwrap_or_default();
        self.nczarr = attrs.contains_key("_nczarr_superblock") && !self.opts.pure_zarr;
        self.v3_group(GroupId::ROOT, &StorePrefix::root(), &node, key)
    }

    /// The `zarr.json` of the node at `prefix`, from the consolidated
    /// metadata when there is some, else from the store.
    fn v3_node(&self, prefix: &StorePrefix) -> Result<Option<ZarrJson>, ZarrError> {
        let key = prefix.key(ZARR_JSON)?;
        let v = match &self.v3_nodes {
            Some(nodes) => nodes.get(prefix.as_str()).filter(|v| !v.is_null()).cloned(),
            None => self.json(&key)?,
        };
        v.map(|v| parse_node(&key, v)).transpose()
    }

    /// The arrays and groups directly in the group at `prefix`: named by
    /// NCZarr, else listed (consolidated metadata or the store), each with
    /// its node.
    fn v3_children(
        &self,
        prefix: &StorePrefix,
        named: Option<(Vec<String>, Vec<String>)>,
    ) -> Result<Vec<(String, ZarrJson)>, ZarrError> {
        let names: Vec<String> = match (named, &self.v3_nodes) {
            (Some((arrays, groups)), _) => arrays.into_iter().chain(groups).collect(),
            (None, Some(nodes)) => {
                let base = if prefix.is_root() {
                    String::new()
                } else {
                    format!("{}/", prefix.as_str())
                };
                let mut v: Vec<String> = nodes
                    .keys()
                    .filter_map(|k| k.strip_prefix(&base))
                    .filter(|rest| !rest.is_empty() && !rest.contains('/'))
                    .map(str::to_string)
                    .collect();
                v.sort();
                v
            }
            (None, None) => self.listed(prefix)?,
        };
        let children = names
            .iter()
            .map(|n| prefix.child(n))
            .collect::<Result<Vec<_>, _>>()?;
        if self.v3_nodes.is_none() {
            self.prefetch(&children, &[ZARR_JSON])?;
        }
        let mut out = vec![];
        for (name, child) in names.into_iter().zip(&children) {
            if let Some(node) = self.v3_node(child)? {
                out.push((name, node));
            }
        }
        // Arrays first, then groups, each in name order (as for v2).
        out.sort_by_key(|(_, n)| n.node_type != "array");
        Ok(out)
    }

    fn v3_group(
        &mut self,
        gid: GroupId,
        prefix: &StorePrefix,
        node: &ZarrJson,
        key: &StoreKey,
    ) -> Result<(), ZarrError> {
        let attrs = node.attributes.clone().unwrap_or_default();
        let types = attribute_types(&attrs);
        for a in self.attributes(&attrs, &types) {
            self.schema.set_attr(gid, None, a);
        }
        let info = match attrs.get("_nczarr_group").filter(|_| self.nczarr) {
            Some(v) => Some(nczarr::parse_group(key.as_str(), v)?),
            None => None,
        };
        if let Some(info) = &info {
            for d in &info.dims {
                let name = nctk_model::name::normalize(&d.name).unwrap_or_else(|_| d.name.clone());
                self.schema
                    .add_dim(gid, &name, d.size, d.unlimited)
                    .map_err(|e| ZarrError::meta(key, e.to_string()))?;
            }
        }
        let named = info.map(|i| (i.arrays, i.groups));
        for (name, child) in self.v3_children(prefix, named)? {
            let cprefix = prefix.child(&name)?;
            let ckey = cprefix.key(ZARR_JSON)?;
            let nc_name = nctk_model::name::normalize(&name).unwrap_or_else(|_| name.clone());
            if child.node_type == "array" {
                self.v3_array(gid, &nc_name, &cprefix, child, &ckey)?;
            } else {
                let cid = self
                    .schema
                    .add_group(gid, &nc_name)
                    .map_err(|e| ZarrError::meta(&ckey, e.to_string()))?;
                self.v3_group(cid, &cprefix, &child, &ckey)?;
            }
        }
        Ok(())
    }

    fn v3_array(
        &mut self,
        gid: GroupId,
        name: &str,
        prefix: &StorePrefix,
        node: ZarrJson,
        key: &StoreKey,
    ) -> Result<(), ZarrError> {
        let shape = node
            .shape
            .clone()
            .ok_or_else(|| ZarrError::meta(key, "an array without shape"))?;
        let rank = shape.len();
        let dt = node
            .data_type
            .as_ref()
            .ok_or_else(|| ZarrError::meta(key, "an array without data_type"))?;
        let mut attrs = node.attributes.clone().unwrap_or_default();
        let ncz = match attrs.get("_nczarr_array").filter(|_| self.nczarr) {
            Some(v) => Some((
                nczarr::parse_array(key.as_str(), v)?,
                v.get("type_alias")
                    .and_then(Value::as_str)
                    .map(str::to_string),
            )),
            None => None,
        };
        let alias = ncz.as_ref().and_then(|(_, a)| a.as_deref());
        let ty = type_info(dt, alias).map_err(|reason| ZarrError::UnsupportedDtype {
            key: key.to_string(),
            dtype: dt.name.clone(),
            reason,
        })?;
        let (grid_chunks, grid) = chunk_grid(&node, &shape, key)?;
        let keys = chunk_keys(&node, key)?;
        let ctx = CodecContext {
            element_size: Some(ty.n.min(ty.itemsize as usize).max(1)),
            dtype: Some(&ty.numpy),
        };
        let chain = node.codecs.clone().unwrap_or_default();
        let (codecs, codec_error) = match codecs::parse(&chain, rank, &grid_chunks, &ctx, true) {
            Ok(c) => (Some(c), None),
            Err(ChainError::Codec(e)) => (None, Some(e)),
            Err(ChainError::Invalid(m)) => return Err(ZarrError::meta(key, m)),
        };
        let (levels, leaf) = match &codecs {
            Some(c) => flatten(c),
            None => (vec![], None),
        };
        let big = leaf.is_some_and(|l| l.big_endian);
        let mut cell = self.make_cell(ty.cell, big, key)?;
        match cell {
            Cell::Utf32 { big, .. } => cell = Cell::Utf32 { n: ty.n, big },
            Cell::FixedBytes { .. } => cell = Cell::FixedBytes { n: ty.n },
            _ => {}
        }
        let vlen = leaf.is_some_and(|l| l.repr == Repr::Vlen);
        if codec_error.is_none() && vlen != cell.is_vlen() {
            return Err(ZarrError::meta(
                key,
                format!(
                    "data type {} with {} codec",
                    dt.name,
                    if vlen { "a vlen" } else { "the bytes" }
                ),
            ));
        }
        let chunks = levels
            .last()
            .map_or(grid_chunks.clone(), |l| l.inner.clone());
        super::check_sizes_of(&shape, &chunks, ty.itemsize, key)?;
        let shards = match levels.is_empty() {
            true => None,
            false if grid.is_some() => {
                return Err(ZarrError::Unsupported {
                    key: key.to_string(),
                    what: "sharding on a rectilinear chunk grid".into(),
                })
            }
            false => {
                // Codecs after sharding act on whole shards.
                let outer = codecs.as_ref().map(|c| c.pipeline.clone());
                Some(Shards::new(
                    levels,
                    outer.filter(|p| !p.is_empty()),
                    key.as_str(),
                )?)
            }
        };

        let dims = match ncz
            .as_ref()
            .filter(|(i, _)| !i.dimrefs.is_empty() || rank == 0)
        {
            Some((info, _)) => self.referenced_dims(gid, &info.dimrefs, &shape, key)?,
            None => self.v3_dims(gid, &shape, node.dimension_names.as_deref(), key)?,
        };
        let vid = self
            .schema
            .add_var(gid, name, cell.data_type(), &dims)
            .map_err(|e| ZarrError::meta(key, e.to_string()))?;
        decode_xarray_fill(&mut attrs, cell);
        let types = attribute_types(&attrs);
        let mut attributes = var_attributes(self.attributes(&attrs, &types), &attrs, &types, cell);
        if let Some(units) = &ty.units {
            if !attributes.iter().any(|a| a.name == "units") {
                attributes.push(Attribute::new("units", Values::text(units)));
            }
            // NaT as xarray's CF encoding writes it: a `_FillValue`.
            let nat = match &node.fill_value {
                Some(Value::String(s)) => s == "NaT",
                Some(v) => v.as_i64() == Some(i64::MIN),
                None => false,
            };
            if nat && !attributes.iter().any(|a| a.name == "_FillValue") {
                attributes.push(Attribute::new("_FillValue", Values::Int64(vec![i64::MIN])));
            }
        }
        let fill_attr = fill_attribute(&attributes, cell);
        for a in attributes {
            self.schema.set_attr(gid, Some(vid), a);
        }
        let fill_value = match (&node.fill_value, ty.units.is_some()) {
            (Some(Value::String(s)), true) if s == "NaT" => Value::from(i64::MIN),
            (Some(v), _) => v.clone(),
            (None, _) => return Err(ZarrError::meta(key, "an array without fill_value")),
        };
        let (fill, stored_fill) = fills(fill_attr, &fill_value, cell, key)?;
        let shard_shape = shards.as_ref().map(|s| s.levels[0].shape.clone());
        self.schema.var_mut(vid).storage = VarStorage {
            shards: shard_shape,
            layout: if rank == 0 {
                Layout::Contiguous
            } else {
                Layout::Chunked(chunks.clone())
            },
            codecs: serde_json::to_string(&chain).ok(),
            endianness: match cell {
                Cell::Number { .. } | Cell::Half { .. } => Some(if big {
                    Endianness::Big
                } else {
                    Endianness::Little
                }),
                _ => None,
            },
            fill_value: stored_fill.map(|b| cell.decode(&b)),
            string_width: match cell {
                Cell::Utf32 { n, .. } => n.checked_mul(4),
                Cell::FixedBytes { n } => Some(n),
                _ => None,
            },
            ..VarStorage::default()
        };
        self.arrays.push(ArrayMeta {
            prefix: prefix.clone(),
            shape,
            chunks,
            cell,
            itemsize: ty.itemsize,
            order: leaf
                .and_then(|l| l.order.clone())
                .unwrap_or_else(|| ChunkOrder::c(rank)),
            keys,
            shards,
            grid,
            json_items: false,
            fill,
            pipeline: leaf.map(|l| l.pipeline.clone()).filter(|p| !p.is_empty()),
            codec_error: codec_error.map(|e| (key.to_string(), e)),
        });
        Ok(())
    }

    /// The cell of a data type stored in this byte order, with the user
    /// type it needs (defined once in the root group).
    fn make_cell(&mut self, maker: Maker, big: bool, key: &StoreKey) -> Result<Cell, ZarrError> {
        let (name, kind) = match maker {
            Maker::Simple(f) => return Ok(f(big)),
            Maker::Complex { double } => {
                let (part, size) = if double {
                    (DataType::Double, 8)
                } else {
                    (DataType::Float, 4)
                };
                let field = |name: &str, offset| CompoundField {
                    name: name.into(),
                    offset,
                    dtype: part,
                    dims: vec![],
                };
                (
                    format!("_Complex{}_t", size * 16),
                    UserTypeKind::Compound {
                        size: 2 * size,
                        fields: vec![field("i", 0), field("j", size)],
                    },
                )
            }
            Maker::Raw { size } => (
                format!("_Raw{}_t", size * 8),
                UserTypeKind::Opaque { size: size as u64 },
            ),
            Maker::VlenBytes => (
                "_Bytes_t".to_string(),
                UserTypeKind::Vlen {
                    base: DataType::UByte,
                },
            ),
        };
        let ty = match self.schema.type_by_name(GroupId::ROOT, &name) {
            Some(t) => t,
            None => self
                .schema
                .add_type(GroupId::ROOT, &name, kind)
                .map_err(|e| ZarrError::meta(key, e.to_string()))?,
        };
        Ok(match maker {
            Maker::Complex { double } => Cell::Complex { ty, double, big },
            Maker::Raw { size } => Cell::Raw { ty, size },
            Maker::VlenBytes => Cell::VlenBytes { ty },
            Maker::Simple(f) => f(big),
        })
    }

    /// The dimensions `dimension_names` gives an array in group `gid`:
    /// shared by name within the group; an axis without a name gets
    /// netCDF-C's anonymous dimension `_Anonymous_Dim_<len>` in the root.
    fn v3_dims(
        &mut self,
        gid: GroupId,
        shape: &[u64],
        names: Option<&[Option<String>]>,
        key: &StoreKey,
    ) -> Result<Vec<DimId>, ZarrError> {
        if names.is_some_and(|n| n.len() != shape.len()) {
            return Err(ZarrError::meta(
                key,
                format!(
                    "dimension_names has {} entries for rank {}",
                    names.map_or(0, <[_]>::len),
                    shape.len()
                ),
            ));
        }
        let mut dims = vec![];
        for (k, &len) in shape.iter().enumerate() {
            let (group, dname) = match names.and_then(|n| n[k].as_deref()) {
                Some(n) if self.opts.xarray => (gid, n.to_string()),
                _ => (GroupId::ROOT, format!("_Anonymous_Dim_{len}")),
            };
            dims.push(self.shared_dim(group, &dname, len, key)?);
        }
        Ok(dims)
    }
}

/// The shard levels of a codec chain (outermost first) and the codecs of
/// its innermost chunks.
fn flatten(c: &ChunkCodecs) -> (Vec<ShardLevel>, Option<&ChunkCodecs>) {
    let mut levels = vec![];
    let mut cur = c;
    while let Repr::Sharded(level, inner) = &cur.repr {
        levels.push(level.clone());
        cur = inner;
    }
    (levels, Some(cur))
}
