//! netCDF's name rules, stated once for every reader, writer and validator.
//!
//! netCDF-C is stricter on write than on read:
//!
//! * **write** ([`normalize`], netCDF-C's `NC_check_name`): a name is
//!   non-empty UTF-8; its first character is a letter, a digit, `_` or a
//!   multi-byte character; later characters may be anything printable
//!   except `/`; it has no trailing space and no control characters. Names
//!   are stored NFC-normalized. Breaking it is netCDF-C's `NC_EBADNAME`
//!   ("Name contains illegal characters").
//! * **read** ([`from_stored`]): netCDF-C opens a file whatever bytes its
//!   names hold. nctk's names are text, so a stored name that is not UTF-8
//!   is refused rather than silently changed (no U+FFFD replacement); every
//!   other stored name is read as it is, and [`write_problem`] says what a
//!   validator should warn about.
//! * **both**: no two dimensions, no two variables of one group and no two
//!   attributes of one list share a name ([`first_duplicate`], netCDF-C's
//!   `NC_ENAMEINUSE`, "String match to name in use").

use crate::ModelError;
use unicode_normalization::UnicodeNormalization;

/// netCDF-C's `NC_MAX_NAME`: the longest name in bytes.
pub const MAX_NAME_LEN: usize = 256;

/// Why netCDF-C would refuse to write `name` (its `NC_check_name`, applied
/// to the NFC form), or `None` when it may be written.
pub fn write_problem(name: &str) -> Option<&'static str> {
    let nfc: String = name.nfc().collect();
    let Some(first) = nfc.chars().next() else {
        return Some("names must not be empty");
    };
    if nfc.len() > MAX_NAME_LEN {
        return Some("names are at most 256 bytes");
    }
    if !(first.is_ascii_alphanumeric() || first == '_' || !first.is_ascii()) {
        return Some("names must start with a letter, a digit, '_' or a non-ASCII character");
    }
    if nfc.contains('/') {
        return Some("names must not contain '/'");
    }
    if nfc.chars().any(|c| c.is_ascii_control()) {
        return Some("names must not contain control characters or NUL");
    }
    if nfc.ends_with(' ') {
        return Some("names must not end with a space");
    }
    None
}

/// Checks `name` against netCDF's write rules and returns it NFC-normalized.
pub fn normalize(name: &str) -> Result<String, ModelError> {
    match write_problem(name) {
        Some(reason) => Err(ModelError::InvalidName {
            name: name.to_string(),
            reason,
        }),
        None => Ok(name.nfc().collect()),
    }
}

/// A name as a file stores it (the bytes before any NUL): its text, or an
/// error when the bytes are not UTF-8.
pub fn from_stored(bytes: &[u8]) -> Result<String, ModelError> {
    std::str::from_utf8(bytes)
        .map(str::to_string)
        .map_err(|_| ModelError::InvalidName {
            name: String::from_utf8_lossy(bytes).into_owned(),
            reason: "stored names must be valid UTF-8",
        })
}

/// The first name that occurs a second time in `names`, or `None`.
pub fn first_duplicate<'a>(names: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let mut seen = std::collections::HashSet::new();
    names.into_iter().find(|n| !seen.insert(*n))
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
        assert!(normalize("a\0b").is_err());
        assert!(normalize("a b+c").is_ok());
        // "e" + combining acute accent normalizes to the precomposed "é".
        assert_eq!(normalize("caf\u{65}\u{301}").unwrap(), "caf\u{e9}");
    }

    #[test]
    fn stored_names_and_duplicates() {
        assert_eq!(from_stored(b"-odd name ").unwrap(), "-odd name ");
        let e = from_stored(b"a\xffb").unwrap_err();
        assert!(e.to_string().contains("UTF-8"), "{e}");
        assert_eq!(first_duplicate(["a", "b", "a", "b"]), Some("a"));
        assert_eq!(first_duplicate(["a", "b"]), None);
    }
}
