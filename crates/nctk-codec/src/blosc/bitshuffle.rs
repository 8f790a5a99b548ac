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
    let row = n / 8;
    for j in 0..typesize {
        let rows = &src[j * n..(j + 1) * n];
        let (r0, rest) = rows.split_at(row);
        let (r1, rest) = rest.split_at(row);
        let (r2, rest) = rest.split_at(row);
        let (r3, rest) = rest.split_at(row);
        let (r4, rest) = rest.split_at(row);
        let (r5, rest) = rest.split_at(row);
        let (r6, r7) = rest.split_at(row);
        let out = &mut tmp[j * n..(j + 1) * n];
        for (k, c) in out.chunks_exact_mut(8).enumerate() {
            let x = u64::from_le_bytes([r0[k], r1[k], r2[k], r3[k], r4[k], r5[k], r6[k], r7[k]]);
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
            for n in [8usize, 16, 24, 64, 136] {
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
