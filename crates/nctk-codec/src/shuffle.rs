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
        2 => shuffle2(&src[..body], &mut dst[..body], n),
        4 => shuffle4(&src[..body], &mut dst[..body], n),
        8 => shuffle8(&src[..body], &mut dst[..body], n),
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
        2 => unshuffle2(&src[..body], &mut dst[..body], n),
        4 => unshuffle4(&src[..body], &mut dst[..body], n),
        8 => unshuffle8(&src[..body], &mut dst[..body], n),
        16 => unshuffle_n::<16>(&src[..body], &mut dst[..body], n),
        _ => unshuffle_any(elem, &src[..body], &mut dst[..body], n),
    }
    dst[body..].copy_from_slice(&src[body..]);
}

// Element sizes 2, 4 and 8 load each element as one integer and split it
// into rows (or assemble it from rows): simple zipped loops that the compiler
// vectorizes, with no bounds checks.

fn shuffle2(src: &[u8], dst: &mut [u8], n: usize) {
    let (r0, r1) = dst.split_at_mut(n);
    for ((e, a), b) in src.chunks_exact(2).zip(r0.iter_mut()).zip(r1.iter_mut()) {
        *a = e[0];
        *b = e[1];
    }
}

fn unshuffle2(src: &[u8], dst: &mut [u8], n: usize) {
    let (r0, r1) = src.split_at(n);
    for ((e, a), b) in dst.chunks_exact_mut(2).zip(r0).zip(r1) {
        e.copy_from_slice(&(u16::from(*a) | u16::from(*b) << 8).to_le_bytes());
    }
}

fn rows4(dst: &mut [u8], n: usize) -> [&mut [u8]; 4] {
    let (r0, rest) = dst.split_at_mut(n);
    let (r1, rest) = rest.split_at_mut(n);
    let (r2, r3) = rest.split_at_mut(n);
    [r0, r1, r2, r3]
}

fn shuffle4(src: &[u8], dst: &mut [u8], n: usize) {
    let [r0, r1, r2, r3] = rows4(dst, n);
    let it = src
        .chunks_exact(4)
        .zip(r0.iter_mut())
        .zip(r1.iter_mut())
        .zip(r2.iter_mut())
        .zip(r3.iter_mut());
    for ((((e, a), b), c), d) in it {
        let x = u32::from_le_bytes([e[0], e[1], e[2], e[3]]);
        *a = x as u8;
        *b = (x >> 8) as u8;
        *c = (x >> 16) as u8;
        *d = (x >> 24) as u8;
    }
}

fn unshuffle4(src: &[u8], dst: &mut [u8], n: usize) {
    let [r0, r1, r2, r3] = split4(src, n);
    let it = dst.chunks_exact_mut(4).zip(r0).zip(r1).zip(r2).zip(r3);
    for ((((e, a), b), c), d) in it {
        let x = u32::from(*a) | u32::from(*b) << 8 | u32::from(*c) << 16 | u32::from(*d) << 24;
        e.copy_from_slice(&x.to_le_bytes());
    }
}

fn shuffle8(src: &[u8], dst: &mut [u8], n: usize) {
    let (lo, hi) = dst.split_at_mut(4 * n);
    let [r0, r1, r2, r3] = rows4(lo, n);
    let [r4, r5, r6, r7] = rows4(hi, n);
    for (i, e) in src.chunks_exact(8).enumerate().take(r7.len()) {
        r0[i] = e[0];
        r1[i] = e[1];
        r2[i] = e[2];
        r3[i] = e[3];
        r4[i] = e[4];
        r5[i] = e[5];
        r6[i] = e[6];
        r7[i] = e[7];
    }
}

fn split4(src: &[u8], n: usize) -> [&[u8]; 4] {
    let (r0, rest) = src.split_at(n);
    let (r1, rest) = rest.split_at(n);
    let (r2, r3) = rest.split_at(n);
    [r0, r1, r2, &r3[..n]]
}

fn unshuffle8(src: &[u8], dst: &mut [u8], n: usize) {
    let (lo, hi) = src.split_at(4 * n);
    let [r0, r1, r2, r3] = split4(lo, n);
    let [r4, r5, r6, r7] = split4(hi, n);
    for (i, e) in dst.chunks_exact_mut(8).enumerate().take(n) {
        e.copy_from_slice(&[r0[i], r1[i], r2[i], r3[i], r4[i], r5[i], r6[i], r7[i]]);
    }
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
