//! Lenient JSON for Zarr metadata.
//!
//! Python's `json` module writes the bare tokens `NaN`, `Infinity` and
//! `-Infinity`, which are not JSON. They are accepted on read and turned
//! into the strings `"NaN"`, `"Infinity"` and `"-Infinity"`, the spelling the
//! Zarr v2 spec uses for fill values.

use serde_json::Value;

use crate::ZarrError;

/// Parses metadata text, accepting Python's bare `NaN` / `Infinity` tokens.
pub fn parse(key: &str, text: &[u8]) -> Result<Value, ZarrError> {
    let err = |e: serde_json::Error| ZarrError::Json {
        key: key.to_string(),
        reason: e.to_string(),
    };
    match serde_json::from_slice(text) {
        Ok(v) => Ok(v),
        Err(first) => {
            let Some(fixed) = quote_bare_tokens(text) else {
                return Err(err(first));
            };
            serde_json::from_slice(&fixed).map_err(|_| err(first))
        }
    }
}

/// Quotes `NaN`, `Infinity` and `-Infinity` outside strings; `None` when
/// there is none.
fn quote_bare_tokens(text: &[u8]) -> Option<Vec<u8>> {
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
    }
}
