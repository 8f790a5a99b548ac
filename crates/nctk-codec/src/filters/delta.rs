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
