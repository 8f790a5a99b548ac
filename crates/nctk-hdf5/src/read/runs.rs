//! Runs: a box of selected elements walked as maximal stretches that are
//! contiguous both where they come from and where they go.

/// A run of `len` elements from element `src` to element `dst`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Run {
    /// First element in the source (a chunk, the contiguous block, ...).
    pub src: u64,
    /// First element in the destination.
    pub dst: u64,
    /// Elements.
    pub len: u64,
}

/// Calls `f` on the runs of a box of `count[d]` steps per dimension, the
/// element at step `k` being `src + sum k[d] * src_step[d]` in the source
/// and `dst + sum k[d] * dst_step[d]` in the destination, in destination
/// order; neighbouring runs contiguous on both sides are merged.
pub(crate) fn for_each_run(
    count: &[u64],
    (src, src_step): (u64, &[u64]),
    (dst, dst_step): (u64, &[u64]),
    f: &mut dyn FnMut(Run),
) {
    let rank = count.len();
    if count.contains(&0) {
        return;
    }
    let mut pending: Option<Run> = None;
    let mut emit = |r: Run| match &mut pending {
        Some(p) if p.src + p.len == r.src && p.dst + p.len == r.dst => p.len += r.len,
        _ => {
            if let Some(p) = pending.replace(r) {
                f(p);
            }
        }
    };
    if rank == 0 {
        emit(Run { src, dst, len: 1 });
    } else {
        let last = rank - 1;
        let (inner, inner_len) = if src_step[last] == 1 && dst_step[last] == 1 {
            (true, count[last])
        } else {
            (false, 1)
        };
        let mut k = vec![0u64; rank];
        'outer: loop {
            let s: u64 = src + k.iter().zip(src_step).map(|(a, b)| a * b).sum::<u64>();
            let d: u64 = dst + k.iter().zip(dst_step).map(|(a, b)| a * b).sum::<u64>();
            emit(Run {
                src: s,
                dst: d,
                len: inner_len,
            });
            // next step, the last dimension fastest
            let mut dim = last;
            if inner {
                if dim == 0 {
                    break;
                }
                dim -= 1;
            }
            loop {
                k[dim] += 1;
                if k[dim] < count[dim] {
                    break;
                }
                k[dim] = 0;
                if dim == 0 {
                    break 'outer;
                }
                dim -= 1;
            }
        }
    }
    if let Some(p) = pending {
        f(p);
    }
}

/// Copies run `r` of elements of `es` bytes from `src` to `dst`.
pub(crate) fn copy_run(r: Run, es: u64, src: &[u8], dst: &mut [u8]) {
    let (s, d, n) = (
        (r.src * es) as usize,
        (r.dst * es) as usize,
        (r.len * es) as usize,
    );
    dst[d..d + n].copy_from_slice(&src[s..s + n]);
}

/// Row-major element strides of an array of `dims`.
pub(crate) fn strides(dims: &[u64]) -> Vec<u64> {
    let mut s = vec![1u64; dims.len()];
    for d in (0..dims.len().saturating_sub(1)).rev() {
        s[d] = s[d + 1] * dims[d + 1];
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Every element of the box, one at a time, as (src, dst).
    fn elements(count: &[u64], src: (u64, &[u64]), dst: (u64, &[u64])) -> Vec<(u64, u64)> {
        let n: u64 = count.iter().product();
        (0..n)
            .map(|mut i| {
                let (mut s, mut d) = (src.0, dst.0);
                for dim in (0..count.len()).rev() {
                    let k = i % count[dim];
                    i /= count[dim];
                    s += k * src.1[dim];
                    d += k * dst.1[dim];
                }
                (s, d)
            })
            .collect()
    }

    proptest! {
        /// The runs, expanded, are exactly the box's elements in
        /// destination order.
        #[test]
        fn runs_cover_the_box_in_order(
            count in proptest::collection::vec(1u64..4, 0..4),
            steps in proptest::collection::vec(1u64..3, 4),
        ) {
            let rank = count.len();
            let sstep: Vec<u64> = strides(&count).iter().zip(&steps).map(|(s, k)| s * k).collect();
            let dstep = strides(&count);
            let mut got = vec![];
            for_each_run(&count, (5, &sstep[..rank]), (0, &dstep), &mut |r| {
                for i in 0..r.len {
                    got.push((r.src + i, r.dst + i));
                }
            });
            prop_assert_eq!(got, elements(&count, (5, &sstep[..rank]), (0, &dstep)));
        }
    }
}
