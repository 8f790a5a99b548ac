//! Lenient readers for numcodecs JSON fields.
//!
//! numcodecs writes numbers as JSON numbers; netCDF-C's NCZarr plugins write
//! some of them as strings (`"level": "9"`, `"elementsize": "0"`). Both are
//! accepted, as netCDF-C's own `NCJcvt` does.

use serde_json::{Map, Value};

use crate::error::{CodecError, Result};

/// The configuration object of one codec.
pub(crate) struct Config<'a> {
    pub codec: &'static str,
    map: &'a Map<String, Value>,
}

impl<'a> Config<'a> {
    pub fn new(codec: &'static str, map: &'a Map<String, Value>) -> Self {
        Config { codec, map }
    }

    fn get(&self, key: &str) -> Option<&'a Value> {
        match self.map.get(key) {
            None | Some(Value::Null) => None,
            Some(v) => Some(v),
        }
    }

    /// An integer field; `None` when absent or null.
    pub fn int(&self, key: &str) -> Result<Option<i64>> {
        let Some(v) = self.get(key) else {
            return Ok(None);
        };
        let n = match v {
            Value::Number(n) => n.as_i64().or_else(|| {
                n.as_f64()
                    .filter(|f| f.fract() == 0.0 && f.abs() < 9e15)
                    .map(|f| f as i64)
            }),
            Value::String(s) => s.trim().parse::<i64>().ok(),
            Value::Bool(b) => Some(i64::from(*b)),
            _ => None,
        };
        n.map(Some).ok_or_else(|| {
            CodecError::invalid_config(self.codec, format!("field {key:?} is not an integer: {v}"))
        })
    }

    /// An integer field with a default, checked against an inclusive range.
    pub fn int_in(&self, key: &str, default: i64, lo: i64, hi: i64) -> Result<i64> {
        let v = self.int(key)?.unwrap_or(default);
        if v < lo || v > hi {
            return Err(CodecError::invalid_config(
                self.codec,
                format!("field {key:?} = {v} is outside {lo}..={hi}"),
            ));
        }
        Ok(v)
    }

    /// A floating-point field; `None` when absent or null.
    pub fn float(&self, key: &str) -> Result<Option<f64>> {
        let Some(v) = self.get(key) else {
            return Ok(None);
        };
        let f = match v {
            Value::Number(n) => n.as_f64(),
            Value::String(s) => s.trim().parse::<f64>().ok(),
            _ => None,
        };
        f.map(Some).ok_or_else(|| {
            CodecError::invalid_config(self.codec, format!("field {key:?} is not a number: {v}"))
        })
    }

    /// A string field; `None` when absent or null.
    pub fn string(&self, key: &str) -> Result<Option<&'a str>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(v) => Err(CodecError::invalid_config(
                self.codec,
                format!("field {key:?} is not a string: {v}"),
            )),
        }
    }

    /// A required string field.
    pub fn required_string(&self, key: &str) -> Result<&'a str> {
        self.string(key)?
            .ok_or_else(|| CodecError::invalid_config(self.codec, format!("missing field {key:?}")))
    }

    /// A boolean field with a default (numbers 0/1 accepted).
    pub fn bool_or(&self, key: &str, default: bool) -> Result<bool> {
        match self.get(key) {
            None => Ok(default),
            Some(Value::Bool(b)) => Ok(*b),
            Some(_) => Ok(self.int(key)?.unwrap_or(0) != 0),
        }
    }
}

/// Builds a JSON object from key/value pairs, keeping their order.
pub(crate) fn object<const N: usize>(pairs: [(&str, Value); N]) -> Value {
    let mut m = Map::new();
    for (k, v) in pairs {
        m.insert(k.to_string(), v);
    }
    Value::Object(m)
}

/// A JSON number for a float that prints as an integer when it is one, the
/// way Python's `json` prints an `int` scale or offset.
pub(crate) fn number(f: f64, was_int: bool) -> Value {
    if was_int && f.fract() == 0.0 && f.abs() < 9e15 {
        Value::from(f as i64)
    } else {
        serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)
    }
}
