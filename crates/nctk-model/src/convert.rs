//! netCDF's type conversion rules.
//!
//! Numeric values convert between every numeric type; a value that does not
//! fit the target type is a [`ModelError::Range`] (netCDF-C's `NC_ERANGE`).
//! Fractions are truncated toward zero when converting to an integer type, as
//! C does. `char` converts only to and from text and raw bytes (`u8`/`i8`);
//! `string` only to itself ([`ModelError::IncompatibleTypes`], `NC_ECHAR`).

use crate::{DataType, ModelError, NativeMut, NativeRef, Values};

/// Evaluates `$body` with `$v` bound to the numeric slice inside `$values`;
/// `$other` handles char and string.
macro_rules! with_numeric {
    ($values:expr, $v:ident => $body:expr, $other:pat => $else:expr) => {
        match $values {
            Values::Byte($v) => $body,
            Values::Short($v) => $body,
            Values::Int($v) => $body,
            Values::Float($v) => $body,
            Values::Double($v) => $body,
            Values::UByte($v) => $body,
            Values::UShort($v) => $body,
            Values::UInt($v) => $body,
            Values::Int64($v) => $body,
            Values::UInt64($v) => $body,
            $other => $else,
        }
    };
}

/// A number in a form wide enough to hold any netCDF numeric value exactly.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Num {
    /// Any integer value.
    Int(i128),
    /// Any floating-point value.
    Float(f64),
}

impl std::fmt::Display for Num {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Num::Int(i) => write!(f, "{i}"),
            Num::Float(x) => write!(f, "{x}"),
        }
    }
}

/// A Rust type that netCDF values can be read into and written from.
pub trait NcValue: Copy + Send + Sync + 'static {
    /// The netCDF type that stores this Rust type without conversion.
    const NATIVE: DataType;
    /// The value as a [`Num`].
    fn to_num(self) -> Num;
    /// The value for `n`, or `None` if `n` is out of range.
    fn from_num(n: Num) -> Option<Self>;
    /// Moves a vector of this type into [`Values`] of the native type.
    fn into_values(v: Vec<Self>) -> Values;
    /// Takes the vector out of `values` when it holds this exact type.
    fn take_native(values: Values) -> Result<Vec<Self>, Values>;
    /// Borrows the slice inside `values` when it holds this exact type.
    fn as_native(values: &Values) -> Option<&[Self]>;
    /// A caller's slice of this type as a buffer to read into.
    fn native_mut(slice: &mut [Self]) -> NativeMut<'_>;
    /// A caller's slice of this type as values to write from.
    fn native_ref(slice: &[Self]) -> NativeRef<'_>;
}

macro_rules! int_value {
    ($t:ty, $dtype:ident) => {
        impl NcValue for $t {
            const NATIVE: DataType = DataType::$dtype;
            fn to_num(self) -> Num {
                Num::Int(self as i128)
            }
            fn from_num(n: Num) -> Option<Self> {
                match n {
                    Num::Int(i) => <$t>::try_from(i).ok(),
                    // Bounds are powers of two, exact in f64; MAX as f64 + 1
                    // rounds to 2^bits for 64-bit types, which is the right
                    // exclusive bound there too.
                    Num::Float(x) => {
                        (x >= <$t>::MIN as f64 && x < <$t>::MAX as f64 + 1.0).then(|| x as $t)
                    }
                }
            }
            fn into_values(v: Vec<Self>) -> Values {
                Values::$dtype(v)
            }
            fn take_native(values: Values) -> Result<Vec<Self>, Values> {
                match values {
                    Values::$dtype(v) => Ok(v),
                    other => Err(other),
                }
            }
            fn as_native(values: &Values) -> Option<&[Self]> {
                match values {
                    Values::$dtype(v) => Some(v),
                    _ => None,
                }
            }
            fn native_mut(slice: &mut [Self]) -> NativeMut<'_> {
                NativeMut::$dtype(slice)
            }
            fn native_ref(slice: &[Self]) -> NativeRef<'_> {
                NativeRef::$dtype(slice)
            }
        }
    };
}

int_value!(i8, Byte);
int_value!(i16, Short);
int_value!(i32, Int);
int_value!(u8, UByte);
int_value!(u16, UShort);
int_value!(u32, UInt);
int_value!(i64, Int64);
int_value!(u64, UInt64);

impl NcValue for f32 {
    const NATIVE: DataType = DataType::Float;
    fn to_num(self) -> Num {
        Num::Float(self as f64)
    }
    fn from_num(n: Num) -> Option<Self> {
        match n {
            Num::Int(i) => Some(i as f32),
            Num::Float(x) => (!x.is_finite() || x.abs() <= f32::MAX as f64).then_some(x as f32),
        }
    }
    fn into_values(v: Vec<Self>) -> Values {
        Values::Float(v)
    }
    fn take_native(values: Values) -> Result<Vec<Self>, Values> {
        match values {
            Values::Float(v) => Ok(v),
            other => Err(other),
        }
    }
    fn as_native(values: &Values) -> Option<&[Self]> {
        match values {
            Values::Float(v) => Some(v),
            _ => None,
        }
    }
    fn native_mut(slice: &mut [Self]) -> NativeMut<'_> {
        NativeMut::Float(slice)
    }
    fn native_ref(slice: &[Self]) -> NativeRef<'_> {
        NativeRef::Float(slice)
    }
}

impl NcValue for f64 {
    const NATIVE: DataType = DataType::Double;
    fn to_num(self) -> Num {
        Num::Float(self)
    }
    fn from_num(n: Num) -> Option<Self> {
        Some(match n {
            Num::Int(i) => i as f64,
            Num::Float(x) => x,
        })
    }
    fn into_values(v: Vec<Self>) -> Values {
        Values::Double(v)
    }
    fn take_native(values: Values) -> Result<Vec<Self>, Values> {
        match values {
            Values::Double(v) => Ok(v),
            other => Err(other),
        }
    }
    fn as_native(values: &Values) -> Option<&[Self]> {
        match values {
            Values::Double(v) => Some(v),
            _ => None,
        }
    }
    fn native_mut(slice: &mut [Self]) -> NativeMut<'_> {
        NativeMut::Double(slice)
    }
    fn native_ref(slice: &[Self]) -> NativeRef<'_> {
        NativeRef::Double(slice)
    }
}

fn map_nums<S: NcValue, T: NcValue>(src: &[S]) -> Result<Vec<T>, ModelError> {
    src.iter()
        .enumerate()
        .map(|(index, &x)| {
            T::from_num(x.to_num()).ok_or_else(|| ModelError::Range {
                index,
                value: x.to_num().to_string(),
                to: T::NATIVE,
            })
        })
        .collect()
}

/// Converts `values` to a vector of `T` with netCDF's rules.
///
/// Char values convert to `u8` and `i8` (raw bytes); any other conversion
/// involving char or string fails with [`ModelError::IncompatibleTypes`].
pub fn values_to_vec<T: NcValue>(values: Values) -> Result<Vec<T>, ModelError> {
    let values = match T::take_native(values) {
        Ok(v) => return Ok(v),
        Err(values) => values,
    };
    let incompatible = |from: DataType| ModelError::IncompatibleTypes {
        from,
        to: T::NATIVE,
    };
    with_numeric!(&values, v => map_nums(v), other => match other {
        Values::Char(bytes) => match T::NATIVE {
            // Raw bytes: reinterpret, never a range error.
            DataType::UByte => Ok(bytes.iter().map(|&b| T::from_num(Num::Int(b as i128)).expect("u8")).collect()),
            DataType::Byte => Ok(bytes.iter().map(|&b| T::from_num(Num::Int((b as i8) as i128)).expect("i8")).collect()),
            _ => Err(incompatible(DataType::Char)),
        },
        _ => Err(incompatible(other.dtype())),
    })
}

/// Converts a slice of `T` to [`Values`] of type `to` with netCDF's rules.
///
/// `u8` and `i8` convert to char (raw bytes); numbers never convert to string.
pub fn vec_to_values<T: NcValue>(src: &[T], to: DataType) -> Result<Values, ModelError> {
    if to == T::NATIVE {
        return Ok(T::into_values(src.to_vec()));
    }
    let incompatible = || ModelError::IncompatibleTypes {
        from: T::NATIVE,
        to,
    };
    Ok(match to {
        DataType::Char => match T::NATIVE {
            DataType::UByte | DataType::Byte => Values::Char(
                src.iter()
                    .map(|x| match x.to_num() {
                        Num::Int(i) => i as u8,
                        Num::Float(f) => f as u8,
                    })
                    .collect(),
            ),
            _ => return Err(incompatible()),
        },
        DataType::String | DataType::User(_) => return Err(incompatible()),
        DataType::Byte => Values::Byte(map_nums(src)?),
        DataType::Short => Values::Short(map_nums(src)?),
        DataType::Int => Values::Int(map_nums(src)?),
        DataType::Float => Values::Float(map_nums(src)?),
        DataType::Double => Values::Double(map_nums(src)?),
        DataType::UByte => Values::UByte(map_nums(src)?),
        DataType::UShort => Values::UShort(map_nums(src)?),
        DataType::UInt => Values::UInt(map_nums(src)?),
        DataType::Int64 => Values::Int64(map_nums(src)?),
        DataType::UInt64 => Values::UInt64(map_nums(src)?),
    })
}

/// Converts `values` to type `to` with netCDF's rules.
pub fn convert(values: &Values, to: DataType) -> Result<Values, ModelError> {
    if values.dtype() == to {
        return Ok(values.clone());
    }
    with_numeric!(values, v => vec_to_values(v, to), other => match (other, to) {
        (Values::Char(b), DataType::UByte) => Ok(Values::UByte(b.clone())),
        (Values::Char(b), DataType::Byte) => Ok(Values::Byte(b.iter().map(|&x| x as i8).collect())),
        _ => Err(ModelError::IncompatibleTypes { from: values.dtype(), to }),
    })
}

/// Reads the value at `index` as a [`Num`]; `None` for char and string.
pub fn num_at(values: &Values, index: usize) -> Option<Num> {
    with_numeric!(values, v => v.get(index).map(|x| x.to_num()), _ => None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn in_range_values_convert_and_out_of_range_fail() {
        let v = Values::Double(vec![1.9, -128.0, 127.0]);
        assert_eq!(values_to_vec::<i8>(v).unwrap(), vec![1, -128, 127]);
        let err = values_to_vec::<i8>(Values::Double(vec![0.0, 128.0])).unwrap_err();
        assert!(matches!(err, ModelError::Range { index: 1, .. }));
        assert!(values_to_vec::<u8>(Values::Int(vec![-1])).is_err());
        assert!(values_to_vec::<i32>(Values::Double(vec![f64::NAN])).is_err());
        assert!(values_to_vec::<f32>(Values::Double(vec![1e39])).is_err());
        assert_eq!(
            values_to_vec::<f32>(Values::Double(vec![f64::INFINITY])).unwrap()[0],
            f32::INFINITY
        );
        assert!(values_to_vec::<i64>(Values::Double(vec![2f64.powi(63)])).is_err());
        assert_eq!(
            values_to_vec::<u64>(Values::Int64(vec![5])).unwrap(),
            vec![5]
        );
    }

    #[test]
    fn char_converts_only_to_bytes() {
        assert_eq!(values_to_vec::<u8>(Values::text("A")).unwrap(), vec![65]);
        assert!(values_to_vec::<f32>(Values::text("A")).is_err());
        assert!(vec_to_values(&[1.0f32], DataType::Char).is_err());
        assert_eq!(
            vec_to_values(&[65u8], DataType::Char).unwrap(),
            Values::text("A")
        );
        assert!(convert(&Values::Int(vec![1]), DataType::String).is_err());
    }

    #[test]
    fn every_numeric_pair_round_trips_small_values() {
        for from in DataType::ALL.into_iter().filter(|t| t.is_numeric()) {
            let src = convert(&Values::Byte(vec![0, 1, 100]), from).unwrap();
            for to in DataType::ALL.into_iter().filter(|t| t.is_numeric()) {
                let there = convert(&src, to).unwrap();
                assert_eq!(convert(&there, from).unwrap(), src, "{from} -> {to}");
            }
        }
    }
}
