//! Lenient JSON for Zarr metadata.
//!
//! Python's `json` module writes the bare tokens `NaN`, `Infinity` and
//! `-Infinity`, which are not JSON. They are accepted on read and turned
//! into the strings `"NaN"`, `"Infinity"` and `"-Infinity"`, the spelling the
//! Zarr v2 spec uses for fill values. Attributes ([`parse_attrs`]) keep
//! them apart from real strings: there a bare token is a number (netCDF-C
//! reads `"_FillValue": NaN` as a double, `"x": "NaN"` as text).
//!
//! Attribute text may also hold bytes that are not UTF-8 (Latin-1 written
//! by some tool): netCDF-C 4.9.0 passes them through into the attribute's
//! text. [`parse_attrs`] carries each such byte inside a JSON string as one
//! code point of [`RAW_BYTES`]; [`raw_bytes`] turns a string back into the
//! bytes of the file. A name holding one is refused, as netCDF-C refuses it.

use std::borrow::Cow;
use std::ops::RangeInclusive;

use serde_json::Value;

use crate::ZarrError;

/// Parses metadata text, accepting Python's bare `NaN` / `Infinity` tokens.
pub fn parse(key: &str, text: &[u8]) -> Result<Value, ZarrError> {
    parse_with(key, text, "")
}

/// The prefix marking a string that stood for a bare `NaN`, `Infinity` or
/// `-Infinity` token in an attribute object (see [`parse_attrs`]).
pub const BARE_TOKEN: &str = "\u{0}";

/// The number a bare token stood for, if `s` is one (marked by
/// [`parse_attrs`]).
pub fn bare_token(s: &str) -> Option<f64> {
    match s.strip_prefix(BARE_TOKEN)? {
        "NaN" => Some(f64::NAN),
        "Infinity" => Some(f64::INFINITY),
        "-Infinity" => Some(f64::NEG_INFINITY),
        _ => None,
    }
}

/// Parses attribute text (`.zattrs`) as [`parse`] does, but a bare token
/// becomes a string marked with [`BARE_TOKEN`], so that attribute typing
/// can tell `NaN` (a number) from `"NaN"` (text), and a byte that is not
/// UTF-8 becomes a code point of [`RAW_BYTES`] (see [`raw_bytes`]); in a
/// name (an object's key) it is an error naming `key`.
pub fn parse_attrs(key: &str, text: &[u8]) -> Result<Value, ZarrError> {
    let value = parse_with(key, &carry_raw_bytes(key, text)?, BARE_TOKEN)?;
    check_names(key, &value)?;
    Ok(value)
}

/// The code points that stand for the bytes 0x00..=0xFF of attribute text
/// that is not UTF-8 (the last 256 of plane 16, private use).
pub const RAW_BYTES: RangeInclusive<char> = '\u{10FF00}'..='\u{10FFFF}';

/// True when `s` holds a byte that was not UTF-8 in the file.
pub fn has_raw_bytes(s: &str) -> bool {
    s.chars().any(|c| RAW_BYTES.contains(&c))
}

/// The bytes of the file a string parsed by [`parse_attrs`] stands for:
/// its UTF-8, with each [`RAW_BYTES`] code point back as its byte.
pub fn raw_bytes(s: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    for c in s.chars() {
        if RAW_BYTES.contains(&c) {
            out.push((u32::from(c) - u32::from(*RAW_BYTES.start())) as u8);
        } else {
            out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
        }
    }
    out
}

/// `text` with each byte that is not UTF-8 replaced by its [`RAW_BYTES`]
/// code point; unchanged when it is UTF-8. Text that is not UTF-8 and
/// already holds such code points is an error (they could not be told apart).
fn carry_raw_bytes<'a>(key: &str, text: &'a [u8]) -> Result<Cow<'a, [u8]>, ZarrError> {
    if std::str::from_utf8(text).is_ok() {
        return Ok(Cow::Borrowed(text));
    }
    if text.utf8_chunks().any(|c| has_raw_bytes(c.valid())) {
        return Err(ZarrError::Metadata {
            key: key.to_string(),
            reason: "text that is not UTF-8 also holds code points U+10FF00..U+10FFFF, \
                     which nctk uses to carry such bytes"
                .into(),
        });
    }
    Ok(Cow::Owned(carry_bytes(text).into_owned().into_bytes()))
}

/// Text standing for `bytes`: their UTF-8 runs as they are, each byte that
/// is not UTF-8 as its [`RAW_BYTES`] code point (the inverse of
/// [`raw_bytes`]).
pub fn carry_bytes(bytes: &[u8]) -> Cow<'_, str> {
    if let Ok(s) = std::str::from_utf8(bytes) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(bytes.len() + 16);
    for chunk in bytes.utf8_chunks() {
        out.push_str(chunk.valid());
        out.extend(
            chunk
                .invalid()
                .iter()
                .filter_map(|&b| char::from_u32(u32::from(*RAW_BYTES.start()) + u32::from(b))),
        );
    }
    Cow::Owned(out)
}

/// JSON text for `v`, with every [`RAW_BYTES`] code point written as the
/// byte it carries: bytes that are not UTF-8 in char attributes reach the
/// file as they are, as netCDF-C writes them.
pub fn to_bytes(v: &Value) -> Vec<u8> {
    let text = serde_json::to_string(v).expect("JSON values always serialize");
    if has_raw_bytes(&text) {
        raw_bytes(&text)
    } else {
        text.into_bytes()
    }
}

/// Refuses object keys (attribute names) holding bytes that are not UTF-8,
/// as netCDF-C does ("Name contains illegal characters").
fn check_names(key: &str, value: &Value) -> Result<(), ZarrError> {
    match value {
        Value::Object(m) => m.iter().try_for_each(|(name, v)| {
            if has_raw_bytes(name) {
                return Err(ZarrError::Metadata {
                    key: key.to_string(),
                    reason: format!(
                        "name {:?} is not valid UTF-8",
                        String::from_utf8_lossy(&raw_bytes(name))
                    ),
                });
            }
            check_names(key, v)
        }),
        Value::Array(a) => a.iter().try_for_each(|v| check_names(key, v)),
        _ => Ok(()),
    }
}

fn parse_with(key: &str, text: &[u8], mark: &str) -> Result<Value, ZarrError> {
    let err = |source: serde_json::Error| ZarrError::Json {
        key: key.to_string(),
        source,
    };
    match serde_json::from_slice(text) {
        Ok(v) => Ok(v),
        Err(first) => {
            let Some(fixed) = quote_bare_tokens(text, mark) else {
                return Err(err(first));
            };
            serde_json::from_slice(&fixed).map_err(|_| err(first))
        }
    }
}

/// Quotes `NaN`, `Infinity` and `-Infinity` outside strings, each prefixed
/// with `mark` (JSON-escaped); `None` when there is none.
fn quote_bare_tokens(text: &[u8], mark: &str) -> Option<Vec<u8>> {
    let mark: Vec<u8> = mark
        .chars()
        .flat_map(|c| format!("\\u{:04x}", u32::from(c)).into_bytes())
        .collect();
    let mut out = Vec::with_capacity(text.len() + 16);
    let mut in_string = false;
    let mut escaped = false;
    let mut changed = false;
    let mut i = 0;
    while i < text.len() {
        let c = text[i];
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == b'\\' {
                escaped = true;
            } else if c == b'"' {
                in_string = false;
            }
            i += 1;
            continue;
        }
        let rest = &text[i..];
        let token = [&b"-Infinity"[..], b"Infinity", b"NaN"]
            .into_iter()
            .find(|t| rest.starts_with(t));
        if let Some(t) = token {
            out.push(b'"');
            out.extend_from_slice(&mark);
            out.extend_from_slice(t);
            out.push(b'"');
            i += t.len();
            changed = true;
            continue;
        }
        if c == b'"' {
            in_string = true;
        }
        out.push(c);
        i += 1;
    }
    changed.then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_tokens() {
        let v = parse(
            "k",
            br#"{"a": NaN, "b": [Infinity, -Infinity], "c": "NaN x"}"#,
        )
        .unwrap();
        assert_eq!(v["a"], "NaN");
        assert_eq!(v["b"][1], "-Infinity");
        assert_eq!(v["c"], "NaN x");
        assert!(parse("k", b"{").is_err());
        let a = parse_attrs("k", br#"{"a": NaN, "b": [-Infinity], "c": "NaN"}"#).unwrap();
        assert!(bare_token(a["a"].as_str().unwrap()).unwrap().is_nan());
        assert_eq!(
            bare_token(a["b"][0].as_str().unwrap()),
            Some(f64::NEG_INFINITY)
        );
        assert_eq!(bare_token(a["c"].as_str().unwrap()), None);
    }

    #[test]
    fn bytes_that_are_not_utf8() {
        let a = parse_attrs("k", b"{\"t\": \"caf\xe9 \xc3\", \"u\": \"\xc3\xa9\"}").unwrap();
        let t = a["t"].as_str().unwrap();
        assert!(has_raw_bytes(t));
        assert_eq!(raw_bytes(t), b"caf\xe9 \xc3");
        assert_eq!(raw_bytes(a["u"].as_str().unwrap()), "\u{e9}".as_bytes());
        let e = parse_attrs("g/.zattrs", b"{\"t\xe9\": 1}").unwrap_err();
        assert!(e.to_string().starts_with("g/.zattrs: name"), "{e}");
        assert!(parse_attrs("k", b"{\"t\": 1\xe9}").is_err());
        assert!(parse("k", b"{\"t\": \"\xe9\"}").is_err());
    }
}
