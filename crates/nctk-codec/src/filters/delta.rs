//! numcodecs `delta`: first value, then differences of adjacent values.

use serde_json::Value;

use super::{check_out, count};
use crate::dtype::{Dtype, Kind};
use crate::error::{CodecError, Result};
use crate::json::{object, Config};

/// The `delta` codec.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Delta {
    /// Decoded dtype.
    pub dtype: Dtype,
    /// Encoded dtype (defaults to `dtype`).
    pub astype: Dtype,
}

impl Delta {
    pub(crate) fn from_config(c: &Config<'_>) -> Result<Self> {
        let dtype = Dtype::parse("delta", c.required_string("dtype")?)?;
        let astype = match c.string("astype")? {
            Some(s) => Dtype::parse("delta", s)?,
            None => dtype,
        };
        let ints = dtype.kind != Kind::Float && astype.kind != Kind::Float;
        let floats = dtype.kind == Kind::Float
            && astype.kind == Kind::Float
            && dtype.size > 2
            && astype.size > 2;
        if !(ints || floats) {
            return Err(CodecError::unsupported(
                "delta",
                format!("dtype {dtype} with astype {astype} (integer/integer or f4/f8 pairs only)"),
            ));
        }
        Ok(Delta { dtype, astype })
    }

    pub(crate) fn to_json(&self) -> Value {
        object([
            ("id", "delta".into()),
            ("dtype", self.dtype.to_string().into()),
            ("astype", self.astype.to_string().into()),
        ])
    }

    pub(crate) fn encoded_len(&self, len: usize) -> Result<usize> {
        Ok(count("delta", &self.dtype, len)? * self.astype.size)
    }

    pub(crate) fn encode(&self, input: &[u8]) -> Result<Vec<u8>> {
        let n = count("delta", &self.dtype, input.len())?;
        let (d, a) = (self.dtype, self.astype);
        if d == a && !d.big_endian {
            if let Some(out) = fast::encode(&d, input) {
                return Ok(out);
            }
        }
        let mut out = vec![0u8; n * a.size];
        if d.kind == Kind::Float {
            let mut prev = 0.0;
            for i in 0..n {
                let x = d.read_float(input, i);
                // numpy's diff in the dtype's precision
                let diff = if i == 0 {
                    x
                } else {
                    round_to(d.size, x - prev)
                };
                a.write_f64(&mut out, i, diff);
                prev = x;
            }
        } else {
            let mut prev = 0i64;
            for i in 0..n {
                let x = d.read_int(input, i);
                let diff = if i == 0 {
                    x
                } else {
                    extend(&d, x.wrapping_sub(prev) as u64)
                };
                a.write_bits(&mut out, i, diff as u64);
                prev = x;
            }
        }
        Ok(out)
    }

    pub(crate) fn decode_into(&self, input: &[u8], out: &mut [u8]) -> Result<()> {
        let (d, a) = (self.dtype, self.astype);
        let n = count("delta", &a, input.len())?;
        check_out("delta", &d, n, out)?;
        if d == a && !d.big_endian && fast::decode(&d, input, out) {
            return Ok(());
        }
        if d.kind == Kind::Float {
            // numpy's cumsum accumulates in the encoded dtype's precision.
            let mut acc = 0.0;
            for i in 0..n {
                acc = round_to(a.size, acc + a.read_float(input, i));
                d.write_f64(out, i, acc);
            }
        } else {
            let mut acc = 0i64;
            for i in 0..n {
                acc = acc.wrapping_add(a.read_int(input, i));
                d.write_bits(out, i, acc as u64);
            }
        }
        Ok(())
    }
}

/// Rounds an f64 to f32 precision when `size` is 4.
fn round_to(size: usize, v: f64) -> f64 {
    if size == 4 {
        f64::from(v as f32)
    } else {
        v
    }
}

/// Truncates to the dtype's width and sign- or zero-extends back to i64.
fn extend(d: &Dtype, bits: u64) -> i64 {
    let shift = 64 - 8 * d.size as u32;
    match d.kind {
        Kind::Int => ((bits << shift) as i64) >> shift,
        _ => ((bits << shift) >> shift) as i64,
    }
}

/// Little-endian, same-dtype fast paths.
mod fast {
    use crate::dtype::{Dtype, Kind};

    /// The first element of `input` as is, then `diff(x[i], x[i-1])` for
    /// each later one: pairs of neighbours, with no value carried from one
    /// step to the next, so the compiler vectorizes the loop; collected
    /// from an iterator of known length, so the output is not zeroed first.
    #[inline(always)]
    fn encode_pairs<const N: usize>(
        input: &[u8],
        diff: impl Fn([u8; N], [u8; N]) -> [u8; N],
    ) -> Vec<u8> {
        fn element<const N: usize>(c: &[u8]) -> [u8; N] {
            c.try_into().unwrap_or([0; N])
        }
        let first = input.chunks_exact(N).take(1).map(element::<N>);
        let later = input.get(N..).unwrap_or_default().chunks_exact(N);
        let diffs = later
            .zip(input.chunks_exact(N))
            .map(|(v, p)| diff(element(v), element(p)));
        first
            .chain(diffs)
            .collect::<Vec<[u8; N]>>()
            .into_flattened()
    }

    macro_rules! int_paths {
        ($enc:ident, $dec:ident, $t:ty, $n:expr) => {
            fn $enc(input: &[u8]) -> Vec<u8> {
                encode_pairs::<$n>(input, |v: [u8; $n], p: [u8; $n]| {
                    <$t>::from_le_bytes(v)
                        .wrapping_sub(<$t>::from_le_bytes(p))
                        .to_le_bytes()
                })
            }
            fn $dec(input: &[u8], out: &mut [u8]) {
                let mut acc: $t = 0;
                for (o, x) in out.chunks_exact_mut($n).zip(input.chunks_exact($n)) {
                    acc = acc.wrapping_add(<$t>::from_le_bytes(x.try_into().unwrap_or_default()));
                    o.copy_from_slice(&acc.to_le_bytes());
                }
            }
        };
    }
    int_paths!(enc1, dec1, u8, 1);
    int_paths!(enc2, dec2, u16, 2);
    int_paths!(enc4, dec4, u32, 4);
    int_paths!(enc8, dec8, u64, 8);

    macro_rules! float_paths {
        ($enc:ident, $dec:ident, $t:ty, $n:expr) => {
            fn $enc(input: &[u8]) -> Vec<u8> {
                encode_pairs::<$n>(input, |v: [u8; $n], p: [u8; $n]| {
                    (<$t>::from_le_bytes(v) - <$t>::from_le_bytes(p)).to_le_bytes()
                })
            }
            fn $dec(input: &[u8], out: &mut [u8]) {
                let mut acc: $t = 0.0;
                for (o, x) in out.chunks_exact_mut($n).zip(input.chunks_exact($n)) {
                    acc += <$t>::from_le_bytes(x.try_into().unwrap_or_default());
                    o.copy_from_slice(&acc.to_le_bytes());
                }
            }
        };
    }
    float_paths!(encf4, decf4, f32, 4);
    float_paths!(encf8, decf8, f64, 8);

    /// The encoded bytes; `None` when no fast path applies.
    pub(super) fn encode(d: &Dtype, input: &[u8]) -> Option<Vec<u8>> {
        Some(match (d.kind, d.size) {
            (Kind::Float, 4) => encf4(input),
            (Kind::Float, 8) => encf8(input),
            (Kind::Float, _) => return None,
            (_, 1) => enc1(input),
            (_, 2) => enc2(input),
            (_, 4) => enc4(input),
            (_, 8) => enc8(input),
            _ => return None,
        })
    }

    /// Returns false when no fast path applies.
    pub(super) fn decode(d: &Dtype, input: &[u8], out: &mut [u8]) -> bool {
        match (d.kind, d.size) {
            (Kind::Float, 4) => decf4(input, out),
            (Kind::Float, 8) => decf8(input, out),
            (Kind::Float, _) => return false,
            (_, 1) => dec1(input, out),
            (_, 2) => dec2(input, out),
            (_, 4) => dec4(input, out),
            (_, 8) => dec8(input, out),
            _ => return false,
        }
        true
    }
}
