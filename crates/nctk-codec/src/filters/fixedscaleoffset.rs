//! numcodecs `fixedscaleoffset`: `round((x - offset) * scale)` stored as `astype`.

use serde_json::Value;

use super::{check_out, count};
use crate::dtype::{Dtype, Kind};
use crate::error::{CodecError, Result};
use crate::json::{number, object, Config};

/// The `fixedscaleoffset` codec.
///
/// Arithmetic follows numpy 2 (NEP 50): encoding computes in the decoded
/// dtype's precision when it is a float (f8 otherwise); decoding computes in
/// f8 unless the encoded dtype is a float. Rounding is half to even
/// (`np.around`).
#[derive(Clone, Debug, PartialEq)]
pub struct FixedScaleOffset {
    /// Value subtracted before scaling.
    pub offset: f64,
    /// Multiplier.
    pub scale: f64,
    /// Decoded dtype.
    pub dtype: Dtype,
    /// Encoded dtype (defaults to `dtype`).
    pub astype: Dtype,
    offset_int: bool,
    scale_int: bool,
}

impl FixedScaleOffset {
    pub(crate) fn from_config(c: &Config<'_>) -> Result<Self> {
        let dtype = Dtype::parse("fixedscaleoffset", c.required_string("dtype")?)?;
        let astype = match c.string("astype")? {
            Some(s) => Dtype::parse("fixedscaleoffset", s)?,
            None => dtype,
        };
        let need = |k: &str| {
            c.float(k)?.ok_or_else(|| {
                CodecError::invalid_config("fixedscaleoffset", format!("missing field {k:?}"))
            })
        };
        let is_int = |k: &str| c.int(k).ok().flatten().is_some();
        Ok(FixedScaleOffset {
            offset: need("offset")?,
            scale: need("scale")?,
            dtype,
            astype,
            offset_int: is_int("offset"),
            scale_int: is_int("scale"),
        })
    }

    pub(crate) fn to_json(&self) -> Value {
        object([
            ("id", "fixedscaleoffset".into()),
            ("scale", number(self.scale, self.scale_int)),
            ("offset", number(self.offset, self.offset_int)),
            ("dtype", self.dtype.to_string().into()),
            ("astype", self.astype.to_string().into()),
        ])
    }

    pub(crate) fn encoded_len(&self, len: usize) -> Result<usize> {
        Ok(count("fixedscaleoffset", &self.dtype, len)? * self.astype.size)
    }

    pub(crate) fn encode(&self, input: &[u8]) -> Result<Vec<u8>> {
        let (d, a) = (self.dtype, self.astype);
        let n = count("fixedscaleoffset", &d, input.len())?;
        let mut out = vec![0u8; n * a.size];
        let f32_math = d.kind == Kind::Float && d.size <= 4;
        for i in 0..n {
            let x = d.read_f64(input, i);
            let v = if f32_math {
                let y = (x as f32 - self.offset as f32) * self.scale as f32;
                f64::from(y.round_ties_even())
            } else {
                ((x - self.offset) * self.scale).round_ties_even()
            };
            a.write_f64(&mut out, i, v);
        }
        Ok(out)
    }

    pub(crate) fn decode_into(&self, input: &[u8], out: &mut [u8]) -> Result<()> {
        let (d, a) = (self.dtype, self.astype);
        let n = count("fixedscaleoffset", &a, input.len())?;
        check_out("fixedscaleoffset", &d, n, out)?;
        let f32_math = a.kind == Kind::Float && a.size <= 4;
        for i in 0..n {
            let e = a.read_f64(input, i);
            let v = if f32_math {
                f64::from(e as f32 / self.scale as f32 + self.offset as f32)
            } else {
                e / self.scale + self.offset
            };
            d.write_f64(out, i, v);
        }
        Ok(())
    }
}
