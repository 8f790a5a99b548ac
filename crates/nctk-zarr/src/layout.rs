//! Where a chunk's elements are: the key a chunk's grid coordinates give
//! ([`ChunkKeys`], Zarr v2's `0.1` and v3's `c/0/1`), and the order of the
//! elements inside a decoded chunk ([`ChunkOrder`]: C, Fortran, or any
//! permutation from v3's `transpose` codec).

/// How a chunk's grid coordinates become its key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ChunkKeys {
    /// Zarr v2 (and v3's `v2` encoding): `0.1`, `0` for a scalar.
    V2 {
        /// `.` or `/`.
        separator: char,
    },
    /// Zarr v3's `default` encoding: `c/0/1` (or `c.0.1`), `c` for a scalar.
    Default {
        /// `/` or `.`.
        separator: char,
    },
}

impl ChunkKeys {
    /// The key, relative to the array, of the chunk at grid coordinates `idx`.
    pub(crate) fn key(&self, idx: &[u64]) -> String {
        let (first, sep) = match *self {
            ChunkKeys::V2 { separator } => {
                if idx.is_empty() {
                    return "0".into();
                }
                (None, separator)
            }
            ChunkKeys::Default { separator } => (Some("c"), separator),
        };
        let mut out = String::from(first.unwrap_or(""));
        for (k, i) in idx.iter().enumerate() {
            if k > 0 || first.is_some() {
                out.push(sep);
            }
            out.push_str(&i.to_string());
        }
        out
    }
}

/// The order of the elements of a decoded chunk: `axes[k]` is the array
/// axis that is the `k`-th (slowest-varying first) axis in storage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ChunkOrder {
    axes: Vec<usize>,
}

impl ChunkOrder {
    /// C (row-major) order for `rank` axes.
    pub(crate) fn c(rank: usize) -> ChunkOrder {
        ChunkOrder {
            axes: (0..rank).collect(),
        }
    }

    /// Fortran (column-major) order for `rank` axes.
    pub(crate) fn fortran(rank: usize) -> ChunkOrder {
        ChunkOrder {
            axes: (0..rank).rev().collect(),
        }
    }

    /// The order a v3 `transpose` codec's `order` gives, when it is a
    /// permutation of `0..rank`.
    pub(crate) fn permutation(axes: Vec<usize>) -> Option<ChunkOrder> {
        let mut seen = vec![false; axes.len()];
        for &a in &axes {
            if a >= axes.len() || std::mem::replace(&mut seen[a], true) {
                return None;
            }
        }
        Some(ChunkOrder { axes })
    }

    /// This order applied after `inner` (a transpose of an already
    /// transposed chunk).
    pub(crate) fn then(&self, next: &ChunkOrder) -> ChunkOrder {
        ChunkOrder {
            axes: next.axes.iter().map(|&k| self.axes[k]).collect(),
        }
    }

    /// Strides in elements of each array axis inside a chunk of shape
    /// `chunk`.
    pub(crate) fn strides(&self, chunk: &[u64]) -> Vec<u64> {
        let mut strides = vec![1u64; chunk.len()];
        let mut s = 1u64;
        for &a in self.axes.iter().rev() {
            strides[a] = s;
            s = s.saturating_mul(chunk[a]);
        }
        strides
    }

    /// Whether the chunk's elements are in C order, ignoring axes of
    /// length 1 (whose position does not matter).
    pub(crate) fn is_c(&self, chunk: &[u64]) -> bool {
        self.axes
            .iter()
            .filter(|&&a| chunk[a] > 1)
            .zip(self.axes.iter().filter(|&&a| chunk[a] > 1).skip(1))
            .all(|(a, b)| a < b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys() {
        let v2 = ChunkKeys::V2 { separator: '.' };
        assert_eq!(v2.key(&[1, 2]), "1.2");
        assert_eq!(v2.key(&[]), "0");
        let d = ChunkKeys::Default { separator: '/' };
        assert_eq!(d.key(&[1, 2]), "c/1/2");
        assert_eq!(d.key(&[]), "c");
        assert_eq!(ChunkKeys::Default { separator: '.' }.key(&[3]), "c.3");
    }

    #[test]
    fn orders() {
        assert_eq!(ChunkOrder::c(3).strides(&[2, 3, 4]), vec![12, 4, 1]);
        assert_eq!(ChunkOrder::fortran(3).strides(&[2, 3, 4]), vec![1, 2, 6]);
        let t = ChunkOrder::permutation(vec![1, 0, 2]).unwrap();
        assert_eq!(t.strides(&[2, 3, 4]), vec![4, 8, 1]);
        assert!(ChunkOrder::permutation(vec![0, 0]).is_none());
        assert!(ChunkOrder::fortran(2).is_c(&[1, 5]));
        assert!(!ChunkOrder::fortran(2).is_c(&[2, 5]));
        assert_eq!(
            ChunkOrder::fortran(2).then(&ChunkOrder::fortran(2)),
            ChunkOrder::c(2)
        );
    }
}

/// One axis of a chunk grid: chunks of one length (the regular grid), or
/// of the lengths listed (zarr-python 3.2's rectilinear grid).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Axis {
    /// Every chunk this long.
    Regular(u64),
    /// Chunk `c` spans `bounds[c]..bounds[c + 1]` (`bounds[0]` is 0).
    Bounds(Vec<u64>),
}

impl Axis {
    /// The chunk holding index `i`.
    pub(crate) fn chunk_of(&self, i: u64) -> u64 {
        match self {
            Axis::Regular(n) => i / n,
            Axis::Bounds(b) => (b.partition_point(|&e| e <= i) as u64).saturating_sub(1),
        }
    }

    /// The first index of chunk `c`.
    pub(crate) fn start(&self, c: u64) -> u64 {
        match self {
            Axis::Regular(n) => c * n,
            Axis::Bounds(b) => b.get(c as usize).copied().unwrap_or(u64::MAX),
        }
    }

    /// The length of chunk `c`.
    pub(crate) fn len(&self, c: u64) -> u64 {
        match self {
            Axis::Regular(n) => *n,
            Axis::Bounds(b) => match (b.get(c as usize), b.get(c as usize + 1)) {
                (Some(lo), Some(hi)) => hi - lo,
                _ => 0,
            },
        }
    }

    /// The longest chunk.
    pub(crate) fn max_len(&self) -> u64 {
        match self {
            Axis::Regular(n) => *n,
            Axis::Bounds(b) => b.windows(2).map(|w| w[1] - w[0]).max().unwrap_or(1),
        }
    }
}
