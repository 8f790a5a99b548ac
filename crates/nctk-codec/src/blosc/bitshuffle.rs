//! Blosc1 bit shuffle of one block (the `bitshuffle` library's
//! `bshuf_trans_bit_elem`, with c-blosc 1.x's rules for odd sizes).
//!
//! With `n` whole elements of `t` bytes: when `n % 8 == 0`, bit `b` of byte
//! `j` of element `i` goes to bit `i % 8` of byte `(j * 8 + b) * n / 8 + i / 8`,
//! and the `len % t` trailing bytes are copied; otherwise the block is copied
//! unchanged (Blosc1 format version 2).

use crate::shuffle::{shuffle, unshuffle};

/// Transposes an 8x8 bit matrix held in a u64 (byte `m` = row `m`).
#[inline]
fn transpose8(mut x: u64) -> u64 {
    let mut t = (x ^ (x >> 7)) & 0x00AA_00AA_00AA_00AA;
    x = x ^ t ^ (t << 7);
    t = (x ^ (x >> 14)) & 0x0000_CCCC_0000_CCCC;
    x = x ^ t ^ (t << 14);
    t = (x ^ (x >> 28)) & 0x0000_0000_F0F0_F0F0;
    x ^ t ^ (t << 28)
}

/// Bit-shuffles `src` into `dst`, using `tmp` (same length) as scratch.
pub(crate) fn bitshuffle(typesize: usize, src: &[u8], dst: &mut [u8], tmp: &mut [u8]) {
    let n = src.len() / typesize;
    if n % 8 != 0 || n == 0 {
        dst.copy_from_slice(src);
        return;
    }
    let body = n * typesize;
    // 1. byte transpose: row j holds byte j of every element.
    shuffle(typesize, &src[..body], &mut tmp[..body]);
    // 2. within each byte row, transpose 8x8 bit tiles into 8 bit rows.
    let row = n / 8;
    for j in 0..typesize {
        let bytes = &tmp[j * n..(j + 1) * n];
        let out = &mut dst[j * n..(j + 1) * n];
        let (r0, rest) = out.split_at_mut(row);
        let (r1, rest) = rest.split_at_mut(row);
        let (r2, rest) = rest.split_at_mut(row);
        let (r3, rest) = rest.split_at_mut(row);
        let (r4, rest) = rest.split_at_mut(row);
        let (r5, rest) = rest.split_at_mut(row);
        let (r6, r7) = rest.split_at_mut(row);
        for (k, c) in bytes.chunks_exact(8).enumerate() {
            let x = transpose8(u64::from_le_bytes([
                c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7],
            ]));
            let b = x.to_le_bytes();
            r0[k] = b[0];
            r1[k] = b[1];
            r2[k] = b[2];
            r3[k] = b[3];
            r4[k] = b[4];
            r5[k] = b[5];
            r6[k] = b[6];
            r7[k] = b[7];
        }
    }
    dst[body..].copy_from_slice(&src[body..]);
}

/// Inverse of [`bitshuffle`].
pub(crate) fn bitunshuffle(typesize: usize, src: &[u8], dst: &mut [u8], tmp: &mut [u8]) {
    let n = src.len() / typesize;
    if n % 8 != 0 || n == 0 {
        dst.copy_from_slice(src);
        return;
    }
    let body = n * typesize;
    for j in 0..typesize {
        // Byte row j is 8 bit rows of n / 8 bytes. Gather byte k of each
        // bit row into one u64 (a byte unshuffle with element size 8, which
        // is SIMD), then transpose each 8x8 bit tile in place (a loop of
        // plain u64 shifts, four tiles at a time so the compiler vectorizes).
        let out = &mut tmp[j * n..(j + 1) * n];
        unshuffle(8, &src[j * n..(j + 1) * n], out);
        let mut quads = out.chunks_exact_mut(32);
        for c in &mut quads {
            let mut w = [0u64; 4];
            for (x, b) in w.iter_mut().zip(c.chunks_exact(8)) {
                *x = transpose8(u64::from_le_bytes([
                    b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7],
                ]));
            }
            for (x, b) in w.iter().zip(c.chunks_exact_mut(8)) {
                b.copy_from_slice(&x.to_le_bytes());
            }
        }
        for c in quads.into_remainder().chunks_exact_mut(8) {
            let x = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
            c.copy_from_slice(&transpose8(x).to_le_bytes());
        }
    }
    unshuffle(typesize, &tmp[..body], &mut dst[..body]);
    dst[body..].copy_from_slice(&src[body..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_definition() {
        for t in [1usize, 2, 3, 4, 8, 16] {
            for n in [8usize, 16, 24, 64, 136, 8 * 1001] {
                let extra = t / 2;
                let len = n * t + extra;
                let src: Vec<u8> = (0..len)
                    .map(|i| ((i * 2_654_435_761usize) >> 7) as u8)
                    .collect();
                let mut dst = vec![0; len];
                let mut tmp = vec![0; len];
                bitshuffle(t, &src, &mut dst, &mut tmp);
                for i in 0..n {
                    for j in 0..t {
                        for b in 0..8 {
                            let bit = (src[i * t + j] >> b) & 1;
                            let pos = (j * 8 + b) * (n / 8) + i / 8;
                            assert_eq!(
                                (dst[pos] >> (i % 8)) & 1,
                                bit,
                                "t {t} n {n} i {i} j {j} b {b}"
                            );
                        }
                    }
                }
                assert_eq!(&dst[n * t..], &src[n * t..]);
                let mut back = vec![0; len];
                bitunshuffle(t, &dst, &mut back, &mut tmp);
                assert_eq!(back, src);
            }
        }
    }

    #[test]
    fn odd_counts_copy() {
        let src: Vec<u8> = (0..36).collect();
        let mut dst = vec![0; 36];
        let mut tmp = vec![0; 36];
        bitshuffle(4, &src, &mut dst, &mut tmp); // 9 elements: not a multiple of 8
        assert_eq!(dst, src);
    }
}
