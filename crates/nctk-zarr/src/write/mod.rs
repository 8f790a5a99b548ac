//! Writing NCZarr and Zarr v2 stores.
//!
//! [`ZarrWriter::create`] takes a complete [`Schema`] (groups, shared and
//! unlimited dimensions, typed attributes, `_FillValue`, and each
//! variable's storage, [`nctk_model::VarStorage`]: chunking, codecs, byte
//! order, string width) and [`WriteOptions`] (the metadata layout, the
//! cache); then [`ZarrWriter::write`] puts hyperslabs of values and
//! [`ZarrWriter::finish`] stores the remaining chunks and the final
//! metadata (unlimited dimensions at the length written).
//!
//! A write touches only the chunks its selection covers. A chunk is
//! encoded and stored as soon as all of it has been written, on another
//! core (rayon) while the caller goes on writing; a selection that is
//! exactly one chunk becomes that chunk without a copy. Chunks written in
//! part wait in a cache of at most [`WriteOptions::cache_bytes`] (the least
//! recently touched is stored when it is full); a partial write of a chunk
//! already stored reads it back first. Memory is the cache plus one chunk,
//! decoded and encoded, per worker thread. Chunks never
//! written are not stored (they read as fill), as netCDF-C does; nor are
//! chunks holding only the fill value, as zarr-python's default
//! `write_empty_chunks=False` (unless [`WriteOptions::write_empty_chunks`]).
//! A sharded Zarr v3 array's chunks here are its inner chunks; a shard is
//! stored whole, with one put, once all of its inner chunks are encoded
//! (`shards`), so memory is then the cache plus the encoded bytes of the
//! shards being assembled.
//!
//! Layouts ([`WriteLayout`]): netCDF-C 4.9.3+ NCZarr (default), netCDF-C
//! 4.9.0 NCZarr, pure Zarr with or without `_ARRAY_DIMENSIONS`.

mod cache;
mod chain;
mod encode;
mod error;
mod image;
pub mod jsonval;
mod metadata;
mod options;
mod plan;
mod pool;
mod shards;
mod sink;
mod v3chain;
mod v3meta;

use std::borrow::Cow;
use std::sync::Arc;

use nctk_model::{DataType, NativeRef, Schema, Selection, Values, VarId};
use nctk_store::kv::{Bytes, ReadableStore, StoreKey, WritableStore};
use serde_json::Value;

pub use error::WriteError;
pub use metadata::numeric_dtype;
pub use options::{WriteLayout, WriteOptions};

use cache::{ChunkCache, ChunkWrite, Rows};
use encode::EncodeQueue;
use plan::ArrayPlan;

/// Checks the storage `schema` gives `var` ([`nctk_model::VarStorage`]:
/// chunk shape, codecs, string width, fill) as [`ZarrWriter::create`]
/// will, without a store: a define API refuses a bad setting at the call.
pub fn check_storage(schema: &Schema, var: VarId) -> Result<(), WriteError> {
    plan::plan(schema, var, WriteLayout::default())?;
    if schema.var(var).storage.shards.is_some() {
        plan::plan(schema, var, WriteLayout::ZarrV3 { nczarr: true })?;
    }
    Ok(())
}

/// A store the writer can both read (to update partial chunks) and write.
pub trait ReadWriteStore: ReadableStore + WritableStore {}

impl<T: ReadableStore + WritableStore + ?Sized> ReadWriteStore for T {}

/// Writes one dataset into a Zarr store; see the [module docs](self).
pub struct ZarrWriter {
    store: Arc<dyn ReadWriteStore>,
    schema: Schema,
    layout: WriteLayout,
    consolidated: bool,
    plans: Vec<ArrayPlan>,
    cache: ChunkCache,
    /// The options it was created with, for definitions given again
    /// before any variable ([`DataSink::define`](nctk_model::DataSink::define)).
    opts: WriteOptions,
    /// Opened on a store that already holds the dataset
    /// ([`open_existing`](Self::open_existing)): its metadata is never
    /// written, replaced or deleted.
    existing: bool,
}

impl std::fmt::Debug for ZarrWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ZarrWriter")
            .field("layout", &self.layout)
            .field("vars", &self.plans.len())
            .finish_non_exhaustive()
    }
}

impl ZarrWriter {
    /// Starts a dataset in `store` (which should be empty) and writes its
    /// metadata. Any store that reads and writes will do: a directory
    /// store, memory, or a zip being staged
    /// ([`nctk_store::kv::StagedZipStore`], archived by
    /// [`finish`](Self::finish)). Which store a path or URL names is the
    /// facade's business (`nctk`), never this crate's.
    pub fn create(
        store: Arc<dyn ReadWriteStore>,
        schema: &Schema,
        opts: &WriteOptions,
    ) -> Result<ZarrWriter, WriteError> {
        let w = ZarrWriter::new(store, schema, opts, false)?;
        w.write_metadata(false)?;
        Ok(w)
    }

    /// A writer of `schema` into `store`, its definitions checked and its
    /// arrays planned; nothing is stored yet.
    fn new(
        store: Arc<dyn ReadWriteStore>,
        schema: &Schema,
        opts: &WriteOptions,
        existing: bool,
    ) -> Result<ZarrWriter, WriteError> {
        let schema = &schema.writable()?;
        for v in schema.var_ids() {
            schema.check_fill_value(v)?;
        }
        check_names(schema)?;
        check_attribute_text(schema)?;
        let mut plans = Vec::with_capacity(schema.num_vars());
        for v in schema.var_ids() {
            plans.push(plan::plan(schema, v, opts.layout)?);
        }
        if opts.layout == WriteLayout::NcZarr490 {
            check_490(schema)?;
        }
        let pipelines = plans.iter().map(|p| p.chain.clone()).collect();
        let empty = plans
            .iter()
            .map(|p| (!opts.write_empty_chunks).then(|| p.fill_bytes.clone()))
            .collect();
        let layouts = plans.iter().map(|p| p.shards.clone()).collect();
        let queue = EncodeQueue::new(store.clone(), pipelines, empty, layouts, opts.cache_bytes);
        let w = ZarrWriter {
            store,
            schema: schema.clone(),
            layout: opts.layout,
            consolidated: opts.consolidated,
            plans,
            cache: ChunkCache::new(opts.cache_bytes, queue),
            opts: opts.clone(),
            existing,
        };
        Ok(w)
    }

    /// Opens `store`, which already holds `schema`'s dataset as this
    /// writer lays it out with `opts` (an earlier [`create`](Self::create)
    /// and [`finish`](Self::finish) with the same definitions made it), to
    /// write values into its arrays: every array's metadata object must be
    /// the one this writer would store (else [`WriteError::Schema`] names
    /// the first that differs), and none is written, replaced or deleted
    /// ([`finish`](Self::finish) stores the chunks and closes the store;
    /// [`abort`](Self::abort) drops the chunks not yet stored).
    ///
    /// Many writers may so fill disjoint regions of one store at once,
    /// from threads or processes, as long as no two touch the same chunk
    /// (a chunk written in part is read back, merged and stored again,
    /// which two writers at once would race on).
    pub fn open_existing(
        store: Arc<dyn ReadWriteStore>,
        schema: &Schema,
        opts: &WriteOptions,
    ) -> Result<ZarrWriter, WriteError> {
        let w = ZarrWriter::new(store, schema, opts, true)?;
        w.check_metadata()?;
        Ok(w)
    }

    /// Checks that the store holds the metadata object (`.zarray`, or a
    /// Zarr v3 `zarr.json`) of every array as this writer would store it.
    fn check_metadata(&self) -> Result<(), WriteError> {
        for v in self.schema.var_ids() {
            let plan = &self.plans[v.0 as usize];
            let (key, expected) = match self.layout {
                WriteLayout::ZarrV3 { nczarr } => {
                    let z = v3meta::array(&self.schema, v, plan, nczarr);
                    (format!("{}/{V3_META}", plan.prefix), v3meta::to_json(&z))
                }
                _ => {
                    let (zarray, _) = metadata::array_objects(&self.schema, v, plan, self.layout);
                    (format!("{}/.zarray", plan.prefix), zarray)
                }
            };
            let stored = self.store.get(&StoreKey::new(key.clone())?)?;
            let found: Option<Value> = stored.and_then(|b| serde_json::from_slice(&b).ok());
            if found.as_ref() != Some(&expected) {
                let reason = match found {
                    None => "the store does not hold this array",
                    Some(_) => {
                        "the store's array differs from the definitions given (shape, chunks, \
                         type, codecs or fill value)"
                    }
                };
                return Err(WriteError::Schema {
                    name: key,
                    reason: reason.into(),
                });
            }
        }
        Ok(())
    }

    /// The dataset's schema, unlimited dimensions at the length written so far.
    pub fn schema(&self) -> &Schema {
        &self.schema
    }

    /// The chunk lengths of `var` (empty for a scalar); `None` for an
    /// unknown variable. Writes aligned with them are the cheapest: a chunk
    /// written whole is stored at once, without a copy.
    pub fn chunk_shape(&self, var: VarId) -> Option<&[u64]> {
        self.plans.get(var.0 as usize).map(|p| p.chunks.as_slice())
    }

    /// Writes `values` (row-major, the selection's shape) to the selected
    /// elements of `var`. Numeric values are converted to the variable's
    /// type with netCDF's range checks. Unlimited dimensions grow to cover
    /// the selection.
    pub fn write(
        &mut self,
        var: VarId,
        sel: &Selection,
        values: &Values,
    ) -> Result<(), WriteError> {
        self.write_encoded(var, sel, values.len(), |plan, dtype| {
            plan.encode(&plan.prefix, values, dtype)
        })
    }

    /// As [`write`](Self::write), from a caller's slice, encoded straight
    /// from it (no [`Values`] copy of it is made).
    pub fn write_native(
        &mut self,
        var: VarId,
        sel: &Selection,
        values: NativeRef<'_>,
    ) -> Result<(), WriteError> {
        self.write_encoded(var, sel, values.len(), |plan, dtype| {
            plan.encode_native(&plan.prefix, values, dtype)
        })
    }

    /// Checks a write of `len` values to `sel` of `var`, then stores the
    /// chunk bytes `encode` makes of them (given the plan and the
    /// variable's type).
    fn write_encoded<'v>(
        &mut self,
        var: VarId,
        sel: &Selection,
        len: usize,
        encode: impl FnOnce(&ArrayPlan, DataType) -> Result<Cow<'v, [u8]>, WriteError>,
    ) -> Result<(), WriteError> {
        if var.0 as usize >= self.plans.len() {
            return Err(WriteError::Request {
                var: format!("variable {}", var.0),
                reason: "no such variable".into(),
            });
        }
        let plan = &self.plans[var.0 as usize];
        let v = self.schema.var(var);
        let req = |reason: String| WriteError::Request {
            var: plan.prefix.clone(),
            reason,
        };
        let dims = v.dims.clone();
        let scalar = dims.is_empty();
        let (sel, shape) = if scalar {
            (Selection::all(&[1]), vec![1u64])
        } else {
            (sel.clone(), self.schema.shape(var))
        };
        if sel.rank() != shape.len()
            || sel.count.len() != shape.len()
            || sel.stride.len() != shape.len()
        {
            return Err(req(format!(
                "selection has rank {} but the variable has rank {}",
                sel.rank(),
                dims.len()
            )));
        }
        let n = sel
            .num_elements()
            .ok_or_else(|| req("selection size overflows".into()))?;
        if n != len as u64 {
            return Err(req(format!(
                "selection holds {n} values but {len} were given"
            )));
        }
        if n == 0 {
            return Ok(());
        }
        let mut grow = vec![];
        for d in 0..shape.len() {
            if sel.stride[d] == 0 {
                return Err(req(format!("stride 0 in dimension {d}")));
            }
            let last = (sel.count[d] - 1)
                .checked_mul(sel.stride[d])
                .and_then(|x| x.checked_add(sel.start[d]))
                .ok_or_else(|| req(format!("dimension {d}: index overflows")))?;
            let unlimited = !scalar && self.schema.dim(dims[d]).unlimited;
            if last >= shape[d] {
                if !unlimited {
                    return Err(req(format!(
                        "dimension {d}: start {}, count {}, stride {} exceed length {}",
                        sel.start[d], sel.count[d], sel.stride[d], shape[d]
                    )));
                }
                grow.push((dims[d], last + 1));
            }
        }
        let src = encode(plan, v.dtype)?;
        for (d, len) in grow {
            self.schema.dim_mut(d).len = len;
        }
        self.scatter(var.0, &sel, src, scalar)
    }

    /// The codec chain of `var`'s stored chunks in the model's terms, when
    /// it has one (`ArrayPlan::stored_codecs`).
    pub fn stored_chunk_codecs(&self, var: VarId) -> Option<Vec<nctk_model::ChunkCodec>> {
        self.plans.get(var.0 as usize)?.stored_codecs()
    }

    /// Stores `bytes`, one whole chunk of `var` already encoded with its
    /// codecs ([`stored_chunk_codecs`](Self::stored_chunk_codecs)), as the
    /// chunk `sel` covers: `sel` starts at the chunk's first element and
    /// counts the chunk's lengths cut at the variable's fixed lengths;
    /// unlimited dimensions grow to cover it. `Ok(false)` when the
    /// variable's chunks have no such chain (nothing is stored).
    pub fn write_stored_chunk(
        &mut self,
        var: VarId,
        sel: &Selection,
        bytes: Vec<u8>,
    ) -> Result<bool, WriteError> {
        let Some(plan) = self.plans.get(var.0 as usize) else {
            return Err(WriteError::Request {
                var: format!("variable {}", var.0),
                reason: "no such variable".into(),
            });
        };
        if plan.stored_codecs().is_none() {
            return Ok(false);
        }
        let dims = self.schema.var(var).dims.clone();
        let shape = self.schema.shape(var);
        let chunks = &plan.chunks;
        let fits = |d: usize| {
            let (start, count, c) = (sel.start[d], sel.count[d], chunks[d]);
            let end = start.checked_add(count);
            let unlimited = self.schema.dim(dims[d]).unlimited;
            start % c == 0
                && count > 0
                && sel.stride[d] == 1
                && end.is_some_and(|e| {
                    (unlimited && count <= c) || e == shape[d].min(start.saturating_add(c))
                })
        };
        if sel.rank() != chunks.len()
            || sel.count.len() != chunks.len()
            || !(0..chunks.len()).all(fits)
        {
            return Err(WriteError::Request {
                var: plan.prefix.clone(),
                reason: format!(
                    "stored chunk selection start {:?} count {:?} is not one chunk of {chunks:?} in shape {shape:?}",
                    sel.start, sel.count
                ),
            });
        }
        let index: Vec<u64> = (0..chunks.len())
            .map(|d| sel.start[d] / chunks[d])
            .collect();
        for (d, &dim) in dims.iter().enumerate() {
            let end = sel.start[d] + sel.count[d];
            if self.schema.dim(dim).unlimited && end > self.schema.dim(dim).len {
                self.schema.dim_mut(dim).len = end;
            }
        }
        self.cache
            .put_encoded(&self.store, &self.plans, var.0, &index, bytes)?;
        Ok(true)
    }

    /// Copies encoded elements `src` (the selection's shape) into the
    /// chunks it covers; a selection that is exactly one chunk becomes that
    /// chunk (without a copy when `src` is owned).
    fn scatter(
        &mut self,
        var: u32,
        sel: &Selection,
        src: Cow<'_, [u8]>,
        scalar: bool,
    ) -> Result<(), WriteError> {
        let plan = &self.plans[var as usize];
        let width = plan.width;
        let chunks: Vec<u64> = if scalar { vec![1] } else { plan.chunks.clone() };
        let rank = chunks.len();
        // How far each dimension's chunks hold data that completes them:
        // the variable's length, or unbounded along unlimited dimensions.
        let extent: Vec<u64> = if scalar {
            vec![1]
        } else {
            let v = self.schema.var(VarId(var));
            v.dims
                .iter()
                .map(|&d| {
                    let dim = self.schema.dim(d);
                    if dim.unlimited {
                        u64::MAX
                    } else {
                        dim.len
                    }
                })
                .collect()
        };
        let first: Vec<u64> = (0..rank).map(|d| sel.start[d] / chunks[d]).collect();
        let last: Vec<u64> = (0..rank)
            .map(|d| (sel.start[d] + (sel.count[d] - 1) * sel.stride[d]) / chunks[d])
            .collect();
        let index_of = |ci: &[u64]| -> Vec<u64> {
            if scalar {
                vec![]
            } else {
                ci.to_vec()
            }
        };
        let exactly_one_chunk = first == last
            && (0..rank).all(|d| {
                sel.stride[d] == 1 && sel.count[d] == chunks[d] && sel.start[d] % chunks[d] == 0
            });
        if exactly_one_chunk {
            return self
                .cache
                .put_whole(&self.plans, var, &index_of(&first), src.into_owned());
        }
        // Strides of the source block (selection shape) and of a chunk, in elements.
        let mut src_stride = vec![1u64; rank];
        let mut chunk_stride = vec![1u64; rank];
        for d in (0..rank.saturating_sub(1)).rev() {
            src_stride[d] = src_stride[d + 1] * sel.count[d + 1];
            chunk_stride[d] = chunk_stride[d + 1] * chunks[d + 1];
        }
        let mut ci = first.clone();
        loop {
            // Selected k range per dimension inside chunk ci.
            let mut ranges = Vec::with_capacity(rank);
            for d in 0..rank {
                let lo = ci[d] * chunks[d];
                let hi = lo + chunks[d]; // exclusive
                let (s, st, c) = (sel.start[d], sel.stride[d], sel.count[d]);
                let k_lo = if lo > s { (lo - s).div_ceil(st) } else { 0 };
                let k_hi = if hi > s {
                    ((hi - 1 - s) / st + 1).min(c)
                } else {
                    0
                };
                ranges.push((k_lo, k_hi, lo));
            }
            if ranges.iter().all(|&(a, b, _)| a < b) {
                let elements: u64 = ranges.iter().map(|&(a, b, _)| b - a).product();
                let complete_at: u64 = (0..rank)
                    .map(|d| chunks[d].min(extent[d].saturating_sub(ranges[d].2)))
                    .product();
                let whole = elements == chunks.iter().product::<u64>()
                    && (0..rank).all(|d| sel.stride[d] == 1);
                let index = index_of(&ci);
                let w = ChunkWrite {
                    var,
                    index: &index,
                    elements,
                    complete_at,
                };
                self.cache
                    .update(&self.store, &self.plans, &w, whole, |buf, rows| {
                        let strides = (src_stride.as_slice(), chunk_stride.as_slice());
                        copy_block(buf, rows, &src, sel, &ranges, strides, width)
                    })?;
            }
            // Next chunk index.
            let mut d = rank;
            loop {
                if d == 0 {
                    return Ok(());
                }
                d -= 1;
                if ci[d] < last[d] {
                    ci[d] += 1;
                    break;
                }
                ci[d] = first[d];
            }
        }
    }

    /// Stores every chunk still held and the final metadata, then closes
    /// the store ([`WritableStore::close`]: a staged zip writes its archive).
    pub fn finish(mut self) -> Result<(), WriteError> {
        self.cache.flush(&self.plans)?;
        if !self.existing {
            self.write_metadata(true)?;
        }
        self.store.close()?;
        Ok(())
    }

    fn put_json(&self, key: String, v: &Value) -> Result<(), WriteError> {
        let key = StoreKey::new(key)?;
        // Zarr v3 metadata is UTF-8 JSON (zarr-python refuses anything
        // else): bytes that are not UTF-8 stay as their code points.
        let text = if self.layout.is_v3() {
            serde_json::to_vec_pretty(v).unwrap_or_default()
        } else {
            crate::json::to_bytes(v)
        };
        self.store.put(&key, Bytes::from(text))?;
        Ok(())
    }

    /// Stores every group's and array's metadata objects and, when asked
    /// for, the consolidated `.zmetadata` holding all of them (the layout
    /// zarr-python's `consolidate_metadata` writes). A Zarr v3 root
    /// `zarr.json`, which makes the store open as a dataset, is stored
    /// only when `complete` (by [`finish`](Self::finish)), after the rest.
    fn write_metadata(&self, complete: bool) -> Result<(), WriteError> {
        let objects = self.metadata_objects();
        let v3 = self.layout.is_v3();
        let count = objects.len() - usize::from(v3 && !complete);
        for (key, value) in &objects[..count] {
            self.put_json(key.clone(), value)?;
        }
        if self.consolidated && !v3 {
            let all: serde_json::Map<String, Value> = objects.into_iter().collect();
            let consolidated = serde_json::json!({
                "metadata": all,
                "zarr_consolidated_format": 1,
            });
            self.put_json(CONSOLIDATED.into(), &consolidated)?;
        }
        Ok(())
    }

    /// Every group's and array's metadata objects, keyed by store key (in
    /// Zarr v3, the root `zarr.json`, holding the others, last).
    fn metadata_objects(&self) -> Vec<(String, Value)> {
        if let WriteLayout::ZarrV3 { nczarr } = self.layout {
            return self.v3_objects(nczarr);
        }
        let mut objects: Vec<(String, Value)> = vec![];
        for g in self.schema.group_ids() {
            let (zgroup, zattrs) = metadata::group_objects(&self.schema, g, self.layout);
            let prefix = self.group_prefix(g);
            objects.push((format!("{prefix}.zgroup"), zgroup));
            if let Some(a) = zattrs {
                objects.push((format!("{prefix}.zattrs"), a));
            }
        }
        for v in self.schema.var_ids() {
            let plan = &self.plans[v.0 as usize];
            let (zarray, zattrs) = metadata::array_objects(&self.schema, v, plan, self.layout);
            objects.push((format!("{}/.zarray", plan.prefix), zarray));
            objects.push((format!("{}/.zattrs", plan.prefix), zattrs));
        }
        objects
    }

    /// The key prefix of group `g` (`""`, `"g/"`).
    fn group_prefix(&self, g: nctk_model::GroupId) -> String {
        let path = self.schema.group_path(g);
        if path == "/" {
            String::new()
        } else {
            format!("{}/", &path[1..])
        }
    }

    /// The `zarr.json` of every array and subgroup, then the root's,
    /// holding all of them as consolidated metadata.
    fn v3_objects(&self, nczarr: bool) -> Vec<(String, Value)> {
        let mut nodes = vec![];
        for g in self.schema.group_ids().skip(1) {
            let path = self.group_prefix(g).trim_end_matches('/').to_string();
            nodes.push((path, v3meta::group(&self.schema, g, nczarr)));
        }
        for v in self.schema.var_ids() {
            let plan = &self.plans[v.0 as usize];
            let z = v3meta::array(&self.schema, v, plan, nczarr);
            nodes.push((plan.prefix.clone(), z));
        }
        let root = v3meta::group(&self.schema, nctk_model::GroupId::ROOT, nczarr);
        let root = v3meta::consolidate(root, &nodes);
        nodes
            .into_iter()
            .map(|(path, z)| (format!("{path}/{V3_META}"), v3meta::to_json(&z)))
            .chain([(V3_META.to_string(), v3meta::to_json(&root))])
            .collect()
    }

    /// Deletes every metadata object this writer stored, so that the store
    /// no longer opens as a dataset.
    fn delete_metadata(&self) -> Result<(), WriteError> {
        let keys = self.metadata_objects().into_iter().map(|(k, _)| k);
        let extra = (!self.layout.is_v3()).then(|| CONSOLIDATED.to_string());
        for key in keys.chain(extra) {
            self.store.delete(&StoreKey::new(key)?)?;
        }
        Ok(())
    }

    /// Stops without finishing: chunks not yet stored are dropped (those
    /// being encoded finish first, so nothing writes into the store
    /// afterwards), the metadata is deleted, so the store does not open as
    /// a dataset, and a staged zip is dropped unarchived (its scratch
    /// directory goes with it). Chunks already stored stay, for the owner of the store to
    /// remove.
    pub fn abort(self) -> Result<(), WriteError> {
        if self.existing {
            drop(self);
            return Ok(());
        }
        let deleted = self.delete_metadata();
        drop(self);
        deleted
    }

    /// Takes definitions given again: the same ones change nothing; a
    /// writer created with no variables and no groups starts again with
    /// `schema` (nothing was written but metadata); anything else is
    /// refused, as a store is not redefined once it holds variables.
    pub(crate) fn redefine(&mut self, schema: &Schema) -> Result<(), WriteError> {
        if nctk_model::same_definitions(&self.schema, schema) {
            return Ok(());
        }
        if self.existing || self.schema.num_vars() > 0 || self.schema.group_ids().count() > 1 {
            return Err(WriteError::Schema {
                name: "/".into(),
                reason: "a Zarr store takes its definitions once, before its first variable: \
                         redefinition (adding or changing definitions) is not supported"
                    .into(),
            });
        }
        self.delete_metadata()?;
        let fresh = ZarrWriter::create(self.store.clone(), schema, &self.opts)?;
        *self = fresh;
        Ok(())
    }
}

/// The key of consolidated metadata.
const CONSOLIDATED: &str = ".zmetadata";

/// The metadata object of a Zarr v3 node.
const V3_META: &str = "zarr.json";

/// Copies the elements of one chunk's share of the selection, each row of
/// the chunk prepared by `rows` (when it started as zeroed memory).
fn copy_block(
    buf: &mut [u8],
    mut rows: Option<&mut Rows>,
    src: &[u8],
    sel: &Selection,
    ranges: &[(u64, u64, u64)],
    (src_stride, chunk_stride): (&[u64], &[u64]),
    width: usize,
) {
    let row_len = chunk_stride.get(ranges.len().wrapping_sub(2)).copied();
    let rank = ranges.len();
    let mut k: Vec<u64> = ranges.iter().map(|r| r.0).collect();
    let inner = rank - 1;
    let (ilo, ihi, _) = ranges[inner];
    let contiguous = sel.stride[inner] == 1;
    loop {
        let mut s_off = 0u64;
        let mut c_off = 0u64;
        for d in 0..inner {
            s_off += k[d] * src_stride[d];
            c_off += (sel.start[d] + k[d] * sel.stride[d] - ranges[d].2) * chunk_stride[d];
        }
        if let Some(rows) = rows.as_deref_mut() {
            // The row starts at c_off; the write covers count elements
            // from the first selected one.
            let row_len = row_len.unwrap_or(buf.len() as u64 / width as u64);
            let first = sel.start[inner] + ilo * sel.stride[inner] - ranges[inner].2;
            let last = sel.start[inner] + (ihi - 1) * sel.stride[inner] - ranges[inner].2;
            let covers = contiguous || (ihi - ilo) == row_len;
            let (at, len) = if covers {
                (first, last + 1 - first)
            } else {
                (1, 0)
            };
            rows.prepare(
                buf,
                (c_off / row_len) as usize,
                at as usize * width,
                len as usize * width,
            );
        }
        if contiguous {
            let n = (ihi - ilo) as usize * width;
            let s = (s_off + ilo) as usize * width;
            let c = (c_off + sel.start[inner] + ilo - ranges[inner].2) as usize * width;
            buf[c..c + n].copy_from_slice(&src[s..s + n]);
        } else {
            for kk in ilo..ihi {
                let s = (s_off + kk) as usize * width;
                let c = (c_off + sel.start[inner] + kk * sel.stride[inner] - ranges[inner].2)
                    as usize
                    * width;
                buf[c..c + width].copy_from_slice(&src[s..s + width]);
            }
        }
        // Next outer index.
        let mut d = inner;
        loop {
            if d == 0 {
                return;
            }
            d -= 1;
            k[d] += 1;
            if k[d] < ranges[d].1 {
                break;
            }
            k[d] = ranges[d].0;
        }
    }
}

/// Group and variable names must be usable as store key segments (the
/// schema has passed [`Schema::writable`]: netCDF's name rules for writing).
fn check_names(schema: &Schema) -> Result<(), WriteError> {
    let names = schema
        .group_ids()
        .skip(1)
        .map(|g| schema.group(g).name.clone())
        .chain(schema.var_ids().map(|v| schema.var(v).name.clone()));
    for name in names {
        if name.contains('/') || name.starts_with(".z") || StoreKey::new(name.clone()).is_err() {
            return Err(WriteError::Schema {
                name,
                reason: "not usable as a Zarr object name".into(),
            });
        }
    }
    Ok(())
}

/// Refuses attribute text holding the code points that carry bytes that
/// are not UTF-8 into the JSON ([`crate::json::RAW_BYTES`]): they would be
/// written as single bytes, as the reader refuses them in text that is not
/// UTF-8.
fn check_attribute_text(schema: &Schema) -> Result<(), WriteError> {
    let carries = |v: &Values| match v {
        Values::Char(b) => std::str::from_utf8(b).is_ok_and(crate::json::has_raw_bytes),
        Values::String(s) => s.iter().flatten().any(|t| crate::json::has_raw_bytes(t)),
        _ => false,
    };
    let groups = schema
        .group_ids()
        .map(|g| (schema.group_path(g), &schema.group(g).attributes));
    let vars = schema.var_ids().map(|v| {
        let var = schema.var(v);
        let group = schema.group_path(var.group);
        let path = format!("{}/{}", group.trim_end_matches('/'), var.name);
        (path, &var.attributes)
    });
    for (path, attrs) in groups.chain(vars) {
        if let Some(a) = attrs.iter().find(|a| carries(&a.value)) {
            return Err(WriteError::Schema {
                name: format!("{path}:{}", a.name),
                reason: "text holds code points U+10FF00..U+10FFFF, which nctk uses to \
                         carry bytes that are not UTF-8 in Zarr metadata"
                    .into(),
            });
        }
    }
    Ok(())
}

/// netCDF-C 4.9.0's NCZarr has no `string` type: its ncgen refuses string
/// variables and attributes ("NCZarr error") and its ncdump crashes on
/// them, so the 4.9.0 layout refuses them too, naming the first one.
fn check_490(schema: &Schema) -> Result<(), WriteError> {
    let refuse = |name: String, what: &str| WriteError::Schema {
        name,
        reason: format!(
            "{what} of type string cannot be written in netCDF-C 4.9.0's layout \
             (mode nczarr490): netCDF-C 4.9.0 has no NCZarr strings; use the newest \
             layout or char"
        ),
    };
    for g in schema.group_ids() {
        let path = schema.group_path(g);
        if let Some(a) = schema
            .group(g)
            .attributes
            .iter()
            .find(|a| a.value.dtype() == DataType::String)
        {
            return Err(refuse(format!("{path}:{}", a.name), "attribute"));
        }
    }
    for v in schema.var_ids() {
        let var = schema.var(v);
        let group = schema.group_path(var.group);
        let path = format!("{}/{}", group.trim_end_matches('/'), var.name);
        if var.dtype == DataType::String {
            return Err(refuse(path, "variable"));
        }
        if let Some(a) = var
            .attributes
            .iter()
            .find(|a| a.value.dtype() == DataType::String)
        {
            return Err(refuse(format!("{path}:{}", a.name), "attribute"));
        }
    }
    Ok(())
}
