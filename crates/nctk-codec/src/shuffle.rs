//! HDF5 / numcodecs byte shuffle.
//!
//! Byte `j` of element `i` moves to position `j * n + i` (`n` elements).
//! Trailing bytes that do not fill a whole element are copied unchanged at the
//! end, as HDF5's shuffle filter and Blosc do (numcodecs' `Shuffle` refuses
//! such buffers on encode; this crate accepts them on both sides).

use serde_json::Value;

use crate::error::{CodecError, Result};
use crate::json::{object, Config};

/// The `shuffle` codec: HDF5 byte shuffle with a fixed element size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shuffle {
    /// Element size in bytes as configured; `0` (netCDF-C's spelling) means
    /// "the array's element size", taken from the [`crate::CodecContext`].
    pub elementsize: usize,
    /// The element size in effect: `elementsize`, or the context's when 0.
    pub resolved: Option<usize>,
}

impl Shuffle {
    /// Builds from a numcodecs/NCZarr JSON config (`elementsize` defaults to 4
    /// as in numcodecs; `0` or a string `"0"` means the array's element size).
    pub(crate) fn from_config(c: &Config<'_>, element_size: Option<usize>) -> Result<Self> {
        let e = c.int_in("elementsize", 4, 0, 1 << 30)? as usize;
        Ok(Self::new(e, element_size))
    }

    /// A shuffle with the given configured element size (0 = from context).
    pub fn new(elementsize: usize, element_size: Option<usize>) -> Self {
        let resolved = if elementsize == 0 {
            element_size
        } else {
            Some(elementsize)
        };
        Shuffle {
            elementsize,
            resolved,
        }
    }

    pub(crate) fn to_json(&self) -> Value {
        object([
            ("id", "shuffle".into()),
            (
                "elementsize",
                self.resolved.unwrap_or(self.elementsize).into(),
            ),
        ])
    }

    fn size(&self) -> Result<usize> {
        self.resolved.ok_or(CodecError::MissingContext {
            codec: "shuffle",
            what: "element size",
        })
    }

    pub(crate) fn encode(&self, input: &[u8]) -> Result<Vec<u8>> {
        let e = self.size()?;
        let mut out = vec![0u8; input.len()];
        shuffle(e, input, &mut out);
        Ok(out)
    }

    pub(crate) fn decode_into(&self, input: &[u8], out: &mut [u8]) -> Result<()> {
        let e = self.size()?;
        if input.len() != out.len() {
            return Err(CodecError::size("shuffle", out.len(), input.len()));
        }
        unshuffle(e, input, out);
        Ok(())
    }
}

/// Shuffles `src` into `dst` (same length) with element size `elem`.
pub fn shuffle(elem: usize, src: &[u8], dst: &mut [u8]) {
    assert_eq!(src.len(), dst.len(), "shuffle: buffers differ in length");
    let n = if elem > 1 { src.len() / elem } else { 0 };
    if n <= 1 {
        dst.copy_from_slice(src);
        return;
    }
    let body = n * elem;
    match elem {
        2 => shuffle_n::<2>(&src[..body], &mut dst[..body], n),
        4 => shuffle_n::<4>(&src[..body], &mut dst[..body], n),
        8 => shuffle_n::<8>(&src[..body], &mut dst[..body], n),
        16 => shuffle_n::<16>(&src[..body], &mut dst[..body], n),
        _ => shuffle_any(elem, &src[..body], &mut dst[..body], n),
    }
    dst[body..].copy_from_slice(&src[body..]);
}

/// Inverse of [`shuffle`].
pub fn unshuffle(elem: usize, src: &[u8], dst: &mut [u8]) {
    assert_eq!(src.len(), dst.len(), "unshuffle: buffers differ in length");
    let n = if elem > 1 { src.len() / elem } else { 0 };
    if n <= 1 {
        dst.copy_from_slice(src);
        return;
    }
    let body = n * elem;
    match elem {
        2 => unshuffle_n::<2>(&src[..body], &mut dst[..body], n),
        4 => unshuffle_n::<4>(&src[..body], &mut dst[..body], n),
        8 => unshuffle_n::<8>(&src[..body], &mut dst[..body], n),
        16 => unshuffle_n::<16>(&src[..body], &mut dst[..body], n),
        _ => unshuffle_any(elem, &src[..body], &mut dst[..body], n),
    }
    dst[body..].copy_from_slice(&src[body..]);
}

/// Tile width: elements handled per inner step.
const TILE: usize = 16;

fn shuffle_n<const N: usize>(src: &[u8], dst: &mut [u8], n: usize) {
    let tiles = n / TILE;
    for t in 0..tiles {
        let s = &src[t * TILE * N..(t + 1) * TILE * N];
        for j in 0..N {
            let mut v = [0u8; TILE];
            for (m, x) in v.iter_mut().enumerate() {
                *x = s[m * N + j];
            }
            dst[j * n + t * TILE..j * n + t * TILE + TILE].copy_from_slice(&v);
        }
    }
    for i in tiles * TILE..n {
        for j in 0..N {
            dst[j * n + i] = src[i * N + j];
        }
    }
}

fn unshuffle_n<const N: usize>(src: &[u8], dst: &mut [u8], n: usize) {
    let tiles = n / TILE;
    for t in 0..tiles {
        let mut v = [[0u8; TILE]; N];
        for (j, row) in v.iter_mut().enumerate() {
            row.copy_from_slice(&src[j * n + t * TILE..j * n + t * TILE + TILE]);
        }
        let d = &mut dst[t * TILE * N..(t + 1) * TILE * N];
        for (m, e) in d.chunks_exact_mut(N).enumerate() {
            for (j, x) in e.iter_mut().enumerate() {
                *x = v[j][m];
            }
        }
    }
    for i in tiles * TILE..n {
        for j in 0..N {
            dst[i * N + j] = src[j * n + i];
        }
    }
}

fn shuffle_any(elem: usize, src: &[u8], dst: &mut [u8], n: usize) {
    for (j, row) in dst.chunks_exact_mut(n).enumerate() {
        for (x, e) in row.iter_mut().zip(src.chunks_exact(elem)) {
            *x = e[j];
        }
    }
}

fn unshuffle_any(elem: usize, src: &[u8], dst: &mut [u8], n: usize) {
    for (j, row) in src.chunks_exact(n).enumerate() {
        for (x, e) in row.iter().zip(dst.chunks_exact_mut(elem)) {
            e[j] = *x;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive(elem: usize, src: &[u8]) -> Vec<u8> {
        let n = src.len() / elem;
        let mut out = src.to_vec();
        for i in 0..n {
            for j in 0..elem {
                out[j * n + i] = src[i * elem + j];
            }
        }
        out
    }

    #[test]
    fn matches_definition() {
        for elem in [1, 2, 3, 4, 5, 8, 16, 17] {
            for len in [0, 1, 7, 16, 33, 64, 100, 257, 1000] {
                let src: Vec<u8> = (0..len).map(|i| (i * 7 + 3) as u8).collect();
                let mut dst = vec![0; len];
                shuffle(elem, &src, &mut dst);
                assert_eq!(dst, naive(elem.max(1), &src), "elem {elem} len {len}");
                let mut back = vec![0; len];
                unshuffle(elem, &dst, &mut back);
                assert_eq!(back, src);
            }
        }
    }
}
