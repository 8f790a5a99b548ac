//! numcodecs `lz4`: a 4-byte little-endian uncompressed size, then one raw
//! LZ4 block. Encoding uses lz4_flex (pure Rust); decoding uses the block
//! decoder below, shared with Blosc's lz4 streams.
//!
//! # The block decoder
//!
//! An LZ4 block is a list of sequences: a token (literal length in the high
//! nibble, match length - 4 in the low one, 15 meaning "more length bytes
//! follow"), the literals, a 2-byte little-endian match offset and the
//! match, except that the last sequence stops after its literals.
//!
//! Byte-shuffled float data (Blosc's main use) gives streams of long runs:
//! matches whose offset (1 to 8 bytes) is much shorter than their length.
//! lz4_flex copies such overlapping matches byte by byte; this decoder
//! writes them in 32-byte stores of the repeated pattern instead (a memset
//! for offset 1), copies non-overlapping matches in 16-byte steps or one
//! `memmove`, and copies short literal runs as one 16-byte move.
//!
//! It is written in safe Rust: every write goes through a bounds-checked
//! slice of the caller's buffer, so it can neither write past `out` nor
//! allocate. The 16-byte "wild" moves (which may write a few bytes past the
//! current sequence, bytes that later sequences then overwrite) are only
//! taken when the whole move lies inside `out` and inside the input; a
//! malformed block is an error, never a panic (the checks below keep every
//! slice index in range; the slice checks are a second line of defence).

use crate::buffer::with_kept;
use crate::error::{CodecError, Result};

/// Compresses with numcodecs' framing. `acceleration` is accepted for
/// compatibility; lz4_flex has a single speed setting.
pub(crate) fn encode(input: &[u8]) -> Result<Vec<u8>> {
    let size = u32::try_from(input.len()).map_err(|_| CodecError::InvalidLength {
        codec: "lz4",
        len: input.len(),
        reason: "numcodecs lz4 frames hold at most 4 GiB - 1".into(),
    })?;
    // Compressed into a per-thread scratch of the largest output and
    // copied out at its real length: a fresh zeroed buffer of the largest
    // output per call cost a memset and a page fault per page (about 6%
    // of an lz4 write's CPU).
    with_kept(&ENCODE_SCRATCH, |scratch| {
        scratch.resize(lz4_flex::block::get_maximum_output_size(input.len()), 0);
        let n = lz4_flex::block::compress_into(input, scratch)
            .map_err(|e| CodecError::library("lz4", "encode", e))?;
        let mut out = Vec::with_capacity(4 + n);
        out.extend_from_slice(&size.to_le_bytes());
        out.extend_from_slice(&scratch[..n]);
        Ok(out)
    })
}

thread_local! {
    /// Per thread: the output buffer of [`encode`], kept between calls.
    static ENCODE_SCRATCH: std::cell::Cell<Vec<u8>> = const { std::cell::Cell::new(Vec::new()) };
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

/// The HDF Group LZ4 filter's block size when its parameter is 0 (1 GiB).
const HDF5_DEFAULT_BLOCK: usize = 1 << 30;

/// Compresses with the HDF5 LZ4 filter's framing: the original size (u64
/// BE), the block size (u32 BE), then per block its compressed size (u32
/// BE) and bytes, a block kept as is when LZ4 does not shrink it.
pub(crate) fn hdf5_encode(input: &[u8], block_size: u32) -> Result<Vec<u8>> {
    let block = hdf5_block(block_size);
    let mut out = Vec::with_capacity(12 + input.len() / 2);
    out.extend_from_slice(&(input.len() as u64).to_be_bytes());
    out.extend_from_slice(&(block as u32).to_be_bytes());
    for piece in input.chunks(block) {
        let packed = lz4_flex::block::compress(piece);
        let body = if packed.len() < piece.len() {
            &packed[..]
        } else {
            piece
        };
        out.extend_from_slice(&(body.len() as u32).to_be_bytes());
        out.extend_from_slice(body);
    }
    Ok(out)
}

fn hdf5_block(block_size: u32) -> usize {
    match block_size as usize {
        0 => HDF5_DEFAULT_BLOCK,
        n => n.min(HDF5_DEFAULT_BLOCK),
    }
}

/// Decompresses the HDF5 LZ4 filter's framing into exactly `out`; the
/// declared original size must be `out.len()`.
pub(crate) fn hdf5_decode_into(input: &[u8], out: &mut [u8]) -> Result<()> {
    const CODEC: &str = "hdf5lz4";
    let field = |at: usize, n: usize| -> Result<&[u8]> {
        input.get(at..at + n).ok_or(CodecError::Truncated {
            codec: CODEC,
            offset: at,
            needed: n,
            available: input.len().saturating_sub(at),
        })
    };
    let declared = u64::from_be_bytes(field(0, 8)?.try_into().unwrap_or([0; 8]));
    if declared != out.len() as u64 {
        return Err(CodecError::size(CODEC, out.len(), declared as usize));
    }
    let block = u32::from_be_bytes(field(8, 4)?.try_into().unwrap_or([0; 4])) as usize;
    if block == 0 && !out.is_empty() {
        return Err(CodecError::corrupt(CODEC, 8, "block size 0"));
    }
    let mut at = 12;
    for piece in out.chunks_mut(block.max(1)) {
        let n = u32::from_be_bytes(field(at, 4)?.try_into().unwrap_or([0; 4])) as usize;
        let body = field(at + 4, n)?;
        if n == piece.len() {
            piece.copy_from_slice(body);
        } else {
            block_decode_into(CODEC, body, piece, at + 4)?;
        }
        at += 4 + n;
    }
    Ok(())
}

/// Decompresses one raw LZ4 block into exactly `out`; `base` is the block's
/// offset in the caller's buffer (for error messages).
pub(crate) fn block_decode_into(
    codec: &'static str,
    input: &[u8],
    out: &mut [u8],
    base: usize,
) -> Result<()> {
    decompress_block(input, out).map_err(|e| match e {
        BlockError::Short(got) => CodecError::size(codec, out.len(), got),
        BlockError::Corrupt(at, why) => {
            CodecError::corrupt(codec, base + at, format!("lz4 block: {why}"))
        }
    })
}

/// Why a block did not decode.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum BlockError {
    /// The block ended cleanly after this many bytes, short of `out.len()`.
    Short(usize),
    /// Malformed at this input offset.
    Corrupt(usize, &'static str),
}

/// Bytes moved by one unconditional ("wild") literal or match step.
const WILD: usize = 16;

/// Reads the extra length bytes after a nibble of 15: each byte adds its
/// value; a byte of 255 means another follows. Lengths beyond `limit`
/// (what is left of the output) are refused as soon as they pass it.
#[inline]
fn extra_len(input: &[u8], ip: &mut usize, limit: usize) -> std::result::Result<usize, BlockError> {
    let mut n = 0usize;
    loop {
        let Some(&b) = input.get(*ip) else {
            return Err(BlockError::Corrupt(*ip, "length runs past the end"));
        };
        *ip += 1;
        n += usize::from(b);
        if n > limit {
            return Err(BlockError::Corrupt(
                *ip - 1,
                "length past the end of the output",
            ));
        }
        if b != 255 {
            return Ok(n);
        }
    }
}

/// Decodes one LZ4 block into exactly `out`.
pub(crate) fn decompress_block(
    input: &[u8],
    out: &mut [u8],
) -> std::result::Result<(), BlockError> {
    let (ilen, olen) = (input.len(), out.len());
    let (mut ip, mut op) = (0usize, 0usize);
    loop {
        let Some(&token) = input.get(ip) else {
            return Err(BlockError::Corrupt(
                ip,
                "block ends before a sequence token",
            ));
        };
        ip += 1;
        // Literals.
        let mut lit = usize::from(token >> 4);
        if lit < 15 && ilen - ip >= WILD && olen - op >= WILD {
            out[op..op + WILD].copy_from_slice(&input[ip..ip + WILD]);
        } else {
            if lit == 15 {
                lit += extra_len(input, &mut ip, olen - op)?;
            }
            if lit > ilen - ip {
                return Err(BlockError::Corrupt(
                    ip,
                    "literals run past the end of the block",
                ));
            }
            if lit > olen - op {
                return Err(BlockError::Corrupt(
                    ip,
                    "literals run past the end of the output",
                ));
            }
            if lit <= 256 && ilen - ip - lit >= 32 && olen - op - lit >= 32 {
                // Medium runs: whole 32-byte moves, the last one wild.
                let mut k = 0;
                while k < lit {
                    out[op + k..op + k + 32].copy_from_slice(&input[ip + k..ip + k + 32]);
                    k += 32;
                }
            } else {
                out[op..op + lit].copy_from_slice(&input[ip..ip + lit]);
            }
        }
        ip += lit;
        op += lit;
        if ip == ilen {
            // The last sequence has literals only.
            return if op == olen {
                Ok(())
            } else {
                Err(BlockError::Short(op))
            };
        }
        // Match.
        if ilen - ip < 2 {
            return Err(BlockError::Corrupt(ip, "match offset cut off"));
        }
        let off = usize::from(u16::from_le_bytes([input[ip], input[ip + 1]]));
        if off == 0 || off > op {
            return Err(BlockError::Corrupt(
                ip,
                "match offset is 0 or points before the start of the output",
            ));
        }
        ip += 2;
        let mut ml = usize::from(token & 15);
        if ml == 15 {
            ml += extra_len(input, &mut ip, olen - op)?;
        }
        ml += 4;
        if ml > olen - op {
            return Err(BlockError::Corrupt(
                ip,
                "match runs past the end of the output",
            ));
        }
        copy_match(out, op, off, ml);
        op += ml;
    }
}

/// Writes `out[op..op + ml]` as a copy of the `ml` bytes starting `off`
/// bytes earlier, where the two ranges may overlap (`off < ml`: the last
/// `off` bytes repeat). Requires `1 <= off <= op` and `op + ml <= out.len()`.
/// Shared with the blosclz decoder (same LZ77 match semantics).
#[inline]
pub(crate) fn copy_match(out: &mut [u8], op: usize, off: usize, ml: usize) {
    let end = op + ml;
    let src = op - off;
    if off >= 32 {
        if ml >= 512 && off >= ml {
            // Long and non-overlapping: one memmove.
            out.copy_within(src..src + ml, op);
        } else {
            forward::<32>(out, src, op, end);
        }
    } else if off >= WILD {
        forward::<WILD>(out, src, op, end);
    } else if off == 1 {
        let b = out[src];
        out[op..end].fill(b);
    } else {
        repeat(out, op, off, end);
    }
}

/// Copies `out[s..]` to `out[d..end]` front to back in `K`-byte moves.
/// Requires `d - s >= K`, so that each move reads only bytes already final.
/// The last move runs up to `K - 1` bytes past `end` (bytes that later
/// sequences overwrite) when `out` has room, else it is cut to size.
#[inline(always)]
fn forward<const K: usize>(out: &mut [u8], mut s: usize, mut d: usize, end: usize) {
    if out.len() - end >= K {
        while d < end {
            out.copy_within(s..s + K, d);
            s += K;
            d += K;
        }
    } else {
        while end - d >= K {
            out.copy_within(s..s + K, d);
            s += K;
            d += K;
        }
        out.copy_within(s..s + (end - d), d);
    }
}

/// The overlapping copy for a period `off` of 2 to 15: builds 32 bytes of
/// the repeating pattern (the `off` bytes before `op`, repeated) and stores
/// it in steps of the largest multiple of `off` not above 32, so every store
/// starts in phase. Like [`forward`], the last store may run past `end`
/// when `out` has room.
#[inline]
fn repeat(out: &mut [u8], op: usize, off: usize, end: usize) {
    const P: usize = 32;
    let mut pat = [0u8; P];
    pat[..off].copy_from_slice(&out[op - off..op]);
    let mut have = off;
    while have < P {
        let n = have.min(P - have);
        pat.copy_within(0..n, have);
        have += n;
    }
    let step = P - P % off;
    let mut d = op;
    if out.len() - end >= P {
        while d < end {
            out[d..d + P].copy_from_slice(&pat);
            d += step;
        }
    } else {
        while end - d >= P {
            out[d..d + P].copy_from_slice(&pat);
            d += step;
        }
        out[d..end].copy_from_slice(&pat[..end - d]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// lz4_flex's decoder (independent of this one) as the truth.
    fn check(data: &[u8]) {
        let enc = lz4_flex::block::compress(data);
        let truth = lz4_flex::block::decompress(&enc, data.len()).unwrap();
        assert_eq!(truth, data);
        let mut out = vec![0xAA; data.len()];
        decompress_block(&enc, &mut out).unwrap();
        assert_eq!(out, data);
        // Exactly the size: one byte less or more is an error.
        if !data.is_empty() {
            let mut short = vec![0; data.len() - 1];
            assert!(decompress_block(&enc, &mut short).is_err());
        }
        let mut long = vec![0; data.len() + 1];
        assert_eq!(
            decompress_block(&enc, &mut long),
            Err(BlockError::Short(data.len()))
        );
    }

    #[test]
    fn runs_of_every_short_period() {
        for period in 1..=40usize {
            for run in [4usize, 5, 15, 16, 17, 19, 31, 32, 33, 64, 65, 100, 1000] {
                let mut data: Vec<u8> = (0..50u8).map(|i| i.wrapping_mul(37) ^ 0x5a).collect();
                let pat: Vec<u8> = (0..period).map(|i| (i * 13 + 7) as u8).collect();
                data.extend((0..run).map(|i| pat[i % period]));
                data.extend((0..23u8).map(|i| i.wrapping_mul(91)));
                check(&data);
                // Also with the run at the very end of the output.
                data.truncate(50 + run);
                check(&data);
            }
        }
    }

    #[test]
    fn mixed_data() {
        check(&[]);
        check(b"a");
        check(b"abcdefgh");
        let mut s: u32 = 1;
        let mut noisy = Vec::new();
        for i in 0..200_000u32 {
            s = s.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            // Runs, repeats at many distances and noise.
            let b = match (i / 997) % 4 {
                0 => (s >> 24) as u8,
                1 => (i / 50) as u8,
                2 => noisy
                    .get(noisy.len().saturating_sub(1 + (i as usize % 300)))
                    .copied()
                    .unwrap_or(0),
                _ => ((s >> 28) as u8) & 3,
            };
            noisy.push(b);
        }
        check(&noisy);
        // Shuffled float rows, as Blosc sees them.
        let f: Vec<u8> = (0..100_000)
            .flat_map(|i| (250.0f32 + (i as f32 * 0.001).sin()).to_le_bytes())
            .collect();
        let mut sh = vec![0; f.len()];
        crate::shuffle::shuffle(4, &f, &mut sh);
        check(&sh);
    }

    #[test]
    fn hdf5_framing_round_trips_in_blocks_and_rejects_bad_sizes() {
        let data: Vec<u8> = (0..5000u32).map(|i| (i % 7) as u8).collect();
        let mut noise = data.clone();
        noise.extend((0..300u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8));
        for (input, block) in [(&data, 0), (&data, 1000), (&noise, 512)] {
            let enc = hdf5_encode(input, block).unwrap();
            let mut out = vec![0u8; input.len()];
            hdf5_decode_into(&enc, &mut out).unwrap();
            assert_eq!(&out, input);
            let mut short = vec![0u8; input.len() - 1];
            assert!(hdf5_decode_into(&enc, &mut short).is_err());
            for cut in [3, 11, enc.len() - 1] {
                assert!(hdf5_decode_into(&enc[..cut], &mut out).is_err());
            }
        }
    }

    #[test]
    fn malformed_blocks_are_errors() {
        let data: Vec<u8> = (0..5000u32).map(|i| (i % 7 + i / 100) as u8).collect();
        let enc = lz4_flex::block::compress(&data);
        let mut out = vec![0; data.len()];
        for cut in 0..enc.len() {
            assert!(
                decompress_block(&enc[..cut], &mut out).is_err(),
                "cut {cut}"
            );
        }
        // Offset 0, and an offset before the start of the output.
        assert!(matches!(
            decompress_block(&[0x10, b'a', 0, 0], &mut [0; 8]),
            Err(BlockError::Corrupt(2, _))
        ));
        assert!(matches!(
            decompress_block(&[0x10, b'a', 2, 0], &mut [0; 8]),
            Err(BlockError::Corrupt(2, _))
        ));
        // A match longer than the output.
        assert!(matches!(
            decompress_block(&[0x1f, b'a', 1, 0, 255, 255, 10], &mut [0; 100]),
            Err(BlockError::Corrupt(..))
        ));
        // Literal length bytes that never end.
        assert!(decompress_block(&[0xf0, 255, 255, 255], &mut [0; 2000]).is_err());
        // Every single-byte corruption: an error or some output, never a panic.
        for i in 0..enc.len() {
            for v in [0u8, 1, 15, 16, 0xf0, 0xff] {
                let mut bad = enc.clone();
                bad[i] = v;
                let _ = decompress_block(&bad, &mut out);
            }
        }
    }
}
