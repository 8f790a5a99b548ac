//! Reading a selection of a chunked dataset: the chunks it touches are
//! looked up in the index at once, read in batches of at most the source's
//! `batch_bytes` (one `read_ranges_into` each), and decoded in parallel
//! (rayon). The output is split into slabs along the first dimension, one
//! per first-dimension chunk; a task locks its slab. A chunk whose part of
//! the selection is its whole slab, in one run, is read (unfiltered) or
//! decoded straight into the output. Memory beyond the output: one batch
//! of stored chunks (at least one per worker) and one decoded chunk per
//! worker (two while a filter chain passes through an intermediate buffer).

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
        let end = (index + 1) * chunk; // first element past the chunk
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

pub(crate) fn read(c: &Chunked<'_>, sel: &Hyperslab<'_>, out: &mut [u8]) -> Result<()> {
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
    let found = lookup(c.ctx, c.index, c.index_addr, grid, &wanted)?;

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
        .zip(&wanted)
        .map(|(parts, coords)| {
            let stored = found.get(coords).copied();
            let edge = parts
                .iter()
                .zip(grid.chunk.iter().zip(&grid.shape))
                .any(|(p, (ch, sh))| (p.index + 1) * ch > *sh);
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
    let mut i = 0;
    while i < tasks.len() {
        let mut end = i;
        let mut bytes = 0u64;
        while end < tasks.len() {
            let size = tasks[end].stored.map_or(0, |s| s.size);
            if end - i >= workers && bytes + size > batch_bytes {
                break;
            }
            bytes += size;
            end += 1;
        }
        run_batch(c, &tasks[i..end], &slabs)?;
        i = end;
    }
    Ok(())
}

/// Whether the task's part of its slab is the whole slab, one run.
fn fills_slab(task: &Task, slab_len: usize, es: u64) -> Option<Run> {
    match task.runs.as_slice() {
        [r] if r.dst == 0 && (r.len * es) as usize == slab_len => Some(*r),
        _ => None,
    }
}

fn run_batch(c: &Chunked<'_>, tasks: &[Task], slabs: &[Mutex<&mut [u8]>]) -> Result<()> {
    let es = c.element_size as u64;
    let chunk_bytes = c.grid.chunk_bytes;
    // check every stored chunk lies in the file before allocating for it
    for t in tasks {
        if let Some(s) = t.stored {
            c.ctx.span(s.addr, s.size, "chunk")?;
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
        let mut guards: Vec<(usize, MutexGuard<'_, &mut [u8]>)> = tasks
            .iter()
            .enumerate()
            .filter(|(k, _)| direct[*k])
            .map(|(k, t)| (k, lock(&slabs[t.slab])))
            .collect();
        let mut reads: Vec<(u64, &mut [u8])> = vec![];
        let mut addrs = vec![];
        let mut g = guards.iter_mut().peekable();
        for (k, (t, buf)) in tasks.iter().zip(buffers.iter_mut()).enumerate() {
            let Some(s) = t.stored else { continue };
            let at = c.ctx.span(s.addr, s.size, "chunk")?;
            addrs.push(s.addr);
            if direct[k] {
                let Some((_, guard)) = g.next() else { break };
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
    // decode, copy and fill the rest, in parallel
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
