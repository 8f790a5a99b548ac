//! numcodecs `quantize`: round to a power-of-two grid fine enough for
//! `digits` decimal digits. Decoding only converts `astype` back to `dtype`.

use serde_json::Value;

use super::{check_out, count};
use crate::dtype::{Dtype, Kind};
use crate::error::{CodecError, Result};
use crate::json::{object, Config};

/// The `quantize` codec (float dtypes only).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Quantize {
    /// Decimal digits kept.
    pub digits: i32,
    /// Decoded dtype.
    pub dtype: Dtype,
    /// Encoded dtype (defaults to `dtype`).
    pub astype: Dtype,
}

impl Quantize {
    pub(crate) fn from_config(c: &Config<'_>) -> Result<Self> {
        let digits = c
            .int("digits")?
            .ok_or_else(|| CodecError::invalid_config("quantize", "missing field \"digits\""))?;
        let dtype = Dtype::parse("quantize", c.required_string("dtype")?)?;
        let astype = match c.string("astype")? {
            Some(s) => Dtype::parse("quantize", s)?,
            None => dtype,
        };
        if dtype.kind != Kind::Float || astype.kind != Kind::Float {
            return Err(CodecError::invalid_config(
                "quantize",
                "only floating point dtypes are supported",
            ));
        }
        Ok(Quantize {
            digits: i32::try_from(digits)
                .map_err(|_| CodecError::invalid_config("quantize", "digits out of range"))?,
            dtype,
            astype,
        })
    }

    pub(crate) fn to_json(&self) -> Value {
        object([
            ("id", "quantize".into()),
            ("digits", self.digits.into()),
            ("dtype", self.dtype.to_string().into()),
            ("astype", self.astype.to_string().into()),
        ])
    }

    pub(crate) fn encoded_len(&self, len: usize) -> Result<usize> {
        Ok(count("quantize", &self.dtype, len)? * self.astype.size)
    }

    pub(crate) fn encode(&self, input: &[u8]) -> Result<Vec<u8>> {
        let (d, a) = (self.dtype, self.astype);
        let n = count("quantize", &d, input.len())?;
        let precision = 10f64.powi(-self.digits);
        let mut exp = precision.log10();
        exp = if exp < 0.0 { exp.floor() } else { exp.ceil() };
        let bits = (10f64.powf(-exp)).log2().ceil();
        let scale = 2f64.powf(bits);
        let mut out = vec![0u8; n * a.size];
        for i in 0..n {
            let x = d.read_float(input, i);
            let v = if d.size == 4 {
                let s = scale as f32;
                f64::from((s * x as f32).round_ties_even() / s)
            } else {
                (scale * x).round_ties_even() / scale
            };
            a.write_f64(&mut out, i, v);
        }
        Ok(out)
    }

    pub(crate) fn decode_into(&self, input: &[u8], out: &mut [u8]) -> Result<()> {
        let (d, a) = (self.dtype, self.astype);
        let n = count("quantize", &a, input.len())?;
        check_out("quantize", &d, n, out)?;
        for i in 0..n {
            d.write_f64(out, i, a.read_float(input, i));
        }
        Ok(())
    }
}
