//! Blosc1 (the format of c-blosc 1.x, which numcodecs' `Blosc` writes),
//! implemented here in Rust: header, block offsets, split streams, byte and
//! bit shuffle, memcpy'd buffers and streams, and the blosclz, lz4, lz4hc,
//! zlib and zstd inner compressors.
//!
//! Encoding follows c-blosc 1.x's choices (automatic block size, stream
//! splitting in its default forward-compatible mode, memcpy fallbacks), so
//! headers match what numcodecs writes for the same input; the compressed
//! bytes of each stream differ because the inner compressors differ
//! (lz4_flex has no acceleration or HC mode; blosclz is a simpler encoder).

mod bitshuffle;
mod blosclz;
mod header;
mod inner;
mod params;

pub use params::{BloscCompressor, BloscShuffle};

use serde_json::Value;

use crate::error::{CodecError, Result};
use crate::json::{object, Config};
use crate::shuffle::{shuffle, unshuffle};
use header::{Header, DOBITSHUFFLE, DONT_SPLIT, DOSHUFFLE, HEADER_LEN, MAX_BUFFERSIZE, MEMCPYED};
use params::{compute_blocksize, split_block, MAX_SPLITS, MIN_BUFFERSIZE};

/// The `blosc` codec (HDF5 filter 32001).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Blosc {
    /// Inner compressor (`cname`, default lz4).
    pub cname: BloscCompressor,
    /// Compression level 0-9 (`clevel`, default 5); 0 stores the data memcpy'd.
    pub clevel: u8,
    /// Shuffle mode (`shuffle`, default byte shuffle).
    pub shuffle: BloscShuffle,
    /// Block size in bytes (`blocksize`); 0 = c-blosc's automatic choice.
    pub blocksize: usize,
    /// Element size used when encoding (numcodecs takes the array's item
    /// size); `None` = 1. Decoding reads it from each buffer's header.
    pub typesize: Option<usize>,
}

impl Default for Blosc {
    fn default() -> Self {
        Blosc {
            cname: BloscCompressor::Lz4,
            clevel: 5,
            shuffle: BloscShuffle::Byte,
            blocksize: 0,
            typesize: None,
        }
    }
}

impl Blosc {
    pub(crate) fn from_config(c: &Config<'_>, element_size: Option<usize>) -> Result<Self> {
        Ok(Blosc {
            cname: BloscCompressor::from_name(c.string("cname")?.unwrap_or("lz4"))?,
            clevel: c.int_in("clevel", 5, 0, 9)? as u8,
            shuffle: BloscShuffle::from_int(c.int("shuffle")?.unwrap_or(1))?,
            blocksize: c.int_in("blocksize", 0, 0, i64::from(i32::MAX))? as usize,
            typesize: c
                .int("typesize")?
                .filter(|t| *t > 0)
                .map(|t| t as usize)
                .or(element_size),
        })
    }

    pub(crate) fn to_json(&self) -> Value {
        object([
            ("id", "blosc".into()),
            ("cname", self.cname.name().into()),
            ("clevel", self.clevel.into()),
            ("shuffle", self.shuffle.to_int().into()),
            ("blocksize", self.blocksize.into()),
        ])
    }

    /// Compresses `src` into a Blosc1 buffer.
    pub fn encode(&self, src: &[u8]) -> Result<Vec<u8>> {
        let nbytes = src.len();
        if nbytes > MAX_BUFFERSIZE {
            return Err(CodecError::InvalidLength {
                codec: "blosc",
                len: nbytes,
                reason: format!("Blosc1 buffers hold at most {MAX_BUFFERSIZE} bytes"),
            });
        }
        let mut typesize = self.typesize.unwrap_or(1).max(1);
        if typesize > 255 {
            typesize = 1;
        }
        let shuffle_mode = self.shuffle.resolve(typesize);
        let blocksize =
            compute_blocksize(self.cname, self.clevel, typesize, nbytes, self.blocksize);
        let dont_split = !split_block(self.cname, typesize, blocksize);
        let mut flags = self.cname.format() << 5;
        if dont_split {
            flags |= DONT_SPLIT;
        }
        match shuffle_mode {
            BloscShuffle::Byte => flags |= DOSHUFFLE,
            BloscShuffle::Bit => flags |= DOBITSHUFFLE,
            _ => {}
        }
        let mut h = Header {
            version: header::VERSION_FORMAT,
            versionlz: header::VERSION_LZ,
            flags,
            typesize,
            nbytes,
            blocksize,
            cbytes: 0,
        };
        if self.clevel == 0 || nbytes < MIN_BUFFERSIZE {
            return Ok(memcpyed(h, src));
        }
        let mut enc = inner::Encoder::new(self.cname, self.clevel)?;
        let nblocks = h.nblocks();
        let limit = nbytes + HEADER_LEN;
        let mut out = Vec::with_capacity(limit.min(nbytes / 2 + 4096));
        out.extend_from_slice(&h.write());
        out.resize(HEADER_LEN + 4 * nblocks, 0);
        let mut tmp = vec![0u8; blocksize];
        let mut tmp2 = vec![0u8; blocksize];
        let mut scratch = Vec::new();
        for j in 0..nblocks {
            let start = j * blocksize;
            let block = &src[start..(start + blocksize).min(nbytes)];
            let bsize = block.len();
            let leftover = bsize < blocksize;
            let pos = out.len() as i32;
            out[HEADER_LEN + 4 * j..HEADER_LEN + 4 * j + 4].copy_from_slice(&pos.to_le_bytes());
            let data: &[u8] = if shuffle_mode == BloscShuffle::Byte && typesize > 1 {
                shuffle(typesize, block, &mut tmp[..bsize]);
                &tmp[..bsize]
            } else if shuffle_mode == BloscShuffle::Bit && bsize >= typesize {
                bitshuffle::bitshuffle(typesize, block, &mut tmp[..bsize], &mut tmp2[..bsize]);
                &tmp[..bsize]
            } else {
                block
            };
            let nsplits = if !dont_split && !leftover {
                typesize
            } else {
                1
            };
            let neblock = bsize / nsplits;
            for stream in data.chunks_exact(neblock) {
                let (len, bytes) = match enc.compress(stream, &mut scratch) {
                    Some(n) => (n, &scratch[..n]),
                    None => (neblock, stream),
                };
                out.extend_from_slice(&(len as i32).to_le_bytes());
                out.extend_from_slice(bytes);
            }
            if out.len() > limit {
                return Ok(memcpyed(h, src));
            }
        }
        h.cbytes = out.len();
        out[..HEADER_LEN].copy_from_slice(&h.write());
        Ok(out)
    }

    /// Decompresses a Blosc1 buffer into exactly `out`.
    pub fn decode_into(&self, input: &[u8], out: &mut [u8]) -> Result<()> {
        decode_into(input, out)
    }
}

fn memcpyed(mut h: Header, src: &[u8]) -> Vec<u8> {
    h.flags |= MEMCPYED;
    h.cbytes = src.len() + HEADER_LEN;
    let mut out = Vec::with_capacity(h.cbytes);
    out.extend_from_slice(&h.write());
    out.extend_from_slice(src);
    out
}

/// The uncompressed size a Blosc1 buffer declares (numcodecs'
/// `cbuffer_sizes`), after checking its header.
pub fn declared_size(input: &[u8]) -> Result<usize> {
    let h = Header::parse(input)?;
    h.validate(input.len())?;
    Ok(h.nbytes)
}

/// Decompresses a Blosc1 buffer into exactly `out`. The header's size is
/// checked against `out.len()` before anything is allocated; scratch memory
/// is at most two blocks, each no larger than `out`.
pub fn decode_into(input: &[u8], out: &mut [u8]) -> Result<()> {
    let h = Header::parse(input)?;
    if h.nbytes != out.len() {
        return Err(CodecError::size("blosc", out.len(), h.nbytes));
    }
    h.validate(input.len())?;
    if h.nbytes == 0 {
        return Ok(());
    }
    let input = &input[..h.cbytes];
    if h.memcpyed() {
        out.copy_from_slice(&input[HEADER_LEN..]);
        return Ok(());
    }
    let mut dec = inner::Decoder::new(h.compformat())?;
    let typesize = h.typesize;
    let dont_split = h.flags & DONT_SPLIT != 0;
    let mut tmp = Vec::new();
    let mut tmp2 = Vec::new();
    for (j, block) in out.chunks_mut(h.blocksize).enumerate() {
        let bsize = block.len();
        let leftover = bsize < h.blocksize;
        let at = HEADER_LEN + 4 * j;
        let bstart = i32::from_le_bytes([input[at], input[at + 1], input[at + 2], input[at + 3]]);
        let mut pos = usize::try_from(bstart)
            .ok()
            .filter(|p| *p >= HEADER_LEN && *p < input.len())
            .ok_or_else(|| {
                CodecError::corrupt(
                    "blosc",
                    at,
                    format!("block {j} starts at invalid offset {bstart}"),
                )
            })?;
        let doshuffle = h.flags & DOSHUFFLE != 0 && typesize > 1;
        let dobitshuffle = h.flags & DOBITSHUFFLE != 0 && bsize >= typesize;
        let nsplits = if !dont_split
            && typesize <= MAX_SPLITS
            && bsize / typesize >= MIN_BUFFERSIZE
            && !leftover
        {
            typesize
        } else {
            1
        };
        let neblock = bsize / nsplits;
        if neblock * nsplits != bsize {
            return Err(CodecError::corrupt(
                "blosc",
                pos,
                format!("block {j} of {bsize} bytes does not split into {nsplits} streams"),
            ));
        }
        let dest: &mut [u8] = if doshuffle || dobitshuffle {
            if tmp.len() < bsize {
                tmp.resize(bsize, 0);
            }
            &mut tmp[..bsize]
        } else {
            &mut *block
        };
        for stream in dest.chunks_exact_mut(neblock) {
            if input.len() - pos < 4 {
                return Err(CodecError::Truncated {
                    codec: "blosc",
                    offset: pos,
                    needed: 4,
                    available: input.len() - pos,
                });
            }
            let c =
                i32::from_le_bytes([input[pos], input[pos + 1], input[pos + 2], input[pos + 3]]);
            pos += 4;
            let cbytes = usize::try_from(c).map_err(|_| {
                CodecError::corrupt("blosc", pos - 4, format!("negative stream length {c}"))
            })?;
            if cbytes > input.len() - pos {
                return Err(CodecError::Truncated {
                    codec: "blosc",
                    offset: pos,
                    needed: cbytes,
                    available: input.len() - pos,
                });
            }
            let src = &input[pos..pos + cbytes];
            if cbytes == neblock {
                stream.copy_from_slice(src);
            } else {
                dec.decompress(src, stream, pos)?;
            }
            pos += cbytes;
        }
        if doshuffle {
            unshuffle(typesize, &tmp[..bsize], block);
        } else if dobitshuffle {
            if tmp2.len() < bsize {
                tmp2.resize(bsize, 0);
            }
            bitshuffle::bitunshuffle(typesize, &tmp[..bsize], block, &mut tmp2[..bsize]);
        }
    }
    Ok(())
}
