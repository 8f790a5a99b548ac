//! How the decoded bytes of one chunk (one object of the chunk grid)
//! become the bytes stored for it, and back (for read-modify-write): Zarr
//! v2's filters and compressor, or a Zarr v3 codec chain, whose `bytes`
//! codec is the chunk as it is (the writer keeps chunks in the stored byte
//! order), whose `vlen-utf8` codec turns the writer's fixed-width strings
//! into zarr-python's variable-length ones, and whose `sharding_indexed`
//! codec ([`Sharding`]) splits a shard into inner chunks.

use nctk_codec::{CodecError, Pipeline};
use rayon::prelude::*;

use super::encode::is_fill;

/// The codec chain of one variable's chunks; see the [module docs](self).
#[derive(Debug, Clone)]
pub enum ChunkChain {
    /// The chunk's bytes through a pipeline (Zarr v2; Zarr v3 `bytes`
    /// followed by bytes-to-bytes codecs).
    Bytes(Pipeline),
    /// Strings of `width` NUL-padded bytes as `vlen-utf8`, then `then`.
    VlenUtf8 {
        /// Bytes per string in the decoded chunk.
        width: usize,
        /// The bytes-to-bytes codecs after `vlen-utf8`.
        then: Pipeline,
    },
    /// A shard of inner chunks (`sharding_indexed`).
    Sharded(Box<Sharding>),
}

/// `sharding_indexed` with the index at the end, coded `bytes` (little
/// endian) then `crc32c`, as zarr-python writes it.
#[derive(Debug, Clone)]
pub struct Sharding {
    /// The shard's lengths (the chunk grid's chunk shape).
    pub shard: Vec<u64>,
    /// The inner chunks' lengths (each divides the shard's).
    pub inner: Vec<u64>,
    /// Bytes per element.
    pub width: usize,
    /// The inner chunks' chain (not itself sharded).
    pub chain: ChunkChain,
    /// One element of the fill value: inner chunks missing from a shard
    /// read as it.
    pub fill: Vec<u8>,
    /// Inner chunks holding only the fill value are left out of the shard
    /// (zarr-python's `write_empty_chunks=False`).
    pub skip_empty: bool,
}

/// The index entry of an inner chunk not in its shard (offset and length).
const MISSING: u64 = u64::MAX;

impl ChunkChain {
    /// True when chunks are stored exactly as they are held.
    pub fn is_empty(&self) -> bool {
        matches!(self, ChunkChain::Bytes(p) if p.is_empty())
    }

    /// The bytes stored for the decoded chunk `buf`.
    pub fn encode(&self, buf: &[u8]) -> Result<Vec<u8>, CodecError> {
        match self {
            ChunkChain::Bytes(p) => p.encode(buf),
            ChunkChain::VlenUtf8 { width, then } => then.encode(&vlen_encode(buf, *width)),
            ChunkChain::Sharded(s) => s.encode(buf),
        }
    }

    /// The decoded chunk (`size` bytes) of stored bytes `enc`.
    pub fn decode(&self, enc: &[u8], size: usize) -> Result<Vec<u8>, CodecError> {
        match self {
            ChunkChain::Bytes(p) => p.decode(enc, size),
            ChunkChain::VlenUtf8 { width, then } => {
                let n = size / width.max(&1);
                // A vlen chunk is at most its strings' bytes plus a length
                // each and a count: a bound for the decoded stream.
                let bound = size + 4 * n + 4;
                let raw = decode_bounded(then, enc, bound)?;
                vlen_decode(&raw, n, *width)
            }
            ChunkChain::Sharded(s) => s.decode(enc, size),
        }
    }
}

/// Decodes `enc` with `p` into the stream's own length, at most `bound`
/// bytes: the length the codecs report when asked for `bound` (zstd frames
/// written by nctk record it).
fn decode_bounded(p: &Pipeline, enc: &[u8], bound: usize) -> Result<Vec<u8>, CodecError> {
    if p.is_empty() {
        return Ok(enc.to_vec());
    }
    match p.decode(enc, bound) {
        Err(CodecError::SizeMismatch { got, .. }) if got < bound => p.decode(enc, got),
        other => other,
    }
}

/// zarr-python's `vlen-utf8`: the number of strings (u32 little endian),
/// then each string's length (u32 LE) and bytes. A string is the bytes
/// before its first NUL, cut back to whole UTF-8 characters.
fn vlen_encode(buf: &[u8], width: usize) -> Vec<u8> {
    let n = buf.len() / width.max(1);
    let mut out = Vec::with_capacity(4 + n * 4 + buf.len() / 2);
    out.extend_from_slice(&(n as u32).to_le_bytes());
    for s in buf.chunks_exact(width.max(1)) {
        let end = s.iter().position(|&b| b == 0).unwrap_or(s.len());
        let text = match std::str::from_utf8(&s[..end]) {
            Ok(t) => t.as_bytes(),
            Err(e) => &s[..e.valid_up_to()],
        };
        out.extend_from_slice(&(text.len() as u32).to_le_bytes());
        out.extend_from_slice(text);
    }
    out
}

/// The inverse of [`vlen_encode`]: `n` strings NUL-padded to `width`.
fn vlen_decode(raw: &[u8], n: usize, width: usize) -> Result<Vec<u8>, CodecError> {
    let corrupt = |offset: usize, reason: String| CodecError::Corrupt {
        codec: "vlen-utf8",
        offset,
        reason,
    };
    let u32_at = |at: usize| -> Result<usize, CodecError> {
        raw.get(at..at + 4)
            .map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes")) as usize)
            .ok_or_else(|| corrupt(at, "truncated".into()))
    };
    let count = u32_at(0)?;
    if count != n {
        return Err(corrupt(0, format!("holds {count} strings, the chunk {n}")));
    }
    let mut out = vec![0u8; n * width];
    let mut at = 4;
    for slot in out.chunks_exact_mut(width.max(1)) {
        let len = u32_at(at)?;
        at += 4;
        let s = raw
            .get(at..at.saturating_add(len))
            .ok_or_else(|| corrupt(at, format!("a string of {len} bytes runs past the end")))?;
        if len > width {
            return Err(corrupt(
                at,
                format!("a string of {len} bytes is longer than the width {width}"),
            ));
        }
        slot[..len].copy_from_slice(s);
        at += len;
    }
    Ok(out)
}

impl Sharding {
    /// Inner chunks along each dimension, and in all.
    fn grid(&self) -> (Vec<u64>, usize) {
        let per: Vec<u64> = self
            .shard
            .iter()
            .zip(&self.inner)
            .map(|(s, c)| s / c)
            .collect();
        let n = per.iter().product::<u64>() as usize;
        (per, n)
    }

    /// Bytes of one decoded inner chunk.
    fn inner_bytes(&self) -> usize {
        self.inner.iter().product::<u64>() as usize * self.width
    }

    /// Calls `f(shard_offset, inner_offset, len)` (bytes) for each row of
    /// inner chunk number `i` (C order).
    fn rows(&self, per: &[u64], i: usize, mut f: impl FnMut(usize, usize, usize)) {
        let rank = self.shard.len();
        let mut at = vec![0u64; rank];
        let mut rest = i as u64;
        for d in (0..rank).rev() {
            at[d] = (rest % per[d]) * self.inner[d];
            rest /= per[d];
        }
        let row = self.inner[rank - 1] as usize * self.width;
        let rows = self.inner[..rank - 1].iter().product::<u64>() as usize;
        let mut k = vec![0u64; rank - 1];
        for r in 0..rows {
            let mut off = 0u64;
            for d in 0..rank {
                let idx = at[d] + if d < rank - 1 { k[d] } else { 0 };
                off = off * self.shard[d] + idx;
            }
            f(off as usize * self.width, r * row, row);
            for d in (0..rank - 1).rev() {
                k[d] += 1;
                if k[d] < self.inner[d] {
                    break;
                }
                k[d] = 0;
            }
        }
    }

    /// The stored shard of decoded shard `buf`: inner chunks encoded in
    /// parallel and written in order, then the index and its crc32c.
    fn encode(&self, buf: &[u8]) -> Result<Vec<u8>, CodecError> {
        let (per, n) = self.grid();
        let size = self.inner_bytes();
        let parts: Vec<Option<Vec<u8>>> = (0..n)
            .into_par_iter()
            .map(|i| {
                let mut block = vec![0u8; size];
                self.rows(&per, i, |s, c, len| {
                    block[c..c + len].copy_from_slice(&buf[s..s + len])
                });
                if self.skip_empty && is_fill(&block, &self.fill) {
                    return Ok(None);
                }
                self.chain.encode(&block).map(Some)
            })
            .collect::<Result<_, CodecError>>()?;
        let total: usize = parts.iter().flatten().map(Vec::len).sum();
        let mut out = Vec::with_capacity(total + 16 * n + 4);
        let mut index = Vec::with_capacity(16 * n);
        // Each inner chunk is freed once copied: the encoded shard is held
        // about once, not twice.
        for part in parts {
            let (offset, len) = match &part {
                Some(p) => (out.len() as u64, p.len() as u64),
                None => (MISSING, MISSING),
            };
            index.extend_from_slice(&offset.to_le_bytes());
            index.extend_from_slice(&len.to_le_bytes());
            if let Some(p) = part {
                out.extend_from_slice(&p);
            }
        }
        out.extend_from_slice(&nctk_codec::Codec::Crc32c.encode(&index)?);
        Ok(out)
    }

    /// The decoded shard (`size` bytes) of stored shard `enc`; inner chunks
    /// missing from it read as fill.
    fn decode(&self, enc: &[u8], size: usize) -> Result<Vec<u8>, CodecError> {
        let (per, n) = self.grid();
        let corrupt = |offset: usize, reason: String| CodecError::Corrupt {
            codec: "sharding_indexed",
            offset,
            reason,
        };
        let index_len = 16 * n + 4;
        let Some(body_len) = enc.len().checked_sub(index_len) else {
            return Err(corrupt(
                0,
                format!("{} bytes cannot hold an index of {index_len}", enc.len()),
            ));
        };
        let mut index = vec![0u8; 16 * n];
        nctk_codec::Codec::Crc32c.decode_into(&enc[body_len..], &mut index)?;
        let mut out: Vec<u8> = self.fill.iter().copied().cycle().take(size).collect();
        let inner = self.inner_bytes();
        for (i, e) in index.chunks_exact(16).enumerate() {
            let offset = u64::from_le_bytes(e[..8].try_into().expect("8 bytes"));
            let len = u64::from_le_bytes(e[8..].try_into().expect("8 bytes"));
            if offset == MISSING && len == MISSING {
                continue;
            }
            let end = offset.checked_add(len).filter(|&x| x <= body_len as u64);
            let Some(end) = end else {
                return Err(corrupt(
                    body_len + 16 * i,
                    format!("inner chunk {i} at {offset}+{len} lies outside the shard's {body_len} bytes"),
                ));
            };
            let block = self
                .chain
                .decode(&enc[offset as usize..end as usize], inner)?;
            self.rows(&per, i, |s, c, l| {
                out[s..s + l].copy_from_slice(&block[c..c + l])
            });
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nctk_codec::Codec;

    fn zstd() -> Pipeline {
        Pipeline {
            filters: vec![],
            compressor: Some(Codec::Zstd {
                level: 0,
                checksum: false,
            }),
        }
    }

    #[test]
    fn vlen_round_trip() {
        let width = 4;
        let buf = b"ab\0\0\0\0\0\0abcd".to_vec();
        let chain = ChunkChain::VlenUtf8 {
            width,
            then: zstd(),
        };
        let enc = chain.encode(&buf).unwrap();
        assert_eq!(chain.decode(&enc, buf.len()).unwrap(), buf);
        let raw = vlen_encode(&buf, width);
        assert_eq!(&raw[..4], &3u32.to_le_bytes());
        assert_eq!(&raw[4..10], b"\x02\0\0\0ab");
    }

    #[test]
    fn shard_round_trip_with_missing_inner_chunks() {
        let s = Sharding {
            shard: vec![4, 6],
            inner: vec![2, 3],
            width: 2,
            chain: ChunkChain::Bytes(zstd()),
            fill: vec![9, 9],
            skip_empty: true,
        };
        let mut buf = vec![9u8; 4 * 6 * 2];
        for (i, b) in buf[..12].iter_mut().enumerate() {
            *b = i as u8;
        }
        let enc = s.encode(&buf).unwrap();
        let index = &enc[enc.len() - 4 - 64..enc.len() - 4];
        // Inner chunks 0 and 1 hold the first row's data; 2 and 3 are fill.
        assert_eq!(&index[32..], &[0xff; 32]);
        assert_eq!(s.decode(&enc, buf.len()).unwrap(), buf);
        let mut bad = enc.clone();
        bad[0] ^= 1;
        assert!(s.decode(&bad[..bad.len() - 1], buf.len()).is_err());
    }
}
