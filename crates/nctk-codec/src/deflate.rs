//! `zlib` and `gzip` codecs (flate2 with the pure-Rust zlib-rs backend).

use std::io::Write;

use flate2::{Compress, Compression, Decompress, FlushCompress, FlushDecompress, Status};

use crate::bounded::read_exact_into;
use crate::error::{CodecError, Result};

/// The zlib-rs level used for a zlib level. zlib-rs's level 1 is a
/// static-Huffman "quick" strategy that expands float data (ratio < 1 where
/// zlib's level 1 gets ~1.3), so level 1 is encoded with level 2, which is
/// close to zlib's level 1 in both speed and ratio. The output is ordinary
/// deflate either way.
pub(crate) fn compression(level: u32) -> Compression {
    Compression::new(if level == 1 { 2 } else { level.min(9) })
}

/// Compresses to the zlib format (RFC 1950), like Python's `zlib.compress`.
pub(crate) fn zlib_encode(input: &[u8], level: u32) -> Result<Vec<u8>> {
    let mut enc = flate2::write::ZlibEncoder::new(
        Vec::with_capacity(input.len() / 2 + 64),
        compression(level),
    );
    enc.write_all(input)
        .and_then(|_| enc.finish())
        .map_err(|e| CodecError::library("zlib", "encode", e))
}

/// Compresses one zlib stream into `out`; `None` if it does not fit.
pub(crate) fn zlib_encode_bounded(c: &mut Compress, input: &[u8], out: &mut [u8]) -> Option<usize> {
    c.reset();
    match c.compress(input, out, FlushCompress::Finish) {
        Ok(Status::StreamEnd) => Some(c.total_out() as usize),
        _ => None,
    }
}

/// Decompresses a zlib stream into exactly `out`. Trailing bytes after the
/// end of the stream are ignored, as Python's `zlib.decompress` does.
pub(crate) fn zlib_decode_into(codec: &'static str, input: &[u8], out: &mut [u8]) -> Result<()> {
    let mut d = Decompress::new(true);
    let mut probe = [0u8; 1];
    loop {
        let in_pos = d.total_in() as usize;
        let out_pos = d.total_out() as usize;
        let probing = out_pos >= out.len();
        let dst: &mut [u8] = if probing {
            &mut probe
        } else {
            &mut out[out_pos..]
        };
        let status = d
            .decompress(&input[in_pos..], dst, FlushDecompress::Finish)
            .map_err(|e| CodecError::corrupt(codec, d.total_in() as usize, format!("zlib: {e}")))?;
        let produced = d.total_out() as usize - out_pos;
        if probing && produced > 0 {
            return Err(CodecError::size(codec, out.len(), out.len() + produced));
        }
        match status {
            Status::StreamEnd => {
                let got = d.total_out() as usize;
                return if got == out.len() {
                    Ok(())
                } else {
                    Err(CodecError::size(codec, out.len(), got))
                };
            }
            Status::Ok | Status::BufError => {
                if d.total_in() as usize == in_pos && produced == 0 {
                    let got = d.total_out() as usize;
                    return Err(if got < out.len() {
                        CodecError::size(codec, out.len(), got)
                    } else {
                        CodecError::Truncated {
                            codec,
                            offset: in_pos,
                            needed: 1,
                            available: 0,
                        }
                    });
                }
            }
        }
    }
}

/// Compresses to a gzip member, like numcodecs' `GZip` (Python's `gzip`).
pub(crate) fn gzip_encode(input: &[u8], level: u32) -> Result<Vec<u8>> {
    let mut enc = flate2::GzBuilder::new()
        .operating_system(255)
        .write(Vec::with_capacity(input.len() / 2 + 64), compression(level));
    enc.write_all(input)
        .and_then(|_| enc.finish())
        .map_err(|e| CodecError::library("gzip", "encode", e))
}

/// Decompresses one or more gzip members into exactly `out`.
pub(crate) fn gzip_decode_into(input: &[u8], out: &mut [u8]) -> Result<()> {
    read_exact_into("gzip", flate2::read::MultiGzDecoder::new(input), out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zlib_exact_sizes() {
        let data: Vec<u8> = (0..10_000u32).map(|i| (i % 251) as u8).collect();
        let enc = zlib_encode(&data, 6).unwrap();
        let mut out = vec![0; data.len()];
        zlib_decode_into("zlib", &enc, &mut out).unwrap();
        assert_eq!(out, data);
        let mut short = vec![0; data.len() - 1];
        assert!(matches!(
            zlib_decode_into("zlib", &enc, &mut short),
            Err(CodecError::SizeMismatch { .. })
        ));
        let mut long = vec![0; data.len() + 1];
        assert!(matches!(
            zlib_decode_into("zlib", &enc, &mut long),
            Err(CodecError::SizeMismatch { .. })
        ));
        for cut in [0, 1, 2, enc.len() / 2, enc.len() - 1] {
            assert!(zlib_decode_into("zlib", &enc[..cut], &mut out).is_err());
        }
    }

    #[test]
    fn gzip_exact_sizes() {
        let data = b"gzip gzip gzip gzip gzip".repeat(100);
        let enc = gzip_encode(&data, 5).unwrap();
        let mut out = vec![0; data.len()];
        gzip_decode_into(&enc, &mut out).unwrap();
        assert_eq!(out, data);
        let mut long = vec![0; data.len() + 1];
        assert!(gzip_decode_into(&enc, &mut long).is_err());
        let mut short = vec![0; data.len() - 1];
        assert!(gzip_decode_into(&enc, &mut short).is_err());
    }
}
