//! Blosc's inner compressors, one stream at a time, with reusable contexts.

use flate2::Compress;

use super::blosclz;
use super::params::BloscCompressor;
use crate::deflate::{compression, zlib_decode_into, zlib_encode_bounded};
use crate::error::{CodecError, Result};
use crate::lz4::block_decode_into;
use crate::zstd_codec;

/// Compression state for one `encode` call.
pub(crate) enum Encoder {
    BloscLz,
    Lz4,
    Zlib(Box<Compress>),
    Zstd(Box<zstd::bulk::Compressor<'static>>),
}

impl Encoder {
    pub fn new(c: BloscCompressor, clevel: u8) -> Result<Self> {
        Ok(match c {
            BloscCompressor::BloscLz => Self::BloscLz,
            // lz4_flex has no acceleration or HC mode; lz4hc streams are lz4 streams.
            BloscCompressor::Lz4 | BloscCompressor::Lz4Hc => Self::Lz4,
            BloscCompressor::Zlib => Self::Zlib(Box::new(Compress::new(
                compression(u32::from(clevel)),
                true,
            ))),
            BloscCompressor::Zstd => {
                // c-blosc: clevel < 9 -> 2*clevel-1 (8 -> max-2), 9 -> ZSTD_maxCLevel().
                let max = 22;
                let level = match clevel {
                    9 => max,
                    8 => max - 2,
                    c => 2 * i32::from(c) - 1,
                };
                let z = zstd::bulk::Compressor::new(level)
                    .map_err(|e| CodecError::library("blosc", "encode", e))?;
                Self::Zstd(Box::new(z))
            }
            BloscCompressor::Snappy => {
                return Err(CodecError::unsupported(
                    "blosc",
                    "the snappy inner compressor",
                ))
            }
        })
    }

    /// Compresses `src` into `scratch`, returning the compressed length if it
    /// is smaller than `src` (otherwise the stream is stored raw); the
    /// stream is `scratch[..length]`.
    pub fn compress(&mut self, src: &[u8], scratch: &mut Vec<u8>) -> Option<usize> {
        let limit = src.len();
        match self {
            Self::BloscLz => blosclz::compress(src, scratch, limit).then_some(scratch.len()),
            Self::Lz4 => {
                // Grown once and kept at its size (not truncated), so later
                // streams do not clear it again.
                let bound = lz4_flex::block::get_maximum_output_size(src.len());
                if scratch.len() < bound {
                    scratch.resize(bound, 0);
                }
                let n = lz4_flex::block::compress_into(src, scratch).ok()?;
                (n > 0 && n < limit).then_some(n)
            }
            Self::Zlib(c) => {
                scratch.resize(limit, 0);
                let n = zlib_encode_bounded(c, src, scratch)?;
                scratch.truncate(n);
                (n < limit).then_some(n)
            }
            Self::Zstd(z) => {
                scratch.resize(limit, 0);
                let n = z.compress_to_buffer(src, &mut scratch[..]).ok()?;
                scratch.truncate(n);
                (n > 0 && n < limit).then_some(n)
            }
        }
    }
}

/// Decompression state for one `decode` call.
pub(crate) enum Decoder {
    BloscLz,
    Lz4,
    Zlib,
    Zstd(Box<zstd::bulk::Decompressor<'static>>),
}

impl Decoder {
    /// From the header's format code.
    pub fn new(format: u8) -> Result<Self> {
        Ok(match format {
            0 => Self::BloscLz,
            1 => Self::Lz4,
            3 => Self::Zlib,
            4 => Self::Zstd(Box::new(zstd_codec::decompressor("blosc")?)),
            2 => {
                return Err(CodecError::unsupported(
                    "blosc",
                    "the snappy inner compressor",
                ))
            }
            f => {
                return Err(CodecError::unsupported(
                    "blosc",
                    format!("inner compressor format code {f}"),
                ))
            }
        })
    }

    /// Decompresses one stream (starting at `offset` in the blosc buffer)
    /// into exactly `out`.
    pub fn decompress(&mut self, src: &[u8], out: &mut [u8], offset: usize) -> Result<()> {
        match self {
            Self::BloscLz => {
                let n = blosclz::decompress(src, out).map_err(|(at, why)| {
                    CodecError::corrupt("blosc", offset + at, format!("blosclz: {why}"))
                })?;
                if n != out.len() {
                    return Err(CodecError::corrupt(
                        "blosc",
                        offset,
                        format!(
                            "blosclz stream gives {n} bytes, block stream needs {}",
                            out.len()
                        ),
                    ));
                }
                Ok(())
            }
            Self::Lz4 => block_decode_into("blosc", src, out, offset),
            Self::Zlib => zlib_decode_into("blosc", src, out),
            Self::Zstd(d) => zstd_codec::decode_into("blosc", d, src, out),
        }
    }
}
