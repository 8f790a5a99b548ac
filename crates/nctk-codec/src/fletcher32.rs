//! The `fletcher32` checksum codec (HDF5 filter 3, numcodecs `Fletcher32`).
//!
//! Encoding appends the 4-byte little-endian Fletcher-32 checksum of the data
//! (16-bit words read big-endian, odd trailing byte as the high byte of a
//! last word), exactly as HDF5's `H5_checksum_fletcher32` and numcodecs do.

use crate::error::Result;

/// Fletcher-32 checksum as computed by HDF5 and numcodecs.
pub fn checksum(data: &[u8]) -> u32 {
    let mut sum1: u32 = 0;
    let mut sum2: u32 = 0;
    // Blocks of 360 words keep the 32-bit sums from overflowing before each
    // reduction. Within a block, the sequential `sum1 += w; sum2 += sum1`
    // equals `sum2 += n * sum1 + sum((n - i) * w_i)`, `sum1 += sum(w_i)`,
    // which the compiler vectorizes.
    let words = data.len() / 2;
    for block in data[..words * 2].chunks(720) {
        let n = (block.len() / 2) as u32;
        let mut s = 0u32;
        let mut weighted = 0u32;
        for (i, w) in block.chunks_exact(2).enumerate() {
            let w = (u32::from(w[0]) << 8) | u32::from(w[1]);
            s = s.wrapping_add(w);
            weighted = weighted.wrapping_add((n - i as u32).wrapping_mul(w));
        }
        sum2 = sum2
            .wrapping_add(n.wrapping_mul(sum1))
            .wrapping_add(weighted);
        sum1 = sum1.wrapping_add(s);
        sum1 = (sum1 & 0xffff) + (sum1 >> 16);
        sum2 = (sum2 & 0xffff) + (sum2 >> 16);
    }
    if data.len() % 2 == 1 {
        let last = data[data.len() - 1];
        sum1 = sum1.wrapping_add(u32::from(last) << 8);
        sum2 = sum2.wrapping_add(sum1);
        sum1 = (sum1 & 0xffff) + (sum1 >> 16);
        sum2 = (sum2 & 0xffff) + (sum2 >> 16);
    }
    sum1 = (sum1 & 0xffff) + (sum1 >> 16);
    sum2 = (sum2 & 0xffff) + (sum2 >> 16);
    (sum2 << 16) | sum1
}

/// The same checksum, word by word as HDF5 writes it (reference for tests).
#[cfg(test)]
fn checksum_sequential(data: &[u8]) -> u32 {
    let mut sum1: u32 = 0;
    let mut sum2: u32 = 0;
    let mut words = data.chunks_exact(2);
    let mut remaining = data.len() / 2;
    while remaining > 0 {
        let tlen = remaining.min(360);
        remaining -= tlen;
        for w in words.by_ref().take(tlen) {
            sum1 = sum1.wrapping_add((u32::from(w[0]) << 8) | u32::from(w[1]));
            sum2 = sum2.wrapping_add(sum1);
        }
        sum1 = (sum1 & 0xffff) + (sum1 >> 16);
        sum2 = (sum2 & 0xffff) + (sum2 >> 16);
    }
    if let [last] = words.remainder() {
        sum1 = sum1.wrapping_add(u32::from(*last) << 8);
        sum2 = sum2.wrapping_add(sum1);
        sum1 = (sum1 & 0xffff) + (sum1 >> 16);
        sum2 = (sum2 & 0xffff) + (sum2 >> 16);
    }
    sum1 = (sum1 & 0xffff) + (sum1 >> 16);
    sum2 = (sum2 & 0xffff) + (sum2 >> 16);
    (sum2 << 16) | sum1
}

pub(crate) fn encode(input: &[u8]) -> Vec<u8> {
    crate::checksum_trailer::append(input, checksum(input))
}

pub(crate) fn decode_into(input: &[u8], out: &mut [u8]) -> Result<()> {
    crate::checksum_trailer::check_into("fletcher32", input, out, checksum)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Straight from the definition, with u64 sums reduced mod 65535 at the end.
    fn reference(data: &[u8]) -> u32 {
        let mut s1: u64 = 0;
        let mut s2: u64 = 0;
        let mut words: Vec<u64> = data
            .chunks_exact(2)
            .map(|w| (u64::from(w[0]) << 8) | u64::from(w[1]))
            .collect();
        if data.len() % 2 == 1 {
            words.push(u64::from(data[data.len() - 1]) << 8);
        }
        for w in words {
            s1 = (s1 + w) % 65535;
            s2 = (s2 + s1) % 65535;
        }
        ((s2 as u32) << 16) | s1 as u32
    }

    #[test]
    fn agrees_with_definition_modulo_65535() {
        // The folded sums equal the mod-65535 sums up to the 0 / 65535 ambiguity.
        for len in [0usize, 1, 2, 3, 719, 720, 721, 5000] {
            let data: Vec<u8> = (0..len).map(|i| (i * 31 + 7) as u8).collect();
            let a = checksum(&data);
            let b = reference(&data);
            assert_eq!((a & 0xffff) % 65535, b & 0xffff, "len {len}");
            assert_eq!((a >> 16) % 65535, b >> 16, "len {len}");
        }
    }

    #[test]
    fn blocked_equals_sequential() {
        for len in [0usize, 1, 2, 3, 719, 720, 721, 1441, 100_001] {
            for fill in [0u8, 0xff, 0x5a] {
                let data: Vec<u8> = (0..len)
                    .map(|i| {
                        if fill == 0x5a {
                            (i * 31 + 7) as u8
                        } else {
                            fill
                        }
                    })
                    .collect();
                assert_eq!(
                    checksum(&data),
                    checksum_sequential(&data),
                    "len {len} fill {fill}"
                );
            }
        }
    }

    #[test]
    fn mismatch_is_an_error() {
        let mut enc = encode(b"hello world");
        let mut out = vec![0; 11];
        decode_into(&enc, &mut out).unwrap();
        assert_eq!(&out, b"hello world");
        enc[0] ^= 1;
        assert!(matches!(
            decode_into(&enc, &mut out),
            Err(crate::CodecError::ChecksumMismatch { .. })
        ));
    }
}
