//! netCDF values as JSON: numbers with the shortest text that round-trips
//! exactly, `NaN` / `Infinity` as strings, text as strings.

use base64::Engine;
use nctk_model::Values;
use serde_json::Value;

use crate::json::carry_bytes;

/// A JSON number for a float, or `"NaN"`, `"Infinity"`, `"-Infinity"`.
pub fn float(x: f64) -> Value {
    if x.is_nan() {
        Value::from("NaN")
    } else if x.is_infinite() {
        Value::from(if x > 0.0 { "Infinity" } else { "-Infinity" })
    } else {
        Value::from(x)
    }
}

/// A float32 as JSON: its shortest decimal text, carried by the f64 of the
/// same text (so `0.1f32` is written `0.1`, not `0.10000000149011612`).
pub fn float32(x: f32) -> Value {
    if !x.is_finite() {
        return float(x as f64);
    }
    let text = format!("{x:e}");
    float(text.parse::<f64>().unwrap_or(x as f64))
}

/// Value `i` of a numeric vector as JSON.
pub fn number_at(v: &Values, i: usize) -> Value {
    match v {
        Values::Byte(x) => x[i].into(),
        Values::Short(x) => x[i].into(),
        Values::Int(x) => x[i].into(),
        Values::Int64(x) => x[i].into(),
        Values::UByte(x) | Values::Char(x) => x[i].into(),
        Values::UShort(x) => x[i].into(),
        Values::UInt(x) => x[i].into(),
        Values::UInt64(x) => x[i].into(),
        Values::Float(x) => float32(x[i]),
        Values::Double(x) => float(x[i]),
        // A null string as "": netCDF-C reads a list holding JSON's null
        // as the list's JSON text.
        Values::String(x) => Value::from(x[i].as_deref().unwrap_or_default()),
        // A type without a JSON form: the writer refuses its variables
        // (`plan`); an attribute of it is written as null.
        _ => Value::Null,
    }
}

/// Char values as text: bytes up to the first NUL, bytes that are not
/// UTF-8 carried as [`crate::json::RAW_BYTES`] code points.
pub fn char_text(bytes: &[u8]) -> String {
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    carry_bytes(&bytes[..end]).into_owned()
}

/// An attribute's value as NCZarr writes it: text as a string, one value
/// as a scalar, several as a list.
pub fn attribute(v: &Values) -> Value {
    match v {
        // Embedded NULs are kept; a lone NUL is CDL's empty text.
        Values::Char(b) if b.iter().all(|&c| c == 0) && b.len() <= 1 => Value::from(""),
        Values::Char(b) => Value::from(carry_bytes(b).into_owned()),
        Values::String(s) if s.len() == 1 => Value::from(s[0].as_deref().unwrap_or_default()),
        _ if v.len() == 1 => number_at(v, 0),
        _ => Value::Array((0..v.len()).map(|i| number_at(v, i)).collect()),
    }
}

/// The `fill_value` of a `.zarray` for a variable's fill value. `base64`
/// encodes byte-string fills as the Zarr spec says (pure Zarr); NCZarr
/// writes the text itself, as netCDF-C does.
pub fn fill_value(fill: &Values, base64: bool) -> Value {
    let text = |bytes: &[u8]| {
        if base64 {
            Value::from(base64::engine::general_purpose::STANDARD.encode(bytes))
        } else {
            Value::from(char_text(bytes))
        }
    };
    match fill {
        Values::Char(b) => text(if b.first() == Some(&0) { &[] } else { &b[..1] }),
        // Zarr has no null fill value for strings: a null one is "".
        Values::String(s) => text(s[0].as_deref().unwrap_or_default().as_bytes()),
        _ => number_at(fill, 0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shortest_round_trip() {
        assert_eq!(float32(0.1).to_string(), "0.1");
        assert_eq!(
            float32(f32::from_bits(0x7cf0_0000)).to_string(),
            "9.96921e+36"
        );
        assert_eq!(
            float(9.969_209_968_386_869e36).to_string(),
            "9.969209968386869e+36"
        );
        assert_eq!(float(1e-10).to_string(), "1e-10");
        assert_eq!(float(f64::NAN), Value::from("NaN"));
        assert_eq!(float32(f32::NEG_INFINITY), Value::from("-Infinity"));
        assert_eq!(float(1.0).to_string(), "1.0");
    }
}
