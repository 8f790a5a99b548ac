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
    let done = simd::shuffle::<2>(src, dst, n);
    let (r0, r1) = dst.split_at_mut(n);
    let (r0, r1) = (&mut r0[done..], &mut r1[done..]);
    for ((e, a), b) in src[2 * done..]
        .chunks_exact(2)
        .zip(r0.iter_mut())
        .zip(r1.iter_mut())
    {
        *a = e[0];
        *b = e[1];
    }
}

fn unshuffle2(src: &[u8], dst: &mut [u8], n: usize) {
    let (r0, r1) = src.split_at(n);
    let done = simd::unshuffle2(r0, r1, dst);
    let (r0, r1, dst) = (&r0[done..], &r1[done..], &mut dst[2 * done..]);
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
    let done = simd::shuffle::<4>(src, dst, n);
    let [r0, r1, r2, r3] = rows4(dst, n).map(|r| &mut r[done..]);
    let it = src[4 * done..]
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
    let rows = split4(src, n);
    let done = simd::unshuffle4(rows, dst);
    let [r0, r1, r2, r3] = rows.map(|r| &r[done..]);
    let it = dst[4 * done..]
        .chunks_exact_mut(4)
        .zip(r0)
        .zip(r1)
        .zip(r2)
        .zip(r3);
    for ((((e, a), b), c), d) in it {
        let x = u32::from(*a) | u32::from(*b) << 8 | u32::from(*c) << 16 | u32::from(*d) << 24;
        e.copy_from_slice(&x.to_le_bytes());
    }
}

fn shuffle8(src: &[u8], dst: &mut [u8], n: usize) {
    let done = simd::shuffle::<8>(src, dst, n);
    let (lo, hi) = dst.split_at_mut(4 * n);
    let [r0, r1, r2, r3] = rows4(lo, n);
    let [r4, r5, r6, r7] = rows4(hi, n);
    for (i, e) in src.chunks_exact(8).enumerate().take(r7.len()).skip(done) {
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
    let done = simd::unshuffle8([r0, r1, r2, r3, r4, r5, r6, r7], dst);
    for (i, e) in dst.chunks_exact_mut(8).enumerate().take(n).skip(done) {
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

/// Shuffle and unshuffle kernels for element sizes 2, 4 and 8 on whole
/// groups of 16 elements; each returns how many elements it did (the
/// callers finish the rest). On x86_64 they use SSE2 byte/word/dword
/// unpacks (SSE2 is part of the x86_64 baseline, so no detection is
/// needed): 16 elements per step where the portable loops above do 4. On
/// other targets they do nothing.
///
/// Shuffling 16 elements of `E` bytes is a transpose of a 16 x `E` byte
/// matrix. Byte `j` of element `i` sits at position `i * E + j`, a
/// `4 + log2(E)`-bit index whose top four bits are `i`; it must move to
/// `j * 16 + i`, the same index rotated left by four bits. One riffle (the
/// first half of the bytes interleaved with the second, which is what
/// `unpacklo/hi_epi8` of vector `k` with vector `k + E/2` computes) rotates
/// every index left by one bit, so four riffles shuffle.
#[cfg(target_arch = "x86_64")]
mod simd {
    use std::arch::x86_64::{
        __m128i, _mm_loadu_si128, _mm_storeu_si128, _mm_unpackhi_epi16, _mm_unpackhi_epi32,
        _mm_unpackhi_epi8, _mm_unpacklo_epi16, _mm_unpacklo_epi32, _mm_unpacklo_epi8,
    };

    /// Loads 16 bytes.
    #[inline(always)]
    fn load(s: &[u8]) -> __m128i {
        assert!(s.len() >= 16);
        // SAFETY: `s` holds at least 16 readable bytes (checked above, and
        // optimized away where the caller's chunking proves it); unaligned
        // loads have no alignment requirement; SSE2 is always present on
        // x86_64.
        unsafe { _mm_loadu_si128(s.as_ptr().cast()) }
    }

    /// Stores `v` as `d.len() / 16` consecutive 16-byte vectors.
    #[inline(always)]
    fn store<const K: usize>(d: &mut [u8], v: [__m128i; K]) {
        assert!(d.len() >= 16 * K);
        for (k, x) in v.into_iter().enumerate() {
            // SAFETY: bytes 16k..16k+16 of `d` are in bounds (checked
            // above) and writable through the unique borrow; unaligned
            // store; SSE2 is always present on x86_64.
            unsafe { _mm_storeu_si128(d.as_mut_ptr().add(16 * k).cast(), x) }
        }
    }

    // The unpacks are `unsafe fn`s only because they carry
    // `#[target_feature(enable = "sse2")]`; SSE2 is in every x86_64 CPU.

    /// Interleaves bytes of `a` and `b`: (low half, high half).
    #[inline(always)]
    fn zip8(a: __m128i, b: __m128i) -> (__m128i, __m128i) {
        // SAFETY: register-only SSE2 operations (see above).
        unsafe { (_mm_unpacklo_epi8(a, b), _mm_unpackhi_epi8(a, b)) }
    }

    /// Interleaves 16-bit lanes of `a` and `b`.
    #[inline(always)]
    fn zip16(a: __m128i, b: __m128i) -> (__m128i, __m128i) {
        // SAFETY: register-only SSE2 operations (see above).
        unsafe { (_mm_unpacklo_epi16(a, b), _mm_unpackhi_epi16(a, b)) }
    }

    /// Interleaves 32-bit lanes of `a` and `b`.
    #[inline(always)]
    fn zip32(a: __m128i, b: __m128i) -> (__m128i, __m128i) {
        // SAFETY: register-only SSE2 operations (see above).
        unsafe { (_mm_unpacklo_epi32(a, b), _mm_unpackhi_epi32(a, b)) }
    }

    /// One riffle of the `16 * E` bytes held in `v` (see the module docs).
    #[inline(always)]
    fn riffle<const E: usize>(v: [__m128i; E]) -> [__m128i; E] {
        let mut out = v;
        for k in 0..E / 2 {
            (out[2 * k], out[2 * k + 1]) = zip8(v[k], v[k + E / 2]);
        }
        out
    }

    /// Shuffles `src` (`n` elements of `E` bytes, `E` in 2, 4, 8) into the
    /// `E` rows of `n` bytes of `dst`, 16 elements at a time.
    pub(super) fn shuffle<const E: usize>(src: &[u8], dst: &mut [u8], n: usize) -> usize {
        let steps = n / 16;
        for (k, s) in src.chunks_exact(16 * E).take(steps).enumerate() {
            let mut v: [__m128i; E] = std::array::from_fn(|m| load(&s[16 * m..]));
            for _ in 0..4 {
                v = riffle(v);
            }
            for (j, x) in v.into_iter().enumerate() {
                store(&mut dst[j * n + 16 * k..], [x]);
            }
        }
        16 * steps
    }

    pub(super) fn unshuffle2(r0: &[u8], r1: &[u8], dst: &mut [u8]) -> usize {
        let mut done = 0;
        for ((o, a), b) in dst
            .chunks_exact_mut(32)
            .zip(r0.chunks_exact(16))
            .zip(r1.chunks_exact(16))
        {
            let (x0, x1) = zip8(load(a), load(b));
            store(o, [x0, x1]);
            done += 16;
        }
        done
    }

    pub(super) fn unshuffle4(r: [&[u8]; 4], dst: &mut [u8]) -> usize {
        let mut done = 0;
        let it = dst
            .chunks_exact_mut(64)
            .zip(r[0].chunks_exact(16))
            .zip(r[1].chunks_exact(16))
            .zip(r[2].chunks_exact(16))
            .zip(r[3].chunks_exact(16));
        for ((((o, a), b), c), d) in it {
            let (ab0, ab1) = zip8(load(a), load(b));
            let (cd0, cd1) = zip8(load(c), load(d));
            let (x0, x1) = zip16(ab0, cd0);
            let (x2, x3) = zip16(ab1, cd1);
            store(o, [x0, x1, x2, x3]);
            done += 16;
        }
        done
    }

    pub(super) fn unshuffle8(r: [&[u8]; 8], dst: &mut [u8]) -> usize {
        let steps = (dst.len() / 128).min(r.iter().map(|x| x.len() / 16).min().unwrap_or(0));
        for (k, o) in dst.chunks_exact_mut(128).take(steps).enumerate() {
            let v = r.map(|x| load(&x[16 * k..]));
            let (a0, a1) = zip8(v[0], v[1]);
            let (b0, b1) = zip8(v[2], v[3]);
            let (c0, c1) = zip8(v[4], v[5]);
            let (d0, d1) = zip8(v[6], v[7]);
            let (ab0, ab1) = zip16(a0, b0);
            let (ab2, ab3) = zip16(a1, b1);
            let (cd0, cd1) = zip16(c0, d0);
            let (cd2, cd3) = zip16(c1, d1);
            let (x0, x1) = zip32(ab0, cd0);
            let (x2, x3) = zip32(ab1, cd1);
            let (x4, x5) = zip32(ab2, cd2);
            let (x6, x7) = zip32(ab3, cd3);
            store(o, [x0, x1, x2, x3, x4, x5, x6, x7]);
        }
        16 * steps
    }
}

#[cfg(not(target_arch = "x86_64"))]
mod simd {
    pub(super) fn shuffle<const E: usize>(_: &[u8], _: &mut [u8], _: usize) -> usize {
        0
    }
    pub(super) fn unshuffle2(_: &[u8], _: &[u8], _: &mut [u8]) -> usize {
        0
    }
    pub(super) fn unshuffle4(_: [&[u8]; 4], _: &mut [u8]) -> usize {
        0
    }
    pub(super) fn unshuffle8(_: [&[u8]; 8], _: &mut [u8]) -> usize {
        0
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
            for len in [0, 1, 7, 16, 33, 64, 100, 257, 1000, 4099, 70_001] {
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
