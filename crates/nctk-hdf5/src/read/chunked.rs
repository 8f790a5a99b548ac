//! Reading a selection of a chunked dataset: the chunks it touches are
//! looked up in the index at once, read in batches of at most the source's
//! `batch_bytes` (one `read_ranges_into` each), and decoded in parallel
//! (rayon). The output is split into slabs along the first dimension, one
//! per first-dimension chunk; a task locks its slab. A chunk whose part of
//! the selection is its whole slab, in one run, is read (unfiltered) or
//! decoded straight into the output. The next batch is fetched while one
//! decodes. Memory beyond the output: two batches of stored chunks (each
//! at least one chunk per worker) and one decoded chunk per worker (two
//! while a filter chain passes through an intermediate buffer).

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, PoisonError};

use rayon::prelude::*;

use super::runs::{copy_run, for_each_run, strides, Run};
use super::{fill_bytes, read_exact, Hyperslab};
use crate::chunk_index::{lookup, ChunkGrid, StoredChunk};
use crate::error::Result;
use crate::filter::Decoder;
use crate::io::FileCtx;
use crate::layout::ChunkIndexKind;

/// Everything the chunked read needs about the dataset.
pub(crate) struct Chunked<'a> {
    pub ctx: &'a FileCtx,
    pub grid: &'a ChunkGrid,
    pub index: &'a ChunkIndexKind,
    pub index_addr: Option<u64>,
    pub unfiltered_edges: bool,
    pub decoder: Option<&'a Decoder>,
    pub fill: Option<&'a [u8]>,
    pub element_size: usize,
    pub known: &'a KnownChunks,
}

/// The chunks a reader has looked up: coordinates to where they are stored
/// (`None`: never written). Dropped whole when it grows past
/// [`KNOWN_LIMIT`] entries.
pub(crate) type KnownChunks = Mutex<Known>;

/// Chunk locations looked up so far.
#[derive(Debug, Default)]
pub(crate) struct Known {
    chunks: HashMap<Vec<u64>, Option<StoredChunk>>,
    /// Whether a lookup returned the whole index: a chunk not in `chunks`
    /// was never written.
    complete: bool,
}

/// The most chunk locations a reader keeps.
const KNOWN_LIMIT: usize = 1 << 18;

/// Where each of `wanted` is stored, from the reader's memory or else the index.
fn locate(c: &Chunked<'_>, wanted: &[Vec<u64>]) -> Result<Vec<Option<StoredChunk>>> {
    let mut known = c.known.lock().unwrap_or_else(PoisonError::into_inner);
    let missing: Vec<Vec<u64>> = if known.complete {
        vec![]
    } else {
        wanted
            .iter()
            .filter(|w| !known.chunks.contains_key(*w))
            .cloned()
            .collect()
    };
    if !missing.is_empty() {
        let found = lookup(c.ctx, c.index, c.index_addr, c.grid, &missing)?;
        if known.chunks.len() + found.chunks.len() + missing.len() > KNOWN_LIMIT {
            *known = Known::default();
        }
        for m in missing {
            known.chunks.insert(m, None);
        }
        for (k, v) in found.chunks {
            known.chunks.insert(k, Some(v));
        }
        known.complete = found.complete;
    }
    Ok(wanted
        .iter()
        .map(|w| known.chunks.get(w).copied().flatten())
        .collect())
}

/// The selection's steps `k_lo..k_hi` along one dimension that fall in chunk `index`.
#[derive(Debug, Clone, Copy)]
struct Part {
    index: u64,
    lo: u64,
    hi: u64,
}

/// The chunks along one dimension that `count` steps of `stride` from `start` touch.
fn parts(start: u64, count: u64, stride: u64, chunk: u64) -> Vec<Part> {
    let mut out = vec![];
    let mut k = 0;
    while k < count {
        let index = (start + k * stride) / chunk;
        let end = (index + 1).saturating_mul(chunk); // first element past the chunk
        let hi = (end - start).div_ceil(stride).min(count);
        out.push(Part { index, lo: k, hi });
        k = hi;
    }
    out
}

/// One chunk of the selection.
struct Task {
    /// Which slab it writes.
    slab: usize,
    stored: Option<StoredChunk>,
    /// Whether its stored bytes are the raw chunk (no filter to undo).
    raw: bool,
    /// Its runs: chunk elements to slab elements.
    runs: Vec<Run>,
}

fn lock<'a, 'b>(m: &'a Mutex<&'b mut [u8]>) -> MutexGuard<'a, &'b mut [u8]> {
    // a panic while holding the lock leaves a half-written output nobody sees
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The most chunks one pass over a selection handles: a selection touching
/// more (tiny chunks, or a damaged file's) is read in pieces, so the
/// bookkeeping per chunk stays bounded whatever the file says.
const MAX_TASKS: u64 = 1 << 16;

/// At most how many chunks `count` steps of `stride` from `start` touch
/// along a dimension of `chunk`-element chunks.
fn chunks_touched(start: u64, count: u64, stride: u64, chunk: u64) -> u64 {
    match count.checked_sub(1) {
        None => 0,
        Some(k) => {
            let last = start + k * stride;
            (last / chunk - start / chunk + 1).min(count)
        }
    }
}

/// Reads a selection of a chunked dataset into `out`, in pieces of at most
/// [`MAX_TASKS`] chunks: split in halves along the first dimension that
/// selects more than one element (every dimension before it selects one,
/// so each half is a contiguous half of `out`).
pub(crate) fn read(c: &Chunked<'_>, sel: &Hyperslab<'_>, out: &mut [u8]) -> Result<()> {
    let touched = (0..sel.count.len()).fold(1u64, |a, d| {
        a.saturating_mul(chunks_touched(
            sel.start[d],
            sel.count[d],
            sel.stride[d],
            c.grid.chunk[d],
        ))
    });
    let Some(d) = sel.count.iter().position(|&n| n > 1) else {
        return read_piece(c, sel, out);
    };
    if touched <= MAX_TASKS {
        return read_piece(c, sel, out);
    }
    let first = sel.count[d] / 2;
    let (mut count, mut start) = (sel.count.to_vec(), sel.start.to_vec());
    let split = out.len() / sel.count[d] as usize * first as usize;
    let (head, tail) = out.split_at_mut(split);
    count[d] = first;
    read(
        c,
        &Hyperslab {
            start: &start,
            count: &count,
            stride: sel.stride,
        },
        head,
    )?;
    start[d] += first * sel.stride[d];
    count[d] = sel.count[d] - first;
    read(
        c,
        &Hyperslab {
            start: &start,
            count: &count,
            stride: sel.stride,
        },
        tail,
    )
}

/// Reads a selection touching at most [`MAX_TASKS`] chunks (or one element).
fn read_piece(c: &Chunked<'_>, sel: &Hyperslab<'_>, out: &mut [u8]) -> Result<()> {
    let grid = c.grid;
    let rank = grid.chunk.len();
    let es = c.element_size as u64;
    let per_dim: Vec<Vec<Part>> = (0..rank)
        .map(|d| parts(sel.start[d], sel.count[d], sel.stride[d], grid.chunk[d]))
        .collect();

    // every touched chunk, first dimension slowest
    let mut combos: Vec<Vec<Part>> = vec![vec![]];
    for dim in &per_dim {
        combos = combos
            .into_iter()
            .flat_map(|prefix| {
                dim.iter().map(move |p| {
                    let mut v = prefix.clone();
                    v.push(*p);
                    v
                })
            })
            .collect();
    }
    let wanted: Vec<Vec<u64>> = combos
        .iter()
        .map(|ps| ps.iter().map(|p| p.index).collect())
        .collect();
    let found = locate(c, &wanted)?;

    let out_strides = strides(sel.count);
    let chunk_strides = strides(&grid.chunk);
    let mut slab_of_first = std::collections::HashMap::new();
    for (i, p) in per_dim
        .first()
        .map(Vec::as_slice)
        .unwrap_or(&[])
        .iter()
        .enumerate()
    {
        slab_of_first.insert(p.index, i);
    }
    let tasks: Vec<Task> = combos
        .into_iter()
        .zip(found)
        .map(|(parts, stored)| {
            let edge = parts
                .iter()
                .zip(grid.chunk.iter().zip(&grid.shape))
                .any(|(p, (ch, sh))| (p.index + 1).saturating_mul(*ch) > *sh);
            let raw = match (c.decoder, stored) {
                (None, _) => true,
                (Some(_), _) if edge && c.unfiltered_edges => true,
                (Some(d), Some(s)) => d.is_identity(s.mask),
                (Some(_), None) => true,
            };
            let count: Vec<u64> = parts.iter().map(|p| p.hi - p.lo).collect();
            let mut src = 0;
            let mut src_step = vec![0u64; rank];
            let mut dst = 0;
            for d in 0..rank {
                let first =
                    sel.start[d] + parts[d].lo * sel.stride[d] - parts[d].index * grid.chunk[d];
                src += first * chunk_strides[d];
                src_step[d] = sel.stride[d] * chunk_strides[d];
                if d > 0 {
                    dst += parts[d].lo * out_strides[d];
                }
            }
            let mut runs = vec![];
            for_each_run(&count, (src, &src_step), (dst, &out_strides), &mut |r| {
                runs.push(r)
            });
            Task {
                slab: parts.first().map_or(0, |p| slab_of_first[&p.index]),
                stored,
                raw,
                runs,
            }
        })
        .collect();

    // the slabs: the output rows of each first-dimension chunk
    let mut slabs: Vec<Mutex<&mut [u8]>> = vec![];
    if rank == 0 {
        slabs.push(Mutex::new(out));
    } else {
        let row = (out_strides[0] * es) as usize;
        let mut rest = out;
        for p in &per_dim[0] {
            let (head, tail) = std::mem::take(&mut rest).split_at_mut((p.hi - p.lo) as usize * row);
            slabs.push(Mutex::new(head));
            rest = tail;
        }
    }

    // a batch: stored chunks up to the source's batch size, but at least
    // one per worker so that every core decodes
    let batch_bytes = c.ctx.source().batch_bytes().max(1);
    let workers = rayon::current_num_threads();
    let mut batches: Vec<&[Task]> = vec![];
    let mut rest = tasks.as_slice();
    while !rest.is_empty() {
        let mut end = 0;
        let mut bytes = 0u64;
        while end < rest.len() {
            let size = rest[end].stored.map_or(0, |s| s.size);
            if end >= workers && bytes + size > batch_bytes {
                break;
            }
            bytes += size;
            end += 1;
        }
        let (batch, tail) = rest.split_at(end);
        batches.push(batch);
        rest = tail;
    }
    fetch_ahead(
        &batches,
        |batch| fetch(c, batch, &slabs),
        |batch, fetched| decode(c, batch, &slabs, fetched),
    )
}

/// Runs `fetch` on each batch in order on a thread of its own, one batch
/// ahead of `consume` on the caller's: a remote source's round trip for
/// the next batch overlaps the decoding of this one. At most two fetched
/// batches exist at once; the first error stops both.
fn fetch_ahead<T: Send>(
    batches: &[&[Task]],
    fetch: impl Fn(&[Task]) -> Result<T> + Sync,
    consume: impl Fn(&[Task], T) -> Result<()>,
) -> Result<()> {
    if batches.len() <= 1 {
        return batches.iter().try_for_each(|b| consume(b, fetch(b)?));
    }
    std::thread::scope(|s| {
        let (tx, rx) = std::sync::mpsc::sync_channel(0);
        let fetch = &fetch;
        s.spawn(move || {
            for b in batches {
                let got = fetch(b);
                let failed = got.is_err();
                // the receiver is gone when the consumer failed
                if tx.send(got).is_err() || failed {
                    break;
                }
            }
        });
        for b in batches {
            // the fetcher ends without sending only by panicking, which the
            // scope raises again as it ends
            let Ok(got) = rx.recv() else { break };
            consume(b, got?)?;
        }
        Ok(())
    })
}

/// Whether the task's part of its slab is the whole slab, one run.
fn fills_slab(task: &Task, slab_len: usize, es: u64) -> Option<Run> {
    match task.runs.as_slice() {
        [r] if r.dst == 0 && (r.len * es) as usize == slab_len => Some(*r),
        _ => None,
    }
}

/// A batch's stored chunks: for each task, its bytes, or `None` when it was
/// read straight into the output (`direct`) or was never written.
struct Fetched {
    direct: Vec<bool>,
    buffers: Vec<Option<Vec<u8>>>,
}

/// Reads a batch's stored chunks in one request: raw chunks that are their
/// slab's whole part straight into the output, the others into buffers.
fn fetch(c: &Chunked<'_>, tasks: &[Task], slabs: &[Mutex<&mut [u8]>]) -> Result<Fetched> {
    let es = c.element_size as u64;
    let chunk_bytes = c.grid.chunk_bytes;
    // check every stored chunk lies in the file before allocating for it
    for t in tasks {
        if let Some(s) = t.stored {
            check_stored(c, &s)?;
            if t.raw && s.size != chunk_bytes {
                return Err(c.ctx.corrupt(
                    "chunk",
                    s.addr,
                    format!(
                        "unfiltered chunk of {} bytes where {chunk_bytes} were expected",
                        s.size
                    ),
                ));
            }
        }
    }
    // raw chunks that are their whole slab in one run: straight into the output
    let direct: Vec<bool> = tasks
        .iter()
        .map(|t| {
            t.stored.is_some() && t.raw && fills_slab(t, lock(&slabs[t.slab]).len(), es).is_some()
        })
        .collect();
    let mut buffers: Vec<Option<Vec<u8>>> = tasks
        .iter()
        .zip(&direct)
        .map(|(t, &d)| match t.stored {
            Some(s) if !d => Some(vec![0u8; s.size as usize]),
            _ => None,
        })
        .collect();
    {
        // the slabs of the direct chunks, in task order
        let mut guards: Vec<MutexGuard<'_, &mut [u8]>> = tasks
            .iter()
            .zip(&direct)
            .filter(|(_, &d)| d)
            .map(|(t, _)| lock(&slabs[t.slab]))
            .collect();
        let mut reads: Vec<(u64, &mut [u8])> = vec![];
        let mut addrs = vec![];
        let mut g = guards.iter_mut();
        for (k, (t, buf)) in tasks.iter().zip(buffers.iter_mut()).enumerate() {
            let Some(s) = t.stored else { continue };
            let at = c.ctx.span(s.addr, s.size, "chunk")?;
            addrs.push(s.addr);
            if direct[k] {
                let Some(guard) = g.next() else { break };
                let run = fills_slab(t, guard.len(), es).unwrap_or(Run {
                    src: 0,
                    dst: 0,
                    len: 0,
                });
                let from = at + run.src * es;
                reads.push((from, &mut guard[..]));
            } else if let Some(b) = buf {
                reads.push((at, b.as_mut_slice()));
            }
        }
        read_exact(c.ctx, &mut reads, &addrs, "chunk")?;
    }
    Ok(Fetched { direct, buffers })
}

/// Checks that a stored chunk lies in the file and is no larger than
/// filters make a chunk.
fn check_stored(c: &Chunked<'_>, s: &StoredChunk) -> Result<()> {
    let chunk_bytes = c.grid.chunk_bytes;
    c.ctx.span(s.addr, s.size, "chunk")?;
    // filters shrink data or grow it by a few bytes (checksums,
    // headers, incompressible blocks): anything larger is damage
    if s.size > chunk_bytes.saturating_mul(2).saturating_add(1 << 20) {
        return Err(c.ctx.corrupt(
            "chunk",
            s.addr,
            format!(
                "stored chunk of {} bytes for a chunk of {chunk_bytes} bytes",
                s.size
            ),
        ));
    }
    Ok(())
}

/// Where one written chunk's stored bytes are in the source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocatedChunk {
    /// Chunk-grid coordinates.
    pub coords: Vec<u64>,
    /// Absolute byte offset in the source (checked against its length).
    pub offset: u64,
    /// Stored (filtered) bytes.
    pub size: u64,
    /// Bit `i` set: filter `i` was skipped for this chunk.
    pub mask: u32,
    /// A partial edge chunk the layout stores unfiltered (layout version
    /// 4's flag), whatever the pipeline says.
    pub unfiltered_edge: bool,
}

/// Every written chunk of the current extent's grid, row major, each
/// looked up in the index once; chunks never written are left out.
pub(crate) fn locate_all(c: &Chunked<'_>) -> Result<Vec<LocatedChunk>> {
    let grid = c.grid;
    let counts = grid.counts();
    let wanted: Vec<Vec<u64>> = nctk_model::grid_coordinates(&counts).collect();
    let found = lookup(c.ctx, c.index, c.index_addr, grid, &wanted)?;
    let mut out = Vec::with_capacity(found.chunks.len().min(wanted.len()));
    for w in wanted {
        let Some(s) = found.chunks.get(&w) else {
            continue;
        };
        check_stored(c, s)?;
        let edge = w
            .iter()
            .zip(grid.chunk.iter().zip(&grid.shape))
            .any(|(i, (ch, sh))| (i + 1).saturating_mul(*ch) > *sh);
        out.push(LocatedChunk {
            offset: c.ctx.span(s.addr, s.size, "chunk")?,
            size: s.size,
            mask: s.mask,
            unfiltered_edge: edge && c.unfiltered_edges,
            coords: w,
        });
    }
    Ok(out)
}

/// A chunk's bytes as the file stores them, with its filter mask.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawChunk {
    /// Bit `i` set: filter `i` was skipped for this chunk.
    pub mask: u32,
    /// The stored (filtered) bytes.
    pub bytes: Vec<u8>,
}

/// The stored bytes of the chunks at `wanted` (chunk coordinates inside the
/// current grid), read in one batch: `None` for a chunk never written or
/// a partial edge chunk the layout stores unfiltered.
pub(crate) fn read_stored(c: &Chunked<'_>, wanted: &[Vec<u64>]) -> Result<Vec<Option<RawChunk>>> {
    let grid = c.grid;
    let found = locate(c, wanted)?;
    let mut out: Vec<Option<RawChunk>> = Vec::with_capacity(wanted.len());
    for (w, s) in wanted.iter().zip(&found) {
        let edge = w
            .iter()
            .zip(grid.chunk.iter().zip(&grid.shape))
            .any(|(i, (ch, sh))| (i + 1).saturating_mul(*ch) > *sh);
        out.push(match s {
            Some(s) if !(edge && c.unfiltered_edges) => {
                check_stored(c, s)?;
                Some(RawChunk {
                    mask: s.mask,
                    bytes: vec![0u8; s.size as usize],
                })
            }
            _ => None,
        });
    }
    let mut reads: Vec<(u64, &mut [u8])> = vec![];
    let mut addrs = vec![];
    for (s, r) in found.iter().zip(out.iter_mut()) {
        if let (Some(s), Some(r)) = (s, r) {
            reads.push((c.ctx.span(s.addr, s.size, "chunk")?, r.bytes.as_mut_slice()));
            addrs.push(s.addr);
        }
    }
    read_exact(c.ctx, &mut reads, &addrs, "chunk")?;
    Ok(out)
}

/// Decodes, copies and fills a fetched batch's chunks into their slabs, in
/// parallel.
fn decode(
    c: &Chunked<'_>,
    tasks: &[Task],
    slabs: &[Mutex<&mut [u8]>],
    fetched: Fetched,
) -> Result<()> {
    let Fetched {
        direct,
        mut buffers,
    } = fetched;
    let work: Vec<(&Task, Option<Vec<u8>>)> = tasks
        .iter()
        .zip(buffers.iter_mut())
        .zip(&direct)
        .filter(|(_, &d)| !d)
        .map(|((t, b), _)| (t, b.take()))
        .collect();
    let one = |scratch: &mut Vec<u8>, (task, buf): (&Task, Option<Vec<u8>>)| -> Result<()> {
        place(c, task, buf.as_deref(), &slabs[task.slab], scratch)
    };
    if work.len() <= 1 || rayon::current_num_threads() <= 1 {
        let mut scratch = vec![];
        work.into_iter().try_for_each(|w| one(&mut scratch, w))
    } else {
        work.into_par_iter().try_for_each_init(Vec::new, one)
    }
}

/// Puts one chunk's part of the selection into its slab: fill for a chunk
/// never written, the stored bytes of a raw chunk, or the decoded chunk.
fn place(
    c: &Chunked<'_>,
    task: &Task,
    stored: Option<&[u8]>,
    slab: &Mutex<&mut [u8]>,
    scratch: &mut Vec<u8>,
) -> Result<()> {
    let es = c.element_size as u64;
    let chunk_bytes = c.grid.chunk_bytes as usize;
    let (Some(s), Some(bytes)) = (task.stored, stored) else {
        let mut slab = lock(slab);
        for r in &task.runs {
            let (d, n) = ((r.dst * es) as usize, (r.len * es) as usize);
            fill_bytes(c.fill, &mut slab[d..d + n]);
        }
        return Ok(());
    };
    let decoded: &[u8] = match c.decoder {
        Some(dec) if !task.raw => {
            let at = s.addr;
            let mut slab = lock(slab);
            if let Some(r) = fills_slab(task, slab.len(), es) {
                if r.src == 0 && slab.len() == chunk_bytes {
                    return dec.decode_into(c.ctx, at, s.mask, bytes, &mut slab);
                }
            }
            drop(slab);
            scratch.resize(chunk_bytes, 0);
            dec.decode_into(c.ctx, at, s.mask, bytes, scratch)?;
            scratch
        }
        _ => bytes,
    };
    let mut slab = lock(slab);
    for r in &task.runs {
        copy_run(*r, es, decoded, &mut slab);
    }
    Ok(())
}
