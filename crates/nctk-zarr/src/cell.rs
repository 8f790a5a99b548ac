//! How one stored element ("cell") maps to a netCDF value, as netCDF-C maps
//! Zarr dtypes (and better where netCDF-C fails: `f2`, `b1`, `U<n>`).

use base64::Engine;
use nctk_model::{DataType, ErrorKind, HasErrorKind, TypeId, Values};
use serde_json::Value;

use nctk_codec::half::{f16_to_f32, f32_to_f16};

use crate::meta::{Dtype, DtypeKind};

/// The decoded representation of one element of an array.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cell {
    /// A fixed-width number stored in `width` bytes, read as `dtype`.
    Number {
        /// The netCDF type.
        dtype: DataType,
        /// Big-endian storage.
        big: bool,
    },
    /// IEEE half precision, widened to `float` (netCDF has no half type).
    Half {
        /// Big-endian storage.
        big: bool,
    },
    /// NumPy bool (one byte), read as `ubyte` 0 / 1.
    Bool,
    /// netCDF `char`: `>S1` (NCZarr) or netCDF-C 4.9's `<U1`, one byte.
    Char,
    /// A fixed-length, NUL-padded byte string of `n` bytes, read as
    /// `string` (netCDF-C's `|S<n>` and `_nczarr_maxstrlen`).
    FixedBytes {
        /// Maximum length in bytes.
        n: usize,
    },
    /// A fixed-length UTF-32 string of `n` characters (NumPy `U<n>`), read
    /// as `string`.
    Utf32 {
        /// Maximum length in characters.
        n: usize,
        /// Big-endian storage.
        big: bool,
    },
    /// A variable-length UTF-8 string (numcodecs `vlen-utf8`, Zarr v3
    /// `string`), read as `string`. Assembled as 8-byte ids of the strings
    /// a read decoded; alone (a fill value), a cell is the string's UTF-8.
    VlenString,
    /// A variable-length byte string (Zarr v3 `bytes`), read as the vlen
    /// type `ty` of `ubyte`. Assembled as ids, as [`Cell::VlenString`].
    VlenBytes {
        /// The vlen type in the schema.
        ty: TypeId,
    },
    /// A complex number (Zarr v3 `complex64` / `complex128`), read as the
    /// compound type `ty` of two reals `i` (real part) and `j` (imaginary
    /// part), as netCDF-C's draft v3 appendix maps it.
    Complex {
        /// The compound type in the schema.
        ty: TypeId,
        /// Parts are doubles (`complex128`), else floats.
        double: bool,
        /// Big-endian storage.
        big: bool,
    },
    /// Raw bits of `size` bytes (Zarr v3 `r<N>`), read as the opaque type
    /// `ty`.
    Raw {
        /// The opaque type in the schema.
        ty: TypeId,
        /// Bytes per value.
        size: usize,
    },
}

impl Cell {
    /// The cell for a dtype, as netCDF-C maps it: `>S1` is `char` in NCZarr
    /// mode (a one-character string in pure Zarr mode), other `S<n>` are
    /// strings, `U1` is `char` (netCDF-C 4.9 wrote `char` as `<U1`).
    pub fn for_dtype(d: Dtype, pure_zarr: bool) -> Cell {
        let big = d.big_endian();
        match d.kind {
            DtypeKind::Bool => Cell::Bool,
            DtypeKind::Float if d.n == 2 => Cell::Half { big },
            DtypeKind::Float => Cell::Number {
                dtype: if d.n == 4 {
                    DataType::Float
                } else {
                    DataType::Double
                },
                big,
            },
            DtypeKind::Int | DtypeKind::UInt => {
                let signed = d.kind == DtypeKind::Int;
                // Wider integers than 8 bytes read as the 64-bit type.
                let dtype = DataType::integer(d.n.min(8), signed).unwrap_or(if signed {
                    DataType::Int64
                } else {
                    DataType::UInt64
                });
                Cell::Number { dtype, big }
            }
            DtypeKind::Bytes if d.n == 1 && d.order == '>' && !pure_zarr => Cell::Char,
            DtypeKind::Bytes => Cell::FixedBytes { n: d.n as usize },
            DtypeKind::Unicode if d.n == 1 => Cell::Char,
            DtypeKind::Unicode => Cell::Utf32 {
                n: d.n as usize,
                big,
            },
        }
    }

    /// The netCDF type of the values.
    pub fn data_type(&self) -> DataType {
        match self {
            Cell::Number { dtype, .. } => *dtype,
            Cell::Half { .. } => DataType::Float,
            Cell::Bool => DataType::UByte,
            Cell::Char => DataType::Char,
            Cell::FixedBytes { .. } | Cell::Utf32 { .. } | Cell::VlenString => DataType::String,
            Cell::Complex { ty, .. } | Cell::Raw { ty, .. } | Cell::VlenBytes { ty } => {
                DataType::User(*ty)
            }
        }
    }

    /// Bytes per cell in the assembled buffer (a `U1` chunk holding UTF-32
    /// is narrowed to one byte per cell before assembly).
    pub fn width(&self) -> usize {
        match self {
            Cell::Number { dtype, .. } => dtype.size().unwrap_or(1),
            Cell::Half { .. } => 2,
            Cell::Bool | Cell::Char => 1,
            Cell::FixedBytes { n } => *n,
            Cell::Utf32 { n, .. } => n * 4,
            Cell::VlenString | Cell::VlenBytes { .. } => 8,
            Cell::Complex { double, .. } => {
                if *double {
                    16
                } else {
                    8
                }
            }
            Cell::Raw { size, .. } => *size,
        }
    }

    /// Whether cells are variable-length items (assembled as ids).
    pub fn is_vlen(&self) -> bool {
        matches!(self, Cell::VlenString | Cell::VlenBytes { .. })
    }

    /// Byte order of multi-byte cells.
    pub fn big_endian(&self) -> bool {
        match self {
            Cell::Number { big, .. }
            | Cell::Half { big }
            | Cell::Utf32 { big, .. }
            | Cell::Complex { big, .. } => *big,
            _ => false,
        }
    }

    /// Decodes assembled cells into values.
    pub fn decode(&self, buf: &[u8]) -> Values {
        match *self {
            Cell::Number { dtype, big } => Values::from_bytes(dtype, buf, big),
            Cell::Half { big } => Values::Float(
                buf.chunks_exact(2)
                    .map(|c| {
                        let bits = if big {
                            u16::from_be_bytes([c[0], c[1]])
                        } else {
                            u16::from_le_bytes([c[0], c[1]])
                        };
                        f16_to_f32(bits)
                    })
                    .collect(),
            ),
            Cell::Bool => Values::UByte(buf.iter().map(|&b| u8::from(b != 0)).collect()),
            Cell::Char => Values::Char(buf.to_vec()),
            Cell::FixedBytes { n } => Values::String(
                buf.chunks_exact(n)
                    .map(|c| {
                        let end = c.iter().position(|&b| b == 0).unwrap_or(n);
                        Some(String::from_utf8_lossy(&c[..end]).into_owned())
                    })
                    .collect(),
            ),
            Cell::Utf32 { n, big } => Values::String(
                buf.chunks_exact(n * 4)
                    .map(|c| Some(utf32_to_string(c, big)))
                    .collect(),
            ),
            Cell::VlenString => Values::strings([String::from_utf8_lossy(buf)]),
            Cell::VlenBytes { .. } => Values::Vlen(vec![Values::UByte(buf.to_vec())]),
            Cell::Complex { double, big, .. } => {
                let part = if double {
                    DataType::Double
                } else {
                    DataType::Float
                };
                let fields = match Values::from_bytes(part, buf, big) {
                    Values::Float(v) => {
                        let (re, im) = split_pairs(&v);
                        vec![Values::Float(re), Values::Float(im)]
                    }
                    Values::Double(v) => {
                        let (re, im) = split_pairs(&v);
                        vec![Values::Double(re), Values::Double(im)]
                    }
                    other => vec![other],
                };
                Values::Compound {
                    len: buf.len() / self.width(),
                    fields,
                }
            }
            Cell::Raw { size, .. } => Values::Opaque {
                size,
                bytes: buf.to_vec(),
            },
        }
    }

    /// The cell bytes of a `fill_value`, or `None` for null; an error when
    /// the value does not fit the dtype.
    pub fn fill_bytes(&self, fill: &Value) -> Result<Option<Vec<u8>>, FillValueError> {
        if fill.is_null() {
            return Ok(None);
        }
        let bad = || FillValueError {
            fill: fill.to_string(),
        };
        let out = match *self {
            Cell::Number { dtype, big } => match hex_bits(fill, self.width()) {
                Some(bits) => bits_to_bytes(bits, self.width(), big),
                None => json_number_as(fill, dtype).ok_or_else(bad)?.to_bytes(big),
            },
            Cell::Half { big } if hex_bits(fill, 2).is_some() => {
                bits_to_bytes(hex_bits(fill, 2).unwrap_or_default(), 2, big)
            }
            Cell::Half { big } => {
                let Values::Float(f) = json_number_as(fill, DataType::Float).ok_or_else(bad)?
                else {
                    return Err(bad());
                };
                let h = f32_to_f16(f[0]);
                if big {
                    h.to_be_bytes().to_vec()
                } else {
                    h.to_le_bytes().to_vec()
                }
            }
            Cell::Bool => match fill {
                Value::Bool(b) => vec![u8::from(*b)],
                Value::Number(n) => vec![u8::from(n.as_f64().unwrap_or(0.0) != 0.0)],
                _ => return Err(bad()),
            },
            Cell::Char | Cell::FixedBytes { .. } => {
                let w = self.width();
                let mut bytes = match fill {
                    // zarr-python writes base64; netCDF-C writes "" (and a
                    // bare character for char). Accept text that is not
                    // valid base64 as the characters themselves.
                    Value::String(s) => base64::engine::general_purpose::STANDARD
                        .decode(s)
                        .unwrap_or_else(|_| s.as_bytes().to_vec()),
                    Value::Number(n) => {
                        vec![n.as_u64().filter(|&x| x < 256).ok_or_else(bad)? as u8]
                    }
                    _ => return Err(bad()),
                };
                bytes.resize(w, 0);
                bytes
            }
            Cell::Complex { double, big, .. } => {
                let part = if double {
                    DataType::Double
                } else {
                    DataType::Float
                };
                let Some([re, im]) = fill
                    .as_array()
                    .map(Vec::as_slice)
                    .and_then(|a| <&[Value; 2]>::try_from(a).ok())
                else {
                    return Err(bad());
                };
                let width = self.width() / 2;
                let mut out = vec![];
                for v in [re, im] {
                    out.extend(match hex_bits(v, width) {
                        Some(bits) => bits_to_bytes(bits, width, big),
                        None => json_number_as(v, part).ok_or_else(bad)?.to_bytes(big),
                    });
                }
                out
            }
            Cell::Raw { size, .. } => {
                // A list of byte values (`r<N>`) or base64 (`raw_bytes`).
                let bytes: Option<Vec<u8>> = match fill {
                    Value::String(s) => base64::engine::general_purpose::STANDARD.decode(s).ok(),
                    _ => fill.as_array().and_then(|a| {
                        a.iter()
                            .map(|b| b.as_u64().and_then(|b| u8::try_from(b).ok()))
                            .collect()
                    }),
                };
                match bytes {
                    Some(b) if b.len() == size => b,
                    _ => return Err(bad()),
                }
            }
            Cell::VlenBytes { .. } => match fill {
                Value::String(s) => base64::engine::general_purpose::STANDARD
                    .decode(s)
                    .map_err(|_| bad())?,
                Value::Array(a) => a
                    .iter()
                    .map(|b| b.as_u64().and_then(|b| u8::try_from(b).ok()))
                    .collect::<Option<Vec<u8>>>()
                    .ok_or_else(bad)?,
                _ => return Err(bad()),
            },
            Cell::VlenString => match fill {
                Value::String(s) => s.as_bytes().to_vec(),
                _ => return Err(bad()),
            },
            Cell::Utf32 { n, big } => {
                let Value::String(s) = fill else {
                    return Err(bad());
                };
                let mut out = Vec::with_capacity(n * 4);
                for c in s.chars().take(n) {
                    let u = c as u32;
                    out.extend_from_slice(&if big {
                        u.to_be_bytes()
                    } else {
                        u.to_le_bytes()
                    });
                }
                out.resize(n * 4, 0);
                out
            }
        };
        Ok(Some(out))
    }
}

/// A `fill_value` that does not fit its array's dtype.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("fill_value {fill} does not fit the dtype")]
pub struct FillValueError {
    /// The value, as JSON text.
    pub fill: String,
}

/// A stored `fill_value` that does not fit breaks the metadata.
impl HasErrorKind for FillValueError {
    fn kind(&self) -> ErrorKind {
        ErrorKind::InvalidData
    }
}

/// The even and the odd elements of `v` (real and imaginary parts).
fn split_pairs<T: Copy>(v: &[T]) -> (Vec<T>, Vec<T>) {
    v.chunks_exact(2).map(|p| (p[0], p[1])).unzip()
}

/// A Zarr v3 fill value given as the hex bit pattern of a float
/// (`"0x7fc00000"`), when it fits `width` bytes.
fn hex_bits(fill: &Value, width: usize) -> Option<u64> {
    let hex = fill.as_str()?.strip_prefix("0x")?;
    let bits = u64::from_str_radix(hex, 16).ok()?;
    (width >= 8 || bits >> (8 * width) == 0).then_some(bits)
}

/// The low `width` bytes of `bits` in the stored byte order.
fn bits_to_bytes(bits: u64, width: usize, big: bool) -> Vec<u8> {
    let le = bits.to_le_bytes();
    let mut b = le[..width].to_vec();
    if big {
        b.reverse();
    }
    b
}

fn utf32_to_string(c: &[u8], big: bool) -> String {
    c.chunks_exact(4)
        .map(|b| {
            let a = [b[0], b[1], b[2], b[3]];
            if big {
                u32::from_be_bytes(a)
            } else {
                u32::from_le_bytes(a)
            }
        })
        .take_while(|&u| u != 0)
        .map(|u| char::from_u32(u).unwrap_or('\u{fffd}'))
        .collect()
}

/// Narrows UTF-32 `U1` cells to one byte each (code points above 255 become `?`).
pub fn narrow_utf32(chunk: &[u8], big: bool) -> Vec<u8> {
    chunk
        .chunks_exact(4)
        .map(|b| {
            let a = [b[0], b[1], b[2], b[3]];
            let u = if big {
                u32::from_be_bytes(a)
            } else {
                u32::from_le_bytes(a)
            };
            u8::try_from(u).unwrap_or(b'?')
        })
        .collect()
}

/// A JSON number (or `"NaN"`, `"Infinity"`, `"-Infinity"`, or a numeric
/// string) as a one-element vector of `dtype`; `None` if it does not fit.
pub fn json_number_as(v: &Value, dtype: DataType) -> Option<Values> {
    use nctk_model::convert::Num;
    let num = match v {
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                Num::Int(i as i128)
            } else if let Some(u) = n.as_u64() {
                Num::Int(u as i128)
            } else {
                Num::Float(n.as_f64()?)
            }
        }
        Value::Bool(b) => Num::Int(i128::from(*b)),
        Value::String(s) => match s.strip_prefix(crate::json::BARE_TOKEN).unwrap_or(s) {
            "NaN" | "nan" => Num::Float(f64::NAN),
            "Infinity" | "inf" => Num::Float(f64::INFINITY),
            "-Infinity" | "-inf" => Num::Float(f64::NEG_INFINITY),
            other => {
                if let Ok(i) = other.trim().parse::<i128>() {
                    Num::Int(i)
                } else {
                    Num::Float(other.trim().parse::<f64>().ok()?)
                }
            }
        },
        _ => return None,
    };
    num_to_values(num, dtype)
}

fn num_to_values(num: nctk_model::convert::Num, dtype: DataType) -> Option<Values> {
    use nctk_model::convert::Num;
    use nctk_model::NcValue;
    Some(match dtype {
        DataType::Byte => Values::Byte(vec![i8::from_num(num)?]),
        DataType::UByte => Values::UByte(vec![u8::from_num(num)?]),
        DataType::Short => Values::Short(vec![i16::from_num(num)?]),
        DataType::UShort => Values::UShort(vec![u16::from_num(num)?]),
        DataType::Int => Values::Int(vec![i32::from_num(num)?]),
        DataType::UInt => Values::UInt(vec![u32::from_num(num)?]),
        DataType::Int64 => Values::Int64(vec![i64::from_num(num)?]),
        DataType::UInt64 => Values::UInt64(vec![u64::from_num(num)?]),
        DataType::Float => Values::Float(vec![match num {
            Num::Int(i) => i as f32,
            Num::Float(f) => f as f32,
        }]),
        DataType::Double => Values::Double(vec![match num {
            Num::Int(i) => i as f64,
            Num::Float(f) => f,
        }]),
        DataType::Char => Values::Char(vec![u8::from_num(num)?]),
        // Strings and any other type: no number.
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn halves() {
        for (h, f) in [
            (0x3c00u16, 1.0f32),
            (0xc000, -2.0),
            (0x3e00, 1.5),
            (0x0001, 5.960_464_5e-8),
            (0x7c00, f32::INFINITY),
        ] {
            assert_eq!(f16_to_f32(h), f);
            assert_eq!(f32_to_f16(f), h);
        }
        assert!(f16_to_f32(0x7e00).is_nan());
    }

    #[test]
    fn fills() {
        let c = Cell::Number {
            dtype: DataType::UInt64,
            big: false,
        };
        assert_eq!(
            c.fill_bytes(&serde_json::json!(18446744073709551615u64))
                .unwrap()
                .unwrap(),
            vec![255; 8]
        );
        let f = Cell::Number {
            dtype: DataType::Double,
            big: true,
        };
        assert!(f64::from_be_bytes(
            f.fill_bytes(&serde_json::json!("NaN"))
                .unwrap()
                .unwrap()
                .try_into()
                .unwrap()
        )
        .is_nan());
        assert!(c.fill_bytes(&serde_json::json!(-1)).is_err());
        let s = Cell::FixedBytes { n: 4 };
        assert_eq!(
            s.fill_bytes(&serde_json::json!("YWI=")).unwrap().unwrap(),
            b"ab\0\0"
        );
    }
}
