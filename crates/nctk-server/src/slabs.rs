//! Cutting a selection into slabs of about a given size: whole rows where
//! they fit, one after another in row-major order, so that the slabs'
//! values laid end to end are the selection's values.

use nctk_model::Selection;

/// The slabs of a selection, made lazily (a huge selection of small rows
/// is not listed in memory).
#[derive(Debug, Clone)]
pub struct Slabs {
    selection: Selection,
    /// The dimension that is cut into runs of `run` indices; the ones
    /// before it are taken one index at a time, the ones after whole.
    cut: usize,
    /// Indices of `cut` per slab; 0 when the selection is one slab.
    run: u64,
    next: u64,
    total: u64,
}

impl Slabs {
    /// The slabs of `selection` holding at most `max_elements` values each
    /// (at least one row of the innermost dimension's single value).
    pub fn new(selection: &Selection, max_elements: u64) -> Slabs {
        let max_elements = max_elements.max(1);
        let rank = selection.rank();
        let empty = selection.count.contains(&0);
        // The smallest `k` whose trailing dimensions fit in one slab.
        let mut inner = 1u64;
        let mut k = rank;
        while k > 0 {
            match inner.checked_mul(selection.count[k - 1]) {
                Some(n) if n <= max_elements => {
                    inner = n;
                    k -= 1;
                }
                _ => break,
            }
        }
        let (cut, run, total) = if k == 0 || empty {
            // The whole selection is one slab (an empty one is one too, so
            // that its message is still sent).
            (0, 0, 1)
        } else {
            let cut = k - 1;
            let run = (max_elements / inner).max(1);
            let runs = selection.count[cut].div_ceil(run);
            let outer = selection.count[..cut]
                .iter()
                .try_fold(1u64, |n, &c| n.checked_mul(c))
                .unwrap_or(u64::MAX);
            (cut, run, outer.saturating_mul(runs))
        };
        Slabs {
            selection: selection.clone(),
            cut,
            run,
            next: 0,
            total,
        }
    }
}

impl Iterator for Slabs {
    type Item = Selection;

    fn next(&mut self) -> Option<Selection> {
        if self.next >= self.total {
            return None;
        }
        let i = self.next;
        self.next += 1;
        let sel = &self.selection;
        if self.run == 0 {
            return Some(sel.clone());
        }
        let mut slab = sel.clone();
        let runs = sel.count[self.cut].div_ceil(self.run).max(1);
        let (mut outer, j) = (i / runs, i % runs);
        let first = j * self.run;
        slab.start[self.cut] = sel.start[self.cut] + first * sel.stride[self.cut];
        slab.count[self.cut] = self
            .run
            .min(sel.count[self.cut] - first.min(sel.count[self.cut]));
        for d in (0..self.cut).rev() {
            let index = outer % sel.count[d];
            outer /= sel.count[d];
            slab.start[d] = sel.start[d] + index * sel.stride[d];
            slab.count[d] = 1;
        }
        Some(slab)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every index the selection selects, in row-major order.
    fn indices(sel: &Selection) -> Vec<Vec<u64>> {
        let mut out = vec![vec![]];
        for d in 0..sel.rank() {
            out = out
                .into_iter()
                .flat_map(|prefix| {
                    (0..sel.count[d]).map(move |i| {
                        let mut p = prefix.clone();
                        p.push(sel.start[d] + i * sel.stride[d]);
                        p
                    })
                })
                .collect();
        }
        out
    }

    #[test]
    fn slabs_cover_the_selection_in_order_within_the_limit() {
        let selections = [
            Selection::all(&[5, 7, 3]),
            Selection {
                start: vec![1, 0, 2],
                count: vec![4, 3, 5],
                stride: vec![2, 3, 1],
            },
            Selection::all(&[100]),
            Selection::all(&[]),
            Selection::all(&[3, 0, 4]),
        ];
        for sel in &selections {
            for max in [1, 2, 3, 5, 15, 21, 1000] {
                let slabs: Vec<Selection> = Slabs::new(sel, max).collect();
                let joined: Vec<Vec<u64>> = slabs.iter().flat_map(indices).collect();
                assert_eq!(joined, indices(sel), "{sel:?} max {max}");
                for s in &slabs {
                    let n = s.num_elements().unwrap();
                    assert!(n <= max || n == 0, "{s:?} over {max}");
                }
                assert!(!slabs.is_empty());
            }
        }
    }
}
