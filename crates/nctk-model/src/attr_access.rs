//! Reading attribute values without matching on [`Values`]: text, the first
//! number, all numbers, and `TryFrom<&Attribute>` for `String`, `f64`, `i64`
//! and `Vec<f64>`. Numbers convert with netCDF's rules ([`crate::convert`]).

use crate::convert::{self, NcValue};
use crate::{Attribute, DataType, ModelError, Values};

/// Why an attribute cannot be read as the Rust type asked for. Every
/// variant names the attribute and the type it holds.
#[derive(Debug, thiserror::Error, Clone, PartialEq)]
#[non_exhaustive]
pub enum AttributeError {
    /// The attribute's type does not convert to the one asked for (text is
    /// never a number, a number never text).
    #[error("attribute {name:?} has type {found}, which cannot be read as {wanted}")]
    Type {
        /// The attribute's name.
        name: String,
        /// The attribute's type.
        found: DataType,
        /// The Rust type asked for.
        wanted: &'static str,
    },
    /// One value was asked for, but the attribute holds another count.
    #[error("attribute {name:?} ({found}) holds {len} values, not one {wanted}")]
    Count {
        /// The attribute's name.
        name: String,
        /// The attribute's type.
        found: DataType,
        /// How many values it holds.
        len: usize,
        /// The Rust type asked for.
        wanted: &'static str,
    },
    /// `char` text that is not UTF-8 (netCDF fixes no encoding for `char`).
    #[error("attribute {name:?} ({found}) is not UTF-8 text (invalid byte at {valid_up_to})")]
    NotUtf8 {
        /// The attribute's name.
        name: String,
        /// The attribute's type (`char`).
        found: DataType,
        /// Bytes of valid UTF-8 before the first invalid one.
        valid_up_to: usize,
    },
    /// A null string (`NIL`), which is no text (not even `""`).
    #[error("attribute {name:?} is a null string (NIL)")]
    Null {
        /// The attribute's name.
        name: String,
    },
    /// The value does not fit the type asked for (netCDF's `NC_ERANGE`).
    #[error("attribute {name:?} ({found}): {source}")]
    Range {
        /// The attribute's name.
        name: String,
        /// The attribute's type.
        found: DataType,
        /// The range error from netCDF's conversion rules.
        source: ModelError,
    },
}

/// The text of `char` values up to the first NUL, or the bytes' UTF-8 error.
fn char_text(bytes: &[u8]) -> Result<&str, std::str::Utf8Error> {
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    std::str::from_utf8(&bytes[..end])
}

impl Values {
    /// The values as text: `char` values up to the first NUL (as netCDF-C
    /// and netCDF4-python read text attributes), or a `string` vector
    /// holding exactly one string. `None` for numbers, for `char` bytes that
    /// are not UTF-8, for a null string, and for zero or several strings.
    ///
    /// ```
    /// use nctk_model::Values;
    /// assert_eq!(Values::text("kelvin\0\0").as_str(), Some("kelvin"));
    /// assert_eq!(Values::Double(vec![1.0]).as_str(), None);
    /// ```
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Values::Char(bytes) => char_text(bytes).ok(),
            Values::String(strings) if strings.len() == 1 => strings[0].as_deref(),
            _ => None,
        }
    }

    /// The first value of any numeric type as `f64`; `None` for `char`,
    /// `string` and empty vectors.
    ///
    /// ```
    /// use nctk_model::Values;
    /// assert_eq!(Values::Short(vec![-3, 7]).as_f64(), Some(-3.0));
    /// assert_eq!(Values::text("3").as_f64(), None);
    /// ```
    pub fn as_f64(&self) -> Option<f64> {
        convert::num_at(self, 0).and_then(f64::from_num)
    }

    /// Every value as `f64` when the type is numeric; `None` for `char` and
    /// `string`. (64-bit integers beyond 2^53 round to the nearest `f64`.)
    ///
    /// ```
    /// use nctk_model::Values;
    /// assert_eq!(Values::Int(vec![1, 2]).as_f64_vec(), Some(vec![1.0, 2.0]));
    /// ```
    pub fn as_f64_vec(&self) -> Option<Vec<f64>> {
        if !self.dtype().is_numeric() {
            return None;
        }
        convert::values_to_vec(self.clone()).ok()
    }
}

impl Attribute {
    /// The attribute as text; see [`Values::as_str`] (`None` for numbers and
    /// for `char` bytes that are not UTF-8).
    ///
    /// ```
    /// use nctk_model::{Attribute, Values};
    /// let units = Attribute::new("units", Values::text("K"));
    /// assert_eq!(units.as_str(), Some("K"));
    /// ```
    pub fn as_str(&self) -> Option<&str> {
        self.value.as_str()
    }

    /// The first value of a numeric attribute as `f64`; see [`Values::as_f64`].
    ///
    /// ```
    /// use nctk_model::{Attribute, Values};
    /// let scale = Attribute::new("scale_factor", Values::Float(vec![0.5]));
    /// assert_eq!(scale.as_f64(), Some(0.5));
    /// ```
    pub fn as_f64(&self) -> Option<f64> {
        self.value.as_f64()
    }

    /// Every value of a numeric attribute as `f64`; see [`Values::as_f64_vec`].
    ///
    /// ```
    /// use nctk_model::{Attribute, Values};
    /// let range = Attribute::new("valid_range", Values::Short(vec![-10, 10]));
    /// assert_eq!(range.as_f64_vec(), Some(vec![-10.0, 10.0]));
    /// ```
    pub fn as_f64_vec(&self) -> Option<Vec<f64>> {
        self.value.as_f64_vec()
    }

    /// The number of values (for `char` text: bytes, NULs included).
    ///
    /// ```
    /// use nctk_model::{Attribute, Values};
    /// assert_eq!(Attribute::new("a", Values::Int(vec![1, 2, 3])).len(), 3);
    /// ```
    pub fn len(&self) -> usize {
        self.value.len()
    }

    /// True when the attribute holds no values.
    ///
    /// ```
    /// use nctk_model::{Attribute, Values};
    /// assert!(Attribute::new("empty", Values::text("")).is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.value.is_empty()
    }

    /// The attribute's netCDF type.
    ///
    /// ```
    /// use nctk_model::{Attribute, DataType, Values};
    /// assert_eq!(Attribute::new("a", Values::text("x")).dtype(), DataType::Char);
    /// ```
    pub fn dtype(&self) -> DataType {
        self.user_type
            .map_or_else(|| self.value.dtype(), DataType::User)
    }

    fn type_error(&self, wanted: &'static str) -> AttributeError {
        AttributeError::Type {
            name: self.name.clone(),
            found: self.dtype(),
            wanted,
        }
    }

    /// The one numeric value, converted to `T` with netCDF's range rules.
    fn single<T: NcValue>(&self, wanted: &'static str) -> Result<T, AttributeError> {
        if !self.dtype().is_numeric() {
            return Err(self.type_error(wanted));
        }
        if self.len() != 1 {
            return Err(AttributeError::Count {
                name: self.name.clone(),
                found: self.dtype(),
                len: self.len(),
                wanted,
            });
        }
        let converted = convert::values_to_vec::<T>(self.value.clone()).map_err(|source| {
            AttributeError::Range {
                name: self.name.clone(),
                found: self.dtype(),
                source,
            }
        })?;
        Ok(converted[0])
    }
}

/// Text attributes: `char` text up to the first NUL, or one `string`.
///
/// ```
/// use nctk_model::{Attribute, Values};
/// let title = Attribute::new("title", Values::text("run 1"));
/// assert_eq!(String::try_from(&title).unwrap(), "run 1");
/// assert!(String::try_from(&Attribute::new("n", Values::Int(vec![1]))).is_err());
/// ```
impl TryFrom<&Attribute> for String {
    type Error = AttributeError;

    fn try_from(attr: &Attribute) -> Result<String, AttributeError> {
        match &attr.value {
            Values::Char(bytes) => {
                char_text(bytes)
                    .map(str::to_owned)
                    .map_err(|e| AttributeError::NotUtf8 {
                        name: attr.name.clone(),
                        found: DataType::Char,
                        valid_up_to: e.valid_up_to(),
                    })
            }
            Values::String(strings) if strings.len() == 1 => {
                strings[0].clone().ok_or_else(|| AttributeError::Null {
                    name: attr.name.clone(),
                })
            }
            Values::String(strings) => Err(AttributeError::Count {
                name: attr.name.clone(),
                found: DataType::String,
                len: strings.len(),
                wanted: "String",
            }),
            _ => Err(attr.type_error("String")),
        }
    }
}

/// One numeric value of any type (several values are an error; use
/// `Vec<f64>` or [`Attribute::as_f64`] for the first).
///
/// ```
/// use nctk_model::{Attribute, Values};
/// let fill = Attribute::new("_FillValue", Values::Short(vec![-999]));
/// assert_eq!(f64::try_from(&fill).unwrap(), -999.0);
/// ```
impl TryFrom<&Attribute> for f64 {
    type Error = AttributeError;

    fn try_from(attr: &Attribute) -> Result<f64, AttributeError> {
        attr.single("f64")
    }
}

/// One numeric value that fits `i64` with netCDF's rules (fractions
/// truncate toward zero; NaN and values out of range are errors).
///
/// ```
/// use nctk_model::{Attribute, Values};
/// let n = Attribute::new("n", Values::UInt(vec![7]));
/// assert_eq!(i64::try_from(&n).unwrap(), 7);
/// assert!(i64::try_from(&Attribute::new("big", Values::UInt64(vec![u64::MAX]))).is_err());
/// ```
impl TryFrom<&Attribute> for i64 {
    type Error = AttributeError;

    fn try_from(attr: &Attribute) -> Result<i64, AttributeError> {
        attr.single("i64")
    }
}

/// Every value of a numeric attribute as `f64`.
///
/// ```
/// use nctk_model::{Attribute, Values};
/// let r = Attribute::new("valid_range", Values::Float(vec![0.0, 1.5]));
/// assert_eq!(Vec::<f64>::try_from(&r).unwrap(), vec![0.0, 1.5]);
/// ```
impl TryFrom<&Attribute> for Vec<f64> {
    type Error = AttributeError;

    fn try_from(attr: &Attribute) -> Result<Vec<f64>, AttributeError> {
        attr.as_f64_vec().ok_or_else(|| attr.type_error("Vec<f64>"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attr(value: Values) -> Attribute {
        Attribute::new("a", value)
    }

    /// Text stops at the first NUL, as netCDF-C's `nc_get_att_text` users
    /// and netCDF4-python read it; bytes that are not UTF-8 are no text.
    #[test]
    fn text_stops_at_nul_and_refuses_bad_utf8() {
        assert_eq!(attr(Values::Char(b"ab\0cd".to_vec())).as_str(), Some("ab"));
        let bad = attr(Values::Char(vec![b'x', 0xff]));
        assert_eq!(bad.as_str(), None);
        assert!(matches!(
            String::try_from(&bad),
            Err(AttributeError::NotUtf8 { valid_up_to: 1, .. })
        ));
        let two = attr(Values::strings(["a", "b"]));
        assert_eq!(two.as_str(), None);
        assert!(matches!(
            String::try_from(&two),
            Err(AttributeError::Count { len: 2, .. })
        ));
        let null = attr(Values::String(vec![None]));
        assert_eq!(null.as_str(), None);
        assert!(matches!(
            String::try_from(&null),
            Err(AttributeError::Null { .. })
        ));
    }

    /// Numbers follow the conversion rules of `convert`: the same results
    /// and the same range errors.
    #[test]
    fn numbers_follow_the_conversion_rules() {
        for from in DataType::ALL.into_iter().filter(|t| t.is_numeric()) {
            let v = convert::convert(&Values::Byte(vec![5, 100]), from).unwrap();
            let a = attr(v.clone());
            assert_eq!(a.as_f64_vec(), convert::values_to_vec(v.clone()).ok());
            assert_eq!(a.as_f64(), a.as_f64_vec().map(|v| v[0]));
            assert_eq!(a.as_str(), None);
            assert!(matches!(
                f64::try_from(&a),
                Err(AttributeError::Count { len: 2, .. })
            ));
        }
        let nan = attr(Values::Double(vec![f64::NAN]));
        let err = i64::try_from(&nan).unwrap_err();
        let expected = convert::values_to_vec::<i64>(nan.value.clone()).unwrap_err();
        assert_eq!(
            err,
            AttributeError::Range {
                name: "a".into(),
                found: DataType::Double,
                source: expected
            }
        );
        assert_eq!(i64::try_from(&attr(Values::Float(vec![-2.7]))), Ok(-2));
        let text = attr(Values::text("1"));
        assert_eq!(text.as_f64(), None);
        assert!(matches!(
            Vec::<f64>::try_from(&text),
            Err(AttributeError::Type {
                found: DataType::Char,
                ..
            })
        ));
        assert!(attr(Values::Int(vec![])).as_f64().is_none());
    }
}
