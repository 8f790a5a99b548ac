use std::fmt;

use super::StoreError;

/// A validated store key: `/`-separated UTF-8 segments relative to the
/// store's root, such as `grp/temp/.zarray` or `temp/0.1`.
///
/// A key is never empty and never absolute; no segment is empty, `.` or
/// `..`, and no segment holds a control character or a backslash. So a key
/// can never name anything outside the store's root, on any backend.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct StoreKey(String);

/// A validated key prefix: the root (empty) or a key naming a "directory",
/// such as `grp/temp`. `list_dir` takes a prefix.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct StorePrefix(String);

fn check_segment(whole: &str, seg: &str) -> Result<(), StoreError> {
    let bad = |reason| {
        Err(StoreError::InvalidKey {
            key: whole.to_string(),
            reason,
        })
    };
    if seg.is_empty() {
        return bad("empty segment (leading, trailing or doubled '/')");
    }
    if seg == "." || seg == ".." {
        return bad("'.' and '..' segments are not allowed");
    }
    if seg.chars().any(|c| c.is_control()) {
        return bad("control characters are not allowed");
    }
    if seg.contains('\\') {
        return bad("backslashes are not allowed");
    }
    Ok(())
}

impl StoreKey {
    /// Validates `key`.
    pub fn new(key: impl Into<String>) -> Result<StoreKey, StoreError> {
        let key = key.into();
        if key.is_empty() {
            return Err(StoreError::InvalidKey {
                key,
                reason: "keys must not be empty",
            });
        }
        if key.starts_with('/') {
            return Err(StoreError::InvalidKey {
                key,
                reason: "keys are relative to the store root and must not start with '/'",
            });
        }
        for seg in key.split('/') {
            check_segment(&key, seg)?;
        }
        Ok(StoreKey(key))
    }

    /// The key as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The segments of the key.
    pub fn segments(&self) -> impl Iterator<Item = &str> {
        self.0.split('/')
    }

    /// The last segment (the object's name within its directory).
    pub fn name(&self) -> &str {
        self.0.rsplit('/').next().unwrap_or(&self.0)
    }

    /// The prefix holding this key (the root for a top-level key).
    pub fn parent(&self) -> StorePrefix {
        match self.0.rsplit_once('/') {
            Some((dir, _)) => StorePrefix(dir.to_string()),
            None => StorePrefix::root(),
        }
    }

    /// True when the key lies (directly or not) under `prefix`.
    pub fn is_under(&self, prefix: &StorePrefix) -> bool {
        prefix.0.is_empty()
            || (self.0.len() > prefix.0.len()
                && self.0.starts_with(&prefix.0)
                && self.0.as_bytes()[prefix.0.len()] == b'/')
    }
}

impl StorePrefix {
    /// The store's root.
    pub fn root() -> StorePrefix {
        StorePrefix(String::new())
    }

    /// Validates `prefix`; `""` and `"/"` are the root, and one trailing
    /// `/` is accepted (`"grp/"` is `"grp"`).
    pub fn new(prefix: impl Into<String>) -> Result<StorePrefix, StoreError> {
        let prefix = prefix.into();
        if prefix.is_empty() || prefix == "/" {
            return Ok(StorePrefix::root());
        }
        let trimmed = prefix.strip_suffix('/').unwrap_or(&prefix);
        Ok(StorePrefix(StoreKey::new(trimmed)?.0))
    }

    /// True for the root.
    pub fn is_root(&self) -> bool {
        self.0.is_empty()
    }

    /// The prefix as text (empty for the root, no trailing `/`).
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The key of the object `name` directly under this prefix. `name` may
    /// itself hold `/`-separated segments.
    pub fn key(&self, name: &str) -> Result<StoreKey, StoreError> {
        if self.0.is_empty() {
            StoreKey::new(name)
        } else {
            StoreKey::new(format!("{}/{}", self.0, name))
        }
    }

    /// The prefix `name` directly under this one.
    pub fn child(&self, name: &str) -> Result<StorePrefix, StoreError> {
        Ok(StorePrefix(self.key(name)?.0))
    }

    /// The last segment (empty for the root).
    pub fn name(&self) -> &str {
        self.0.rsplit('/').next().unwrap_or("")
    }

    /// The segments of the prefix (none for the root).
    pub fn segments(&self) -> impl Iterator<Item = &str> {
        self.0.split('/').filter(|s| !s.is_empty())
    }
}

impl From<StoreKey> for StorePrefix {
    fn from(key: StoreKey) -> StorePrefix {
        StorePrefix(key.0)
    }
}

impl fmt::Display for StoreKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Display for StorePrefix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            f.write_str("/")
        } else {
            f.write_str(&self.0)
        }
    }
}

impl AsRef<str> for StoreKey {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_validated() {
        for good in ["a", ".zgroup", "g/v/.zarray", "v/0.1.2", "é/ü", "a b"] {
            assert!(StoreKey::new(good).is_ok(), "{good}");
        }
        for bad in [
            "", "/a", "a/", "a//b", "..", "a/../b", "./a", "a/.", "a\\b", "a\u{0}b", "a\nb",
        ] {
            assert!(StoreKey::new(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn prefixes_and_parents() {
        let k = StoreKey::new("g/v/.zarray").unwrap();
        assert_eq!(k.name(), ".zarray");
        assert_eq!(k.parent().as_str(), "g/v");
        assert!(k.is_under(&StorePrefix::new("g").unwrap()));
        assert!(!k.is_under(&StorePrefix::new("g/vv").unwrap()));
        assert!(k.is_under(&StorePrefix::root()));
        assert_eq!(StorePrefix::new("g/").unwrap().as_str(), "g");
        assert!(StorePrefix::new("/").unwrap().is_root());
        assert_eq!(StorePrefix::root().key("x").unwrap().as_str(), "x");
        assert!(StorePrefix::new("a/..").is_err());
        assert_eq!(StoreKey::new("top").unwrap().parent(), StorePrefix::root());
    }
}
