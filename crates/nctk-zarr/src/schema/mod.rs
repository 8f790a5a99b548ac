//! A store's Zarr / NCZarr metadata read into a netCDF [`Schema`]: groups,
//! dimensions, variables and their attributes, as netCDF-C reads them, and
//! for each variable what reading its chunks needs ([`ArrayMeta`]).

use std::cell::RefCell;
use std::collections::HashMap;

use bytes::Bytes;

use nctk_model::{Attribute, DimId, GroupId, Schema, Values};
use nctk_store::kv::{ReadListStore, StoreKey, StorePrefix};
use serde_json::{Map, Value};

use crate::attrs;
use crate::cell::Cell;
use crate::layout::{ChunkKeys, ChunkOrder};
use crate::meta::{self, Dtype, ZArray, ZGroup, ZMetadata};
use crate::nczarr::{self, ArrayInfo, GroupInfo};
use crate::selection::ArrayMeta;
use crate::storage::{pipeline_for, var_storage};
use crate::ZarrError;

mod v3;

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

/// What a store's metadata says: the netCDF schema, one [`ArrayMeta`] per
/// variable (in variable order), and whether NCZarr metadata was used.
pub(crate) struct Built {
    /// The dataset's schema.
    pub schema: Schema,
    /// What reading each variable needs, indexed by `VarId`.
    pub arrays: Vec<ArrayMeta>,
    /// True when the dataset was read with its NCZarr metadata.
    pub nczarr: bool,
}

/// Reads the metadata of the dataset at the root of `store` into a schema.
pub(crate) fn build(store: &dyn ReadListStore, opts: ZarrOptions) -> Result<Built, ZarrError> {
    let mut b = Builder {
        store,
        prefetched: RefCell::default(),
        consolidated: None,
        opts,
        nczarr: false,
        schema: Schema::new(),
        arrays: vec![],
        v3_nodes: None,
    };
    b.root_metadata()?;
    let gk = key(".zgroup")?;
    let Some(zg) = b.json(&gk)? else {
        // A lone array at the root (zarr-python's `zarr.open(path)` on
        // an array): netCDF-C opens it as an empty dataset, since a
        // netCDF root group cannot be a variable. nctk does the same.
        if b.exists(&key(".zarray")?)? {
            return Ok(Built {
                schema: Schema::new(),
                arrays: vec![],
                nczarr: false,
            });
        }
        let v3 = key(v3::ZARR_JSON)?;
        if let Some(root) = b.json(&v3)? {
            b.v3_root(root, &v3)?;
            return Ok(b.built());
        }
        return Err(ZarrError::NotZarr {
            key: gk.to_string(),
            reason: "neither .zgroup (Zarr v2) nor zarr.json (Zarr v3) at the root of the store",
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
    Ok(b.built())
}

fn key(s: &str) -> Result<StoreKey, ZarrError> {
    Ok(StoreKey::new(s)?)
}

/// Reads a store's metadata into a schema, group by group and array by
/// array.
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
    /// Zarr v3: the root's inline consolidated metadata, node JSON by path.
    v3_nodes: Option<Map<String, Value>>,
}

/// The metadata objects a group's or an array's opening may read.
const GROUP_KEYS: [&str; 5] = [".zattrs", ".nczattr", ".nczattrs", ".nczgroup", ".nczarr"];
/// The metadata objects of a group's children read while opening it.
const CHILD_KEYS: [&str; 5] = [".zarray", ".zgroup", ".zattrs", ".nczattr", ".nczattrs"];

impl Builder<'_> {
    /// What was read.
    fn built(self) -> Built {
        Built {
            schema: self.schema,
            arrays: self.arrays,
            nczarr: self.nczarr,
        }
    }

    /// Fetches the root's metadata in one batch (network stores), the
    /// consolidated metadata with it when asked for, and keeps the
    /// consolidated metadata when there is one.
    fn root_metadata(&mut self) -> Result<(), ZarrError> {
        let mut root_keys = vec![".zgroup", ".zarray", v3::ZARR_JSON];
        root_keys.extend(GROUP_KEYS);
        if self.opts.consolidated {
            root_keys.push(".zmetadata");
        }
        self.prefetch(&[StorePrefix::root()], &root_keys)?;
        if self.opts.consolidated {
            if let Some(bytes) = self.get(&key(".zmetadata")?)? {
                let zm: ZMetadata = meta::from_value(
                    ".zmetadata",
                    crate::json::parse_attrs(".zmetadata", &bytes)?,
                )?;
                self.consolidated = Some(zm.metadata);
            }
        }
        Ok(())
    }

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
            None => self.listed(prefix)?,
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

    /// The names of the prefixes directly under `prefix` in the store.
    fn listed(&self, prefix: &StorePrefix) -> Result<Vec<String>, ZarrError> {
        Ok(self
            .store
            .list_dir(prefix)?
            .prefixes
            .iter()
            .map(|p| p.name().to_string())
            .collect())
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

    /// Adds the array `name` at `prefix` to group `gid`: its variable, with
    /// dimensions, attributes and storage, and what reading it needs.
    fn array(&mut self, gid: GroupId, name: &str, prefix: &StorePrefix) -> Result<(), ZarrError> {
        let zk = prefix.key(".zarray")?;
        let za = self.zarray(name, &zk)?;
        let (za, object) = without_vlen_filter(za, &zk)?;
        let (dtype_text, cell, itemsize) = match object {
            Some(_) => ("|O", Cell::VlenString, 8),
            None => {
                let (text, dtype) = dtype_of(&za, &zk)?;
                (text, Cell::for_dtype(dtype, !self.nczarr), dtype.itemsize())
            }
        };
        let (order, keys) = order_and_keys(&za, &zk)?;
        check_sizes(&za, itemsize, &zk)?;

        let zattrs = self.attrs_of(prefix)?;
        let types = self.attr_types(prefix, &zattrs, &za.extra)?;
        let info = self.array_info(prefix, &zk, &zattrs, &za)?;
        let nc_scalar = info.as_ref().is_some_and(|i| i.scalar);
        let dims = self.array_dims(gid, &za, info.as_ref(), &zattrs, &zk)?;

        let vname = nctk_model::name::normalize(name).unwrap_or_else(|_| name.to_string());
        let vid = self
            .schema
            .add_var(gid, &vname, cell.data_type(), &dims)
            .map_err(|e| ZarrError::meta(&zk, e.to_string()))?;
        let attributes = var_attributes(self.attributes(&zattrs, &types), &zattrs, &types, cell);
        let fill_attr = fill_attribute(&attributes, cell);
        for a in attributes {
            self.schema.set_attr(gid, Some(vid), a);
        }
        let (fill, stored_fill) = fills(fill_attr, &za.fill_value, cell, &zk)?;

        let (pipeline, codec_error) = pipeline_for(&za, dtype_text);
        self.schema.var_mut(vid).storage =
            var_storage(&za, dtype_text, cell, nc_scalar, stored_fill);
        self.arrays.push(ArrayMeta {
            prefix: prefix.clone(),
            shape: za.shape.clone(),
            chunks: za.chunks.clone(),
            cell,
            itemsize,
            order,
            keys,
            shards: None,
            grid: None,
            json_items: object == Some("json2"),
            fill,
            pipeline,
            codec_error: codec_error.map(|e| (zk.to_string(), e)),
        });
        Ok(())
    }

    /// The `.zarray` at `zk` of the array `name`, checked to be Zarr v2
    /// with one nonzero chunk length per dimension.
    fn zarray(&self, name: &str, zk: &StoreKey) -> Result<ZArray, ZarrError> {
        let Some(obj) = self.json(zk)? else {
            return Err(ZarrError::meta(
                zk,
                format!("array {name:?} is listed but its .zarray does not exist"),
            ));
        };
        let za: ZArray = meta::from_value(zk.as_str(), obj)?;
        let bad = |reason: String| ZarrError::meta(zk, reason);
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
        Ok(za)
    }

    /// The array's NCZarr facts (`_nczarr_array` in its attributes or
    /// `.zarray`, else the older `.nczarray`), when read as NCZarr.
    fn array_info(
        &self,
        prefix: &StorePrefix,
        zk: &StoreKey,
        zattrs: &Map<String, Value>,
        za: &ZArray,
    ) -> Result<Option<ArrayInfo>, ZarrError> {
        if !self.nczarr {
            return Ok(None);
        }
        Ok(
            match nczarr::lookup(&[zattrs, &za.extra], "_nczarr_array") {
                Some(v) => Some(nczarr::parse_array(zk.as_str(), v)?),
                None => match self.json(&prefix.key(".nczarray")?)? {
                    Some(v) => Some(nczarr::parse_array(zk.as_str(), &v)?),
                    None => None,
                },
            },
        )
    }

    /// The dimensions of an array in group `gid`: none for a netCDF
    /// scalar; those its NCZarr dimension references name; else root
    /// dimensions named by xarray's `_ARRAY_DIMENSIONS` or anonymous.
    fn array_dims(
        &mut self,
        gid: GroupId,
        za: &ZArray,
        info: Option<&ArrayInfo>,
        zattrs: &Map<String, Value>,
        zk: &StoreKey,
    ) -> Result<Vec<DimId>, ZarrError> {
        if info.is_some_and(|i| i.scalar) {
            if za.shape.iter().product::<u64>() != 1 {
                return Err(ZarrError::meta(
                    zk,
                    "a netCDF scalar must have exactly one element",
                ));
            }
            return Ok(vec![]);
        }
        match info.filter(|i| !i.dimrefs.is_empty() || za.shape.is_empty()) {
            Some(info) => self.referenced_dims(gid, &info.dimrefs, &za.shape, zk),
            None => self.root_dims(za, zattrs, zk),
        }
    }

    /// The dimensions NCZarr's references (`/g/name` or `name`) name, one
    /// per extent of `shape`, each fitted to its extent.
    fn referenced_dims(
        &mut self,
        gid: GroupId,
        dimrefs: &[String],
        shape: &[u64],
        zk: &StoreKey,
    ) -> Result<Vec<DimId>, ZarrError> {
        let bad = |reason: String| ZarrError::meta(zk, reason);
        if dimrefs.len() != shape.len() {
            return Err(bad(format!(
                "{} dimension references for a shape of rank {}",
                dimrefs.len(),
                shape.len()
            )));
        }
        let mut dims = vec![];
        for (r, &len) in dimrefs.iter().zip(shape) {
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
            self.fit_dim(d, len, zk)?;
            dims.push(d);
        }
        Ok(dims)
    }

    /// Root dimensions for a pure Zarr array: named by xarray's
    /// `_ARRAY_DIMENSIONS` (unless `noxarray`), else `_Anonymous_Dim_<len>`;
    /// shared with earlier arrays by name, else added.
    fn root_dims(
        &mut self,
        za: &ZArray,
        zattrs: &Map<String, Value>,
        zk: &StoreKey,
    ) -> Result<Vec<DimId>, ZarrError> {
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
            dims.push(self.shared_dim(GroupId::ROOT, &dname, len, zk)?);
        }
        Ok(dims)
    }

    /// The dimension `name` of `group` fitted to an array's extent `len`,
    /// added when the group has none of that name.
    fn shared_dim(
        &mut self,
        group: GroupId,
        name: &str,
        len: u64,
        zk: &StoreKey,
    ) -> Result<DimId, ZarrError> {
        let found = self
            .schema
            .group(group)
            .dims
            .iter()
            .copied()
            .find(|&d| self.schema.dim(d).name == name);
        match found {
            Some(d) => {
                self.fit_dim(d, len, zk)?;
                Ok(d)
            }
            None => self
                .schema
                .add_dim(group, name, len, false)
                .map_err(|e| ZarrError::meta(zk, e.to_string())),
        }
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

/// The dtype text of a `.zarray` and the dtype it names, when netCDF can
/// hold it.
fn dtype_of<'a>(za: &'a ZArray, zk: &StoreKey) -> Result<(&'a str, Dtype), ZarrError> {
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
        reason: "not a Zarr v2 dtype netCDF can hold (b1, i1-i8, u1-u8, f2, f4, f8, S<n>, U<n>)",
    })?;
    Ok((dtype_text, dtype))
}

/// The numcodecs filters that turn an object array's items into bytes.
const VLEN_FILTERS: [&str; 3] = ["vlen-utf8", "vlen-bytes", "json2"];

/// An object (`|O`) array's metadata without the vlen filter that
/// serialises its items (xarray's strings with `zarr_format=2`), and that
/// filter's id when it is one; an object array without one cannot be read.
fn without_vlen_filter(
    mut za: ZArray,
    zk: &StoreKey,
) -> Result<(ZArray, Option<&'static str>), ZarrError> {
    if za.dtype.as_str() != Some("|O") {
        return Ok((za, None));
    }
    let id = |f: &Value| f.get("id").and_then(Value::as_str).map(str::to_string);
    let filters = za.filters.as_array().cloned().unwrap_or_default();
    let Some(at) = filters
        .iter()
        .position(|f| id(f).is_some_and(|i| VLEN_FILTERS.contains(&i.as_str())))
    else {
        return Err(ZarrError::UnsupportedDtype {
            key: zk.to_string(),
            dtype: "|O".into(),
            reason: "an object array needs a vlen-utf8, vlen-bytes or json2 filter",
        });
    };
    let mut rest = filters;
    let filter = rest.remove(at);
    let name = VLEN_FILTERS
        .into_iter()
        .find(|f| id(&filter).as_deref() == Some(*f));
    za.filters = Value::Array(rest);
    Ok((za, name))
}

/// The order of elements in a chunk, and how chunk keys are made.
fn order_and_keys(za: &ZArray, zk: &StoreKey) -> Result<(ChunkOrder, ChunkKeys), ZarrError> {
    let bad = |reason: String| ZarrError::meta(zk, reason);
    let rank = za.shape.len();
    let order = match za.order.as_str() {
        "C" => ChunkOrder::c(rank),
        "F" => ChunkOrder::fortran(rank),
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
    Ok((order, ChunkKeys::V2 { separator }))
}

/// Checks that the array's and a chunk's element counts and sizes do not
/// overflow (a chunk's size must fit in memory's address space).
fn check_sizes(za: &ZArray, itemsize: u64, zk: &StoreKey) -> Result<(), ZarrError> {
    check_sizes_of(&za.shape, &za.chunks, itemsize, zk)
}

/// Checks that an array's and a chunk's element counts and sizes do not
/// overflow (a chunk's size must fit in memory's address space).
fn check_sizes_of(
    shape: &[u64],
    chunks: &[u64],
    itemsize: u64,
    zk: &StoreKey,
) -> Result<(), ZarrError> {
    let bad = |reason: &str| ZarrError::meta(zk, reason);
    shape
        .iter()
        .try_fold(1u64, |a, &s| a.checked_mul(s))
        .and_then(|n| n.checked_mul(itemsize))
        .ok_or_else(|| bad("shape overflows"))?;
    chunks
        .iter()
        .try_fold(1u64, |a, &s| a.checked_mul(s))
        .and_then(|n| n.checked_mul(itemsize))
        .filter(|&n| usize::try_from(n).is_ok())
        .ok_or_else(|| bad("chunk size overflows"))?;
    Ok(())
}

/// A variable's `attributes` as read, with an untyped `_FillValue` given
/// the variable's type (netCDF-C 4.10.1).
fn var_attributes(
    mut attributes: Vec<Attribute>,
    zattrs: &Map<String, Value>,
    types: &HashMap<String, String>,
    cell: Cell,
) -> Vec<Attribute> {
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
    attributes
}

/// The first value of a `_FillValue` attribute of the variable's type.
fn fill_attribute(attributes: &[Attribute], cell: Cell) -> Option<Values> {
    attributes
        .iter()
        .find(|a| {
            a.name == "_FillValue" && a.value.dtype() == cell.data_type() && !a.value.is_empty()
        })
        .map(|a| a.value.slice(0..1))
}

/// The fill a read uses, one cell: NCZarr's `_FillValue` attribute
/// (`fill_attr`), else `fill_value`, else netCDF's default; and the
/// stored `fill_value` when it is the one used (what the variable's
/// storage reports).
fn fills(
    fill_attr: Option<Values>,
    fill_value: &Value,
    cell: Cell,
    zk: &StoreKey,
) -> Result<(Vec<u8>, Option<Vec<u8>>), ZarrError> {
    let fill = match fill_attr {
        Some(v) => values_to_cell(&cell, &v),
        None => None,
    };
    let stored_fill = match fill {
        Some(_) => None,
        None => cell
            .fill_bytes(fill_value)
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
    Ok((fill, stored_fill))
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
            let mut b = s
                .first()
                .and_then(|s| s.as_deref())
                .unwrap_or_default()
                .as_bytes()
                .to_vec();
            b.resize(*n, 0);
            Some(b)
        }
        _ => None,
    }
}
