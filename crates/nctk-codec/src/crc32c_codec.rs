//! The `crc32c` checksum codec of Zarr v3 (and numcodecs' `CRC32C`): the
//! data followed by its CRC-32C (Castagnoli) as 4 little-endian bytes.

use crate::checksum_trailer;
use crate::error::Result;

/// The data with its checksum appended.
pub(crate) fn encode(input: &[u8]) -> Vec<u8> {
    checksum_trailer::append(input, crc32c::crc32c(input))
}

/// Checks the trailing checksum and copies the data into `out` (exactly
/// its size).
pub(crate) fn decode_into(input: &[u8], out: &mut [u8]) -> Result<()> {
    checksum_trailer::check_into("crc32c", input, out, crc32c::crc32c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_value_and_mismatch() {
        // RFC 3720's test vector: 32 bytes of zeros.
        let enc = encode(&[0u8; 32]);
        assert_eq!(&enc[32..], &0x8a91_36aau32.to_le_bytes());
        let mut out = [1u8; 32];
        decode_into(&enc, &mut out).unwrap();
        assert_eq!(out, [0u8; 32]);
        let mut bad = enc.clone();
        bad[3] ^= 1;
        assert!(decode_into(&bad, &mut out).is_err());
        assert!(decode_into(&enc[..10], &mut out).is_err());
    }
}
