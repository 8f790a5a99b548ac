//! Reading a selection: find the chunks it touches, fetch them, decode them
//! in parallel (rayon, on the caller's pool), and assemble the chunks into
//! the output with contiguous-run copies. How chunks are fetched is the
//! store's to say ([`Capabilities::fetch_ahead`]): a network store gets
//! batches through `get_many` (its own concurrency, not capped at the core
//! count) one batch ahead of decoding, the indexes of a sharded array's
//! shards read first in one batch (as many as half the index cache
//! holds); local storage is read by each
//! decoding task itself, while the bytes are hot in cache.
//!
//! The output is split into disjoint slabs along the first dimension, one
//! per first-dimension chunk index. A slab holding one whole chunk whose
//! layout equals the output's (e.g. chunks `(1, lat, lon)` of a C-order
//! array read whole) is decoded straight into place; otherwise each worker
//! decodes into its own scratch buffer and copies runs into the slab.
//! Memory: the output, one decoded chunk per worker, and (fetching ahead)
//! the raw chunks of two fetch batches (the one decoding and the one
//! fetched ahead). Regions
//! whose chunks are missing are filled per run (nothing to do for an
//! all-zero fill: the output starts zeroed). Fixed-width numbers are assembled in a typed
//! vector and byte-swapped in place when the stored order is not native.

use std::borrow::Cow;
use std::ops::Range;
use std::sync::Mutex;

use bytes::Bytes;

use nctk_codec::buffer::{zeroed, zeroed_values};
use nctk_codec::{CodecError, Pipeline};
use nctk_model::bytes::values_as_bytes_mut;
use nctk_model::{Selection, Values};
use nctk_store::kv::{ByteRange, ReadableStore, StoreKey, StorePrefix};
use rayon::prelude::*;

use crate::cell::{narrow_utf32, Cell};
use crate::layout::{Axis, ChunkKeys, ChunkOrder};
use crate::shard::{Located, Shards, CACHED_INDEXES};
use crate::{vlen, ZarrError};

/// What the reader knows about one Zarr array.
#[derive(Debug)]
pub(crate) struct ArrayMeta {
    pub prefix: StorePrefix,
    pub shape: Vec<u64>,
    /// The chunk shape (a rectilinear grid: each axis's longest chunk).
    pub chunks: Vec<u64>,
    /// A rectilinear grid's axes; `None` for the regular grid of `chunks`.
    pub grid: Option<Vec<Axis>>,
    pub cell: Cell,
    /// Stored bytes per element (from the dtype).
    pub itemsize: u64,
    /// The order of the elements inside a decoded chunk.
    pub order: ChunkOrder,
    /// How chunk (or shard) coordinates become keys.
    pub keys: ChunkKeys,
    /// The sharding, when chunks are inner chunks of shards.
    pub shards: Option<Shards>,
    /// Vlen items are numcodecs' `json2` JSON (else the binary vlen form).
    pub json_items: bool,
    /// One cell of fill, `cell.width()` bytes (a vlen string: its UTF-8).
    pub fill: Vec<u8>,
    pub pipeline: Option<Pipeline>,
    /// Why the codecs cannot be used, with the metadata key that names
    /// them; reported when a chunk is read.
    pub codec_error: Option<(String, CodecError)>,
}

impl ArrayMeta {
    /// The key of the object holding chunk `idx`: the chunk itself, or
    /// its shard.
    pub(crate) fn chunk_key(&self, idx: &[u64]) -> String {
        match &self.shards {
            None => self.keys.key(idx),
            Some(s) => self.keys.key(&s.shard_of(idx)),
        }
    }

    /// The error of codecs that cannot be used, naming the array's
    /// metadata key and the codec.
    pub(crate) fn check_codecs(&self) -> Result<(), ZarrError> {
        match &self.codec_error {
            None => Ok(()),
            Some((key, source)) => Err(ZarrError::Codec {
                key: key.clone(),
                source: source.clone(),
            }),
        }
    }

    /// The fill as one value.
    pub(crate) fn fill_values(&self) -> Values {
        self.cell.decode(&self.fill)
    }

    /// The first index of chunk `c` along axis `d`.
    fn chunk_start(&self, d: usize, c: u64) -> u64 {
        match &self.grid {
            None => c * self.chunks[d],
            Some(g) => g[d].start(c),
        }
    }

    /// The length of chunk `c` along axis `d`.
    fn chunk_len(&self, d: usize, c: u64) -> u64 {
        match &self.grid {
            None => self.chunks[d],
            Some(g) => g[d].len(c),
        }
    }

    /// The shape of chunk `idx`.
    fn chunk_shape(&self, idx: &[u64]) -> Vec<u64> {
        (0..idx.len()).map(|d| self.chunk_len(d, idx[d])).collect()
    }
}

/// For one dimension: the chunks the selection touches, each with the
/// range of selection indices `j` inside it.
fn dim_chunks(start: u64, count: u64, stride: u64, axis: &Axis) -> Vec<(u64, u64, u64)> {
    let mut out: Vec<(u64, u64, u64)> = vec![];
    let mut j = 0;
    while j < count {
        let i = start + j * stride;
        let c = axis.chunk_of(i);
        // The exclusive index bound of this chunk, and the last j with
        // start + j*stride before it.
        let chunk_end = axis.start(c) + axis.len(c);
        let last = (chunk_end - 1 - start) / stride;
        let hi = (last + 1).min(count);
        out.push((c, j, hi));
        j = hi;
    }
    out
}

/// The assembled output: a typed vector for fixed-width numbers (assembled
/// in place through its bytes), else cell bytes decoded at the end.
enum Output {
    Typed(Values),
    Bytes(Vec<u8>),
}

impl Output {
    fn alloc(cell: Cell, n: usize, total: usize) -> Option<Output> {
        Some(match cell {
            Cell::Number { dtype, .. } => match zeroed_values(dtype, n) {
                Some(v) => Output::Typed(v),
                None => Output::Bytes(zeroed(total)?),
            },
            _ => Output::Bytes(zeroed(total)?),
        })
    }

    fn bytes_mut(&mut self) -> &mut [u8] {
        match self {
            Output::Bytes(b) => b,
            // Never anything but numbers (see `alloc`).
            Output::Typed(v) => values_as_bytes_mut(v).unwrap_or_default(),
        }
    }

    /// The values: cells decoded, vlen item ids resolved in `items`.
    fn finish(mut self, cell: Cell, items: Option<Vec<Item>>) -> Values {
        let w = cell.width();
        if matches!(self, Output::Typed(_))
            && w > 1
            && cell.big_endian() != cfg!(target_endian = "big")
        {
            let buf = self.bytes_mut();
            let block = w * 65536;
            let swap = |c: &mut [u8]| c.chunks_exact_mut(w).for_each(<[u8]>::reverse);
            if buf.len() > block {
                buf.par_chunks_mut(block).for_each(swap);
            } else {
                swap(buf);
            }
        }
        match (self, items) {
            (Output::Typed(v), _) => v,
            (Output::Bytes(b), Some(mut items)) => {
                // Each id but the fill's (0) is used once.
                let mut item =
                    |id: &[u8]| match u64::from_ne_bytes(id.try_into().unwrap_or_default()) {
                        0 => items[0].clone(),
                        i => std::mem::take(&mut items[i as usize]),
                    };
                let ids = b.chunks_exact(8);
                match cell {
                    Cell::VlenBytes { .. } => Values::Vlen(
                        ids.map(|id| Values::UByte(item(id).unwrap_or_default()))
                            .collect(),
                    ),
                    _ => Values::String(
                        ids.map(|id| item(id).map(|b| String::from_utf8_lossy(&b).into_owned()))
                            .collect(),
                    ),
                }
            }
            (Output::Bytes(b), None) => cell.decode(&b),
        }
    }
}

/// Fills `dst` with repetitions of `pat` (`dst.len()` a multiple of it).
fn fill_pattern(dst: &mut [u8], pat: &[u8]) {
    if dst.is_empty() {
        return;
    }
    if pat.len() == 1 {
        dst.fill(pat[0]);
        return;
    }
    dst[..pat.len()].copy_from_slice(pat);
    let mut done = pat.len();
    while done < dst.len() {
        let n = done.min(dst.len() - done);
        dst.copy_within(..n, done);
        done += n;
    }
}

/// Where a chunk's elements are: strides of each axis in the decoded
/// chunk, elements and bytes.
#[derive(Debug, Clone)]
struct Geometry {
    strides: Vec<u64>,
    elems: u64,
    bytes: u64,
}

impl Geometry {
    /// The geometry of a chunk of `shape` of `meta`, or `None` on overflow.
    fn of(meta: &ArrayMeta, shape: &[u64]) -> Option<Geometry> {
        let elems = shape.iter().try_fold(1u64, |a, &c| a.checked_mul(c))?;
        Some(Geometry {
            strides: meta.order.strides(shape),
            elems,
            bytes: elems.checked_mul(meta.itemsize)?,
        })
    }
}

/// The geometry shared by every chunk of one read.
struct Plan<'a> {
    meta: &'a ArrayMeta,
    sel: &'a Selection,
    per_dim: Vec<Vec<(u64, u64, u64)>>,
    /// Output strides (row-major over the selection's counts), in cells.
    out_stride: Vec<u64>,
    /// Every chunk's geometry (a regular grid), or the largest chunk's (a
    /// rectilinear grid, whose chunks each have their own).
    geometry: Geometry,
    width: usize,
    fill_is_zero: bool,
    /// Chunk elements are in C order (ignoring axes of length 1).
    c_order: bool,
    /// Vlen items read so far, by id (0: the fill); `None` for other cells.
    items: Option<Mutex<Vec<Item>>>,
}

impl Plan<'_> {
    /// The chunk index of dimension `d`'s `k`-th touched chunk.
    fn idx(&self, picks: &[usize]) -> Vec<u64> {
        picks
            .iter()
            .enumerate()
            .map(|(d, &k)| self.per_dim[d][k].0)
            .collect()
    }

    /// The geometry of chunk `idx`.
    fn geometry(&self, idx: &[u64]) -> Cow<'_, Geometry> {
        match self.meta.grid {
            None => Cow::Borrowed(&self.geometry),
            // Each chunk fits the array's checked sizes (its largest chunk).
            Some(_) => Cow::Owned(
                Geometry::of(self.meta, &self.meta.chunk_shape(idx))
                    .unwrap_or_else(|| self.geometry.clone()),
            ),
        }
    }

    fn local(&self, d: usize, j: u64, idx: &[u64]) -> u64 {
        self.sel.start[d] + j * self.sel.stride[d] - self.meta.chunk_start(d, idx[d])
    }

    /// Dimension `d` of this chunk covers the whole output extent and the
    /// whole chunk, in storage order.
    fn full_in(&self, d: usize, lo: u64, hi: u64, idx: &[u64]) -> bool {
        lo == 0
            && hi == self.sel.count[d]
            && (self.sel.stride[d] == 1 || hi - lo == 1)
            && self.local(d, lo, idx) == 0
            && hi - lo == self.meta.chunk_len(d, idx[d])
    }

    /// Whether the chunk `picks` maps whole onto one contiguous output
    /// region laid out as the chunk is stored.
    fn is_direct(&self, picks: &[usize], idx: &[u64]) -> bool {
        if self.meta.itemsize as usize != self.width || self.items.is_some() {
            return false;
        }
        let rank = picks.len();
        let ext = |d: usize| {
            let (_, lo, hi) = self.per_dim[d][picks[d]];
            (lo, hi)
        };
        // Whole chunk selected, stride 1.
        for d in 0..rank {
            let (lo, hi) = ext(d);
            if hi - lo != self.meta.chunk_len(d, idx[d])
                || self.local(d, lo, idx) != 0
                || (self.sel.stride[d] != 1 && hi - lo > 1)
            {
                return false;
            }
        }
        // Inner dimensions (after the first) cover the output; the first
        // is this slab.
        if (1..rank).any(|d| {
            let (lo, hi) = ext(d);
            lo != 0 || hi != self.sel.count[d]
        }) {
            return false;
        }
        self.c_order
    }

    /// Calls `f(out_cell, in_cell, cells)` for each run of the chunk's
    /// block: `out_cell` relative to `base` (in cells). With `out_only`
    /// the runs are contiguous in the output only (for fills).
    #[allow(clippy::too_many_arguments)]
    fn runs(
        &self,
        picks: &[usize],
        idx: &[u64],
        chunk_stride: &[u64],
        base: u64,
        out_only: bool,
        mut f: impl FnMut(usize, usize, usize),
    ) {
        let rank = picks.len();
        if rank == 0 {
            f(0, 0, 1);
            return;
        }
        let lo: Vec<u64> = (0..rank).map(|d| self.per_dim[d][picks[d]].1).collect();
        let hi: Vec<u64> = (0..rank).map(|d| self.per_dim[d][picks[d]].2).collect();
        let last = rank - 1;
        // The run covers dims m..=last.
        let in_contig_last = self.c_order
            && (self.sel.stride[last] == 1 || hi[last] - lo[last] == 1)
            || rank == 1 && self.sel.stride[0] == 1;
        let elementwise = !out_only && !in_contig_last;
        let mut m = last;
        if !elementwise {
            while m > 0 {
                let full = if out_only {
                    lo[m] == 0 && hi[m] == self.sel.count[m]
                } else {
                    self.c_order && self.full_in(m, lo[m], hi[m], idx)
                };
                if !full {
                    break;
                }
                m -= 1;
            }
        }
        let run_cells: u64 = (m..rank).map(|d| hi[d] - lo[d]).product();
        let mut j = lo.clone();
        loop {
            let mut out_off = 0;
            let mut in_off = 0;
            for (d, &jd) in j.iter().enumerate() {
                out_off += jd * self.out_stride[d];
                if !out_only {
                    in_off += self.local(d, jd, idx) * chunk_stride[d];
                }
            }
            let o = (out_off - base) as usize;
            if elementwise {
                for jl in lo[last]..hi[last] {
                    let i = (in_off
                        + (self.local(last, jl, idx) - self.local(last, lo[last], idx))
                            * chunk_stride[last]) as usize;
                    f(o + (jl - lo[last]) as usize, i, 1);
                }
            } else {
                f(o, in_off as usize, run_cells as usize);
            }
            // Advance the dimensions outside the run.
            let outer = if elementwise { last } else { m };
            let mut d = outer;
            loop {
                if d == 0 {
                    return;
                }
                d -= 1;
                j[d] += 1;
                if j[d] < hi[d] {
                    break;
                }
                j[d] = lo[d];
            }
        }
    }

    /// The store key of the chunk `picks`.
    fn key(&self, picks: &[usize]) -> Result<StoreKey, ZarrError> {
        Ok(self
            .meta
            .prefix
            .key(&self.meta.chunk_key(&self.idx(picks)))?)
    }

    /// The chunks `picks` (each one chunk's picks), each with the key of
    /// its object: whole objects, or inner chunks read from their shards
    /// (the indexes first, then the chunks' byte ranges, coalesced).
    fn fetch<S: ReadableStore + ?Sized>(
        &self,
        store: &S,
        picks: &[Vec<usize>],
    ) -> Result<Vec<(StoreKey, Option<Bytes>)>, ZarrError> {
        let keys = picks
            .iter()
            .map(|p| self.key(p))
            .collect::<Result<Vec<_>, _>>()?;
        let Some(shards) = &self.meta.shards else {
            let raws = match &keys[..] {
                [one] => vec![store.get(one)?],
                _ => store.get_many(&keys)?,
            };
            return Ok(keys.into_iter().zip(raws).collect());
        };
        let leaves: Vec<(StoreKey, Vec<u64>)> = keys
            .iter()
            .cloned()
            .zip(picks.iter().map(|p| self.idx(p)))
            .collect();
        let store = shards.through(store);
        let located = shards.locate(store.as_ref(), &leaves)?;
        let raws = read_located(store.as_ref(), &located)?;
        Ok(keys.into_iter().zip(raws).collect())
    }

    /// Reads, in one batch, the indexes of the (plain) shards holding the
    /// chunks `tasks` (each one chunk's picks), as many shards as fit in half
    /// the index cache, first tasks first: on a network store one round
    /// trip, after which each fetch batch costs one (its chunks) instead of
    /// two.
    fn read_indexes<S: ReadableStore + ?Sized>(
        &self,
        store: &S,
        shards: &Shards,
        tasks: impl Iterator<Item = Vec<usize>>,
    ) -> Result<(), ZarrError> {
        let mut seen = std::collections::HashSet::new();
        let mut leaves = vec![];
        for picks in tasks {
            let key = self.key(&picks)?;
            if seen.insert(key.clone()) {
                leaves.push((key, self.idx(&picks)));
                if leaves.len() >= CACHED_INDEXES / 2 {
                    break;
                }
            }
        }
        shards.locate(store, &leaves).map(drop)
    }

    /// Decodes and places one fetched chunk (`None`: missing, read as fill)
    /// into `slab` (the output rows of its first-dimension chunk, starting
    /// at cell `base`).
    fn place(
        &self,
        picks: &[usize],
        key: &StoreKey,
        raw: Option<Bytes>,
        (slab, base): &(Mutex<&mut [u8]>, u64),
        alone: bool,
        scratch: &mut Vec<u8>,
    ) -> Result<(), ZarrError> {
        let idx = self.idx(picks);
        let geometry = self.geometry(&idx);
        let w = self.width;
        let Some(raw) = raw else {
            if !self.fill_is_zero {
                let mut out = lock(slab);
                self.runs(picks, &idx, &geometry.strides, *base, true, |o, _, n| {
                    fill_pattern(&mut out[o * w..(o + n) * w], &self.meta.fill);
                });
            }
            return Ok(());
        };
        if alone && self.is_direct(picks, &idx) {
            let mut out = lock(slab);
            if out.len() as u64 == geometry.bytes {
                return decode_into(self.meta, key.as_ref(), &raw, geometry.bytes, &mut out);
            }
        }
        let data = match &self.items {
            Some(items) => {
                self.decode_items(key, &raw, geometry.elems, items, scratch)?;
                Cow::Borrowed(&scratch[..])
            }
            None => decode_chunk(
                self.meta,
                key.as_ref(),
                &raw,
                geometry.bytes,
                geometry.elems,
                scratch,
            )?,
        };
        let mut out = lock(slab);
        self.runs(picks, &idx, &geometry.strides, *base, false, |o, i, n| {
            out[o * w..(o + n) * w].copy_from_slice(&data[i * w..(i + n) * w]);
        });
        Ok(())
    }
}

impl Plan<'_> {
    /// Decodes a chunk of vlen items into `scratch` as the ids of its
    /// items, added to `items`.
    fn decode_items(
        &self,
        key: &StoreKey,
        raw: &[u8],
        elems: u64,
        items: &Mutex<Vec<Item>>,
        scratch: &mut Vec<u8>,
    ) -> Result<(), ZarrError> {
        self.meta.check_codecs()?;
        let decoded = match &self.meta.pipeline {
            None => Cow::Borrowed(raw),
            Some(p) => Cow::Owned(p.decode_unsized(raw, VLEN_CHUNK_LIMIT).map_err(|source| {
                ZarrError::Codec {
                    key: key.to_string(),
                    source,
                }
            })?),
        };
        let chunk_error = |reason| ZarrError::Chunk {
            key: key.to_string(),
            reason,
        };
        let found: Vec<Item> = if self.meta.json_items {
            vlen::decode_json(&decoded, elems).map_err(chunk_error)?
        } else {
            vlen::decode(&decoded, elems)
                .map_err(chunk_error)?
                .into_iter()
                .map(|item| Some(item.to_vec()))
                .collect()
        };
        let mut all = items
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        scratch.clear();
        for item in found {
            scratch.extend_from_slice(&(all.len() as u64).to_ne_bytes());
            all.push(item);
        }
        Ok(())
    }
}

/// A vlen item's bytes; `None` for a null (numcodecs' `json2` keeps
/// them).
type Item = Option<Vec<u8>>;

/// The most bytes one chunk of vlen items may decode to.
const VLEN_CHUNK_LIMIT: usize = 1 << 30;

/// Fetched chunks: (task number, key) and the value, `None` when missing.
type Fetched = Vec<((u64, StoreKey), Option<Bytes>)>;

/// Decoded bytes one fetch asks for (about, and at least one chunk): small,
/// so that decoding starts as the first requests land and keeps pace with
/// the transfer, large enough that small chunks go many to a request.
const FETCH_GROUP_BYTES: u64 = 4 << 20;
/// The most chunks one fetch asks for.
const FETCH_GROUP_CHUNKS: u64 = 1024;
/// Decoded bytes of the groups fetched at once: this bounds the fetched
/// bytes held at once (in flight, or waiting for a decoder) to about twice
/// as much.
const FETCH_BYTES_AT_ONCE: u64 = 128 << 20;
/// The most fetches in flight: enough to cover a network store's latency
/// with chunks of a few megabytes.
const FETCHERS_MAX: u64 = 32;

/// Chunks per fetch for chunks of `chunk_bytes` decoded bytes.
fn group_len(chunk_bytes: u64) -> u64 {
    (FETCH_GROUP_BYTES / chunk_bytes.max(1)).clamp(1, FETCH_GROUP_CHUNKS)
}

/// Fetches in flight for groups of `group_bytes` decoded bytes.
fn fetchers(group_bytes: u64) -> u64 {
    (FETCH_BYTES_AT_ONCE / group_bytes.max(1)).clamp(2, FETCHERS_MAX)
}

/// Runs `fetch` over the groups of `per` consecutive tasks of `0..n` and
/// `consume` on each result as it arrives, in any order. With more than one
/// group, `fetchers` threads of their own fetch (each taking the next group
/// when its last one is handed over) while rayon's workers consume, so
/// fetching and decoding overlap continuously; the first error stops all.
fn fetch_streaming<T: Send>(
    n: u64,
    per: u64,
    fetchers: u64,
    fetch: impl Fn(Range<u64>) -> Result<T, ZarrError> + Sync,
    consume: impl Fn(T) -> Result<(), ZarrError> + Sync,
) -> Result<(), ZarrError> {
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
    let per = per.max(1);
    if n <= per {
        return consume(fetch(0..n)?);
    }
    let groups = n.div_ceil(per);
    let fetchers = fetchers.clamp(1, groups);
    let next = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    std::thread::scope(|s| {
        // Each fetcher holds at most one fetched group that no consumer has
        // taken yet.
        let (tx, rx) = std::sync::mpsc::sync_channel(fetchers as usize);
        for _ in 0..fetchers {
            let (tx, fetch, next, stop) = (tx.clone(), &fetch, &next, &stop);
            s.spawn(move || loop {
                let g = next.fetch_add(1, Ordering::Relaxed);
                if g >= groups || stop.load(Ordering::Relaxed) {
                    break;
                }
                let lo = g * per;
                let got = fetch(lo..(lo + per).min(n));
                let failed = got.is_err();
                if tx.send(got).is_err() || failed {
                    break;
                }
            });
        }
        drop(tx);
        // The channel ends when every fetcher has stopped. A failure stops
        // the fetchers at their next group, which ends the channel for the
        // consumers still waiting on it.
        rx.into_iter().par_bridge().try_for_each(|got| {
            got.and_then(&consume)
                .inspect_err(|_| stop.store(true, Ordering::Relaxed))
        })
    })
}

/// Byte ranges closer than this are read in one request.
const COALESCE_GAP: u64 = 1 << 20;
/// The longest request coalescing makes.
const COALESCE_MAX: u64 = 64 << 20;

/// The bytes of located inner chunks (`None` for missing ones), nearby
/// ranges of one object read in one request.
fn read_located<S: ReadableStore + ?Sized>(
    store: &S,
    located: &[Located],
) -> Result<Vec<Option<Bytes>>, ZarrError> {
    let mut order: Vec<usize> = (0..located.len())
        .filter(|&i| matches!(located[i], Located::At(..)))
        .collect();
    let at = |i: usize| match &located[i] {
        Located::At(k, r) => (k, r.clone()),
        Located::Missing => unreachable!("only located chunks are ordered"),
    };
    order.sort_by(|&a, &b| {
        let (ka, ra) = at(a);
        let (kb, rb) = at(b);
        (ka, ra.start).cmp(&(kb, rb.start))
    });
    // Requests, each with the chunks it covers.
    let mut requests: Vec<(StoreKey, Range<u64>, Vec<usize>)> = vec![];
    for i in order {
        let (key, r) = at(i);
        match requests.last_mut() {
            Some((k, span, members))
                if k == key
                    && r.start <= span.end.saturating_add(COALESCE_GAP)
                    && r.end.max(span.end) - span.start <= COALESCE_MAX =>
            {
                span.end = span.end.max(r.end);
                members.push(i);
            }
            _ => requests.push((key.clone(), r, vec![i])),
        }
    }
    let asks: Vec<(StoreKey, ByteRange)> = requests
        .iter()
        .map(|(k, r, _)| (k.clone(), ByteRange::Bounded(r.clone())))
        .collect();
    let got = match &asks[..] {
        [] => vec![],
        [(k, ByteRange::Bounded(r))] => vec![store.get_range(k, r.clone())?],
        _ => store.get_ranges(&asks)?,
    };
    let mut out: Vec<Option<Bytes>> = vec![None; located.len()];
    for ((key, span, members), bytes) in requests.into_iter().zip(got) {
        let bytes = bytes.ok_or_else(|| ZarrError::Chunk {
            key: key.to_string(),
            reason: "the shard disappeared while it was read".into(),
        })?;
        if bytes.len() as u64 != span.end - span.start {
            return Err(ZarrError::Chunk {
                key: key.to_string(),
                reason: format!(
                    "asked for bytes {span:?}, the store gave {} bytes",
                    bytes.len()
                ),
            });
        }
        for i in members {
            let (_, r) = at(i);
            out[i] =
                Some(bytes.slice((r.start - span.start) as usize..(r.end - span.start) as usize));
        }
    }
    Ok(out)
}

fn lock<'a, 'b>(m: &'a Mutex<&'b mut [u8]>) -> std::sync::MutexGuard<'a, &'b mut [u8]> {
    // A panic while holding the lock leaves at most a half-copied chunk in
    // an output nobody will see (the panic propagates).
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Reads `sel` (in Zarr coordinates, already checked against `meta.shape`).
pub(crate) fn read_selection<S: ReadableStore + ?Sized>(
    store: &S,
    meta: &ArrayMeta,
    var: &str,
    sel: &Selection,
) -> Result<Values, ZarrError> {
    let (mut out, n) = alloc_output(meta, var, sel)?;
    if n == 0 {
        return Ok(out.finish(meta.cell, None));
    }
    let plan = Plan::new(meta, sel, var)?;
    let slabs = plan.slabs(out.bytes_mut());
    read_chunks(store, &plan, &slabs, var)?;
    drop(slabs);
    let items = plan.items.map(|m| {
        m.into_inner()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    });
    Ok(out.finish(meta.cell, items))
}

/// The error for a read of `var` whose `what` overflows.
fn too_large(var: &str, what: &str) -> ZarrError {
    ZarrError::TooLarge {
        var: var.to_string(),
        reason: format!("{what} overflows"),
    }
}

/// The zeroed output of a read of `sel`, and its number of elements.
fn alloc_output(meta: &ArrayMeta, var: &str, sel: &Selection) -> Result<(Output, u64), ZarrError> {
    let n = sel
        .num_elements()
        .ok_or_else(|| too_large(var, "number of selected values"))?;
    let width = meta.cell.width();
    let n_usize = usize::try_from(n).map_err(|_| too_large(var, "number of selected values"))?;
    let total = n_usize
        .checked_mul(width)
        .ok_or_else(|| too_large(var, "size of the selection in bytes"))?;
    let out = Output::alloc(meta.cell, n_usize, total).ok_or_else(|| ZarrError::TooLarge {
        var: var.to_string(),
        reason: format!("cannot allocate {total} bytes for the selection"),
    })?;
    Ok((out, n))
}

impl<'a> Plan<'a> {
    /// The geometry of reading `sel` (not empty) from the array `meta`.
    fn new(meta: &'a ArrayMeta, sel: &'a Selection, var: &str) -> Result<Plan<'a>, ZarrError> {
        let rank = meta.shape.len();
        let per_dim: Vec<Vec<(u64, u64, u64)>> = (0..rank)
            .map(|d| {
                let regular;
                let axis = match &meta.grid {
                    Some(g) => &g[d],
                    None => {
                        regular = Axis::Regular(meta.chunks[d]);
                        &regular
                    }
                };
                dim_chunks(sel.start[d], sel.count[d], sel.stride[d], axis)
            })
            .collect();
        let mut out_stride = vec![1u64; rank];
        for d in (0..rank.saturating_sub(1)).rev() {
            out_stride[d] = out_stride[d + 1] * sel.count[d + 1];
        }
        let geometry =
            Geometry::of(meta, &meta.chunks).ok_or_else(|| too_large(var, "chunk size"))?;
        Ok(Plan {
            meta,
            sel,
            per_dim,
            out_stride,
            geometry,
            width: meta.cell.width(),
            fill_is_zero: meta.cell.is_vlen() || meta.fill.iter().all(|&b| b == 0),
            c_order: meta.order.is_c(&meta.chunks),
            items: meta
                .cell
                .is_vlen()
                .then(|| Mutex::new(vec![Some(meta.fill.clone())])),
        })
    }

    /// The output `buf` split into slabs, the output rows of each
    /// first-dimension chunk, each with its first cell.
    fn slabs<'b>(&self, buf: &'b mut [u8]) -> Vec<(Mutex<&'b mut [u8]>, u64)> {
        let mut slabs: Vec<(Mutex<&mut [u8]>, u64)> = vec![];
        if self.meta.shape.is_empty() {
            slabs.push((Mutex::new(buf), 0));
        } else {
            let row = (self.out_stride[0] as usize) * self.width;
            let mut rest = buf;
            for &(_, lo, hi) in &self.per_dim[0] {
                let (head, tail) = rest.split_at_mut(((hi - lo) as usize) * row);
                slabs.push((Mutex::new(head), lo * self.out_stride[0]));
                rest = tail;
            }
        }
        slabs
    }
}

/// Fetches every chunk `plan` touches and places it in its slab: in
/// batches fetched ahead of decoding for a network store, else each on the
/// thread that decodes it.
fn read_chunks<S: ReadableStore + ?Sized>(
    store: &S,
    plan: &Plan,
    slabs: &[(Mutex<&mut [u8]>, u64)],
    var: &str,
) -> Result<(), ZarrError> {
    let rank = plan.meta.shape.len();
    // Tasks: (slab, linear index over the inner dimensions' chunks).
    let inner: u64 = plan
        .per_dim
        .iter()
        .skip(1)
        .map(|v| v.len() as u64)
        .product();
    let alone = inner == 1;
    let n_tasks = (slabs.len() as u64)
        .checked_mul(inner)
        .ok_or_else(|| too_large(var, "number of chunks"))?;
    let picks_of = |t: u64| -> Vec<usize> {
        let mut rem = t % inner;
        let mut picks = vec![0usize; rank];
        if rank > 0 {
            picks[0] = (t / inner) as usize;
        }
        for d in (1..rank).rev() {
            let len = plan.per_dim[d].len() as u64;
            picks[d] = (rem % len) as usize;
            rem /= len;
        }
        picks
    };
    let fetch = |tasks: Range<u64>| -> Result<Fetched, ZarrError> {
        let picks: Vec<Vec<usize>> = tasks.clone().map(picks_of).collect();
        let got = plan.fetch(store, &picks)?;
        Ok(tasks.zip(got).map(|(t, (k, raw))| ((t, k), raw)).collect())
    };
    let run = |scratch: &mut Vec<u8>, ((t, key), raw): ((u64, StoreKey), Option<Bytes>)| {
        let picks = picks_of(t);
        let slab = &slabs[picks.first().copied().unwrap_or(0)];
        plan.place(&picks, &key, raw, slab, alone, scratch)
    };
    let decode = |batch: Fetched| -> Result<(), ZarrError> {
        if batch.len() <= 1 || rayon::current_num_threads() <= 1 {
            let mut scratch = vec![];
            batch.into_iter().try_for_each(|c| run(&mut scratch, c))
        } else {
            batch.into_par_iter().try_for_each_init(Vec::new, run)
        }
    };
    if store.capabilities().fetch_ahead {
        if let Some(shards) = plan.meta.shards.as_ref().filter(|s| s.plain()) {
            plan.read_indexes(store, shards, (0..n_tasks).map(picks_of))?;
        }
        let per = group_len(plan.geometry.bytes);
        let fetchers = fetchers(per.saturating_mul(plan.geometry.bytes));
        fetch_streaming(n_tasks, per, fetchers, fetch, decode)?;
    } else {
        // Local storage: each task fetches its own chunk on the decoding
        // thread, while the bytes are hot in cache.
        let each = |scratch: &mut Vec<u8>, t: u64| -> Result<(), ZarrError> {
            let mut got = plan.fetch(store, &[picks_of(t)])?;
            let (key, raw) = got
                .pop()
                .unwrap_or_else(|| unreachable!("one chunk asked, one given"));
            run(scratch, ((t, key), raw))
        };
        if n_tasks <= 1 || rayon::current_num_threads() <= 1 {
            let mut scratch = vec![];
            (0..n_tasks).try_for_each(|t| each(&mut scratch, t))?;
        } else {
            (0..n_tasks)
                .into_par_iter()
                .try_for_each_init(Vec::new, each)?;
        }
    }
    Ok(())
}

/// Decodes one chunk straight into `out`, exactly the chunk's size.
fn decode_into(
    meta: &ArrayMeta,
    key: &str,
    raw: &[u8],
    chunk_bytes: u64,
    out: &mut [u8],
) -> Result<(), ZarrError> {
    meta.check_codecs()?;
    match &meta.pipeline {
        None => {
            if raw.len() as u64 != chunk_bytes {
                return Err(ZarrError::ChunkSize {
                    key: key.to_string(),
                    expected: chunk_bytes,
                    actual: raw.len() as u64,
                });
            }
            out.copy_from_slice(raw);
        }
        Some(p) => p.decode_into(raw, out).map_err(|source| ZarrError::Codec {
            key: key.to_string(),
            source,
        })?,
    }
    Ok(())
}

/// Decodes one chunk into cells of `meta.cell.width()` bytes: the raw
/// bytes themselves when uncompressed, else `scratch`.
fn decode_chunk<'a>(
    meta: &ArrayMeta,
    key: &str,
    raw: &'a [u8],
    chunk_bytes: u64,
    chunk_elems: u64,
    scratch: &'a mut Vec<u8>,
) -> Result<Cow<'a, [u8]>, ZarrError> {
    meta.check_codecs()?;
    let size_err = |actual: usize| ZarrError::ChunkSize {
        key: key.to_string(),
        expected: chunk_bytes,
        actual: actual as u64,
    };
    // netCDF-C 4.9 wrote char as "<U1" with one byte per element; NumPy's U1
    // has four. The chunk's size tells which.
    let utf32_chars = matches!(meta.cell, Cell::Char) && meta.itemsize == 4;
    let data: &[u8] = match &meta.pipeline {
        None => {
            if raw.len() as u64 == chunk_bytes {
                raw
            } else if utf32_chars && raw.len() as u64 == chunk_elems {
                return Ok(Cow::Borrowed(raw));
            } else {
                return Err(size_err(raw.len()));
            }
        }
        Some(p) => {
            let len = usize::try_from(chunk_bytes).map_err(|_| size_err(raw.len()))?;
            if scratch.len() != len {
                scratch.clear();
                scratch
                    .try_reserve_exact(len)
                    .map_err(|_| size_err(raw.len()))?;
                scratch.resize(len, 0);
            }
            p.decode_into(raw, scratch)
                .map_err(|source| ZarrError::Codec {
                    key: key.to_string(),
                    source,
                })?;
            scratch
        }
    };
    if utf32_chars {
        return Ok(Cow::Owned(narrow_utf32(data, meta.cell.big_endian())));
    }
    Ok(Cow::Borrowed(data))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_per_dimension() {
        assert_eq!(
            dim_chunks(0, 10, 1, &Axis::Regular(4)),
            vec![(0, 0, 4), (1, 4, 8), (2, 8, 10)]
        );
        assert_eq!(
            dim_chunks(3, 3, 5, &Axis::Regular(4)),
            vec![(0, 0, 1), (2, 1, 2), (3, 2, 3)]
        );
        assert_eq!(dim_chunks(5, 0, 1, &Axis::Regular(4)), vec![]);
        assert_eq!(
            dim_chunks(0, 30, 1, &Axis::Bounds(vec![0, 16, 26, 30])),
            vec![(0, 0, 16), (1, 16, 26), (2, 26, 30)]
        );
    }

    #[test]
    fn pattern_fill() {
        let mut b = vec![0u8; 14];
        fill_pattern(&mut b, &[1, 2]);
        assert_eq!(b, [1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2]);
    }

    /// Every task is consumed once, whatever fetcher fetched its group; a
    /// failing group stops the read with its error, and the fetchers stop
    /// taking groups.
    #[test]
    fn fetch_streaming_consumes_every_task_once() {
        for (n, per, fetchers) in [
            (100, 7, 3),
            (5, 7, 2),
            (14, 7, 16),
            (15, 7, 2),
            (1, 1, 2),
            (33, 1, 16),
        ] {
            let seen = Mutex::new(vec![]);
            fetch_streaming(
                n,
                per,
                fetchers,
                |r| Ok(r.collect::<Vec<u64>>()),
                |b| {
                    seen.lock().unwrap().extend(b);
                    Ok(())
                },
            )
            .unwrap();
            let mut seen = seen.into_inner().unwrap();
            seen.sort_unstable();
            assert_eq!(seen, (0..n).collect::<Vec<_>>(), "n={n} per={per}");
        }
        let fetched = std::sync::atomic::AtomicU64::new(0);
        let err = fetch_streaming(
            10_000,
            1,
            2,
            |r| {
                fetched.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if r.start == 50 {
                    Err(ZarrError::NotZarr {
                        key: "50".into(),
                        reason: "test",
                    })
                } else {
                    Ok(())
                }
            },
            |()| Ok(()),
        )
        .unwrap_err();
        assert!(err.to_string().contains("50"), "{err}");
        let fetched = fetched.into_inner();
        assert!(
            fetched < 10_000,
            "every group was fetched after the failure"
        );
    }
}
