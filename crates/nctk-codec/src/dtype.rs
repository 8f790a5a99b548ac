//! numpy dtype strings (`"<i4"`, `">f8"`, `"|u1"`) as far as the numeric
//! filters (delta, fixedscaleoffset, quantize, bitround) need them.

use std::fmt;

use crate::error::{CodecError, Result};

/// Kind of a numeric dtype.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Signed integer (`i`).
    Int,
    /// Unsigned integer (`u`), and booleans (`b`), read as 0/1 bytes.
    UInt,
    /// IEEE float (`f`).
    Float,
}

/// A fixed-size numeric numpy dtype.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dtype {
    /// Integer or float.
    pub kind: Kind,
    /// Size in bytes: 1, 2, 4 or 8.
    pub size: usize,
    /// Byte order of the stored values.
    pub big_endian: bool,
}

impl Dtype {
    /// Parses a numpy dtype string such as `"<f4"`, `">i2"`, `"|u1"`, `"f8"`.
    pub fn parse(codec: &'static str, s: &str) -> Result<Dtype> {
        let bad = || CodecError::invalid_config(codec, format!("unsupported dtype {s:?}"));
        let (order, rest) = match s.as_bytes().first() {
            Some(b'<') | Some(b'|') | Some(b'=') => (false, &s[1..]),
            Some(b'>') => (true, &s[1..]),
            _ => (false, s),
        };
        let mut chars = rest.chars();
        let kind = match chars.next() {
            Some('i') => Kind::Int,
            Some('u') | Some('b') => Kind::UInt,
            Some('f') => Kind::Float,
            _ => return Err(bad()),
        };
        let size: usize = chars.as_str().parse().map_err(|_| bad())?;
        let ok = match kind {
            Kind::Float => matches!(size, 2 | 4 | 8),
            _ => matches!(size, 1 | 2 | 4 | 8),
        };
        if !ok {
            return Err(bad());
        }
        Ok(Dtype {
            kind,
            size,
            big_endian: order && size > 1,
        })
    }

    /// Reads element `i` of `buf` as raw bits, zero-extended to 64.
    #[inline]
    pub(crate) fn read_bits(&self, buf: &[u8], i: usize) -> u64 {
        let b = &buf[i * self.size..(i + 1) * self.size];
        let mut v = [0u8; 8];
        if self.big_endian {
            for (k, byte) in b.iter().rev().enumerate() {
                v[k] = *byte;
            }
        } else {
            v[..self.size].copy_from_slice(b);
        }
        u64::from_le_bytes(v)
    }

    /// Writes the low `size` bytes of `bits` as element `i` of `buf`.
    #[inline]
    pub(crate) fn write_bits(&self, buf: &mut [u8], i: usize, bits: u64) {
        let b = &mut buf[i * self.size..(i + 1) * self.size];
        let v = bits.to_le_bytes();
        if self.big_endian {
            for (k, byte) in b.iter_mut().rev().enumerate() {
                *byte = v[k];
            }
        } else {
            b.copy_from_slice(&v[..self.size]);
        }
    }

    /// Reads an integer element as i64 (sign- or zero-extended; u64 above
    /// i64::MAX wraps, which keeps modular arithmetic right).
    #[inline]
    pub(crate) fn read_int(&self, buf: &[u8], i: usize) -> i64 {
        let bits = self.read_bits(buf, i);
        match self.kind {
            Kind::Int => {
                let shift = 64 - 8 * self.size as u32;
                ((bits << shift) as i64) >> shift
            }
            _ => bits as i64,
        }
    }

    /// Reads a float element as f64 (f2, f4 and f8).
    #[inline]
    pub(crate) fn read_float(&self, buf: &[u8], i: usize) -> f64 {
        let bits = self.read_bits(buf, i);
        match self.size {
            2 => f16_to_f64(bits as u16),
            4 => f64::from(f32::from_bits(bits as u32)),
            _ => f64::from_bits(bits),
        }
    }

    /// Reads any element as f64 (numpy's cast to float64).
    #[inline]
    pub(crate) fn read_f64(&self, buf: &[u8], i: usize) -> f64 {
        match self.kind {
            Kind::Float => self.read_float(buf, i),
            Kind::Int => self.read_int(buf, i) as f64,
            Kind::UInt => self.read_bits(buf, i) as f64,
        }
    }

    /// Writes a float value as this dtype with numpy's `astype` rules:
    /// round to nearest for floats, truncation toward zero (saturating;
    /// NaN gives 0) for integers.
    #[inline]
    pub(crate) fn write_f64(&self, buf: &mut [u8], i: usize, v: f64) {
        let bits = match (self.kind, self.size) {
            (Kind::Float, 2) => u64::from(f64_to_f16(v)),
            (Kind::Float, 4) => u64::from((v as f32).to_bits()),
            (Kind::Float, _) => v.to_bits(),
            (Kind::Int, _) => (v as i64) as u64,
            (Kind::UInt, _) => {
                if v < 0.0 {
                    (v as i64) as u64
                } else {
                    v as u64
                }
            }
        };
        self.write_bits(buf, i, bits);
    }

    /// numpy's `dtype.str` spelling, e.g. `"<f4"`, `"|u1"`.
    pub fn to_numpy(&self) -> String {
        self.to_string()
    }
}

impl fmt::Display for Dtype {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let order = if self.size == 1 {
            '|'
        } else if self.big_endian {
            '>'
        } else {
            '<'
        };
        let kind = match self.kind {
            Kind::Int => 'i',
            Kind::UInt => 'u',
            Kind::Float => 'f',
        };
        write!(f, "{order}{kind}{}", self.size)
    }
}

/// IEEE half to f64.
pub(crate) fn f16_to_f64(h: u16) -> f64 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = i32::from((h >> 10) & 0x1f);
    let frac = f64::from(h & 0x3ff);
    match exp {
        0 => sign * frac * 2f64.powi(-24),
        31 => {
            if frac == 0.0 {
                sign * f64::INFINITY
            } else {
                f64::NAN
            }
        }
        _ => sign * (1.0 + frac / 1024.0) * 2f64.powi(exp - 15),
    }
}

/// f64 to IEEE half, round to nearest even.
pub(crate) fn f64_to_f16(v: f64) -> u16 {
    let x = v as f32; // double rounding is acceptable for this rarely used path
    let bits = x.to_bits();
    let sign = ((bits >> 16) & 0x8000) as u16;
    let exp = ((bits >> 23) & 0xff) as i32;
    let mant = bits & 0x7f_ffff;
    if exp == 0xff {
        return sign | 0x7c00 | if mant != 0 { 0x200 } else { 0 };
    }
    let e = exp - 127 + 15;
    if e >= 31 {
        return sign | 0x7c00;
    }
    if e <= 0 {
        if e < -10 {
            return sign;
        }
        let m = mant | 0x80_0000;
        let shift = (14 - e) as u32;
        let half = 1u32 << (shift - 1);
        let rest = m & ((1 << shift) - 1);
        let mut r = m >> shift;
        if rest > half || (rest == half && r & 1 == 1) {
            r += 1;
        }
        return sign | r as u16;
    }
    let rest = mant & 0x1fff;
    let mut r = ((e as u32) << 10) | (mant >> 13);
    if rest > 0x1000 || (rest == 0x1000 && r & 1 == 1) {
        r += 1;
    }
    sign | r as u16
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_print() {
        for s in ["<i4", ">f8", "|u1", "<u2", "<f2", ">i8"] {
            assert_eq!(Dtype::parse("t", s).unwrap().to_string(), s);
        }
        assert_eq!(Dtype::parse("t", "f4").unwrap().to_string(), "<f4");
        assert!(Dtype::parse("t", "<c8").is_err());
        assert!(Dtype::parse("t", "<i3").is_err());
        assert!(Dtype::parse("t", "").is_err());
    }

    #[test]
    fn half_roundtrip() {
        for h in 0u16..=0xffff {
            let f = f16_to_f64(h);
            if f.is_nan() {
                continue;
            }
            assert_eq!(f64_to_f16(f), h, "{h:#x}");
        }
    }
}
