//! Reading a selection: visit only the chunks it touches and copy each
//! selected element straight into the output buffer.

use nctk_codec::Pipeline;
use nctk_model::{Selection, Values};
use nctk_store::kv::{ReadableStore, StorePrefix};

use crate::cell::{narrow_utf32, Cell};
use crate::ZarrError;

/// What the reader knows about one Zarr array.
#[derive(Debug)]
pub(crate) struct ArrayMeta {
    pub prefix: StorePrefix,
    pub shape: Vec<u64>,
    pub chunks: Vec<u64>,
    pub cell: Cell,
    /// Stored bytes per element (from the dtype).
    pub itemsize: u64,
    pub order_f: bool,
    pub separator: char,
    /// One cell of fill, `cell.width()` bytes.
    pub fill: Vec<u8>,
    pub pipeline: Option<Pipeline>,
    /// Why the codecs cannot be used, reported when a chunk is read.
    pub codec_error: Option<String>,
}

impl ArrayMeta {
    fn chunk_key(&self, idx: &[u64]) -> String {
        if idx.is_empty() {
            return "0".into();
        }
        let sep = self.separator.to_string();
        idx.iter()
            .map(u64::to_string)
            .collect::<Vec<_>>()
            .join(&sep)
    }

    /// Elements per chunk (checked).
    fn chunk_elems(&self) -> Option<u64> {
        self.chunks.iter().try_fold(1u64, |a, &c| a.checked_mul(c))
    }
}

/// For one dimension: the chunks the selection touches, each with the
/// range of selection indices `j` inside it.
fn dim_chunks(start: u64, count: u64, stride: u64, chunk: u64) -> Vec<(u64, u64, u64)> {
    let mut out: Vec<(u64, u64, u64)> = vec![];
    let mut j = 0;
    while j < count {
        let i = start + j * stride;
        let c = i / chunk;
        let chunk_end = (c + 1) * chunk; // exclusive index bound of this chunk
                                         // Last j with start + j*stride < chunk_end.
        let last = (chunk_end - 1 - start) / stride;
        let hi = (last + 1).min(count);
        out.push((c, j, hi));
        j = hi;
    }
    out
}

/// Reads `sel` (in Zarr coordinates, already checked against `meta.shape`).
pub(crate) fn read_selection<S: ReadableStore + ?Sized>(
    store: &S,
    meta: &ArrayMeta,
    var: &str,
    sel: &Selection,
) -> Result<Values, ZarrError> {
    let too_large = |what: &str| ZarrError::TooLarge {
        var: var.to_string(),
        reason: format!("{what} overflows"),
    };
    let n = sel
        .num_elements()
        .ok_or_else(|| too_large("number of selected values"))?;
    let width = meta.cell.width();
    let total = usize::try_from(n)
        .ok()
        .and_then(|n| n.checked_mul(width))
        .ok_or_else(|| too_large("size of the selection in bytes"))?;
    let mut out: Vec<u8> = Vec::new();
    out.try_reserve_exact(total)
        .map_err(|_| ZarrError::TooLarge {
            var: var.to_string(),
            reason: format!("cannot allocate {total} bytes for the selection"),
        })?;
    for _ in 0..n {
        out.extend_from_slice(&meta.fill);
    }
    if n == 0 {
        return Ok(meta.cell.decode(&out));
    }

    let rank = meta.shape.len();
    let per_dim: Vec<Vec<(u64, u64, u64)>> = (0..rank)
        .map(|d| dim_chunks(sel.start[d], sel.count[d], sel.stride[d], meta.chunks[d]))
        .collect();
    // Output strides (row-major over the selection's counts), in cells.
    let mut out_stride = vec![1u64; rank];
    for d in (0..rank.saturating_sub(1)).rev() {
        out_stride[d] = out_stride[d + 1] * sel.count[d + 1];
    }
    // Chunk strides in cells, by the array's order.
    let mut chunk_stride = vec![1u64; rank];
    if meta.order_f {
        for d in 1..rank {
            chunk_stride[d] = chunk_stride[d - 1] * meta.chunks[d - 1];
        }
    } else {
        for d in (0..rank.saturating_sub(1)).rev() {
            chunk_stride[d] = chunk_stride[d + 1] * meta.chunks[d + 1];
        }
    }
    let chunk_elems = meta.chunk_elems().ok_or_else(|| too_large("chunk size"))?;
    let chunk_bytes = chunk_elems
        .checked_mul(meta.itemsize)
        .ok_or_else(|| too_large("chunk size in bytes"))?;

    // Odometer over the chunks touched.
    let mut pick = vec![0usize; rank];
    loop {
        let idx: Vec<u64> = (0..rank).map(|d| per_dim[d][pick[d]].0).collect();
        let key = meta.prefix.key(&meta.chunk_key(&idx))?;
        if let Some(raw) = store.get(&key)? {
            let data = decode_chunk(meta, key.as_ref(), &raw, chunk_bytes, chunk_elems)?;
            copy_chunk(
                meta,
                sel,
                &per_dim,
                &pick,
                &idx,
                &out_stride,
                &chunk_stride,
                &data,
                &mut out,
            );
        }
        // Advance.
        let mut d = rank;
        loop {
            if d == 0 {
                return Ok(meta.cell.decode(&out));
            }
            d -= 1;
            pick[d] += 1;
            if pick[d] < per_dim[d].len() {
                break;
            }
            pick[d] = 0;
        }
    }
}

/// Decodes one chunk into cells of `meta.cell.width()` bytes.
fn decode_chunk(
    meta: &ArrayMeta,
    key: &str,
    raw: &[u8],
    chunk_bytes: u64,
    chunk_elems: u64,
) -> Result<Vec<u8>, ZarrError> {
    if let Some(reason) = &meta.codec_error {
        return Err(ZarrError::Codec {
            key: key.to_string(),
            reason: reason.clone(),
        });
    }
    let size_err = |actual: usize| ZarrError::ChunkSize {
        key: key.to_string(),
        expected: chunk_bytes,
        actual: actual as u64,
    };
    // netCDF-C 4.9 wrote char as "<U1" with one byte per element; NumPy's U1
    // has four. The chunk's size tells which.
    let utf32_chars = matches!(meta.cell, Cell::Char) && meta.itemsize == 4;
    let data = match &meta.pipeline {
        None => {
            if raw.len() as u64 == chunk_bytes {
                raw.to_vec()
            } else if utf32_chars && raw.len() as u64 == chunk_elems {
                return Ok(raw.to_vec());
            } else {
                return Err(size_err(raw.len()));
            }
        }
        Some(p) => {
            let len = usize::try_from(chunk_bytes).map_err(|_| size_err(raw.len()))?;
            let mut buf = Vec::new();
            buf.try_reserve_exact(len)
                .map_err(|_| size_err(raw.len()))?;
            buf.resize(len, 0);
            p.decode_into(raw, &mut buf).map_err(|e| ZarrError::Codec {
                key: key.to_string(),
                reason: e.to_string(),
            })?;
            buf
        }
    };
    if utf32_chars {
        return Ok(narrow_utf32(&data, meta.cell.big_endian()));
    }
    Ok(data)
}

#[allow(clippy::too_many_arguments)]
fn copy_chunk(
    meta: &ArrayMeta,
    sel: &Selection,
    per_dim: &[Vec<(u64, u64, u64)>],
    pick: &[usize],
    idx: &[u64],
    out_stride: &[u64],
    chunk_stride: &[u64],
    data: &[u8],
    out: &mut [u8],
) {
    let w = meta.cell.width();
    let rank = idx.len();
    if rank == 0 {
        out[..w].copy_from_slice(&data[..w]);
        return;
    }
    let lo: Vec<u64> = (0..rank).map(|d| per_dim[d][pick[d]].1).collect();
    let hi: Vec<u64> = (0..rank).map(|d| per_dim[d][pick[d]].2).collect();
    let local = |d: usize, j: u64| sel.start[d] + j * sel.stride[d] - idx[d] * meta.chunks[d];
    let last = rank - 1;
    let contiguous = !meta.order_f && sel.stride[last] == 1 || rank == 1 && sel.stride[0] == 1;
    let mut j = lo.clone();
    loop {
        let mut out_off = 0;
        let mut in_off = 0;
        for d in 0..last {
            out_off += j[d] * out_stride[d];
            in_off += local(d, j[d]) * chunk_stride[d];
        }
        if contiguous {
            let o = ((out_off + lo[last]) as usize) * w;
            let i = ((in_off + local(last, lo[last]) * chunk_stride[last]) as usize) * w;
            let len = ((hi[last] - lo[last]) as usize) * w;
            out[o..o + len].copy_from_slice(&data[i..i + len]);
        } else {
            for jl in lo[last]..hi[last] {
                let o = ((out_off + jl) as usize) * w;
                let i = ((in_off + local(last, jl) * chunk_stride[last]) as usize) * w;
                out[o..o + w].copy_from_slice(&data[i..i + w]);
            }
        }
        // Advance the outer dimensions.
        let mut d = last;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_per_dimension() {
        assert_eq!(
            dim_chunks(0, 10, 1, 4),
            vec![(0, 0, 4), (1, 4, 8), (2, 8, 10)]
        );
        assert_eq!(
            dim_chunks(3, 3, 5, 4),
            vec![(0, 0, 1), (2, 1, 2), (3, 2, 3)]
        );
        assert_eq!(dim_chunks(5, 0, 1, 4), vec![]);
    }
}
