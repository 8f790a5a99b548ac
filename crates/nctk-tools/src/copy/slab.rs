//! Slabs: cutting a variable into hyperslabs that fit the copy buffer, in
//! file order (as netCDF-C's `nc_get_iter`/`nc_next_iter` do for nccopy),
//! or aligned with the output's chunks ([`ChunkedSlabs`]) so that every
//! chunk is written whole, once.

use nctk_model::Selection;

/// The slab shape for `shape` when a slab may hold `max_elems` elements:
/// the innermost dimensions whole while they fit, then as much of the next
/// dimension as fits (at least 1), then 1 for the outer ones.
pub fn slab_shape(shape: &[u64], max_elems: u64) -> Vec<u64> {
    let max = max_elems.max(1);
    let mut count = vec![1u64; shape.len()];
    let mut prod = 1u64;
    for d in (0..shape.len()).rev() {
        let len = shape[d];
        if prod.saturating_mul(len) <= max {
            count[d] = len;
            prod = prod.saturating_mul(len);
        } else {
            count[d] = (max / prod).clamp(1, len.max(1));
            break;
        }
    }
    count
}

/// The slabs covering a whole variable of `shape`, outermost dimension
/// slowest, each at most [`slab_shape`] in size (the last along a dimension
/// may be shorter). A shape with a zero length yields nothing; a scalar
/// yields one empty selection.
#[derive(Debug, Clone)]
pub struct Slabs {
    shape: Vec<u64>,
    step: Vec<u64>,
    next: Option<Vec<u64>>,
}

impl Slabs {
    /// Slabs of at most `max_elems` elements over `shape`.
    pub fn new(shape: &[u64], max_elems: u64) -> Slabs {
        Slabs::with_step(shape, slab_shape(shape, max_elems))
    }

    /// Slabs of shape `step` (cut short at the end of each dimension).
    fn with_step(shape: &[u64], step: Vec<u64>) -> Slabs {
        let empty = shape.contains(&0);
        Slabs {
            shape: shape.to_vec(),
            step,
            next: (!empty).then(|| vec![0; shape.len()]),
        }
    }
}

/// Slabs of at most `max_elems` elements that never straddle a chunk
/// boundary and finish each chunk before starting the next: when a chunk
/// fits the buffer, a slab is as many whole chunks as fit (whole inner
/// dimensions first). When it does not, slabs cut through a band of chunks
/// as [`Slabs`] cuts a variable: the band is one chunk, widened to whole
/// inner dimensions (innermost first) while its chunks fit in
/// `cache_elems`, which makes the slabs' rows longer (contiguous in a
/// classic input) at the cost of holding the band's chunks in part.
#[derive(Debug, Clone)]
pub struct ChunkedSlabs {
    blocks: Slabs,
    max_elems: u64,
    inner: Option<(Vec<u64>, Slabs)>,
}

impl ChunkedSlabs {
    /// Slabs over `shape` for chunks of `chunks` (one length per
    /// dimension; a chunk longer than its dimension counts as the dimension),
    /// holding at most `cache_elems` elements of chunks written in part.
    pub fn new(shape: &[u64], chunks: &[u64], max_elems: u64, cache_elems: u64) -> ChunkedSlabs {
        let chunk: Vec<u64> = shape
            .iter()
            .zip(chunks)
            .map(|(&len, &c)| c.clamp(1, len.max(1)))
            .collect();
        let chunk_elems = chunk.iter().fold(1u64, |a, &c| a.saturating_mul(c));
        let max = max_elems.max(1);
        let block = if chunk_elems <= max {
            let grid: Vec<u64> = shape
                .iter()
                .zip(&chunk)
                .map(|(&l, &c)| l.div_ceil(c))
                .collect();
            slab_shape(&grid, max / chunk_elems)
                .iter()
                .zip(&chunk)
                .map(|(&n, &c)| n * c)
                .collect()
        } else {
            let mut band = chunk.clone();
            for d in (0..shape.len()).rev() {
                let mut wider = band.clone();
                wider[d] = shape[d].div_ceil(chunk[d]) * chunk[d];
                if wider.iter().fold(1u64, |a, &c| a.saturating_mul(c)) > cache_elems {
                    break;
                }
                band = wider;
            }
            band
        };
        ChunkedSlabs {
            blocks: Slabs::with_step(shape, block),
            max_elems: max,
            inner: None,
        }
    }
}

impl Iterator for ChunkedSlabs {
    type Item = Selection;

    fn next(&mut self) -> Option<Selection> {
        loop {
            if let Some((origin, slabs)) = &mut self.inner {
                if let Some(mut sel) = slabs.next() {
                    sel.start
                        .iter_mut()
                        .zip(origin.iter())
                        .for_each(|(s, o)| *s += o);
                    return Some(sel);
                }
            }
            let block = self.blocks.next()?;
            self.inner = Some((block.start, Slabs::new(&block.count, self.max_elems)));
        }
    }
}

impl Iterator for Slabs {
    type Item = Selection;

    fn next(&mut self) -> Option<Selection> {
        let start = self.next.take()?;
        let count: Vec<u64> = (0..self.shape.len())
            .map(|d| self.step[d].min(self.shape[d] - start[d]))
            .collect();
        // Odometer: advance the innermost dimension that is not whole.
        let mut n = start.clone();
        let mut d = self.shape.len();
        let mut more = false;
        while d > 0 {
            d -= 1;
            n[d] += self.step[d];
            if n[d] < self.shape[d] {
                more = true;
                break;
            }
            n[d] = 0;
        }
        if more {
            self.next = Some(n);
        }
        Some(Selection::block(&start, &count))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shape_takes_whole_inner_dimensions() {
        assert_eq!(slab_shape(&[100, 721, 1440], 1_250_000), vec![1, 721, 1440]);
        assert_eq!(slab_shape(&[100, 721, 1440], 5000), vec![1, 3, 1440]);
        assert_eq!(slab_shape(&[100, 721, 1440], 10), vec![1, 1, 10]);
        assert_eq!(slab_shape(&[4, 5], 1000), vec![4, 5]);
        assert_eq!(slab_shape(&[4, 5], 0), vec![1, 1]);
        assert_eq!(slab_shape(&[], 10), Vec::<u64>::new());
    }

    #[test]
    fn slabs_cover_every_element_once_in_order() {
        for (shape, max) in [
            (vec![7u64, 5, 3], 4u64),
            (vec![7, 5, 3], 15),
            (vec![7, 5, 3], 16),
            (vec![7, 5, 3], 1000),
            (vec![1], 1),
            (vec![10], 3),
        ] {
            let mut seen = vec![];
            for sel in Slabs::new(&shape, max) {
                assert!(sel.num_elements().unwrap() <= max.max(1));
                sel.runs(&shape).for_each(|(s, l)| seen.extend(s..s + l));
            }
            let total: u64 = shape.iter().product();
            assert_eq!(seen, (0..total).collect::<Vec<_>>(), "{shape:?} {max}");
        }
        assert_eq!(Slabs::new(&[3, 0, 2], 10).count(), 0);
        assert_eq!(Slabs::new(&[], 10).count(), 1);
    }

    /// Every element once, each slab inside one block of whole chunks or
    /// inside one chunk, and each chunk finished before the next begins.
    #[test]
    fn chunked_slabs_align_with_chunks() {
        for (shape, chunks, max) in [
            (vec![7u64, 5, 3], vec![2u64, 2, 3], 4u64),
            (vec![7, 5, 3], vec![2, 2, 3], 12),
            (vec![7, 5, 3], vec![2, 2, 3], 1000),
            (vec![7, 5, 3], vec![3, 5, 1], 7),
            (vec![10], vec![1024], 3),
            (vec![5, 4], vec![1, 4], 9),
        ] {
            let mut seen = vec![];
            let mut chunk_order: Vec<Vec<u64>> = vec![];
            let c: Vec<u64> = chunks.iter().zip(&shape).map(|(&c, &l)| c.min(l)).collect();
            for sel in ChunkedSlabs::new(&shape, &chunks, max, max) {
                let n = sel.num_elements().unwrap();
                let first: Vec<u64> = (0..shape.len()).map(|d| sel.start[d] / c[d]).collect();
                let last: Vec<u64> = (0..shape.len())
                    .map(|d| (sel.start[d] + sel.count[d] - 1) / c[d])
                    .collect();
                if first != last {
                    // Several chunks: all of them whole, within the buffer.
                    assert!(n <= max, "{sel:?}");
                    for d in 0..shape.len() {
                        assert_eq!(sel.start[d] % c[d], 0, "{sel:?}");
                        let end = sel.start[d] + sel.count[d];
                        assert!(end % c[d] == 0 || end == shape[d], "{sel:?}");
                    }
                } else {
                    assert!(n <= max.max(1), "{sel:?}");
                    if chunk_order.last() != Some(&first) {
                        assert!(!chunk_order.contains(&first), "chunk {first:?} revisited");
                        chunk_order.push(first);
                    }
                }
                sel.runs(&shape).for_each(|(s, l)| seen.extend(s..s + l));
            }
            seen.sort_unstable();
            let total: u64 = shape.iter().product();
            assert_eq!(
                seen,
                (0..total).collect::<Vec<_>>(),
                "{shape:?} {chunks:?} {max}"
            );
        }
        // The benchmark's variable: one slab per chunk under nccopy's buffer.
        let mut big = ChunkedSlabs::new(&[100, 721, 1440], &[1, 721, 1440], 1_250_000, 0);
        assert_eq!(
            big.nth(1),
            Some(Selection::block(&[1, 0, 0], &[1, 721, 1440]))
        );
        assert_eq!(big.count(), 98);
        assert_eq!(ChunkedSlabs::new(&[3, 0], &[1, 1], 10, 10).count(), 0);
        assert_eq!(ChunkedSlabs::new(&[], &[], 10, 10).count(), 1);
    }

    /// Chunks larger than the buffer: slabs inside one chunk, or, with a
    /// cache for a band of them, whole rows across the band.
    #[test]
    fn bands_of_chunks_give_whole_rows() {
        let (shape, chunks) = ([100u64, 721, 1440], [25u64, 241, 480]);
        let first = |cache| ChunkedSlabs::new(&shape, &chunks, 1_250_000, cache).next();
        assert_eq!(
            first(0),
            Some(Selection::block(&[0, 0, 0], &[10, 241, 480]))
        );
        assert_eq!(
            first(10_000_000),
            Some(Selection::block(&[0, 0, 0], &[3, 241, 1440]))
        );
        // Every element once; up to a band of one row of chunks (cache 60:
        // 3 x 2 x 6), each band finished before the next starts.
        for cache in [0, 24, 60, 1000] {
            let mut seen = vec![];
            let mut done_bands = vec![];
            let mut band = None;
            for sel in ChunkedSlabs::new(&[9, 7, 5], &[3, 2, 2], 8, cache) {
                assert!(sel.num_elements().unwrap() <= 8, "{sel:?}");
                let b = (sel.start[0] / 3, sel.start[1] / 2);
                if band != Some(b) {
                    assert!(!done_bands.contains(&b) || cache > 60, "{b:?} revisited");
                    done_bands.extend(band);
                    band = Some(b);
                }
                sel.runs(&[9, 7, 5])
                    .for_each(|(s, l)| seen.extend(s..s + l));
            }
            seen.sort_unstable();
            assert_eq!(seen, (0..315).collect::<Vec<_>>(), "cache {cache}");
        }
    }
}
