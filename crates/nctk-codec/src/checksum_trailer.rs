//! Codecs that append a 4-byte little-endian checksum to the data
//! (`fletcher32`, `crc32c`): the framing both share.

use crate::error::{CodecError, Result};

/// The data followed by its checksum.
pub(crate) fn append(input: &[u8], checksum: u32) -> Vec<u8> {
    let mut out = Vec::with_capacity(input.len() + 4);
    out.extend_from_slice(input);
    out.extend_from_slice(&checksum.to_le_bytes());
    out
}

/// Checks the trailing checksum of `input` with `checksum` and copies the
/// data into `out` (exactly its size).
pub(crate) fn check_into(
    codec: &'static str,
    input: &[u8],
    out: &mut [u8],
    checksum: fn(&[u8]) -> u32,
) -> Result<()> {
    if input.len() < 4 {
        return Err(CodecError::Truncated {
            codec,
            offset: 0,
            needed: 4,
            available: input.len(),
        });
    }
    let (data, sum) = input.split_at(input.len() - 4);
    if data.len() != out.len() {
        return Err(CodecError::size(codec, out.len(), data.len()));
    }
    let stored = u32::from_le_bytes([sum[0], sum[1], sum[2], sum[3]]);
    let computed = checksum(data);
    if stored != computed {
        return Err(CodecError::ChecksumMismatch {
            codec,
            stored,
            computed,
        });
    }
    out.copy_from_slice(data);
    Ok(())
}
