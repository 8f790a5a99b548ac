//! Slabs: cutting a variable into hyperslabs that fit the copy buffer, in
//! file order (as netCDF-C's `nc_get_iter`/`nc_next_iter` do for nccopy).

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
        let empty = shape.contains(&0);
        Slabs {
            shape: shape.to_vec(),
            step: slab_shape(shape, max_elems),
            next: (!empty).then(|| vec![0; shape.len()]),
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
}
