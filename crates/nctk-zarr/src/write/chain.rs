//! How the decoded bytes of one chunk (one object of the chunk grid)
//! become the bytes stored for it, and back (for read-modify-write): Zarr
//! v2's filters and compressor, or a Zarr v3 codec chain, whose `bytes`
//! codec is the chunk as it is (the writer keeps chunks in the stored byte
//! order), whose `vlen-utf8` codec turns the writer's fixed-width strings
//! into zarr-python's variable-length ones. A sharded array's chain is
//! its inner chunks' (shards are assembled by [`super::shards`]).

use nctk_codec::{CodecError, Pipeline};

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
}

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
}
