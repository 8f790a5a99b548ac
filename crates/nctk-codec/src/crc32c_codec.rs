//! The `crc32c` checksum codec of Zarr v3 (and numcodecs' `CRC32C`): the
//! data followed by its CRC-32C (Castagnoli) as 4 little-endian bytes.

use crate::error::{CodecError, Result};

/// The data with its checksum appended.
pub(crate) fn encode(input: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(input.len() + 4);
    out.extend_from_slice(input);
    out.extend_from_slice(&crc32c::crc32c(input).to_le_bytes());
    out
}

/// Checks the trailing checksum and copies the data into `out` (exactly
/// its size).
pub(crate) fn decode_into(input: &[u8], out: &mut [u8]) -> Result<()> {
    if input.len() != out.len() + 4 {
        return Err(CodecError::size("crc32c", out.len() + 4, input.len()));
    }
    let (data, tail) = input.split_at(out.len());
    let stored = u32::from_le_bytes([tail[0], tail[1], tail[2], tail[3]]);
    let computed = crc32c::crc32c(data);
    if stored != computed {
        return Err(CodecError::ChecksumMismatch {
            codec: "crc32c",
            stored,
            computed,
        });
    }
    out.copy_from_slice(data);
    Ok(())
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
