//! The 16-byte Blosc1 header.
//!
//! | byte | field |
//! | --- | --- |
//! | 0 | format version (2 for c-blosc 1.x) |
//! | 1 | inner-compressor format version (1) |
//! | 2 | flags: bit 0 byte shuffle, bit 1 memcpy'd, bit 2 bit shuffle, bit 3 reserved, bit 4 "don't split", bits 5-7 inner compressor |
//! | 3 | typesize |
//! | 4..8 | uncompressed size (LE i32) |
//! | 8..12 | block size (LE i32) |
//! | 12..16 | compressed size including header (LE i32) |
//!
//! Unless memcpy'd, `nblocks` LE i32 block start offsets follow; each block
//! holds one or `typesize` streams, each an LE i32 length and its bytes (a
//! length equal to the stream's uncompressed size means stored raw).

use crate::error::{CodecError, Result};

pub(crate) const HEADER_LEN: usize = 16;
pub(crate) const VERSION_FORMAT: u8 = 2;
pub(crate) const VERSION_LZ: u8 = 1;
pub(crate) const DOSHUFFLE: u8 = 0x01;
pub(crate) const MEMCPYED: u8 = 0x02;
pub(crate) const DOBITSHUFFLE: u8 = 0x04;
pub(crate) const RESERVED: u8 = 0x08;
pub(crate) const DONT_SPLIT: u8 = 0x10;
/// c-blosc's limit on a block (`BLOSC_MAX_BLOCKSIZE`).
pub(crate) const MAX_BLOCKSIZE: usize = (i32::MAX as usize - 255 * 4) / 3;
/// c-blosc's limit on a buffer (`BLOSC_MAX_BUFFERSIZE`).
pub(crate) const MAX_BUFFERSIZE: usize = i32::MAX as usize - HEADER_LEN;

/// A parsed and validated header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Header {
    pub version: u8,
    pub versionlz: u8,
    pub flags: u8,
    pub typesize: usize,
    pub nbytes: usize,
    pub blocksize: usize,
    pub cbytes: usize,
}

impl Header {
    /// Inner-compressor format code (bits 5-7 of the flags).
    pub fn compformat(&self) -> u8 {
        self.flags >> 5
    }

    pub fn memcpyed(&self) -> bool {
        self.flags & MEMCPYED != 0
    }

    /// Number of blocks (the last may be partial).
    pub fn nblocks(&self) -> usize {
        self.nbytes.div_ceil(self.blocksize.max(1))
    }

    /// Parses the header fields and checks the format version and flags.
    /// Sizes are checked by [`Header::validate`].
    pub fn parse(input: &[u8]) -> Result<Header> {
        if input.len() < HEADER_LEN {
            return Err(CodecError::Truncated {
                codec: "blosc",
                offset: 0,
                needed: HEADER_LEN,
                available: input.len(),
            });
        }
        let rd = |o: usize| -> Result<usize> {
            let v = i32::from_le_bytes([input[o], input[o + 1], input[o + 2], input[o + 3]]);
            usize::try_from(v)
                .map_err(|_| CodecError::corrupt("blosc", o, format!("negative size field {v}")))
        };
        let h = Header {
            version: input[0],
            versionlz: input[1],
            flags: input[2],
            typesize: usize::from(input[3]),
            nbytes: rd(4)?,
            blocksize: rd(8)?,
            cbytes: rd(12)?,
        };
        if h.version == 0 || h.version > VERSION_FORMAT {
            return Err(CodecError::unsupported(
                "blosc",
                format!(
                    "format version {} (only Blosc1 formats 1-2 are read; Blosc2 chunks are not)",
                    h.version
                ),
            ));
        }
        if h.flags & RESERVED != 0 {
            return Err(CodecError::corrupt(
                "blosc",
                2,
                "reserved flag bit 3 set (a format from the future)",
            ));
        }
        Ok(h)
    }

    /// Checks the header's sizes against each other and the input length.
    /// Call after comparing `nbytes` with the expected size.
    pub fn validate(&self, input_len: usize) -> Result<()> {
        let h = self;
        if h.cbytes < HEADER_LEN {
            return Err(CodecError::corrupt(
                "blosc",
                12,
                format!("compressed size {} is smaller than the header", h.cbytes),
            ));
        }
        if h.cbytes > input_len {
            return Err(CodecError::Truncated {
                codec: "blosc",
                offset: 0,
                needed: h.cbytes,
                available: input_len,
            });
        }
        if h.nbytes == 0 {
            return Ok(());
        }
        if h.typesize == 0 {
            return Err(CodecError::corrupt("blosc", 3, "typesize 0"));
        }
        if h.blocksize == 0 || h.blocksize > MAX_BLOCKSIZE || h.blocksize > h.nbytes {
            return Err(CodecError::corrupt(
                "blosc",
                8,
                format!("block size {} invalid for {} bytes", h.blocksize, h.nbytes),
            ));
        }
        if h.memcpyed() {
            if h.nbytes.checked_add(HEADER_LEN) != Some(h.cbytes) {
                return Err(CodecError::corrupt(
                    "blosc",
                    12,
                    format!(
                        "memcpy'd buffer of {} bytes but compressed size {}",
                        h.nbytes, h.cbytes
                    ),
                ));
            }
        } else {
            if h.versionlz != VERSION_LZ {
                return Err(CodecError::unsupported(
                    "blosc",
                    format!("inner compressor format version {}", h.versionlz),
                ));
            }
            let need = h
                .nblocks()
                .checked_mul(4)
                .and_then(|b| b.checked_add(HEADER_LEN));
            if need.is_none_or(|n| n > h.cbytes) {
                return Err(CodecError::corrupt(
                    "blosc",
                    HEADER_LEN,
                    format!(
                        "{} block offsets do not fit in {} bytes",
                        h.nblocks(),
                        h.cbytes
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Serializes the header.
    pub fn write(&self) -> [u8; HEADER_LEN] {
        let mut b = [0u8; HEADER_LEN];
        b[0] = self.version;
        b[1] = self.versionlz;
        b[2] = self.flags;
        b[3] = self.typesize as u8;
        b[4..8].copy_from_slice(&(self.nbytes as i32).to_le_bytes());
        b[8..12].copy_from_slice(&(self.blocksize as i32).to_le_bytes());
        b[12..16].copy_from_slice(&(self.cbytes as i32).to_le_bytes());
        b
    }
}
