use crate::ModelError;

/// A hyperslab: per dimension a start index, a count of indices and a stride.
///
/// Selections are in row-major (C) order, outermost dimension first. A
/// scalar variable has an empty selection that selects its single value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selection {
    /// First index selected in each dimension.
    pub start: Vec<u64>,
    /// Number of indices selected in each dimension.
    pub count: Vec<u64>,
    /// Step between selected indices in each dimension (at least 1).
    pub stride: Vec<u64>,
}

impl Selection {
    /// Selects everything of a variable of `shape`.
    pub fn all(shape: &[u64]) -> Selection {
        Selection {
            start: vec![0; shape.len()],
            count: shape.to_vec(),
            stride: vec![1; shape.len()],
        }
    }

    /// A contiguous block: `count` indices from `start`, stride 1.
    pub fn block(start: &[u64], count: &[u64]) -> Selection {
        Selection {
            start: start.to_vec(),
            count: count.to_vec(),
            stride: vec![1; start.len()],
        }
    }

    /// Number of dimensions.
    pub fn rank(&self) -> usize {
        self.start.len()
    }

    /// Number of values selected, or `None` on overflow.
    pub fn num_elements(&self) -> Option<u64> {
        self.count
            .iter()
            .try_fold(1u64, |acc, &c| acc.checked_mul(c))
    }

    /// Checks the selection against `shape`. When `growable_first` is true the
    /// first dimension may extend past its length (writing new records).
    pub fn check(&self, shape: &[u64], growable_first: bool) -> Result<(), ModelError> {
        let err = |m: String| Err(ModelError::Selection(m));
        if self.start.len() != shape.len()
            || self.count.len() != shape.len()
            || self.stride.len() != shape.len()
        {
            return err(format!(
                "selection has rank {} but the variable has rank {}",
                self.start.len(),
                shape.len()
            ));
        }
        for (d, &len) in shape.iter().enumerate() {
            let (start, count, stride) = (self.start[d], self.count[d], self.stride[d]);
            if stride == 0 {
                return err(format!("stride 0 in dimension {d}"));
            }
            let last = if count == 0 {
                Some(start)
            } else {
                (count - 1)
                    .checked_mul(stride)
                    .and_then(|x| x.checked_add(start))
            };
            let Some(last) = last else {
                return err(format!("dimension {d}: index overflows"));
            };
            if growable_first && d == 0 {
                continue;
            }
            let in_bounds = if count == 0 {
                start <= shape[d]
            } else {
                last < shape[d]
            };
            if !in_bounds {
                return err(format!(
                    "dimension {d}: start {start}, count {count}, stride {stride} exceed length {len}"
                ));
            }
        }
        if self.num_elements().is_none() {
            return err("number of selected values overflows".into());
        }
        Ok(())
    }

    /// The contiguous runs of the selection in a row-major array of `shape`,
    /// in output order: each item is `(offset, len)` counted in elements from
    /// the array's first element. Trailing dimensions that are selected whole
    /// merge into longer runs. The selection must have passed [`check`](Self::check)
    /// (with the first dimension's length covering what is selected).
    pub fn runs(&self, shape: &[u64]) -> SelectionRuns {
        let rank = shape.len();
        // Trailing dimensions selected whole.
        let mut full_suffix = 0;
        while full_suffix < rank {
            let d = rank - 1 - full_suffix;
            if self.start[d] == 0 && self.count[d] == shape[d] && self.stride[d] == 1 {
                full_suffix += 1;
            } else {
                break;
            }
        }
        let mut elem_stride = vec![1u64; rank];
        for d in (0..rank.saturating_sub(1)).rev() {
            elem_stride[d] = elem_stride[d + 1] * shape[d + 1];
        }
        let empty = self.count.contains(&0);
        if full_suffix == rank {
            let total = if empty { 0 } else { shape.iter().product() };
            return SelectionRuns {
                outer: vec![],
                start: vec![],
                stride: vec![],
                elem_stride: vec![],
                run_len: total,
                index: vec![],
                done: empty,
            };
        }
        let j = rank - 1 - full_suffix;
        let block = elem_stride[j];
        let (outer_rank, run_len) = if self.stride[j] == 1 {
            (j, self.count[j] * block)
        } else {
            (j + 1, block)
        };
        SelectionRuns {
            outer: self.count[..outer_rank].to_vec(),
            start: self.start[..outer_rank].to_vec(),
            stride: self.stride[..outer_rank].to_vec(),
            elem_stride: elem_stride[..outer_rank].to_vec(),
            run_len: if self.stride[j] == 1 { run_len } else { block },
            index: vec![0; outer_rank],
            done: empty,
        }
        .with_inner_start(self.start[j] * block, self.stride[j] == 1)
    }
}

/// Iterator over the contiguous runs of a [`Selection`]; see [`Selection::runs`].
#[derive(Debug, Clone)]
pub struct SelectionRuns {
    outer: Vec<u64>,
    start: Vec<u64>,
    stride: Vec<u64>,
    elem_stride: Vec<u64>,
    run_len: u64,
    index: Vec<u64>,
    done: bool,
}

impl SelectionRuns {
    fn with_inner_start(mut self, inner_offset: u64, inner_is_run: bool) -> SelectionRuns {
        if inner_is_run {
            // The run starts at the inner dimension's start; fold it into a
            // constant added to every offset by prepending nothing: keep it in
            // `start` of a virtual zero-count axis.
            self.start.push(inner_offset);
            self.stride.push(0);
            self.elem_stride.push(1);
            self.outer.push(1);
            self.index.push(0);
        }
        self
    }

    /// Length in elements of every run.
    pub fn run_len(&self) -> u64 {
        self.run_len
    }
}

impl Iterator for SelectionRuns {
    type Item = (u64, u64);

    fn next(&mut self) -> Option<(u64, u64)> {
        if self.done {
            return None;
        }
        let offset = (0..self.index.len())
            .map(|d| (self.start[d] + self.index[d] * self.stride[d]) * self.elem_stride[d])
            .sum();
        // Advance the odometer.
        let mut d = self.index.len();
        loop {
            if d == 0 {
                self.done = true;
                break;
            }
            d -= 1;
            self.index[d] += 1;
            if self.index[d] < self.outer[d] {
                break;
            }
            self.index[d] = 0;
        }
        Some((offset, self.run_len))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reference: enumerate every selected element's offset one by one.
    fn offsets_by_element(sel: &Selection, shape: &[u64]) -> Vec<u64> {
        let n = sel.num_elements().unwrap();
        let mut out = vec![];
        for flat in 0..n {
            let mut rem = flat;
            let mut offset = 0;
            let mut mult = 1;
            for d in (0..shape.len()).rev() {
                let i = rem % sel.count[d];
                rem /= sel.count[d];
                offset += (sel.start[d] + i * sel.stride[d]) * mult;
                mult *= shape[d];
            }
            out.push(offset);
        }
        out
    }

    fn expand(runs: SelectionRuns) -> Vec<u64> {
        runs.flat_map(|(o, l)| o..o + l).collect()
    }

    #[test]
    fn runs_enumerate_exactly_the_selected_elements() {
        let shape = [4u64, 5, 6];
        let mut cases = vec![Selection::all(&shape)];
        for start in [[0, 0, 0], [1, 2, 3], [3, 0, 5]] {
            for count in [[1, 1, 1], [1, 3, 1], [1, 1, 6 - start[2]]] {
                for stride in [[1, 1, 1], [2, 1, 1], [1, 2, 1], [1, 1, 3]] {
                    let sel = Selection {
                        start: start.to_vec(),
                        count: count.to_vec(),
                        stride: stride.to_vec(),
                    };
                    if sel.check(&shape, false).is_ok() {
                        cases.push(sel);
                    }
                }
            }
        }
        cases.push(Selection {
            start: vec![1, 0, 0],
            count: vec![2, 5, 6],
            stride: vec![1, 1, 1],
        });
        cases.push(Selection {
            start: vec![0, 0, 0],
            count: vec![2, 5, 6],
            stride: vec![2, 1, 1],
        });
        for sel in cases {
            assert_eq!(
                expand(sel.runs(&shape)),
                offsets_by_element(&sel, &shape),
                "{sel:?}"
            );
        }
    }

    #[test]
    fn scalar_and_empty_selections() {
        assert_eq!(expand(Selection::all(&[]).runs(&[])), vec![0]);
        let empty = Selection::block(&[0, 0], &[0, 3]);
        assert!(empty.check(&[2, 3], false).is_ok());
        assert_eq!(expand(empty.runs(&[2, 3])), Vec::<u64>::new());
    }

    #[test]
    fn check_rejects_out_of_bounds_and_overflow() {
        assert!(Selection::block(&[0], &[5]).check(&[4], false).is_err());
        assert!(Selection::block(&[0], &[5]).check(&[4], true).is_ok());
        let s = Selection {
            start: vec![1],
            count: vec![u64::MAX],
            stride: vec![2],
        };
        assert!(s.check(&[10], true).is_err());
        assert!(Selection {
            start: vec![0],
            count: vec![1],
            stride: vec![0]
        }
        .check(&[1], false)
        .is_err());
    }
}
