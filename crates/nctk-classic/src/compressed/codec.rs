//! The block codecs: which compressor a variable's blocks use, an optional
//! byte shuffle by element size before it, and the rule that a block the
//! codec would not make smaller is stored as it is.

use std::cell::Cell;

use nctk_codec::buffer::with_kept;
use nctk_codec::{shuffle, Codec, CodecError};
use serde_json::json;

thread_local! {
    /// The shuffled bytes of the block this thread encodes or decodes, kept between
    /// blocks (a fresh block-sized allocation per block costs page faults).
    static SCRATCH: Cell<Vec<u8>> = const { Cell::new(Vec::new()) };
}

/// The compressor of a variable's blocks, as its directory entry stores it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum CodecId {
    /// Blocks stored as they are.
    None = 0,
    /// A zlib stream (RFC 1950).
    Zlib = 1,
    /// A Zstandard frame (RFC 8878).
    Zstd = 2,
    /// numcodecs' LZ4: the decoded length as 4 little-endian bytes, then
    /// one LZ4 block.
    Lz4 = 3,
    /// A Blosc1 frame (c-blosc's format, inner compressor LZ4, no shuffle
    /// of its own).
    Blosc = 4,
}

impl CodecId {
    /// The codec stored as `b`, if known.
    pub fn from_u8(b: u8) -> Option<CodecId> {
        Some(match b {
            0 => CodecId::None,
            1 => CodecId::Zlib,
            2 => CodecId::Zstd,
            3 => CodecId::Lz4,
            4 => CodecId::Blosc,
            _ => return None,
        })
    }

    /// The codec named `name` (`none`, `zlib`, `zstd`, `lz4`, `blosc`).
    pub fn from_name(name: &str) -> Option<CodecId> {
        Some(match name.to_ascii_lowercase().as_str() {
            "none" => CodecId::None,
            "zlib" | "deflate" => CodecId::Zlib,
            "zstd" => CodecId::Zstd,
            "lz4" => CodecId::Lz4,
            "blosc" => CodecId::Blosc,
            _ => return None,
        })
    }

    /// The codec's name.
    pub fn name(self) -> &'static str {
        match self {
            CodecId::None => "none",
            CodecId::Zlib => "zlib",
            CodecId::Zstd => "zstd",
            CodecId::Lz4 => "lz4",
            CodecId::Blosc => "blosc",
        }
    }

    /// The level used when none is given: zlib 1 (nccopy's `-d 1`), zstd
    /// 1, blosc 5 (numcodecs' default); lz4 and none have no level.
    pub fn default_level(self) -> i8 {
        match self {
            CodecId::Zlib | CodecId::Zstd => 1,
            CodecId::Blosc => 5,
            CodecId::Lz4 | CodecId::None => 0,
        }
    }
}

/// How one variable's blocks are encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BlockCodec {
    /// The compressor.
    pub id: CodecId,
    /// Its level (zlib 0-9, zstd -128..22, blosc 0-9; stored for the
    /// record, decoding does not need it).
    pub level: i8,
    /// 0, or the element size the bytes are shuffled by before
    /// compression (the HDF5/numcodecs byte shuffle).
    pub shuffle: u8,
}

impl BlockCodec {
    /// The numcodecs codec behind [`Self::id`], `None` for [`CodecId::None`].
    pub(crate) fn codec(&self) -> Result<Option<Codec>, CodecError> {
        let level = i64::from(self.level);
        let config = match self.id {
            CodecId::None => return Ok(None),
            CodecId::Zlib => json!({"id": "zlib", "level": level}),
            CodecId::Zstd => json!({"id": "zstd", "level": level}),
            CodecId::Lz4 => json!({"id": "lz4", "acceleration": 1}),
            CodecId::Blosc => json!({
                "id": "blosc", "cname": "lz4", "clevel": level, "shuffle": 0, "blocksize": 0
            }),
        };
        Codec::from_json(&config).map(Some)
    }

    /// Encodes one block: shuffled, then compressed; the block itself when
    /// that is not smaller (so a stored block is never longer than the
    /// block, and a stored length equal to the block's means "raw").
    pub fn encode_block(&self, raw: &[u8]) -> Result<Vec<u8>, CodecError> {
        let Some(codec) = self.codec()? else {
            return Ok(raw.to_vec());
        };
        let encoded = if self.shuffle > 1 {
            with_kept(&SCRATCH, |shuffled| {
                shuffled.resize(raw.len(), 0);
                shuffle::shuffle(usize::from(self.shuffle), raw, shuffled);
                codec.encode(shuffled)
            })?
        } else {
            codec.encode(raw)?
        };
        Ok(if encoded.len() < raw.len() {
            encoded
        } else {
            raw.to_vec()
        })
    }

    /// Decodes one stored block into exactly `out` (the block's
    /// uncompressed length): stored bytes as long as `out` are the block
    /// itself; anything else must decompress to exactly `out.len()`
    /// bytes. Uses at most one block of scratch (for the shuffle), kept
    /// per thread between blocks up to 16 MiB.
    pub fn decode_block(&self, stored: &[u8], out: &mut [u8]) -> Result<(), CodecError> {
        if stored.len() == out.len() {
            out.copy_from_slice(stored);
            return Ok(());
        }
        let Some(codec) = self.codec()? else {
            return Err(CodecError::SizeMismatch {
                codec: "none",
                expected: out.len(),
                got: stored.len(),
            });
        };
        if self.shuffle > 1 {
            // Taken out, not borrowed: a codec may run rayon tasks, and
            // this thread may decode another block while it waits.
            with_kept(&SCRATCH, |shuffled| {
                shuffled.resize(out.len(), 0);
                codec.decode_into(stored, shuffled)?;
                shuffle::unshuffle(usize::from(self.shuffle), shuffled, out);
                Ok::<_, CodecError>(())
            })?;
        } else {
            codec.decode_into(stored, out)?;
        }
        Ok(())
    }
}
