use crate::{DataType, TypeId};

/// A one-dimensional vector of values of one netCDF type.
///
/// Attribute values and variable data travel as `Values`. Char data is kept
/// as raw bytes (netCDF does not fix an encoding for `char`).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Values {
    /// `byte` values.
    Byte(Vec<i8>),
    /// `char` values (raw bytes).
    Char(Vec<u8>),
    /// `short` values.
    Short(Vec<i16>),
    /// `int` values.
    Int(Vec<i32>),
    /// `float` values.
    Float(Vec<f32>),
    /// `double` values.
    Double(Vec<f64>),
    /// `ubyte` values.
    UByte(Vec<u8>),
    /// `ushort` values.
    UShort(Vec<u16>),
    /// `uint` values.
    UInt(Vec<u32>),
    /// `int64` values.
    Int64(Vec<i64>),
    /// `uint64` values.
    UInt64(Vec<u64>),
    /// `string` values; `None` is a null string.
    ///
    /// netCDF-4 keeps a null string (a NULL `char *` in netCDF-C, an HDF5
    /// variable-length string with no heap object, `NIL` in CDL) apart
    /// from the empty string `""`, so the model does too: `Option<String>`
    /// is the same size as `String` and makes every reader of the values
    /// decide what a null means for it (a format that cannot store one
    /// writes `""`, as its peers do). [`Values::strings`] builds a vector
    /// without nulls.
    String(Vec<Option<String>>),
    /// `len` values of a compound type, field-major: field `i` holds
    /// `len * count_i` values of its type in order (`count_i`: the number of
    /// elements of an array field, 1 for a scalar field).
    Compound {
        /// Number of compound values.
        len: usize,
        /// One vector per field, in the type's field order.
        fields: Vec<Values>,
    },
    /// Values of a vlen type: one vector (of the base type) per value.
    Vlen(Vec<Values>),
    /// Values of an opaque type: blobs of `size` bytes, one after another.
    Opaque {
        /// Bytes per value (at least 1).
        size: usize,
        /// The blobs; `bytes.len() / size` values.
        bytes: Vec<u8>,
    },
}

/// Evaluates `$body` with `$v` bound to the vector inside `$values` when it
/// holds fixed-width values (the ten numeric types and `char`, whose element
/// types all implement [`NcValue`](crate::NcValue) and `Default`); any other
/// variant (`string`, and the types a later format adds) matches `$other`
/// and gives `$else`. Format crates use it to handle the fixed-width types
/// once, generically, without listing them.
#[macro_export]
macro_rules! with_fixed_values {
    ($values:expr, $v:ident => $body:expr, $other:pat => $else:expr) => {
        match $values {
            $crate::Values::Byte($v) => $body,
            $crate::Values::Char($v) => $body,
            $crate::Values::Short($v) => $body,
            $crate::Values::Int($v) => $body,
            $crate::Values::Float($v) => $body,
            $crate::Values::Double($v) => $body,
            $crate::Values::UByte($v) => $body,
            $crate::Values::UShort($v) => $body,
            $crate::Values::UInt($v) => $body,
            $crate::Values::Int64($v) => $body,
            $crate::Values::UInt64($v) => $body,
            $other => $else,
        }
    };
}

/// Builds the same variant as `$proto` around `$expr` (a vector of the
/// matching element type), binding the prototype's vector as `$v`.
macro_rules! map_values {
    ($values:expr, $v:ident => $body:expr) => {
        match $values {
            Values::Byte($v) => Values::Byte($body),
            Values::Char($v) => Values::Char($body),
            Values::Short($v) => Values::Short($body),
            Values::Int($v) => Values::Int($body),
            Values::Float($v) => Values::Float($body),
            Values::Double($v) => Values::Double($body),
            Values::UByte($v) => Values::UByte($body),
            Values::UShort($v) => Values::UShort($body),
            Values::UInt($v) => Values::UInt($body),
            Values::Int64($v) => Values::Int64($body),
            Values::UInt64($v) => Values::UInt64($body),
            Values::String($v) => Values::String($body),
            Values::Vlen($v) => Values::Vlen($body),
            Values::Compound { .. } | Values::Opaque { .. } => {
                unreachable!("callers handle compound and opaque values first")
            }
        }
    };
}

macro_rules! fixed_width_codec {
    ($values:expr, $bytes:expr, $big:expr, $($variant:ident : $t:ty),*) => {
        match $values {
            $(Values::$variant(out) => {
                const N: usize = std::mem::size_of::<$t>();
                out.extend($bytes.chunks_exact(N).map(|c| {
                    let arr: [u8; N] = c.try_into().expect("chunks_exact yields N bytes");
                    if $big { <$t>::from_be_bytes(arr) } else { <$t>::from_le_bytes(arr) }
                }));
            })*
            Values::Char(out) => out.extend_from_slice($bytes),
            other => panic!("{} values have no fixed-width encoding", other.dtype()),
        }
    };
}

impl Values {
    /// An empty vector of type `dtype`.
    pub fn empty(dtype: DataType) -> Values {
        Values::with_capacity(dtype, 0)
    }

    /// An empty vector of type `dtype` with room for `n` values.
    ///
    /// # Panics
    /// For a user type, whose values' shape the schema knows: use
    /// [`Schema::empty_values`](crate::Schema::empty_values).
    pub fn with_capacity(dtype: DataType, n: usize) -> Values {
        match dtype {
            DataType::Byte => Values::Byte(Vec::with_capacity(n)),
            DataType::Char => Values::Char(Vec::with_capacity(n)),
            DataType::Short => Values::Short(Vec::with_capacity(n)),
            DataType::Int => Values::Int(Vec::with_capacity(n)),
            DataType::Float => Values::Float(Vec::with_capacity(n)),
            DataType::Double => Values::Double(Vec::with_capacity(n)),
            DataType::UByte => Values::UByte(Vec::with_capacity(n)),
            DataType::UShort => Values::UShort(Vec::with_capacity(n)),
            DataType::UInt => Values::UInt(Vec::with_capacity(n)),
            DataType::Int64 => Values::Int64(Vec::with_capacity(n)),
            DataType::UInt64 => Values::UInt64(Vec::with_capacity(n)),
            DataType::String => Values::String(Vec::with_capacity(n)),
            DataType::User(_) => {
                panic!("Values::with_capacity of a user type: use Schema::empty_values")
            }
        }
    }

    /// `string` values, none of them null.
    ///
    /// ```
    /// use nctk_model::Values;
    /// assert_eq!(
    ///     Values::strings(["a", ""]),
    ///     Values::String(vec![Some("a".into()), Some(String::new())])
    /// );
    /// ```
    pub fn strings<S: Into<String>>(items: impl IntoIterator<Item = S>) -> Values {
        Values::String(items.into_iter().map(|s| Some(s.into())).collect())
    }

    /// Text as `char` values.
    pub fn text(s: &str) -> Values {
        Values::Char(s.as_bytes().to_vec())
    }

    /// The type of the values; for compound, vlen and opaque values, which
    /// do not carry their type, `DataType::User(TypeId::UNKNOWN)`.
    pub fn dtype(&self) -> DataType {
        match self {
            Values::Byte(_) => DataType::Byte,
            Values::Char(_) => DataType::Char,
            Values::Short(_) => DataType::Short,
            Values::Int(_) => DataType::Int,
            Values::Float(_) => DataType::Float,
            Values::Double(_) => DataType::Double,
            Values::UByte(_) => DataType::UByte,
            Values::UShort(_) => DataType::UShort,
            Values::UInt(_) => DataType::UInt,
            Values::Int64(_) => DataType::Int64,
            Values::UInt64(_) => DataType::UInt64,
            Values::String(_) => DataType::String,
            Values::Compound { .. } | Values::Vlen(_) | Values::Opaque { .. } => {
                DataType::User(TypeId::UNKNOWN)
            }
        }
    }

    /// Number of values.
    pub fn len(&self) -> usize {
        with_fixed_values!(self, v => v.len(), other => match other {
            Values::String(v) => v.len(),
            Values::Vlen(v) => v.len(),
            Values::Compound { len, .. } => *len,
            Values::Opaque { size, bytes } => bytes.len() / (*size).max(1),
            _ => unreachable!("fixed-width values are handled above"),
        })
    }

    /// True when there are no values.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// `n` copies of the first value of `fill` (which must be non-empty).
    pub fn repeat(fill: &Values, n: usize) -> Values {
        match fill {
            Values::Compound { .. } => {
                let one = fill.slice(0..1);
                let mut out = one.slice(0..0);
                (0..n).for_each(|_| out.extend_from(&one));
                out
            }
            Values::Opaque { size, bytes } => Values::Opaque {
                size: *size,
                bytes: bytes[..*size].repeat(n),
            },
            _ => {
                #[allow(clippy::clone_on_copy)] // one macro arm serves Copy and String vectors
                let out = map_values!(fill, v => vec![v[0].clone(); n]);
                out
            }
        }
    }

    /// The values in `range`, as a new vector.
    pub fn slice(&self, range: std::ops::Range<usize>) -> Values {
        match self {
            Values::Compound { len, fields } => Values::Compound {
                len: range.len(),
                fields: fields
                    .iter()
                    .map(|f| {
                        let per = f.len().checked_div(*len).unwrap_or(0);
                        f.slice(range.start * per..range.end * per)
                    })
                    .collect(),
            },
            Values::Opaque { size, bytes } => Values::Opaque {
                size: *size,
                bytes: bytes[range.start * size..range.end * size].to_vec(),
            },
            _ => map_values!(self, v => v[range].to_vec()),
        }
    }

    /// The value at `index` as a one-element vector.
    pub fn get(&self, index: usize) -> Option<Values> {
        (index < self.len()).then(|| self.slice(index..index + 1))
    }

    /// Appends `other`, which must have the same type.
    ///
    /// # Panics
    /// When the types differ (a programming error, not a data error).
    pub fn extend_from(&mut self, other: &Values) {
        match (self, other) {
            (Values::Byte(a), Values::Byte(b)) => a.extend_from_slice(b),
            (Values::Char(a), Values::Char(b)) => a.extend_from_slice(b),
            (Values::Short(a), Values::Short(b)) => a.extend_from_slice(b),
            (Values::Int(a), Values::Int(b)) => a.extend_from_slice(b),
            (Values::Float(a), Values::Float(b)) => a.extend_from_slice(b),
            (Values::Double(a), Values::Double(b)) => a.extend_from_slice(b),
            (Values::UByte(a), Values::UByte(b)) => a.extend_from_slice(b),
            (Values::UShort(a), Values::UShort(b)) => a.extend_from_slice(b),
            (Values::UInt(a), Values::UInt(b)) => a.extend_from_slice(b),
            (Values::Int64(a), Values::Int64(b)) => a.extend_from_slice(b),
            (Values::UInt64(a), Values::UInt64(b)) => a.extend_from_slice(b),
            (Values::String(a), Values::String(b)) => a.extend_from_slice(b),
            (Values::Vlen(a), Values::Vlen(b)) => a.extend_from_slice(b),
            (Values::Opaque { size: s, bytes: a }, Values::Opaque { size: t, bytes: b })
                if s == t =>
            {
                a.extend_from_slice(b)
            }
            (Values::Compound { len: n, fields: a }, Values::Compound { len: m, fields: b })
                if a.len() == b.len() =>
            {
                a.iter_mut().zip(b).for_each(|(x, y)| x.extend_from(y));
                *n += m;
            }
            (a, b) => panic!("extend_from: {} into {}", b.dtype(), a.dtype()),
        }
    }

    /// Appends values decoded from `bytes` (fixed-width types only), in
    /// big-endian order when `big_endian`, else little-endian. A trailing
    /// partial value is ignored; callers check lengths first.
    ///
    /// # Panics
    /// For `string` and user-typed values, which have no fixed-width encoding here.
    pub fn extend_from_bytes(&mut self, bytes: &[u8], big_endian: bool) {
        fixed_width_codec!(self, bytes, big_endian,
            Byte: i8, Short: i16, Int: i32, Float: f32, Double: f64,
            UByte: u8, UShort: u16, UInt: u32, Int64: i64, UInt64: u64)
    }

    /// Decodes `bytes` as values of `dtype` (fixed-width types only).
    pub fn from_bytes(dtype: DataType, bytes: &[u8], big_endian: bool) -> Values {
        let n = dtype.size().map_or(0, |s| bytes.len() / s);
        let mut v = Values::with_capacity(dtype, n);
        v.extend_from_bytes(bytes, big_endian);
        v
    }

    /// Appends the values' fixed-width encoding to `out`.
    ///
    /// # Panics
    /// For `string` and user-typed values, which have no fixed-width encoding here.
    pub fn write_bytes(&self, out: &mut Vec<u8>, big_endian: bool) {
        macro_rules! put {
            ($v:expr) => {{
                out.reserve(std::mem::size_of_val(&$v[..]));
                for x in $v.iter() {
                    if big_endian {
                        out.extend_from_slice(&x.to_be_bytes());
                    } else {
                        out.extend_from_slice(&x.to_le_bytes());
                    }
                }
            }};
        }
        match self {
            Values::Byte(v) => put!(v),
            Values::Char(v) | Values::UByte(v) => out.extend_from_slice(v),
            Values::Short(v) => put!(v),
            Values::Int(v) => put!(v),
            Values::Float(v) => put!(v),
            Values::Double(v) => put!(v),
            Values::UShort(v) => put!(v),
            Values::UInt(v) => put!(v),
            Values::Int64(v) => put!(v),
            Values::UInt64(v) => put!(v),
            other => panic!("write_bytes: {} values have no fixed width", other.dtype()),
        }
    }

    /// The values' fixed-width encoding.
    pub fn to_bytes(&self, big_endian: bool) -> Vec<u8> {
        let mut out = Vec::new();
        self.write_bytes(&mut out, big_endian);
        out
    }

    /// True when the value at `index` equals the first value of `other`,
    /// comparing floating-point values bit for bit (so NaN fill values match).
    pub fn same_value_at(&self, index: usize, other: &Values) -> bool {
        match (self, other) {
            (Values::Float(a), Values::Float(b)) => a[index].to_bits() == b[0].to_bits(),
            (Values::Double(a), Values::Double(b)) => a[index].to_bits() == b[0].to_bits(),
            _ => self.get(index).as_ref() == other.get(0).as_ref(),
        }
    }
}

impl DataType {
    /// netCDF's default fill value for the type, as a one-element vector
    /// (`NC_FILL_BYTE` ... `NC_FILL_STRING`, which is `""`, not null).
    ///
    /// # Panics
    /// For a user type, whose default the schema knows:
    /// [`Schema::default_fill`](crate::Schema::default_fill).
    pub fn default_fill(self) -> Values {
        match self {
            DataType::Byte => Values::Byte(vec![-127]),
            DataType::Char => Values::Char(vec![0]),
            DataType::Short => Values::Short(vec![-32767]),
            DataType::Int => Values::Int(vec![-2147483647]),
            DataType::Float => Values::Float(vec![f32::from_bits(0x7cf0_0000)]),
            DataType::Double => Values::Double(vec![9.969_209_968_386_869e36]),
            DataType::UByte => Values::UByte(vec![255]),
            DataType::UShort => Values::UShort(vec![65535]),
            DataType::UInt => Values::UInt(vec![4294967295]),
            DataType::Int64 => Values::Int64(vec![-9223372036854775806]),
            DataType::UInt64 => Values::UInt64(vec![18446744073709551614]),
            DataType::String => Values::strings([""]),
            DataType::User(_) => {
                panic!("DataType::default_fill of a user type: use Schema::default_fill")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_fills_match_the_spec_bytes() {
        // FILL_FLOAT = 7C F0 00 00, FILL_DOUBLE = 47 9E 00 .., FILL_INT64 = 80 .. 02
        assert_eq!(
            DataType::Float.default_fill().to_bytes(true),
            [0x7c, 0xf0, 0, 0]
        );
        assert_eq!(
            DataType::Double.default_fill().to_bytes(true),
            [0x47, 0x9e, 0, 0, 0, 0, 0, 0]
        );
        assert_eq!(
            DataType::Int64.default_fill().to_bytes(true),
            [0x80, 0, 0, 0, 0, 0, 0, 2]
        );
        assert_eq!(DataType::Short.default_fill().to_bytes(true), [0x80, 0x01]);
    }

    #[test]
    fn bytes_round_trip_both_orders() {
        let v = Values::Int(vec![1, -2, i32::MAX, i32::MIN]);
        for big in [true, false] {
            assert_eq!(Values::from_bytes(DataType::Int, &v.to_bytes(big), big), v);
        }
    }
}
