//! netCDF's name rules.
//!
//! A name is non-empty UTF-8; its first character is a letter, a digit, `_`
//! or a multi-byte character; later characters may be anything printable
//! except `/`; it has no trailing space and no control characters. Names are
//! stored NFC-normalized.

use crate::ModelError;
use unicode_normalization::UnicodeNormalization;

/// netCDF-C's `NC_MAX_NAME`: the longest name in bytes.
pub const MAX_NAME_LEN: usize = 256;

/// Checks `name` against netCDF's rules and returns it NFC-normalized.
pub fn normalize(name: &str) -> Result<String, ModelError> {
    let nfc: String = name.nfc().collect();
    let bad = |reason| {
        Err(ModelError::InvalidName {
            name: name.to_string(),
            reason,
        })
    };
    let Some(first) = nfc.chars().next() else {
        return bad("names must not be empty");
    };
    if nfc.len() > MAX_NAME_LEN {
        return bad("names are at most 256 bytes");
    }
    if !(first.is_ascii_alphanumeric() || first == '_' || !first.is_ascii()) {
        return bad("names must start with a letter, a digit, '_' or a non-ASCII character");
    }
    if nfc.contains('/') {
        return bad("names must not contain '/'");
    }
    if nfc.chars().any(|c| c.is_ascii_control()) {
        return bad("names must not contain control characters");
    }
    if nfc.ends_with(' ') {
        return bad("names must not end with a space");
    }
    Ok(nfc)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules() {
        assert_eq!(normalize("temp_2m").unwrap(), "temp_2m");
        assert_eq!(normalize("2m").unwrap(), "2m");
        assert_eq!(normalize("_FillValue").unwrap(), "_FillValue");
        assert!(normalize("").is_err());
        assert!(normalize("a/b").is_err());
        assert!(normalize("-x").is_err());
        assert!(normalize("x ").is_err());
        assert!(normalize("a\u{7}").is_err());
        assert!(normalize("a b+c").is_ok());
        // "e" + combining acute accent normalizes to the precomposed "é".
        assert_eq!(normalize("caf\u{65}\u{301}").unwrap(), "caf\u{e9}");
    }
}
