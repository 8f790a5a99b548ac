//! Blosc parameters: inner compressors, shuffle modes, and c-blosc 1.x's
//! automatic block size and stream-splitting rules.

use std::fmt;

use crate::error::{CodecError, Result};

/// Blosc's inner compressor (`cname`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BloscCompressor {
    /// `blosclz` (format code 0).
    BloscLz,
    /// `lz4` (format code 1).
    Lz4,
    /// `lz4hc` (format code 1, same stream format as lz4).
    Lz4Hc,
    /// `snappy` (format code 2): recognised, not implemented.
    Snappy,
    /// `zlib` (format code 3).
    Zlib,
    /// `zstd` (format code 4).
    Zstd,
}

impl BloscCompressor {
    /// Parses a numcodecs `cname`.
    pub fn from_name(name: &str) -> Result<Self> {
        Ok(match name {
            "blosclz" => Self::BloscLz,
            "lz4" => Self::Lz4,
            "lz4hc" => Self::Lz4Hc,
            "snappy" => Self::Snappy,
            "zlib" => Self::Zlib,
            "zstd" => Self::Zstd,
            other => {
                return Err(CodecError::invalid_config(
                    "blosc",
                    format!("unknown cname {other:?}"),
                ))
            }
        })
    }

    /// The numcodecs `cname`.
    pub fn name(self) -> &'static str {
        match self {
            Self::BloscLz => "blosclz",
            Self::Lz4 => "lz4",
            Self::Lz4Hc => "lz4hc",
            Self::Snappy => "snappy",
            Self::Zlib => "zlib",
            Self::Zstd => "zstd",
        }
    }

    /// c-blosc's compressor code (`BLOSC_BLOSCLZ` = 0 ... `BLOSC_ZSTD` = 5),
    /// used by the HDF5 filter parameters.
    pub fn code(self) -> u32 {
        match self {
            Self::BloscLz => 0,
            Self::Lz4 => 1,
            Self::Lz4Hc => 2,
            Self::Snappy => 3,
            Self::Zlib => 4,
            Self::Zstd => 5,
        }
    }

    /// Inverse of [`BloscCompressor::code`].
    pub fn from_code(code: u32) -> Result<Self> {
        Ok(match code {
            0 => Self::BloscLz,
            1 => Self::Lz4,
            2 => Self::Lz4Hc,
            3 => Self::Snappy,
            4 => Self::Zlib,
            5 => Self::Zstd,
            _ => {
                return Err(CodecError::invalid_config(
                    "blosc",
                    format!("unknown compressor code {code}"),
                ))
            }
        })
    }

    /// Format code stored in header flag bits 5-7.
    pub(crate) fn format(self) -> u8 {
        match self {
            Self::BloscLz => 0,
            Self::Lz4 | Self::Lz4Hc => 1,
            Self::Snappy => 2,
            Self::Zlib => 3,
            Self::Zstd => 4,
        }
    }

    /// High-compression-ratio codecs get larger automatic blocks.
    fn hcr(self) -> bool {
        matches!(self, Self::Lz4Hc | Self::Zlib | Self::Zstd)
    }
}

impl fmt::Display for BloscCompressor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Blosc's pre-compression shuffle (`shuffle` in the JSON).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BloscShuffle {
    /// `-1`: bit shuffle for 1-byte elements, byte shuffle otherwise (numcodecs' AUTOSHUFFLE).
    Auto,
    /// `0`.
    NoShuffle,
    /// `1`: byte shuffle.
    Byte,
    /// `2`: bit shuffle.
    Bit,
}

impl BloscShuffle {
    /// From the numcodecs integer.
    pub fn from_int(v: i64) -> Result<Self> {
        Ok(match v {
            -1 => Self::Auto,
            0 => Self::NoShuffle,
            1 => Self::Byte,
            2 => Self::Bit,
            _ => {
                return Err(CodecError::invalid_config(
                    "blosc",
                    format!("shuffle must be -1, 0, 1 or 2, not {v}"),
                ))
            }
        })
    }

    /// The numcodecs integer.
    pub fn to_int(self) -> i64 {
        match self {
            Self::Auto => -1,
            Self::NoShuffle => 0,
            Self::Byte => 1,
            Self::Bit => 2,
        }
    }

    /// Resolves `Auto` for a type size.
    pub(crate) fn resolve(self, typesize: usize) -> Self {
        match self {
            Self::Auto if typesize == 1 => Self::Bit,
            Self::Auto => Self::Byte,
            s => s,
        }
    }
}

pub(crate) const MIN_BUFFERSIZE: usize = 128;
pub(crate) const MAX_SPLITS: usize = 16;
const L1: usize = 32 * 1024;

/// c-blosc 1.x `split_block` in its default `BLOSC_FORWARD_COMPAT_SPLIT` mode.
pub(crate) fn split_block(c: BloscCompressor, typesize: usize, blocksize: usize) -> bool {
    c != BloscCompressor::Zstd && typesize <= MAX_SPLITS && blocksize / typesize >= MIN_BUFFERSIZE
}

/// c-blosc 1.x `compute_blocksize` (what numcodecs uses when `blocksize` is 0).
pub(crate) fn compute_blocksize(
    c: BloscCompressor,
    clevel: u8,
    typesize: usize,
    nbytes: usize,
    forced: usize,
) -> usize {
    if nbytes < typesize {
        return 1;
    }
    let mut bs = nbytes;
    if forced > 0 {
        bs = forced.clamp(MIN_BUFFERSIZE, super::header::MAX_BLOCKSIZE);
    } else if nbytes >= L1 {
        bs = L1;
        if c.hcr() {
            bs *= 2;
        }
        match clevel {
            0 => bs /= 4,
            1 => bs /= 2,
            2 => {}
            3 => bs *= 2,
            4 | 5 => bs *= 4,
            6..=8 => bs *= 8,
            _ => {
                bs *= 8;
                if c.hcr() {
                    bs *= 2;
                }
            }
        }
    }
    if clevel > 0 && split_block(c, typesize, bs) {
        bs = bs.min(1 << 18) * typesize;
        bs = bs.clamp(1 << 16, 1 << 20);
    }
    if bs > nbytes {
        bs = nbytes;
    }
    if bs > typesize {
        bs = bs / typesize * typesize;
    }
    bs
}
