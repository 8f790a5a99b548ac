//! `zstd` codec (HDF5 filter 32015), through the `zstd` crate.

use crate::error::{CodecError, Result};

/// Compresses one frame, like numcodecs' `Zstd(level, checksum)`
/// (level 0 means zstd's default level).
pub(crate) fn encode(input: &[u8], level: i32, checksum: bool) -> Result<Vec<u8>> {
    let mut c =
        zstd::bulk::Compressor::new(level).map_err(|e| CodecError::library("zstd", "encode", e))?;
    c.include_checksum(checksum)
        .and_then(|_| c.include_contentsize(true))
        .map_err(|e| CodecError::library("zstd", "encode", e))?;
    c.compress(input)
        .map_err(|e| CodecError::library("zstd", "encode", e))
}

/// Decompresses one or more frames into exactly `out`. A frame that declares
/// a content size other than `out.len()` is refused before decoding; the
/// decoder writes only into `out`.
pub(crate) fn decode_into(
    codec: &'static str,
    d: &mut zstd::bulk::Decompressor<'_>,
    input: &[u8],
    out: &mut [u8],
) -> Result<()> {
    if let Ok(frame_len) = zstd::zstd_safe::find_frame_compressed_size(input) {
        if frame_len == input.len() {
            if let Ok(Some(n)) = zstd::zstd_safe::get_frame_content_size(input) {
                if n != out.len() as u64 {
                    return Err(CodecError::size(
                        codec,
                        out.len(),
                        usize::try_from(n).unwrap_or(usize::MAX),
                    ));
                }
            }
        }
    }
    match d.decompress_to_buffer(input, out) {
        Ok(n) if n == out.len() => Ok(()),
        Ok(n) => Err(CodecError::size(codec, out.len(), n)),
        Err(e) => {
            let msg = e.to_string();
            if msg.contains("too small") {
                Err(CodecError::size(codec, out.len(), out.len() + 1))
            } else {
                Err(CodecError::corrupt(codec, 0, format!("zstd: {msg}")))
            }
        }
    }
}

/// A fresh decompression context.
pub(crate) fn decompressor(codec: &'static str) -> Result<zstd::bulk::Decompressor<'static>> {
    zstd::bulk::Decompressor::new().map_err(|e| CodecError::library(codec, "decode", e))
}
