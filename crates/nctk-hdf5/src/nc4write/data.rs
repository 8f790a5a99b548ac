//! Slabs of values put where they are stored: runs of a contiguous
//! dataset's block, or chunk buffers (filled with the fill value) that
//! go to the file, encoded, when every element is written or at the end.

use std::collections::{HashMap, HashSet};

use nctk_model::Selection;

use super::plan::VarPlan;
use crate::read::runs::{copy_run, for_each_run, strides, Run};
use crate::write::{Hdf5Writer, WriteError, WriteResult};

/// A chunk being assembled: its bytes and which elements were written.
struct ChunkBuf {
    bytes: Vec<u8>,
    written: Vec<u64>,
    count: u64,
}

impl ChunkBuf {
    fn new(fill: &[u8], elements: u64) -> ChunkBuf {
        ChunkBuf {
            bytes: fill.repeat(elements as usize),
            written: vec![0; elements.div_ceil(64) as usize],
            count: 0,
        }
    }

    /// Marks elements `from..from + len` written, a word of the bitmap at
    /// a time, counting those not written before.
    fn mark(&mut self, from: u64, len: u64) {
        let end = from + len;
        let mut i = from;
        while i < end {
            let (word, bit) = ((i / 64) as usize, i % 64);
            let n = (64 - bit).min(end - i);
            let mask = if n == 64 {
                u64::MAX
            } else {
                ((1u64 << n) - 1) << bit
            };
            self.count += u64::from((mask & !self.written[word]).count_ones());
            self.written[word] |= mask;
            i += n;
        }
    }
}

/// The chunks being assembled, by variable and chunk offset.
#[derive(Default)]
pub struct Chunks {
    open: HashMap<(usize, Vec<u64>), ChunkBuf>,
    done: HashSet<(usize, Vec<u64>)>,
}

impl Chunks {
    /// True when nothing was written to the chunk of variable `var` at `origin`.
    pub fn untouched(&self, var: usize, origin: &[u64]) -> bool {
        let key = (var, origin.to_vec());
        !self.open.contains_key(&key) && !self.done.contains(&key)
    }

    /// Records the chunk of variable `var` at `origin` as written whole.
    pub fn mark_done(&mut self, var: usize, origin: &[u64]) {
        self.done.insert((var, origin.to_vec()));
    }
}

/// Writes `bytes` (the selection's elements, stored byte order) to the
/// selected elements of the variable of `plan` (index `var`) whose
/// current shape is `shape`.
pub fn write(
    w: &mut Hdf5Writer,
    chunks: &mut Chunks,
    var: usize,
    plan: &VarPlan,
    shape: &[u64],
    sel: &Selection,
    bytes: &[u8],
) -> WriteResult<()> {
    let es = plan.element_size as u64;
    let src_steps = strides(&sel.count);
    match &plan.chunk {
        None => {
            let var_steps = strides(shape);
            let dst: u64 = sel.start.iter().zip(&var_steps).map(|(s, v)| s * v).sum();
            let dst_steps: Vec<u64> = sel
                .stride
                .iter()
                .zip(&var_steps)
                .map(|(s, v)| s * v)
                .collect();
            let mut result = Ok(());
            for_each_run(
                &sel.count,
                (0, &src_steps),
                (dst, &dst_steps),
                &mut |r: Run| {
                    if result.is_ok() {
                        let from = (r.src * es) as usize;
                        let to = from + (r.len * es) as usize;
                        result = w.write_contiguous(plan.id, r.dst * es, &bytes[from..to]);
                    }
                },
            );
            result
        }
        Some(chunk) => {
            let rank = chunk.len();
            let elements: u64 = chunk.iter().product();
            let chunk_steps = strides(chunk);
            // The chunk grid positions the selection's bounding box covers.
            let first: Vec<u64> = (0..rank).map(|d| sel.start[d] / chunk[d]).collect();
            let last: Vec<u64> = (0..rank)
                .map(|d| (sel.start[d] + (sel.count[d] - 1) * sel.stride[d]) / chunk[d])
                .collect();
            let mut pos = first.clone();
            loop {
                let origin: Vec<u64> = pos.iter().zip(chunk).map(|(p, c)| p * c).collect();
                put_in_chunk(
                    w,
                    chunks,
                    var,
                    plan,
                    sel,
                    bytes,
                    &origin,
                    &src_steps,
                    &chunk_steps,
                    elements,
                )?;
                // next grid position, the last dimension fastest
                let mut d = rank;
                loop {
                    if d == 0 {
                        return Ok(());
                    }
                    d -= 1;
                    pos[d] += 1;
                    if pos[d] <= last[d] {
                        break;
                    }
                    pos[d] = first[d];
                }
            }
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn put_in_chunk(
    w: &mut Hdf5Writer,
    chunks: &mut Chunks,
    var: usize,
    plan: &VarPlan,
    sel: &Selection,
    bytes: &[u8],
    origin: &[u64],
    src_steps: &[u64],
    chunk_steps: &[u64],
    elements: u64,
) -> WriteResult<()> {
    let chunk = plan.chunk.as_deref().unwrap_or_default();
    let rank = chunk.len();
    let (mut k_lo, mut count) = (vec![0; rank], vec![0; rank]);
    for d in 0..rank {
        let (start, stride) = (sel.start[d], sel.stride[d]);
        let lo = origin[d].saturating_sub(start).div_ceil(stride);
        let hi = (origin[d] + chunk[d])
            .saturating_sub(start)
            .div_ceil(stride)
            .min(sel.count[d]);
        if hi <= lo {
            return Ok(());
        }
        (k_lo[d], count[d]) = (lo, hi - lo);
    }
    let key = (var, origin.to_vec());
    if chunks.done.contains(&key) {
        return Err(WriteError::Unsupported(format!(
            "writing again to the chunk at {origin:?}, already stored"
        )));
    }
    let src: u64 = k_lo.iter().zip(src_steps).map(|(k, s)| k * s).sum();
    let dst: u64 = (0..rank)
        .map(|d| (sel.start[d] + k_lo[d] * sel.stride[d] - origin[d]) * chunk_steps[d])
        .sum();
    let dst_steps: Vec<u64> = (0..rank).map(|d| sel.stride[d] * chunk_steps[d]).collect();
    let es = plan.element_size as u64;
    let whole = (0..rank).all(|d| sel.stride[d] == 1 && count[d] == chunk[d]);
    if whole && !chunks.open.contains_key(&key) {
        // Every element comes from this write, in the chunk's order: no
        // fill to lay down first, no bitmap to keep.
        let mut assembled = w.chunk_buffer((elements * es) as usize);
        for_each_run(
            &count,
            (src, src_steps),
            (dst, &dst_steps),
            &mut |r: Run| {
                let (from, len) = ((r.src * es) as usize, (r.len * es) as usize);
                debug_assert_eq!((r.dst * es) as usize, assembled.len());
                assembled.extend_from_slice(&bytes[from..from + len]);
            },
        );
        w.write_chunk(plan.id, origin, assembled)?;
        chunks.done.insert(key);
        return Ok(());
    }
    let buf = chunks
        .open
        .entry(key.clone())
        .or_insert_with(|| ChunkBuf::new(&plan.fill, elements));
    for_each_run(
        &count,
        (src, src_steps),
        (dst, &dst_steps),
        &mut |r: Run| {
            copy_run(r, es, bytes, &mut buf.bytes);
            buf.mark(r.dst, r.len);
        },
    );
    if buf.count == elements {
        let buf = chunks.open.remove(&key).expect("the chunk is open");
        w.write_chunk(plan.id, origin, buf.bytes)?;
        chunks.done.insert(key);
    }
    Ok(())
}

/// Writes the chunks still open (their unwritten elements hold the fill value).
pub fn flush(w: &mut Hdf5Writer, chunks: &mut Chunks, plans: &[VarPlan]) -> WriteResult<()> {
    let mut open: Vec<_> = chunks.open.drain().collect();
    open.sort_by(|a, b| a.0.cmp(&b.0));
    for ((var, origin), buf) in open {
        w.write_chunk(plans[var].id, &origin, buf.bytes)?;
        chunks.done.insert((var, origin));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::ChunkBuf;

    #[test]
    fn marking_counts_each_element_once_across_words() {
        let mut b = ChunkBuf::new(&[0], 200);
        b.mark(3, 70);
        assert_eq!(b.count, 70);
        b.mark(0, 10);
        assert_eq!(b.count, 73);
        b.mark(64, 136);
        assert_eq!(b.count, 3 + 70 + (200 - 73));
        b.mark(0, 200);
        assert_eq!(b.count, 200);
        let mut one = ChunkBuf::new(&[0], 1);
        one.mark(0, 1);
        assert_eq!((one.count, one.written[0]), (1, 1));
    }
}
