//! numcodecs `lz4`: a 4-byte little-endian uncompressed size, then one raw
//! LZ4 block (lz4_flex, pure Rust).

use crate::error::{CodecError, Result};

/// Compresses with numcodecs' framing. `acceleration` is accepted for
/// compatibility; lz4_flex has a single speed setting.
pub(crate) fn encode(input: &[u8]) -> Result<Vec<u8>> {
    let size = u32::try_from(input.len()).map_err(|_| CodecError::InvalidLength {
        codec: "lz4",
        len: input.len(),
        reason: "numcodecs lz4 frames hold at most 4 GiB - 1".into(),
    })?;
    let mut out = vec![0u8; 4 + lz4_flex::block::get_maximum_output_size(input.len())];
    out[..4].copy_from_slice(&size.to_le_bytes());
    let n = lz4_flex::block::compress_into(input, &mut out[4..])
        .map_err(|e| CodecError::library("lz4", "encode", e))?;
    out.truncate(4 + n);
    Ok(out)
}

/// Decompresses into exactly `out`; the declared size is checked first.
pub(crate) fn decode_into(input: &[u8], out: &mut [u8]) -> Result<()> {
    if input.len() < 4 {
        return Err(CodecError::Truncated {
            codec: "lz4",
            offset: 0,
            needed: 4,
            available: input.len(),
        });
    }
    let declared = u32::from_le_bytes([input[0], input[1], input[2], input[3]]) as usize;
    if declared != out.len() {
        return Err(CodecError::size("lz4", out.len(), declared));
    }
    block_decode_into("lz4", &input[4..], out, 4)
}

/// Decompresses one raw LZ4 block into exactly `out`.
pub(crate) fn block_decode_into(
    codec: &'static str,
    input: &[u8],
    out: &mut [u8],
    base: usize,
) -> Result<()> {
    let n = lz4_flex::block::decompress_into(input, out)
        .map_err(|e| CodecError::corrupt(codec, base, format!("lz4 block: {e}")))?;
    if n != out.len() {
        return Err(CodecError::size(codec, out.len(), n));
    }
    Ok(())
}
