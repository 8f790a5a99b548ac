//! Opening a Zarr / NCZarr dataset: metadata to a netCDF [`Schema`], and the
//! [`DataSource`] implementation.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

use bytes::Bytes;

use nctk_codec::{CodecContext, CodecError, Pipeline};
use nctk_model::{
    Attribute, DataSource, DimId, Endianness, GroupId, Layout, Schema, Selection, SourceError,
    Values, VarId, VarStorage,
};
use nctk_store::kv::{ReadListStore, StoreKey, StorePrefix};
use serde_json::{Map, Value};

use crate::attrs;
use crate::cell::Cell;
use crate::meta::{self, Dtype, ZArray, ZGroup, ZMetadata};
use crate::nczarr::{self, ArrayInfo, GroupInfo};
use crate::read::{read_selection, ArrayMeta};
use crate::ZarrError;

/// How to interpret a store, as netCDF-C's `#mode=` flags say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ZarrOptions {
    /// Read as pure Zarr (`mode=zarr`): ignore NCZarr metadata even when present.
    pub pure_zarr: bool,
    /// Use xarray's `_ARRAY_DIMENSIONS` for dimension names (off with `noxarray`).
    pub xarray: bool,
    /// Take metadata from the consolidated `.zmetadata` when present
    /// (`mode=consolidated`); otherwise from the individual objects.
    pub consolidated: bool,
}

impl Default for ZarrOptions {
    fn default() -> Self {
        ZarrOptions {
            pure_zarr: false,
            xarray: true,
            consolidated: false,
        }
    }
}

/// A Zarr v2 / NCZarr dataset opened for reading: a netCDF [`Schema`] and
/// chunked reads that touch only the chunks a selection needs.
///
/// `ZarrReader` is `Send + Sync`; share it between threads freely.
pub struct ZarrReader {
    store: Arc<dyn ReadListStore>,
    schema: Schema,
    arrays: Vec<ArrayMeta>,
    nczarr: bool,
}

impl std::fmt::Debug for ZarrReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ZarrReader")
            .field("nczarr", &self.nczarr)
            .field("variables", &self.arrays.len())
            .finish()
    }
}

fn key(s: &str) -> Result<StoreKey, ZarrError> {
    Ok(StoreKey::new(s)?)
}

struct Builder<'a> {
    store: &'a dyn ReadListStore,
    /// Metadata objects fetched ahead in one `get_many` (network stores),
    /// by key: `None` for a missing one.
    prefetched: RefCell<HashMap<String, Option<Bytes>>>,
    consolidated: Option<Map<String, Value>>,
    opts: ZarrOptions,
    nczarr: bool,
    schema: Schema,
    arrays: Vec<ArrayMeta>,
}

/// The metadata objects a group's or an array's opening may read.
const GROUP_KEYS: [&str; 5] = [".zattrs", ".nczattr", ".nczattrs", ".nczgroup", ".nczarr"];
/// The metadata objects of a group's children read while opening it.
const CHILD_KEYS: [&str; 5] = [".zarray", ".zgroup", ".zattrs", ".nczattr", ".nczattrs"];

impl Builder<'_> {
    /// The object at `k`: fetched ahead, or fetched now.
    fn get(&self, k: &StoreKey) -> Result<Option<Bytes>, ZarrError> {
        if let Some(v) = self.prefetched.borrow().get(k.as_str()) {
            return Ok(v.clone());
        }
        Ok(self.store.get(k)?)
    }

    /// Fetches `names` under each of `prefixes` in one batch when the
    /// store is a network store (a request costs a round trip; opening
    /// would otherwise pay one per metadata object) and the metadata is not
    /// consolidated.
    fn prefetch(&self, prefixes: &[StorePrefix], names: &[&str]) -> Result<(), ZarrError> {
        if self.consolidated.is_some() || !self.store.capabilities().fetch_ahead {
            return Ok(());
        }
        let mut keys = vec![];
        for p in prefixes {
            for n in names {
                let k = p.key(n)?;
                if !self.prefetched.borrow().contains_key(k.as_str()) {
                    keys.push(k);
                }
            }
        }
        let got = self.store.get_many(&keys)?;
        let mut memo = self.prefetched.borrow_mut();
        for (k, v) in keys.into_iter().zip(got) {
            memo.insert(k.as_str().to_string(), v);
        }
        Ok(())
    }

    /// The JSON object at `k`, or `None` when absent.
    fn json(&self, k: &StoreKey) -> Result<Option<Value>, ZarrError> {
        if let Some(c) = &self.consolidated {
            if let Some(v) = c.get(k.as_str()) {
                return Ok(Some(v.clone()));
            }
            if k.name().starts_with(".z") {
                return Ok(None);
            }
        }
        match self.get(k)? {
            None => Ok(None),
            Some(bytes) => crate::json::parse(k.as_str(), &bytes).map(Some),
        }
    }

    /// The `.zattrs` object under `prefix` (empty when absent), with bare
    /// `NaN` / `Infinity` tokens marked as numbers (see [`crate::json::parse_attrs`]).
    fn attrs_of(&self, prefix: &StorePrefix) -> Result<Map<String, Value>, ZarrError> {
        let k = prefix.key(".zattrs")?;
        let v = match &self.consolidated {
            Some(c) => c.get(k.as_str()).cloned(),
            None => match self.get(&k)? {
                None => None,
                Some(bytes) => Some(crate::json::parse_attrs(k.as_str(), &bytes)?),
            },
        };
        match v {
            None => Ok(Map::new()),
            Some(Value::Object(m)) => Ok(m),
            Some(other) => Err(ZarrError::meta(
                &k,
                format!("expected a JSON object, found {}", kind(&other)),
            )),
        }
    }

    fn attr_types(
        &self,
        prefix: &StorePrefix,
        zattrs: &Map<String, Value>,
        extra: &Map<String, Value>,
    ) -> Result<HashMap<String, String>, ZarrError> {
        // Recorded types are used in pure Zarr mode too, as netCDF-C does
        // (4.9.0 and 4.10.1 both read an NCZarr store's `valid_range` as
        // float with `mode=zarr`).
        if let Some(v) = nczarr::lookup(&[zattrs, extra], "_nczarr_attr") {
            return Ok(nczarr::parse_attr_types(v));
        }
        for v1 in [".nczattr", ".nczattrs"] {
            if let Some(v) = self.json(&prefix.key(v1)?)? {
                return Ok(nczarr::parse_attr_types(&v));
            }
        }
        Ok(HashMap::new())
    }

    fn attributes(
        &self,
        zattrs: &Map<String, Value>,
        types: &HashMap<String, String>,
    ) -> Vec<Attribute> {
        zattrs
            .iter()
            .filter(|(name, _)| !attrs::is_hidden(name) || *name == "_NCProperties")
            .map(|(name, v)| {
                Attribute::new(
                    name.clone(),
                    attrs::to_values(v, types.get(name).map(String::as_str)),
                )
            })
            .collect()
    }

    fn group(
        &mut self,
        gid: GroupId,
        prefix: &StorePrefix,
        zgroup: &ZGroup,
    ) -> Result<(), ZarrError> {
        self.prefetch(std::slice::from_ref(prefix), &GROUP_KEYS)?;
        let zattrs = self.attrs_of(prefix)?;
        let types = self.attr_types(prefix, &zattrs, &zgroup.extra)?;
        for a in self.attributes(&zattrs, &types) {
            self.schema.set_attr(gid, None, a);
        }
        let gkey = prefix.key(".zgroup")?;
        let info: Option<GroupInfo> = if self.nczarr {
            match nczarr::lookup(&[&zattrs, &zgroup.extra], "_nczarr_group") {
                Some(v) => Some(nczarr::parse_group(gkey.as_str(), v)?),
                None => match self.json(&prefix.key(".nczgroup")?)? {
                    Some(v) => Some(nczarr::parse_group(prefix.key(".nczgroup")?.as_str(), &v)?),
                    None => None,
                },
            }
        } else {
            None
        };
        let (arrays, groups) = match info {
            Some(info) => {
                for d in &info.dims {
                    let name =
                        nctk_model::name::normalize(&d.name).unwrap_or_else(|_| d.name.clone());
                    self.schema
                        .add_dim(gid, &name, d.size, d.unlimited)
                        .map_err(|e| ZarrError::meta(&gkey, e.to_string()))?;
                }
                (info.arrays, info.groups)
            }
            None => self.list_children(prefix)?,
        };
        let children = arrays
            .iter()
            .chain(&groups)
            .map(|name| prefix.child(name))
            .collect::<Result<Vec<_>, _>>()?;
        self.prefetch(&children, &CHILD_KEYS)?;
        for name in &arrays {
            self.array(gid, name, &prefix.child(name)?)?;
        }
        for name in &groups {
            let child = prefix.child(name)?;
            let zk = child.key(".zgroup")?;
            let Some(obj) = self.json(&zk)? else {
                return Err(ZarrError::meta(
                    &gkey,
                    format!("group {name:?} is listed but {zk} does not exist"),
                ));
            };
            let zg: ZGroup = meta::from_value(zk.as_str(), obj)?;
            let gname = nctk_model::name::normalize(name).unwrap_or_else(|_| name.clone());
            let cid = self
                .schema
                .add_group(gid, &gname)
                .map_err(|e| ZarrError::meta(&zk, e.to_string()))?;
            self.group(cid, &child, &zg)?;
        }
        Ok(())
    }

    /// Arrays and groups directly under `prefix`, found by listing.
    fn list_children(&self, prefix: &StorePrefix) -> Result<(Vec<String>, Vec<String>), ZarrError> {
        let names: Vec<String> = match &self.consolidated {
            Some(c) => {
                let skip = if prefix.is_root() {
                    0
                } else {
                    prefix.as_str().len() + 1
                };
                let mut v: Vec<String> = c
                    .keys()
                    .filter_map(|k| StoreKey::new(k.as_str()).ok())
                    .filter(|k| k.is_under(prefix))
                    .filter_map(|k| {
                        k.as_str()[skip..]
                            .split_once('/')
                            .map(|(a, _)| a.to_string())
                    })
                    .collect();
                v.sort();
                v.dedup();
                v
            }
            None => self
                .store
                .list_dir(prefix)?
                .prefixes
                .iter()
                .map(|p| p.name().to_string())
                .collect(),
        };
        let children = names
            .iter()
            .map(|name| prefix.child(name))
            .collect::<Result<Vec<_>, _>>()?;
        self.prefetch(&children, &CHILD_KEYS)?;
        let (mut arrays, mut groups) = (vec![], vec![]);
        for name in names {
            let child = prefix.child(&name)?;
            if self.exists(&child.key(".zarray")?)? {
                arrays.push(name);
            } else if self.exists(&child.key(".zgroup")?)? {
                groups.push(name);
            }
        }
        Ok((arrays, groups))
    }

    fn exists(&self, k: &StoreKey) -> Result<bool, ZarrError> {
        if let Some(c) = &self.consolidated {
            return Ok(c.contains_key(k.as_str()));
        }
        if let Some(v) = self.prefetched.borrow().get(k.as_str()) {
            return Ok(v.is_some());
        }
        Ok(self.store.size(k)?.is_some())
    }

    fn array(&mut self, gid: GroupId, name: &str, prefix: &StorePrefix) -> Result<(), ZarrError> {
        let zk = prefix.key(".zarray")?;
        let Some(obj) = self.json(&zk)? else {
            return Err(ZarrError::meta(
                &zk,
                format!("array {name:?} is listed but its .zarray does not exist"),
            ));
        };
        let za: ZArray = meta::from_value(zk.as_str(), obj)?;
        let bad = |reason: String| ZarrError::meta(&zk, reason);
        if za.zarr_format != 2 {
            return Err(bad(format!(
                "zarr_format {} is not supported (only 2)",
                za.zarr_format
            )));
        }
        if za.chunks.len() != za.shape.len() {
            return Err(bad(format!(
                "chunks has {} entries but shape has {}",
                za.chunks.len(),
                za.shape.len()
            )));
        }
        if let Some(d) = za.chunks.iter().position(|&c| c == 0) {
            return Err(bad(format!("chunk length 0 in dimension {d}")));
        }
        let dtype_text = za
            .dtype
            .as_str()
            .ok_or_else(|| ZarrError::UnsupportedDtype {
                key: zk.to_string(),
                dtype: za.dtype.to_string(),
                reason: "structured dtypes are not supported",
            })?;
        let dtype = Dtype::parse(dtype_text).ok_or_else(|| ZarrError::UnsupportedDtype {
            key: zk.to_string(),
            dtype: dtype_text.to_string(),
            reason:
                "not a Zarr v2 dtype netCDF can hold (b1, i1-i8, u1-u8, f2, f4, f8, S<n>, U<n>)",
        })?;
        let order_f = match za.order.as_str() {
            "C" => false,
            "F" => true,
            other => return Err(bad(format!("order {other:?} is neither \"C\" nor \"F\""))),
        };
        let separator = match za.dimension_separator.as_deref() {
            None | Some(".") => '.',
            Some("/") => '/',
            Some(other) => {
                return Err(bad(format!(
                    "dimension_separator {other:?} is neither \".\" nor \"/\""
                )))
            }
        };
        // Element counts and sizes must not overflow.
        za.shape
            .iter()
            .try_fold(1u64, |a, &s| a.checked_mul(s))
            .and_then(|n| n.checked_mul(dtype.itemsize()))
            .ok_or_else(|| bad("shape overflows".into()))?;
        za.chunks
            .iter()
            .try_fold(1u64, |a, &s| a.checked_mul(s))
            .and_then(|n| n.checked_mul(dtype.itemsize()))
            .filter(|&n| usize::try_from(n).is_ok())
            .ok_or_else(|| bad("chunk size overflows".into()))?;

        let zattrs = self.attrs_of(prefix)?;
        let types = self.attr_types(prefix, &zattrs, &za.extra)?;
        let info: Option<ArrayInfo> = if self.nczarr {
            match nczarr::lookup(&[&zattrs, &za.extra], "_nczarr_array") {
                Some(v) => Some(nczarr::parse_array(zk.as_str(), v)?),
                None => match self.json(&prefix.key(".nczarray")?)? {
                    Some(v) => Some(nczarr::parse_array(zk.as_str(), &v)?),
                    None => None,
                },
            }
        } else {
            None
        };
        let cell = Cell::for_dtype(dtype, !self.nczarr);

        let nc_scalar = info.as_ref().is_some_and(|i| i.scalar);
        let dims: Vec<DimId> = if nc_scalar {
            if za.shape.iter().product::<u64>() != 1 {
                return Err(bad("a netCDF scalar must have exactly one element".into()));
            }
            vec![]
        } else if let Some(info) = info
            .as_ref()
            .filter(|i| !i.dimrefs.is_empty() || za.shape.is_empty())
        {
            if info.dimrefs.len() != za.shape.len() {
                return Err(bad(format!(
                    "{} dimension references for a shape of rank {}",
                    info.dimrefs.len(),
                    za.shape.len()
                )));
            }
            let mut dims = vec![];
            for (r, &len) in info.dimrefs.iter().zip(&za.shape) {
                let (gpath, dname) = nczarr::split_dimref(r);
                let d = self
                    .schema
                    .group_by_path(gpath)
                    .and_then(|g| {
                        self.schema
                            .group(g)
                            .dims
                            .iter()
                            .copied()
                            .find(|&d| self.schema.dim(d).name == dname)
                    })
                    .or_else(|| self.schema.dim_by_name(gid, dname))
                    .ok_or_else(|| bad(format!("dimension reference {r:?} names no dimension")))?;
                self.fit_dim(d, len, &zk)?;
                dims.push(d);
            }
            dims
        } else {
            let xdims = if self.opts.xarray {
                zattrs
                    .get("_ARRAY_DIMENSIONS")
                    .and_then(Value::as_array)
                    .filter(|a| a.len() == za.shape.len() && a.iter().all(Value::is_string))
            } else {
                None
            };
            let mut dims = vec![];
            for (k, &len) in za.shape.iter().enumerate() {
                let dname = match xdims {
                    Some(names) => names[k].as_str().unwrap_or_default().to_string(),
                    None => format!("_Anonymous_Dim_{len}"),
                };
                let d = match self
                    .schema
                    .root()
                    .dims
                    .iter()
                    .copied()
                    .find(|&d| self.schema.dim(d).name == dname)
                {
                    Some(d) => {
                        self.fit_dim(d, len, &zk)?;
                        d
                    }
                    None => self
                        .schema
                        .add_dim(GroupId::ROOT, &dname, len, false)
                        .map_err(|e| bad(e.to_string()))?,
                };
                dims.push(d);
            }
            dims
        };

        let vname = nctk_model::name::normalize(name).unwrap_or_else(|_| name.to_string());
        let vid = self
            .schema
            .add_var(gid, &vname, cell.data_type(), &dims)
            .map_err(|e| bad(e.to_string()))?;
        let mut attributes = self.attributes(&zattrs, &types);
        // An untyped `_FillValue` takes the variable's type (netCDF-C 4.10.1).
        if !types.contains_key("_FillValue") {
            if let Some(a) = attributes.iter_mut().find(|a| a.name == "_FillValue") {
                if let Some(v) = zattrs
                    .get("_FillValue")
                    .and_then(|j| crate::cell::json_number_as(j, cell.data_type()))
                {
                    a.value = v;
                }
            }
        }
        // The fill: NCZarr's _FillValue attribute, else fill_value, else netCDF's default.
        let fill_attr = attributes
            .iter()
            .find(|a| {
                a.name == "_FillValue" && a.value.dtype() == cell.data_type() && !a.value.is_empty()
            })
            .map(|a| a.value.slice(0..1));
        for a in attributes {
            self.schema.set_attr(gid, Some(vid), a);
        }
        let fill = match fill_attr {
            Some(v) => values_to_cell(&cell, &v),
            None => None,
        };
        let stored_fill = match fill {
            Some(_) => None,
            None => cell
                .fill_bytes(&za.fill_value)
                .map_err(|source| ZarrError::FillValue {
                    key: zk.to_string(),
                    source,
                })?,
        };
        let fill = match fill {
            Some(f) => f,
            None => match stored_fill.clone() {
                Some(f) => f,
                None => values_to_cell(&cell, &cell.data_type().default_fill())
                    .unwrap_or_else(|| vec![0; cell.width()]),
            },
        };

        let (pipeline, codec_error) = pipeline_for(&za, dtype_text);
        let storage = VarStorage {
            layout: if nc_scalar || za.shape.is_empty() {
                Layout::Contiguous
            } else {
                Layout::Chunked(za.chunks.clone())
            },
            filters: filter_text(&za, dtype_text),
            codecs: codecs_text(&za),
            endianness: match cell {
                Cell::Char | Cell::FixedBytes { .. } => None,
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
        };
        self.schema.var_mut(vid).storage = storage;
        self.arrays.push(ArrayMeta {
            prefix: prefix.clone(),
            shape: za.shape.clone(),
            chunks: za.chunks.clone(),
            cell,
            itemsize: dtype.itemsize(),
            order_f,
            separator,
            fill,
            pipeline,
            codec_error,
        });
        Ok(())
    }

    /// Checks an array's extent against a shared dimension; an unlimited
    /// dimension grows to the longest array.
    fn fit_dim(&mut self, d: DimId, len: u64, zk: &StoreKey) -> Result<(), ZarrError> {
        let dim = self.schema.dim_mut(d);
        if dim.len == len {
            return Ok(());
        }
        if dim.unlimited {
            dim.len = dim.len.max(len);
            return Ok(());
        }
        Err(ZarrError::meta(
            zk,
            format!(
                "dimension {:?} has length {} but the array's extent is {len}",
                dim.name, dim.len
            ),
        ))
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn values_to_cell(cell: &Cell, v: &Values) -> Option<Vec<u8>> {
    match (cell, v) {
        (Cell::Number { big, .. }, _) if v.dtype() == cell.data_type() => Some(v.to_bytes(*big)),
        (Cell::Char, Values::Char(c)) => Some(vec![c.first().copied().unwrap_or(0)]),
        (Cell::Half { big }, Values::Float(f)) => {
            let h = nctk_codec::half::f32_to_f16(f[0]);
            Some(if *big {
                h.to_be_bytes().to_vec()
            } else {
                h.to_le_bytes().to_vec()
            })
        }
        (Cell::FixedBytes { n }, Values::String(s)) => {
            let mut b = s.first().map(|s| s.as_bytes().to_vec()).unwrap_or_default();
            b.resize(*n, 0);
            Some(b)
        }
        _ => None,
    }
}

fn has_codecs(za: &ZArray) -> bool {
    !za.compressor.is_null() || za.filters.as_array().is_some_and(|f| !f.is_empty())
}

fn pipeline_for(za: &ZArray, dtype: &str) -> (Option<Pipeline>, Option<CodecError>) {
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

impl ZarrReader {
    /// Opens the dataset at the root of `store`.
    pub fn open(store: Arc<dyn ReadListStore>, opts: ZarrOptions) -> Result<ZarrReader, ZarrError> {
        let mut b = Builder {
            store: store.as_ref(),
            prefetched: RefCell::default(),
            consolidated: None,
            opts,
            nczarr: false,
            schema: Schema::new(),
            arrays: vec![],
        };
        // The root's metadata in one batch (network stores), the
        // consolidated metadata with it when asked for.
        let mut root_keys = vec![".zgroup", ".zarray"];
        root_keys.extend(GROUP_KEYS);
        if opts.consolidated {
            root_keys.push(".zmetadata");
        }
        b.prefetch(&[StorePrefix::root()], &root_keys)?;
        if opts.consolidated {
            if let Some(bytes) = b.get(&key(".zmetadata")?)? {
                let zm: ZMetadata = meta::from_value(
                    ".zmetadata",
                    crate::json::parse_attrs(".zmetadata", &bytes)?,
                )?;
                b.consolidated = Some(zm.metadata);
            }
        }
        let gk = key(".zgroup")?;
        let Some(zg) = b.json(&gk)? else {
            // A lone array at the root (zarr-python's `zarr.open(path)` on
            // an array): netCDF-C opens it as an empty dataset, since a
            // netCDF root group cannot be a variable. nctk does the same.
            if b.exists(&key(".zarray")?)? {
                return Ok(ZarrReader {
                    store,
                    schema: Schema::new(),
                    arrays: vec![],
                    nczarr: false,
                });
            }
            return Err(ZarrError::NotZarr {
                key: gk.to_string(),
                reason: "no .zgroup at the root of the store",
            });
        };
        let zgroup: ZGroup = meta::from_value(gk.as_str(), zg)?;
        if zgroup.zarr_format != 2 {
            return Err(ZarrError::meta(
                &gk,
                format!(
                    "zarr_format {} is not supported (only 2)",
                    zgroup.zarr_format
                ),
            ));
        }
        let root_attrs = b.attrs_of(&StorePrefix::root())?;
        let has_superblock = nczarr::lookup(&[&root_attrs, &zgroup.extra], "_nczarr_superblock")
            .is_some()
            || b.exists(&key(".nczarr")?)?;
        b.nczarr = has_superblock && !opts.pure_zarr;
        b.group(GroupId::ROOT, &StorePrefix::root(), &zgroup)?;
        let Builder {
            schema,
            arrays,
            nczarr,
            ..
        } = b;
        Ok(ZarrReader {
            store,
            schema,
            arrays,
            nczarr,
        })
    }

    /// True when the dataset was read with its NCZarr metadata.
    pub fn is_nczarr(&self) -> bool {
        self.nczarr
    }

    /// Reads the selected values of `var`, as [`DataSource::read`] does,
    /// with this crate's error type.
    pub fn read_values(&self, var: VarId, selection: &Selection) -> Result<Values, ZarrError> {
        let v = self.schema.var(var);
        let meta = &self.arrays[var.0 as usize];
        let shape = self.schema.shape(var);
        selection
            .check(&shape, false)
            .map_err(|e| ZarrError::Request {
                var: v.name.clone(),
                reason: e.to_string(),
            })?;
        // A netCDF scalar stored with Zarr shape [1]; an unlimited dimension
        // may be longer than this array: read past its end as fill.
        let zsel = if shape.is_empty() && !meta.shape.is_empty() {
            Selection::all(&meta.shape)
        } else {
            selection.clone()
        };
        if zsel
            .start
            .iter()
            .zip(&zsel.count)
            .zip(&zsel.stride)
            .zip(&meta.shape)
            .any(|(((&s, &c), &st), &len)| c > 0 && s + (c - 1) * st >= len)
        {
            return self.read_padded(var, meta, &zsel);
        }
        read_selection(self.store.as_ref(), meta, &v.name, &zsel)
    }

    /// Reads a selection reaching past the array's own extent (an array
    /// shorter than its unlimited dimension): the part inside is read, the
    /// rest is fill.
    fn read_padded(
        &self,
        var: VarId,
        meta: &ArrayMeta,
        sel: &Selection,
    ) -> Result<Values, ZarrError> {
        let name = &self.schema.var(var).name;
        let n = sel.num_elements().unwrap_or(0) as usize;
        let fill = meta.cell.decode(&meta.fill);
        let mut out = Values::with_capacity(fill.dtype(), n);
        // Element by element along the selection (rare path).
        let rank = sel.rank();
        let mut j = vec![0u64; rank];
        for _ in 0..n {
            let idx: Vec<u64> = (0..rank)
                .map(|d| sel.start[d] + j[d] * sel.stride[d])
                .collect();
            if idx.iter().zip(&meta.shape).all(|(&i, &len)| i < len) {
                let one = Selection::block(&idx, &vec![1; rank]);
                out.extend_from(&read_selection(self.store.as_ref(), meta, name, &one)?);
            } else {
                out.extend_from(&fill);
            }
            for d in (0..rank).rev() {
                j[d] += 1;
                if j[d] < sel.count[d] {
                    break;
                }
                j[d] = 0;
            }
        }
        Ok(out)
    }
}

impl DataSource for ZarrReader {
    fn schema(&self) -> &Schema {
        &self.schema
    }

    fn read(&self, var: VarId, selection: &Selection) -> Result<Values, SourceError> {
        Ok(self.read_values(var, selection)?)
    }

    fn format(&self) -> nctk_model::Format {
        nctk_model::Format::Netcdf4
    }
}

#[allow(dead_code)]
fn _assert_send_sync() {
    fn is<T: Send + Sync>() {}
    is::<ZarrReader>();
}
