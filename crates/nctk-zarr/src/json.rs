//! Lenient JSON for Zarr metadata.
//!
//! Python's `json` module writes the bare tokens `NaN`, `Infinity` and
//! `-Infinity`, which are not JSON. They are accepted on read and turned
//! into the strings `"NaN"`, `"Infinity"` and `"-Infinity"`, the spelling the
//! Zarr v2 spec uses for fill values. Attributes ([`parse_attrs`]) keep
//! them apart from real strings: there a bare token is a number (netCDF-C
//! reads `"_FillValue": NaN` as a double, `"x": "NaN"` as text).

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
/// can tell `NaN` (a number) from `"NaN"` (text).
pub fn parse_attrs(key: &str, text: &[u8]) -> Result<Value, ZarrError> {
    parse_with(key, text, BARE_TOKEN)
}

fn parse_with(key: &str, text: &[u8], mark: &str) -> Result<Value, ZarrError> {
    let err = |e: serde_json::Error| ZarrError::Json {
        key: key.to_string(),
        reason: e.to_string(),
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
}
