//! Chunks moved as they are stored: when a variable's input chunks are
//! exactly what the output stores (the same type and chunk shape, codec
//! chains that decode each other's bytes, no filter option asking for
//! new ones), the copy reads each chunk's stored bytes and stores them
//! under the output's chunk key, without decoding and encoding again.
//! A chunk the input cannot hand out as stored (never written, a filter
//! skipped, ...) is copied as values, as every chunk is otherwise.

use nctk_model::{DataSource, Layout, Selection, Values};

use super::{CopyError, CopyOptions, VarCopy};
use nctk::DatasetMut;

/// The most chunks read in one batch.
const MAX_BATCH: u64 = 64;

/// The chunk shape `v` is copied in as stored chunks, or `None` when its
/// chunks must be decoded and encoded: the input and output types differ,
/// the chunk shapes differ, a `-d`, `-s` or `-F` option asks for filters,
/// or the input's and output's codec chains are not the same.
pub(crate) fn stored_chunk_shape(
    source: &dyn DataSource,
    writer: &DatasetMut,
    v: &VarCopy,
    opts: &CopyOptions,
) -> Option<Vec<u64>> {
    if opts.deflate.is_some() || opts.shuffle || opts.wants_filters() {
        return None;
    }
    let input = source.schema().var(v.input);
    if writer.schema().var(v.output).dtype != input.dtype {
        return None;
    }
    let Layout::Chunked(chunks) = &input.storage.layout else {
        return None;
    };
    let same_chunks = writer.chunk_shape(v.output).as_ref() == Some(chunks);
    if !same_chunks || chunks.len() != v.shape.len() || chunks.contains(&0) {
        return None;
    }
    let chain = source.stored_chunk_codecs(v.input)?;
    (writer.stored_chunk_codecs(v.output)? == chain).then(|| chunks.clone())
}

/// What a stored-chunk copy of one variable did.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Moved {
    /// Chunks stored as they were read.
    pub stored: u64,
}

/// Copies `v` chunk by chunk in `chunks`: batches of stored chunks
/// (at most `batch_bytes` of decoded chunk, at least one chunk) read at
/// once, each stored as it is when both sides take it, else copied as
/// values; `progress(selection)` after each chunk.
pub(crate) fn copy_var(
    source: &dyn DataSource,
    writer: &mut DatasetMut,
    v: &VarCopy,
    chunks: &[u64],
    batch_bytes: u64,
    names: (&str, &std::path::Path),
    progress: &mut dyn FnMut(&Selection),
) -> Result<Moved, CopyError> {
    let (in_name, out_name) = names;
    let read_err = |source| CopyError::Read {
        path: in_name.to_string(),
        var: v.name.clone(),
        source,
    };
    let write_err = |e: nctk::Error| e.into_output(out_name);
    let elem = super::elem_size(source.schema().var(v.input).dtype);
    let chunk_bytes = chunks.iter().product::<u64>().saturating_mul(elem).max(1);
    let per_batch = (batch_bytes / chunk_bytes).clamp(1, MAX_BATCH) as usize;
    let grid: Vec<u64> = v
        .shape
        .iter()
        .zip(chunks)
        .map(|(&n, &c)| n.div_ceil(c))
        .collect();
    let mut moved = Moved::default();
    let mut buf = Values::empty(source.schema().var(v.input).dtype);
    let mut all = ChunkIndices::new(grid);
    loop {
        let batch: Vec<Vec<u64>> = all.by_ref().take(per_batch).collect();
        if batch.is_empty() {
            return Ok(moved);
        }
        let stored = source.stored_chunks(v.input, &batch).map_err(read_err)?;
        for (index, bytes) in batch.iter().zip(stored) {
            let sel = chunk_selection(index, chunks, &v.shape);
            let taken = match bytes {
                Some(b) => writer
                    .write_stored_chunk(v.output, &sel, b)
                    .map_err(write_err)?,
                None => false,
            };
            if taken {
                moved.stored += 1;
            } else {
                source
                    .read_into(v.input, &sel, &mut buf)
                    .map_err(read_err)?;
                writer.write(v.output, &sel, &buf).map_err(write_err)?;
            }
            progress(&sel);
        }
    }
}

/// The elements of chunk `index` inside a variable of `shape`.
fn chunk_selection(index: &[u64], chunks: &[u64], shape: &[u64]) -> Selection {
    let start: Vec<u64> = index.iter().zip(chunks).map(|(i, c)| i * c).collect();
    let count = start
        .iter()
        .zip(chunks.iter().zip(shape))
        .map(|(s, (c, n))| (*c).min(n - s))
        .collect();
    Selection {
        stride: vec![1; start.len()],
        start,
        count,
    }
}

/// The chunk indices of a grid in row-major order (none when the grid is
/// empty).
struct ChunkIndices {
    grid: Vec<u64>,
    next: Option<Vec<u64>>,
}

impl ChunkIndices {
    fn new(grid: Vec<u64>) -> ChunkIndices {
        let next = (!grid.contains(&0)).then(|| vec![0; grid.len()]);
        ChunkIndices { grid, next }
    }
}

impl Iterator for ChunkIndices {
    type Item = Vec<u64>;

    fn next(&mut self) -> Option<Vec<u64>> {
        let current = self.next.take()?;
        let mut following = current.clone();
        for d in (0..self.grid.len()).rev() {
            following[d] += 1;
            if following[d] < self.grid[d] {
                self.next = Some(following);
                break;
            }
            following[d] = 0;
        }
        Some(current)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunk_indices_walk_the_grid_row_major() {
        let all: Vec<Vec<u64>> = ChunkIndices::new(vec![2, 3]).collect();
        assert_eq!(all.len(), 6);
        assert_eq!(all[0], [0, 0]);
        assert_eq!(all[3], [1, 0]);
        assert_eq!(all[5], [1, 2]);
        assert_eq!(ChunkIndices::new(vec![2, 0]).count(), 0);
    }

    #[test]
    fn an_edge_chunk_is_cut_at_the_shape() {
        let s = chunk_selection(&[1, 2], &[4, 5], &[6, 12]);
        assert_eq!((s.start, s.count), (vec![4, 10], vec![2, 2]));
    }
}
