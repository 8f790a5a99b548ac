//! [`DatasetReader`]: a hyperslab of a dataset's raw elements (file byte
//! order, row-major) from any layout: compact and contiguous data read as
//! the selection's runs, chunked data gathered from the chunk index, read
//! in batches of at most the source's `batch_bytes`, and decoded on all
//! cores straight into the output where a chunk's part of it is one run.

mod chunked;
pub(crate) mod runs;

use crate::chunk_index::ChunkGrid;
use crate::error::Result;
use crate::file::DatasetInfo;
use crate::filter::{Decoder, FilterPipeline};
use crate::io::FileCtx;
use crate::layout::Layout;

pub use chunked::{LocatedChunk, RawChunk};
use runs::{copy_run, for_each_run, strides, Run};

/// Reads hyperslabs of one dataset.
#[derive(Debug)]
pub struct DatasetReader {
    ctx: FileCtx,
    shape: Vec<u64>,
    max_shape: Vec<u64>,
    element_size: usize,
    layout: Layout,
    filters: Option<FilterPipeline>,
    fill: Option<Vec<u8>>,
    /// Relative address errors name: the layout message's (0 when unknown).
    at: u64,
    /// Chunks already looked up in the index (`None`: never written), so
    /// that reading a variable slab after slab reads its index once.
    known: chunked::KnownChunks,
}

/// A checked selection: `count[d]` elements from `start[d]` every `stride[d]`.
pub(crate) struct Hyperslab<'a> {
    pub start: &'a [u64],
    pub count: &'a [u64],
    pub stride: &'a [u64],
}

const WHAT: &str = "dataset";

impl DatasetReader {
    /// A reader of a dataset of `shape` (`max_shape`: `u64::MAX` for an
    /// unlimited dimension) and elements of `element_size` bytes, stored as
    /// `layout` through `filters`; elements never written read as `fill`
    /// (one element's bytes; zeros when `None`).
    pub fn new(
        ctx: FileCtx,
        shape: &[u64],
        max_shape: Option<&[u64]>,
        element_size: usize,
        layout: Layout,
        filters: Option<FilterPipeline>,
        fill: Option<Vec<u8>>,
    ) -> Result<DatasetReader> {
        let bad = |reason: String| ctx.corrupt(WHAT, 0, reason);
        if element_size == 0 {
            return Err(bad("elements of 0 bytes".into()));
        }
        let max_shape = max_shape.map_or_else(|| shape.to_vec(), <[u64]>::to_vec);
        if max_shape.len() != shape.len() {
            return Err(bad(format!(
                "maximum shape {max_shape:?} for shape {shape:?}"
            )));
        }
        if let Some(f) = &fill {
            if f.len() != element_size {
                return Err(bad(format!(
                    "fill value of {} bytes for {element_size}-byte elements",
                    f.len()
                )));
            }
        }
        if let Layout::Chunked {
            chunk,
            element_size: stored,
            ..
        } = &layout
        {
            if chunk.len() != shape.len() || *stored != element_size as u64 {
                return Err(bad(format!(
                    "chunks {chunk:?} of {stored}-byte elements for shape {shape:?} of {element_size}-byte elements"
                )));
            }
        }
        Ok(DatasetReader {
            ctx,
            shape: shape.to_vec(),
            max_shape,
            element_size,
            layout,
            filters,
            fill,
            known: Default::default(),
            at: 0,
        })
    }

    /// The reader of a dataset as the object header describes it: its
    /// layout and filter pipeline messages parsed, its shape, element size
    /// and fill value (when one is stored with the element's size).
    pub fn from_info(ctx: &FileCtx, info: &DatasetInfo) -> Result<DatasetReader> {
        let shape = &info.dataspace.dims;
        let (at, body) = &info.layout_message;
        let layout = Layout::parse(ctx, *at, body, shape.len())?;
        let filters = match &info.filter_message {
            Some((at, body)) => Some(FilterPipeline::parse(ctx, *at, body)?),
            None => None,
        };
        let element_size = info.datatype.size() as usize;
        let fill = info.fill.value.clone().filter(|v| v.len() == element_size);
        let reader = DatasetReader::new(
            ctx.clone(),
            shape,
            info.dataspace.max_dims.as_deref(),
            element_size,
            layout,
            filters,
            fill,
        )?;
        Ok(DatasetReader { at: *at, ..reader })
    }

    /// The layout.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// Raw elements (file byte order, row-major) of the hyperslab into
    /// `out` (exactly the product of `count` times the element size);
    /// chunks never written read as the fill value.
    pub fn read(&self, start: &[u64], count: &[u64], stride: &[u64], out: &mut [u8]) -> Result<()> {
        let sel = self.check(start, count, stride, out.len())?;
        if count.contains(&0) {
            return Ok(());
        }
        let es = self.element_size as u64;
        match &self.layout {
            Layout::Compact { data } => {
                let need = self.total_bytes()?;
                if (data.len() as u64) < need {
                    return Err(self.ctx.corrupt(
                        WHAT,
                        self.at,
                        format!(
                            "compact data of {} bytes for {need} bytes of elements",
                            data.len()
                        ),
                    ));
                }
                self.runs(&sel, &mut |r| copy_run(r, es, data, out));
                Ok(())
            }
            Layout::Contiguous { addr: None, .. } => {
                self.fill_all(out);
                Ok(())
            }
            Layout::Contiguous {
                addr: Some(addr),
                size,
            } => {
                let need = self.total_bytes()?;
                if *size < need {
                    return Err(self.ctx.corrupt(
                        WHAT,
                        *addr,
                        format!("contiguous data of {size} bytes for {need} bytes of elements"),
                    ));
                }
                self.ctx.span(*addr, need, "contiguous data")?;
                self.read_contiguous(*addr, &sel, out)
            }
            Layout::Chunked { .. } => self.with_chunked(|c| chunked::read(c, &sel, out)),
        }
    }

    /// The stored bytes (and filter masks) of the chunks at `wanted`
    /// (chunk coordinates inside the current extent's grid), read in one
    /// batch of the source: `None` for a chunk never written or a partial
    /// edge chunk the layout stores unfiltered. An error for a dataset
    /// that is not chunked.
    pub fn stored_chunks(&self, wanted: &[Vec<u64>]) -> Result<Vec<Option<RawChunk>>> {
        let bad = |reason: String| self.ctx.corrupt(WHAT, self.at, reason);
        for w in wanted {
            if let Layout::Chunked { chunk, .. } = &self.layout {
                let inside = w.len() == chunk.len()
                    && w.iter()
                        .zip(chunk.iter().zip(&self.shape))
                        .all(|(i, (c, n))| i.saturating_mul(*c) < *n);
                if !inside {
                    return Err(bad(format!("chunk {w:?} outside shape {:?}", self.shape)));
                }
            }
        }
        match &self.layout {
            Layout::Chunked { .. } => self.with_chunked(|c| chunked::read_stored(c, wanted)),
            _ => Err(bad("stored chunks of a dataset that is not chunked".into())),
        }
    }

    /// Every written chunk of a chunked dataset (its current extent's
    /// grid, row major) with where its stored bytes are in the source;
    /// chunks never written are left out. An error for a dataset that is
    /// not chunked.
    pub fn chunk_locations(&self) -> Result<Vec<LocatedChunk>> {
        self.with_chunked(chunked::locate_all)
    }

    /// The absolute offset in the source of `len` bytes at relative
    /// address `addr`, checked against the source's length.
    pub fn span(&self, addr: u64, len: u64, what: &str) -> Result<u64> {
        self.ctx.span(addr, len, what)
    }

    /// Whether the dataset has a fill value of its own (a chunk's elements
    /// never written then hold it).
    pub fn has_fill(&self) -> bool {
        self.fill.is_some()
    }

    /// The filter pipeline, if the dataset has one.
    pub fn filters(&self) -> Option<&FilterPipeline> {
        self.filters.as_ref()
    }

    /// Runs `f` with what a chunked read needs; the layout must be chunked.
    fn with_chunked<T>(&self, f: impl FnOnce(&chunked::Chunked<'_>) -> Result<T>) -> Result<T> {
        let Layout::Chunked {
            chunk,
            index,
            index_addr,
            unfiltered_edges,
            ..
        } = &self.layout
        else {
            return Err(self.ctx.corrupt(WHAT, self.at, "not chunked"));
        };
        let es = self.element_size as u64;
        let decoder = self.decoder()?;
        let grid = ChunkGrid {
            shape: self.shape.clone(),
            max_shape: self.max_shape.clone(),
            chunk: chunk.clone(),
            chunk_bytes: chunk
                .iter()
                .try_fold(es, |a, &c| a.checked_mul(c))
                // HDF5 chunks hold less than 4 GiB
                .filter(|&b| b <= u64::from(u32::MAX))
                .ok_or_else(|| self.ctx.corrupt(WHAT, self.at, "chunks of 4 GiB or more"))?,
            filtered: decoder.is_some(),
        };
        f(&chunked::Chunked {
            ctx: &self.ctx,
            grid: &grid,
            index,
            index_addr: *index_addr,
            unfiltered_edges: *unfiltered_edges,
            decoder: decoder.as_ref(),
            fill: self.fill.as_deref(),
            element_size: self.element_size,
            known: &self.known,
        })
    }

    fn decoder(&self) -> Result<Option<Decoder>> {
        match &self.filters {
            Some(p) if !p.filters.is_empty() => {
                Ok(Some(p.decoder(&self.ctx, self.at, self.element_size)?))
            }
            _ => Ok(None),
        }
    }

    fn check<'a>(
        &self,
        start: &'a [u64],
        count: &'a [u64],
        stride: &'a [u64],
        out_len: usize,
    ) -> Result<Hyperslab<'a>> {
        let rank = self.shape.len();
        let bad = |reason: String| self.ctx.corrupt(WHAT, self.at, reason);
        if start.len() != rank || count.len() != rank || stride.len() != rank {
            return Err(bad(format!(
                "selection of rank {}/{}/{} for a dataset of rank {rank}",
                start.len(),
                count.len(),
                stride.len()
            )));
        }
        for d in 0..rank {
            let last = count[d].checked_sub(1).map(|k| {
                stride[d]
                    .checked_mul(k)
                    .and_then(|o| o.checked_add(start[d]))
            });
            let inside = match last {
                None => start[d] <= self.shape[d],
                Some(Some(l)) => stride[d] > 0 && l < self.shape[d],
                Some(None) => false,
            };
            if !inside {
                return Err(bad(format!(
                    "selection start {start:?} count {count:?} stride {stride:?} outside shape {:?}",
                    self.shape
                )));
            }
        }
        let need = count
            .iter()
            .try_fold(self.element_size as u64, |a, &c| a.checked_mul(c));
        if need != Some(out_len as u64) {
            return Err(bad(format!(
                "output of {out_len} bytes for {count:?} elements of {} bytes",
                self.element_size
            )));
        }
        Ok(Hyperslab {
            start,
            count,
            stride,
        })
    }

    fn total_bytes(&self) -> Result<u64> {
        self.shape
            .iter()
            .try_fold(self.element_size as u64, |a, &c| a.checked_mul(c))
            .ok_or_else(|| self.ctx.corrupt(WHAT, self.at, "dataset size overflows"))
    }

    /// The runs of the selection over the whole dataset stored row-major.
    fn runs(&self, sel: &Hyperslab<'_>, f: &mut dyn FnMut(Run)) {
        let st = strides(&self.shape);
        let src = sel.start.iter().zip(&st).map(|(a, b)| a * b).sum();
        let step: Vec<u64> = sel.stride.iter().zip(&st).map(|(a, b)| a * b).collect();
        for_each_run(sel.count, (src, &step), (0, &strides(sel.count)), f);
    }

    fn fill_all(&self, out: &mut [u8]) {
        fill_bytes(self.fill.as_deref(), out);
    }

    fn read_contiguous(&self, addr: u64, sel: &Hyperslab<'_>, out: &mut [u8]) -> Result<()> {
        let es = self.element_size as u64;
        let batch = self.ctx.source().batch_bytes().max(1);
        let base = self.ctx.span(addr, 0, "contiguous data")?;
        // (file offset, out offset, bytes), each at most a batch
        let mut pieces: Vec<(u64, usize, usize)> = vec![];
        self.runs(sel, &mut |r| {
            let (mut s, mut d, mut n) = (base + r.src * es, r.dst * es, r.len * es);
            while n > 0 {
                let take = n.min(batch);
                pieces.push((s, d as usize, take as usize));
                (s, d, n) = (s + take, d + take, n - take);
            }
        });
        let mut rest: &mut [u8] = out;
        let mut at = 0usize;
        let mut i = 0;
        while i < pieces.len() {
            let mut reads: Vec<(u64, &mut [u8])> = vec![];
            let mut bytes = 0u64;
            while i < pieces.len() && (reads.is_empty() || bytes + pieces[i].2 as u64 <= batch) {
                let (off, d, n) = pieces[i];
                let tail = std::mem::take(&mut rest);
                let (_, tail) = tail.split_at_mut(d - at);
                let (piece, tail) = tail.split_at_mut(n);
                rest = tail;
                at = d + n;
                reads.push((off, piece));
                bytes += n as u64;
                i += 1;
            }
            let addrs: Vec<u64> = reads.iter().map(|r| r.0 - base + addr).collect();
            read_exact(&self.ctx, &mut reads, &addrs, "contiguous data")?;
        }
        Ok(())
    }
}

/// A batch of reads this large is split in two halves read at once (on
/// two cores a local file's page cache is copied at twice the speed; a
/// remote source runs the halves' requests concurrently anyway).
const SPLIT_BYTES: usize = 8 << 20;

/// Reads a batch of ranges (absolute offsets) through the source; `addrs`
/// are their relative addresses, for errors: a range the file ends inside
/// is an error.
fn read_exact(
    ctx: &FileCtx,
    reads: &mut [(u64, &mut [u8])],
    addrs: &[u64],
    what: &str,
) -> Result<()> {
    if reads.is_empty() {
        return Ok(());
    }
    let total: usize = reads.iter().map(|r| r.1.len()).sum();
    if reads.len() >= 2 && total >= SPLIT_BYTES && rayon::current_num_threads() > 1 {
        let half = reads.len() / 2;
        let (a, b) = reads.split_at_mut(half);
        let (addrs_a, addrs_b) = addrs.split_at(half.min(addrs.len()));
        let (ra, rb) = rayon::join(
            || read_exact(ctx, a, addrs_a, what),
            || read_exact(ctx, b, addrs_b, what),
        );
        return ra.and(rb);
    }
    let got = ctx
        .source()
        .read_ranges_into(reads)
        .map_err(|source| crate::Hdf5Error::Io {
            file: ctx.name().to_string(),
            what: what.to_string(),
            source,
        })?;
    for ((n, r), addr) in got.iter().zip(reads.iter()).zip(addrs) {
        if *n < r.1.len() {
            return Err(ctx.out_of_bounds(what, *addr, "the file ends inside it"));
        }
    }
    Ok(())
}

/// Fills `out` with copies of `fill` (zeros when `None`).
fn fill_bytes(fill: Option<&[u8]>, out: &mut [u8]) {
    nctk_model::bytes::fill_pattern(out, fill.unwrap_or(&[0]));
}
