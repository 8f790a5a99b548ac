//! Where a data message's section meets a read's selection: runs of
//! elements contiguous in both, as element offsets into each; which output
//! elements the messages cover, and the output cut into each run's bytes.

use nctk_model::Selection;

use crate::payload::decode::Span;

/// A run: `len` elements at element `out` of the read's output and element
/// `msg` of the message's values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Run {
    /// First element in the output.
    pub(crate) out: u64,
    /// First element in the message.
    pub(crate) msg: u64,
    /// Number of elements.
    pub(crate) len: u64,
}

/// Where one dimension of a selection meets a message's: the indices both
/// hold form an arithmetic progression, output index `i0 + k * di` being
/// message index `j0 + k * dj` for `k` in `0..len`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Meet {
    i0: u64,
    j0: u64,
    di: u64,
    dj: u64,
    len: u64,
}

impl Meet {
    /// Dimension `d` of `sel` against `m`; `None` when they share no index.
    fn of(sel: &Selection, d: usize, m: Span) -> Option<Meet> {
        let (start, count, stride) = (sel.start[d], sel.count[d], sel.stride[d]);
        if count == 0 || m.count == 0 {
            return None;
        }
        let last = m.start.checked_add((m.count - 1).checked_mul(m.stride)?)?;
        let lo = m.start.saturating_sub(start).div_ceil(stride);
        let hi = (count - 1).min(last.checked_sub(start)? / stride);
        // The first selected index on the message's grid: within one
        // message stride of `lo` when there is one.
        let first = (lo..=hi.min(lo.saturating_add(m.stride)))
            .find(|&i| (start + i * stride - m.start) % m.stride == 0)?;
        let g = lcm(stride, m.stride);
        let (di, dj) = (g / stride, g / m.stride);
        Some(Meet {
            i0: first,
            j0: (start + first * stride - m.start) / m.stride,
            di,
            dj,
            len: (hi - first) / di + 1,
        })
    }

    /// The `k`th shared index: (output, message).
    fn at(&self, k: u64) -> (u64, u64) {
        (self.i0 + k * self.di, self.j0 + k * self.dj)
    }

    /// True when consecutive shared indices are consecutive in both.
    fn consecutive(&self) -> bool {
        self.len <= 1 || (self.di == 1 && self.dj == 1)
    }
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// The least common multiple, saturating (a step past every index).
fn lcm(a: u64, b: u64) -> u64 {
    (a / gcd(a, b)).saturating_mul(b)
}

/// The runs where `section` (a message's) meets `sel`, in output order;
/// empty when they do not meet. Both must have the same rank. The work is
/// per run, not per element, when trailing dimensions are contiguous.
pub(crate) fn runs(sel: &Selection, section: &[Span]) -> Vec<Run> {
    let rank = sel.rank();
    if rank != section.len() {
        return vec![];
    }
    let mut meets: Vec<Meet> = Vec::with_capacity(rank);
    for (d, &m) in section.iter().enumerate() {
        match Meet::of(sel, d, m) {
            Some(meet) => meets.push(meet),
            None => return vec![],
        }
    }
    // Element strides of the output and of the message.
    let mut out_stride = vec![1u64; rank];
    let mut msg_stride = vec![1u64; rank];
    for d in (0..rank.saturating_sub(1)).rev() {
        out_stride[d] = out_stride[d + 1] * sel.count[d + 1];
        msg_stride[d] = msg_stride[d + 1] * section[d + 1].count;
    }
    let mut out: Vec<Run> = vec![];
    if rank == 0 {
        out.push(Run {
            out: 0,
            msg: 0,
            len: 1,
        });
        return out;
    }
    // Trailing dimensions walked as one block: the innermost when its
    // shared indices are consecutive in both, and each one before it while
    // the dimensions after it are whole in both (so the block stays
    // contiguous).
    let whole = |d: usize| {
        meets[d].consecutive() && meets[d].len == sel.count[d] && meets[d].len == section[d].count
    };
    let mut first = rank;
    if meets[rank - 1].consecutive() {
        first = rank - 1;
        while first > 0 && whole(first) && meets[first - 1].consecutive() {
            first -= 1;
        }
    }
    let (block_out, block_msg, block_len) = (first..rank).fold((0, 0, 1), |(o, m, l), d| {
        let (i, j) = meets[d].at(0);
        (
            o + i * out_stride[d],
            m + j * msg_stride[d],
            l * meets[d].len,
        )
    });
    // The dimensions before the block, index by index (the last fastest);
    // with no block (a strided innermost dimension) every element is a run.
    let outer = if first == rank { rank - 1 } else { first };
    let mut index = vec![0u64; outer];
    loop {
        let (mut o, mut m) = (0u64, 0u64);
        for d in 0..outer {
            let (i, j) = meets[d].at(index[d]);
            o += i * out_stride[d];
            m += j * msg_stride[d];
        }
        let mut push = |o: u64, m: u64, len: u64| match out.last_mut() {
            Some(r) if r.out + r.len == o && r.msg + r.len == m => r.len += len,
            _ => out.push(Run {
                out: o,
                msg: m,
                len,
            }),
        };
        if first == rank {
            let inner = meets[rank - 1];
            for k in 0..inner.len {
                let (i, j) = inner.at(k);
                push(
                    o + i * out_stride[rank - 1],
                    m + j * msg_stride[rank - 1],
                    1,
                );
            }
        } else {
            push(o + block_out, m + block_msg, block_len);
        }
        // Next outer index, last dimension fastest.
        let mut d = outer;
        loop {
            if d == 0 {
                return out;
            }
            d -= 1;
            index[d] += 1;
            if index[d] < meets[d].len {
                break;
            }
            index[d] = 0;
        }
    }
}

/// The output elements the runs of every message cover, as sorted
/// `(start, end)` element intervals (intersecting ones when messages
/// overlap).
pub(crate) fn covered(runs: &[Vec<Run>]) -> Vec<(u64, u64)> {
    let mut covered: Vec<(u64, u64)> = runs
        .iter()
        .flatten()
        .map(|r| (r.out, r.out + r.len))
        .collect();
    covered.sort_unstable();
    covered
}

/// True when no two of the sorted intervals of [`covered`] share an
/// element: then no message overwrites another in the output.
pub(crate) fn disjoint(covered: &[(u64, u64)]) -> bool {
    covered.windows(2).all(|w| w[0].1 <= w[1].0)
}

/// Cuts `out` (elements of `size` bytes) into the bytes of each run, runs
/// tagged with what they belong to; the pieces come back in output order.
/// The runs must not intersect ([`disjoint`]): each output byte goes to at
/// most one run, so the pieces can be filled at the same time.
pub(crate) fn split<T>(
    out: &mut [u8],
    size: u64,
    mut runs: Vec<(T, Run)>,
) -> Vec<(T, Run, &mut [u8])> {
    runs.sort_unstable_by_key(|(_, r)| r.out);
    let mut pieces = Vec::with_capacity(runs.len());
    let mut rest = out;
    let mut consumed = 0u64;
    for (tag, r) in runs {
        debug_assert!(r.out * size >= consumed, "intersecting runs");
        let (skip, len) = (r.out * size - consumed, r.len * size);
        let (_, tail) = std::mem::take(&mut rest).split_at_mut(skip as usize);
        let (slot, tail) = tail.split_at_mut(len as usize);
        rest = tail;
        consumed = (r.out + r.len) * size;
        pieces.push((tag, r, slot));
    }
    pieces
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span(start: u64, count: u64, stride: u64) -> Span {
        Span {
            start,
            count,
            stride,
        }
    }

    /// Every output element's message element, by brute force.
    fn brute(sel: &Selection, section: &[Span]) -> Vec<Option<u64>> {
        let n = sel.num_elements().unwrap() as usize;
        let mut out = vec![None; n];
        for (k, slot) in out.iter_mut().enumerate() {
            let mut rem = k as u64;
            let mut idx = vec![0u64; sel.rank()];
            for d in (0..sel.rank()).rev() {
                idx[d] = rem % sel.count[d];
                rem /= sel.count[d];
            }
            let mut m = 0u64;
            let mut inside = true;
            for d in 0..sel.rank() {
                let c = sel.start[d] + idx[d] * sel.stride[d];
                let s = section[d];
                if c < s.start
                    || (c - s.start) % s.stride != 0
                    || (c - s.start) / s.stride >= s.count
                {
                    inside = false;
                }
                m = m * s.count + (c.saturating_sub(s.start)) / s.stride;
            }
            *slot = inside.then_some(m);
        }
        out
    }

    #[test]
    fn whole_trailing_dimensions_make_one_run() {
        let sel = Selection::block(&[0, 0, 0], &[4, 6, 8]);
        let section = [span(1, 2, 1), span(0, 6, 1), span(0, 8, 1)];
        assert_eq!(
            runs(&sel, &section),
            vec![Run {
                out: 48,
                msg: 0,
                len: 96
            }]
        );
    }

    #[test]
    fn runs_agree_with_element_by_element_mapping() {
        let cases = [
            (
                Selection::block(&[0, 0], &[4, 6]),
                vec![span(1, 2, 1), span(2, 3, 1)],
            ),
            (
                Selection {
                    start: vec![0, 1],
                    count: vec![3, 4],
                    stride: vec![2, 2],
                },
                vec![span(0, 5, 1), span(1, 4, 2)],
            ),
            (Selection::block(&[3], &[5]), vec![span(0, 10, 1)]),
            (Selection::block(&[0], &[2]), vec![span(5, 1, 1)]),
            (
                Selection {
                    start: vec![1, 0],
                    count: vec![6, 9],
                    stride: vec![3, 2],
                },
                vec![span(2, 7, 2), span(1, 6, 3)],
            ),
            (
                Selection::block(&[0, 0, 0], &[3, 4, 5]),
                vec![span(1, 1, 1), span(0, 4, 1), span(0, 5, 1)],
            ),
            (
                Selection::block(&[0, 1, 0], &[3, 2, 5]),
                vec![span(0, 3, 1), span(0, 4, 1), span(0, 5, 1)],
            ),
            (
                Selection {
                    start: vec![0, 0, 1],
                    count: vec![2, 3, 2],
                    stride: vec![1, 1, 2],
                },
                vec![span(0, 2, 1), span(0, 3, 1), span(0, 5, 1)],
            ),
        ];
        for (sel, section) in cases {
            let mut mapped = vec![None; sel.num_elements().unwrap() as usize];
            for r in runs(&sel, &section) {
                for k in 0..r.len {
                    assert!(mapped[(r.out + k) as usize].is_none(), "overlapping runs");
                    mapped[(r.out + k) as usize] = Some(r.msg + k);
                }
            }
            assert_eq!(mapped, brute(&sel, &section), "{sel:?} {section:?}");
        }
    }
}
