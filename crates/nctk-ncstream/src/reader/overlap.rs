//! Where a data message's section meets a read's selection: runs of
//! elements contiguous in both, as element offsets into each.

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

/// The runs where `section` (a message's) meets `sel`, in output order;
/// empty when they do not meet. Both must have the same rank.
pub(crate) fn runs(sel: &Selection, section: &[Span]) -> Vec<Run> {
    let rank = sel.rank();
    if rank != section.len() {
        return vec![];
    }
    // Per dimension: the (output index, message index) pairs both hold.
    let mut pairs: Vec<Vec<(u64, u64)>> = Vec::with_capacity(rank);
    for (d, &m) in section.iter().enumerate() {
        let p: Vec<(u64, u64)> = (0..sel.count[d])
            .filter_map(|i| {
                let c = sel.start[d] + i * sel.stride[d];
                let rel = c.checked_sub(m.start)?;
                (rel % m.stride == 0 && rel / m.stride < m.count).then_some((i, rel / m.stride))
            })
            .collect();
        if p.is_empty() {
            return vec![];
        }
        pairs.push(p);
    }
    // Element strides of the output and of the message.
    let mut out_stride = vec![1u64; rank];
    let mut msg_stride = vec![1u64; rank];
    for d in (0..rank.saturating_sub(1)).rev() {
        out_stride[d] = out_stride[d + 1] * sel.count[d + 1];
        msg_stride[d] = msg_stride[d + 1] * section[d + 1].count;
    }
    let mut out = vec![];
    if rank == 0 {
        out.push(Run {
            out: 0,
            msg: 0,
            len: 1,
        });
        return out;
    }
    let inner = &pairs[rank - 1];
    let mut index = vec![0usize; rank - 1];
    loop {
        let (mut o, mut m) = (0u64, 0u64);
        for d in 0..rank - 1 {
            let (i, j) = pairs[d][index[d]];
            o += i * out_stride[d];
            m += j * msg_stride[d];
        }
        for &(i, j) in inner {
            match out.last_mut() {
                Some(r) if r.out + r.len == o + i && r.msg + r.len == m + j => r.len += 1,
                _ => out.push(Run {
                    out: o + i,
                    msg: m + j,
                    len: 1,
                }),
            }
        }
        // Next outer index, last dimension fastest.
        let mut d = rank - 1;
        loop {
            if d == 0 {
                return out;
            }
            d -= 1;
            index[d] += 1;
            if index[d] < pairs[d].len() {
                break;
            }
            index[d] = 0;
        }
    }
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
