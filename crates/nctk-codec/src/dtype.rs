//! numpy dtype strings: [`NumpyDtype`] parses every one Zarr v2 stores
//! (`"<i4"`, `">f8"`, `"|b1"`, `"|S5"`, `">U1"`), the one parser in nctk;
//! [`Dtype`] is its numeric part, as the numeric filters (delta,
//! fixedscaleoffset, quantize, bitround) need it.

use std::fmt;

use crate::error::{CodecError, Result};
use crate::half::{f16_to_f32, f32_to_f16};

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
        let d = NumpyDtype::parse(s).ok_or_else(bad)?;
        let kind = match d.kind {
            DtypeKind::Int => Kind::Int,
            DtypeKind::UInt | DtypeKind::Bool => Kind::UInt,
            DtypeKind::Float => Kind::Float,
            DtypeKind::Bytes | DtypeKind::Unicode => return Err(bad()),
        };
        let size = d.n as usize;
        Ok(Dtype {
            kind,
            size,
            big_endian: d.big_endian() && size > 1,
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
            2 => f64::from(f16_to_f32(bits as u16)),
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
            // Double rounding through f32, as before: rarely used.
            (Kind::Float, 2) => u64::from(f32_to_f16(v as f32)),
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

/// The base kind of a NumPy dtype.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DtypeKind {
    /// `b`: boolean, one byte.
    Bool,
    /// `i`: signed integer.
    Int,
    /// `u`: unsigned integer.
    UInt,
    /// `f`: IEEE float (2, 4 or 8 bytes).
    Float,
    /// `S`: fixed-length byte string, NUL-padded.
    Bytes,
    /// `U`: fixed-length UTF-32 string (NumPy's `str_`).
    Unicode,
}

/// A parsed NumPy dtype string such as `<f4`, `|S5` or `>U1`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NumpyDtype {
    /// The byte-order character: `<`, `>`, `|` (or `=` read as `<`).
    pub order: char,
    /// The base kind.
    pub kind: DtypeKind,
    /// The number after the kind: bytes for numbers and `S`, characters for `U`.
    pub n: u64,
}

impl NumpyDtype {
    /// Parses a dtype string.
    pub fn parse(s: &str) -> Option<NumpyDtype> {
        let mut chars = s.chars();
        let first = chars.next()?;
        let (order, rest) = match first {
            '<' | '>' | '|' => (first, &s[1..]),
            '=' => ('<', &s[1..]),
            _ => ('|', s),
        };
        let mut rc = rest.chars();
        let kind = match rc.next()? {
            'b' => DtypeKind::Bool,
            'i' => DtypeKind::Int,
            'u' => DtypeKind::UInt,
            'f' => DtypeKind::Float,
            'S' => DtypeKind::Bytes,
            'U' => DtypeKind::Unicode,
            _ => return None,
        };
        let digits = rc.as_str();
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let n: u64 = digits.parse().ok()?;
        let ok = match kind {
            DtypeKind::Bool => n == 1,
            DtypeKind::Int | DtypeKind::UInt => matches!(n, 1 | 2 | 4 | 8),
            DtypeKind::Float => matches!(n, 2 | 4 | 8),
            DtypeKind::Bytes | DtypeKind::Unicode => (1..=1 << 20).contains(&n),
        };
        ok.then_some(NumpyDtype { order, kind, n })
    }

    /// Bytes per element.
    pub fn itemsize(&self) -> u64 {
        match self.kind {
            DtypeKind::Unicode => self.n * 4,
            _ => self.n,
        }
    }

    /// True when multi-byte values are stored big-endian.
    pub fn big_endian(&self) -> bool {
        self.order == '>'
    }
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
    fn numpy_dtypes() {
        let d = NumpyDtype::parse("<f4").unwrap();
        assert_eq!((d.kind, d.n, d.itemsize()), (DtypeKind::Float, 4, 4));
        assert_eq!(NumpyDtype::parse(">U3").unwrap().itemsize(), 12);
        assert_eq!(NumpyDtype::parse("|S1").unwrap().kind, DtypeKind::Bytes);
        assert!(NumpyDtype::parse("|b1").is_some());
        for bad in [
            "",
            "<",
            "<f",
            "<f3",
            "<i16",
            "<c8",
            "<M8",
            "|S0",
            "<i4x",
            "|S99999999999",
        ] {
            assert!(NumpyDtype::parse(bad).is_none(), "{bad}");
        }
    }
}
