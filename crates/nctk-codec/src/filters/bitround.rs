//! numcodecs `bitround`: keep `keepbits` mantissa bits, rounding to nearest
//! (ties to even). Decoding is the identity.

use serde_json::Value;

use crate::dtype::{Dtype, Kind};
use crate::error::{CodecError, Result};
use crate::json::{object, Config};

/// The `bitround` codec. Its JSON has no dtype: encoding takes it from the
/// [`crate::CodecContext`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BitRound {
    /// Mantissa bits kept.
    pub keepbits: u32,
    /// Float dtype of the array (needed to encode).
    pub dtype: Option<Dtype>,
}

impl BitRound {
    pub(crate) fn from_config(c: &Config<'_>, dtype: Option<Dtype>) -> Result<Self> {
        let keepbits = c
            .int("keepbits")?
            .ok_or_else(|| CodecError::invalid_config("bitround", "missing field \"keepbits\""))?;
        if !(0..=52).contains(&keepbits) {
            return Err(CodecError::invalid_config(
                "bitround",
                format!("keepbits {keepbits} outside 0..=52"),
            ));
        }
        Ok(BitRound {
            keepbits: keepbits as u32,
            dtype: dtype.filter(|d| d.kind == Kind::Float),
        })
    }

    pub(crate) fn to_json(&self) -> Value {
        object([
            ("id", "bitround".into()),
            ("keepbits", self.keepbits.into()),
        ])
    }

    pub(crate) fn encode(&self, input: &[u8]) -> Result<Vec<u8>> {
        let d = self.dtype.ok_or(CodecError::MissingContext {
            codec: "bitround",
            what: "dtype (a float dtype)",
        })?;
        let n = super::count("bitround", &d, input.len())?;
        let bits = match d.size {
            2 => 10,
            4 => 23,
            _ => 52,
        };
        if self.keepbits > bits {
            return Err(CodecError::invalid_config(
                "bitround",
                format!("keepbits {} too large for {d}", self.keepbits),
            ));
        }
        let mut out = input.to_vec();
        if self.keepbits == bits {
            return Ok(out);
        }
        let maskbits = bits - self.keepbits;
        let width = 8 * d.size as u32;
        let all = if width == 64 {
            u64::MAX
        } else {
            (1u64 << width) - 1
        };
        let mask = (all >> maskbits) << maskbits & all;
        let half_quantum1 = (1u64 << (maskbits - 1)) - 1;
        if !d.big_endian && d.size == 4 {
            let (mask, hq) = (mask as u32, half_quantum1 as u32);
            for (o, x) in out.chunks_exact_mut(4).zip(input.chunks_exact(4)) {
                let b = u32::from_le_bytes([x[0], x[1], x[2], x[3]]);
                let r = b.wrapping_add(((b >> maskbits) & 1) + hq) & mask;
                o.copy_from_slice(&r.to_le_bytes());
            }
            return Ok(out);
        }
        for i in 0..n {
            let b = d.read_bits(input, i);
            let r = b.wrapping_add(((b >> maskbits) & 1) + half_quantum1) & mask;
            d.write_bits(&mut out, i, r);
        }
        Ok(out)
    }
}
