//! A CCSDS 121.0-B-3 adaptive entropy (AEC, "Rice") decoder for HDF5's szip
//! filter, following libaec's decoder: unsigned samples of 1-32 bits, no
//! padding between reference sample intervals, optional unit-delay
//! preprocessing (reversed per interval from its reference sample).
//!
//! Memory: one interval of decoded samples (at most 4096 blocks of 64) as
//! scratch; samples are written straight into the caller's buffer.

use crate::error::{CodecError, Result};

const NAME: &str = "szip";
/// A zero-block count of 5 means "to the end of the segment or interval".
const ROS: usize = 5;
/// Blocks per segment, the unit of zero-block runs.
const SEGMENT: usize = 64;
/// Largest second-extension symbol (`m` of the pair table below).
const SE_MAX: u32 = 90;

/// How a stream was coded.
#[derive(Clone, Copy, Debug)]
pub(crate) struct AecParams {
    /// Bits per sample, 1-32.
    pub bits: u32,
    /// Samples per block (even).
    pub block: usize,
    /// Blocks per reference sample interval.
    pub rsi: usize,
    /// Unit-delay preprocessing (szip's NN option).
    pub preprocess: bool,
    /// Samples stored most significant byte first.
    pub msb: bool,
    /// Bytes per sample in the output: 1, 2 or 4.
    pub width: usize,
}

/// Reads bits most significant first.
struct Bits<'a> {
    data: &'a [u8],
    /// Next bit to read, counted from the start of `data`.
    pos: usize,
}

impl Bits<'_> {
    fn offset(&self) -> usize {
        self.pos / 8
    }

    fn end(&self, bits: usize) -> CodecError {
        CodecError::Truncated {
            codec: NAME,
            offset: self.offset(),
            needed: bits.div_ceil(8),
            available: self.data.len() - self.offset(),
        }
    }

    /// The next `n` (0-32) bits as a number.
    fn read(&mut self, n: u32) -> Result<u32> {
        let n = n as usize;
        if self.pos + n > self.data.len() * 8 {
            return Err(self.end(n));
        }
        let mut v = 0u64;
        let mut got = 0;
        while got < n {
            let byte = self.data[self.pos / 8];
            let skip = self.pos % 8;
            let take = (8 - skip).min(n - got);
            let bits = (byte << skip) >> (8 - take);
            v = (v << take) | u64::from(bits);
            got += take;
            self.pos += take;
        }
        Ok(v as u32)
    }

    /// A fundamental sequence: the number of 0 bits before the next 1.
    fn read_fs(&mut self) -> Result<u32> {
        let start = self.pos;
        loop {
            let Some(&byte) = self.data.get(self.pos / 8) else {
                return Err(self.end(1));
            };
            let rest = byte << (self.pos % 8);
            if rest == 0 {
                self.pos += 8 - self.pos % 8;
                continue;
            }
            self.pos += rest.leading_zeros() as usize + 1;
            return u32::try_from(self.pos - start - 1).map_err(|_| {
                CodecError::corrupt(NAME, self.offset(), "fundamental sequence too long")
            });
        }
    }
}

/// The second-extension pair of symbol `m`: `(sum, first symbol of sum)`.
fn se_pair(m: u32) -> (u32, u32) {
    // m = sum * (sum + 1) / 2 + second value
    let mut sum = 0;
    while (sum + 1) * (sum + 2) / 2 <= m {
        sum += 1;
    }
    (sum, sum * (sum + 1) / 2)
}

/// Decodes the stream starting at byte `start` of `input` into exactly
/// `out` (`out.len()` a multiple of the sample width); error offsets count
/// from the start of `input`. Bytes after the last needed block are
/// ignored, as libaec ignores them.
pub(crate) fn decode(input: &[u8], start: usize, p: &AecParams, out: &mut [u8]) -> Result<()> {
    let id_len = match p.bits {
        17.. => 5,
        9..=16 => 4,
        _ => 3,
    };
    let uncompressed = (1u32 << id_len) - 1;
    let per_rsi = p.rsi * p.block;
    let mut bits = Bits {
        data: input,
        pos: start * 8,
    };
    let mut outs = out.chunks_exact_mut(p.width);
    let mut left = outs.len();
    let mut samples: Vec<u32> = Vec::with_capacity(per_rsi.min(left + p.block));
    while left > 0 {
        samples.clear();
        let want = per_rsi.min(left);
        while samples.len() < want {
            block(&mut bits, p, id_len, uncompressed, &mut samples)?;
        }
        if p.preprocess {
            unmap(&mut samples, p.bits);
        }
        let take = want.min(samples.len());
        for (&s, o) in samples[..take].iter().zip(&mut outs) {
            put(s, p, o);
        }
        left -= take;
    }
    Ok(())
}

/// Decodes one coded data set (a block, or a run of zero blocks) onto
/// `samples`, the interval decoded so far.
fn block(
    bits: &mut Bits<'_>,
    p: &AecParams,
    id_len: u32,
    uncompressed: u32,
    samples: &mut Vec<u32>,
) -> Result<()> {
    // the first block of an interval carries the reference sample
    let reference = usize::from(p.preprocess && samples.is_empty());
    let id = bits.read(id_len)?;
    if id == uncompressed {
        for _ in 0..p.block {
            samples.push(bits.read(p.bits)?);
        }
        return Ok(());
    }
    if id == 0 {
        let second_extension = bits.read(1)? == 1;
        if reference == 1 {
            samples.push(bits.read(p.bits)?);
        }
        if second_extension {
            let mut i = reference;
            while i < p.block {
                let at = bits.offset();
                let m = bits.read_fs()?;
                if m > SE_MAX {
                    return Err(CodecError::corrupt(
                        NAME,
                        at,
                        format!("second-extension symbol {m} (at most {SE_MAX})"),
                    ));
                }
                let (sum, first) = se_pair(m);
                let second = m - first;
                if i % 2 == 0 {
                    samples.push(sum - second);
                    i += 1;
                }
                samples.push(second);
                i += 1;
            }
            return Ok(());
        }
        let at = bits.offset();
        let fs = bits.read_fs()? as usize;
        let used = samples.len() / p.block;
        let room = p.rsi - used;
        let run = match fs + 1 {
            ROS => room.min(SEGMENT - used % SEGMENT),
            n if n > ROS => n - 1,
            n => n,
        };
        if run > room {
            return Err(CodecError::corrupt(
                NAME,
                at,
                format!("a run of {run} zero blocks where the interval has {room} left"),
            ));
        }
        samples.resize(samples.len() + run * p.block - reference, 0);
        return Ok(());
    }
    let k = id - 1;
    if reference == 1 {
        samples.push(bits.read(p.bits)?);
    }
    let start = samples.len();
    for _ in reference..p.block {
        let fs = bits.read_fs()?;
        // k is at most 29: a shift, never an overflow
        samples.push(fs << k);
    }
    if k > 0 {
        for s in &mut samples[start..] {
            *s |= bits.read(k)?;
        }
    }
    Ok(())
}

/// Undoes the unit-delay preprocessor over one interval (libaec's unsigned
/// inverse mapping): the first sample is the reference, each later one a
/// mapped difference from the previous value.
fn unmap(samples: &mut [u32], bits: u32) {
    let xmax = u32::MAX >> (32 - bits);
    let med = xmax / 2 + 1;
    let Some((&mut first, rest)) = samples.split_first_mut() else {
        return;
    };
    let mut data = first;
    for d in rest {
        let half = (*d >> 1) + (*d & 1);
        let mask = if data & med != 0 { xmax } else { 0 };
        data = if half <= (mask ^ data) {
            if *d & 1 == 0 {
                data.wrapping_add(*d >> 1)
            } else {
                data.wrapping_sub(half)
            }
        } else {
            mask ^ *d
        };
        *d = data;
    }
}

fn put(s: u32, p: &AecParams, o: &mut [u8]) {
    let bytes = if p.msb {
        s.to_be_bytes()
    } else {
        s.to_le_bytes()
    };
    if p.msb {
        o.copy_from_slice(&bytes[4 - p.width..]);
    } else {
        o.copy_from_slice(&bytes[..p.width]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The preprocessor's forward mapping as CCSDS 121.0-B-3 section 4
    /// defines it for unsigned samples.
    fn map(prev: i64, x: i64, xmax: i64) -> u32 {
        let delta = x - prev;
        let theta = prev.min(xmax - prev);
        let m = if (0..=theta).contains(&delta) {
            2 * delta
        } else if (-theta..0).contains(&delta) {
            2 * delta.abs() - 1
        } else {
            theta + delta.abs()
        };
        m as u32
    }

    #[test]
    fn unmap_inverts_the_standard_mapping() {
        for bits in [1u32, 3, 8] {
            let xmax = (1i64 << bits) - 1;
            for prev in 0..=xmax {
                for x in 0..=xmax {
                    let mut s = [prev as u32, map(prev, x, xmax)];
                    unmap(&mut s, bits);
                    assert_eq!(s, [prev as u32, x as u32], "{bits} bits");
                }
            }
        }
        // 32 bits, at the ends of the range
        let xmax = i64::from(u32::MAX);
        for (prev, x) in [
            (0, xmax),
            (xmax, 0),
            (xmax / 2, xmax),
            (1, 0),
            (xmax - 1, xmax),
        ] {
            let mut s = [prev as u32, map(prev, x, xmax)];
            unmap(&mut s, 32);
            assert_eq!(s, [prev as u32, x as u32]);
        }
    }

    #[test]
    fn second_extension_pairs() {
        // m = (a + b)(a + b + 1) / 2 + b for every pair the table holds
        for sum in 0..13u32 {
            for b in 0..=sum {
                let m = sum * (sum + 1) / 2 + b;
                let (s, first) = se_pair(m);
                assert_eq!((s, m - first), (sum, b));
            }
        }
    }
}
