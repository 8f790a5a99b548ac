//! The AWS shared configuration files (`~/.aws/config`,
//! `~/.aws/credentials`) as the AWS SDKs read them.
//!
//! * `[name]` opens a section; in the config file a profile is
//!   `[profile name]` (or `[default]`), other sections (`[sso-session x]`,
//!   `[services x]`, a bare `[x]`) are not profiles; in the credentials
//!   file every section is a profile named exactly as written.
//! * `key = value`; keys are matched without regard to case; a line
//!   starting with whitespace continues the property above (the SDKs'
//!   sub-properties, such as `s3 =` followed by indented settings); with
//!   no property above it, it is a property.
//! * Lines whose first non-blank character is `#` or `;` are comments.
//! * Repeated sections merge, later keys replacing earlier ones.
//!
//! Anything else (a property outside a section, a line that is neither a
//! section nor `key = value`, text that is not UTF-8) is an error naming
//! the file and the line. (netCDF-C's own parser, `awsparse` in
//! `libdispatch/ds3util.c`, is stricter still, rejecting `#` comments and
//! section names with spaces; it then ignores the whole file.)

use std::io::Read;
use std::path::{Path, PathBuf};

use super::AwsConfigError;

/// The largest configuration file read (a larger one is an error, so a
/// path to a device or a huge file cannot exhaust memory).
pub const MAX_CONFIG_BYTES: u64 = 1 << 20;

/// Which of the two files: it decides how sections name profiles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// `~/.aws/config`: `[profile name]` and `[default]`.
    Config,
    /// `~/.aws/credentials`: `[name]`.
    Credentials,
}

/// One profile: its properties, keys in lower case, in file order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Profile {
    properties: Vec<(String, String)>,
}

impl Profile {
    /// The value of `key` (any case), when set and not empty.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.properties
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(key))
            .map(|(_, v)| v.as_str())
            .filter(|v| !v.is_empty())
    }

    fn set(&mut self, key: String, value: String) {
        match self.properties.iter_mut().find(|(k, _)| *k == key) {
            Some(slot) => slot.1 = value,
            None => self.properties.push((key, value)),
        }
    }

    /// `self` with every property of `over` set on it (`over` wins).
    fn merge(&mut self, over: &Profile) {
        for (k, v) in &over.properties {
            self.set(k.clone(), v.clone());
        }
    }
}

/// One parsed configuration or credentials file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProfileFile {
    /// The file (named in errors).
    pub path: PathBuf,
    /// Its profiles by name, in first-seen order.
    profiles: Vec<(String, Profile)>,
}

impl ProfileFile {
    /// Reads and parses `path`; `Ok(None)` when it does not exist.
    pub fn read(path: &Path, kind: FileKind) -> Result<Option<Self>, AwsConfigError> {
        let io = |source| AwsConfigError::Io {
            path: path.display().to_string(),
            source,
        };
        let file = match std::fs::File::open(path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(io(e)),
        };
        let mut bytes = vec![];
        file.take(MAX_CONFIG_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(io)?;
        if bytes.len() as u64 > MAX_CONFIG_BYTES {
            return Err(AwsConfigError::TooLarge {
                path: path.display().to_string(),
                limit: MAX_CONFIG_BYTES,
            });
        }
        Self::parse(path, &bytes, kind).map(Some)
    }

    /// Parses the bytes of a file; `path` names it in errors.
    pub fn parse(path: &Path, bytes: &[u8], kind: FileKind) -> Result<Self, AwsConfigError> {
        let syntax = |line: usize, reason: String| AwsConfigError::Syntax {
            path: path.display().to_string(),
            line,
            reason,
        };
        let text = std::str::from_utf8(bytes).map_err(|e| {
            let line = 1 + bytes[..e.valid_up_to()]
                .iter()
                .filter(|&&b| b == b'\n')
                .count();
            syntax(line, "not UTF-8 text".into())
        })?;
        let mut out = ProfileFile {
            path: path.to_path_buf(),
            profiles: vec![],
        };
        // The section being read: Some(index into out.profiles) for a
        // profile, None for a section that is not one; and whether a
        // property has been read in it (for continuation lines).
        let mut section: Option<Option<usize>> = None;
        let mut last_key: Option<String> = None;
        for (i, raw) in text.lines().enumerate() {
            let line_no = i + 1;
            let line = raw.trim_end_matches('\r');
            let trimmed = line.trim();
            if trimmed.is_empty() || trimmed.starts_with('#') || trimmed.starts_with(';') {
                continue;
            }
            if trimmed.starts_with('[') {
                let Some(end) = trimmed.find(']') else {
                    return Err(syntax(line_no, "section header without `]`".into()));
                };
                let after = trimmed[end + 1..].trim_start();
                if !(after.is_empty() || after.starts_with('#') || after.starts_with(';')) {
                    return Err(syntax(
                        line_no,
                        format!("unexpected text after the section header: {after:?}"),
                    ));
                }
                let name = trimmed[1..end].trim();
                if name.is_empty() {
                    return Err(syntax(line_no, "empty section name".into()));
                }
                section = Some(profile_name(name, kind).map(|n| out.slot(n)));
                last_key = None;
                continue;
            }
            let Some(current) = section else {
                return Err(syntax(
                    line_no,
                    "a property before any [section] header".into(),
                ));
            };
            if let (true, Some(key)) = (line.starts_with([' ', '\t']), &last_key) {
                // A continuation: part of the property above (an indented
                // line with no property above is a property, as in the SDKs).
                if let Some(p) = current {
                    let profile = &mut out.profiles[p].1;
                    let value = profile.get(key).unwrap_or("").to_string();
                    let joined = if value.is_empty() {
                        trimmed.to_string()
                    } else {
                        format!("{value}\n{trimmed}")
                    };
                    profile.set(key.clone(), joined);
                }
                continue;
            }
            let Some((key, value)) = trimmed.split_once('=') else {
                return Err(syntax(
                    line_no,
                    format!("expected `key = value`, found {trimmed:?}"),
                ));
            };
            let key = key.trim().to_ascii_lowercase();
            if key.is_empty() {
                return Err(syntax(line_no, "a property with no key".into()));
            }
            if let Some(p) = current {
                out.profiles[p].1.set(key.clone(), value.trim().to_string());
            }
            last_key = Some(key);
        }
        Ok(out)
    }

    /// The index of profile `name`, added when new.
    fn slot(&mut self, name: String) -> usize {
        match self.profiles.iter().position(|(n, _)| *n == name) {
            Some(i) => i,
            None => {
                self.profiles.push((name, Profile::default()));
                self.profiles.len() - 1
            }
        }
    }

    /// The profile `name`, when the file defines it.
    pub fn profile(&self, name: &str) -> Option<&Profile> {
        self.profiles
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, p)| p)
    }

    /// The names of the profiles the file defines.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.profiles.iter().map(|(n, _)| n.as_str())
    }
}

/// The profile a section header names, or `None` for a section that is
/// not a profile.
fn profile_name(header: &str, kind: FileKind) -> Option<String> {
    match kind {
        FileKind::Credentials => Some(header.to_string()),
        FileKind::Config => {
            if header == "default" {
                return Some(header.to_string());
            }
            let rest = header.strip_prefix("profile")?;
            if !rest.starts_with([' ', '\t']) {
                return None;
            }
            let name = rest.trim();
            (!name.is_empty()).then(|| name.to_string())
        }
    }
}

/// The profile `name` as the two files together define it: the config
/// file's properties with the credentials file's set over them.
pub fn merged(files: &[&ProfileFile], name: &str) -> Option<Profile> {
    let mut found = None::<Profile>;
    for f in files {
        if let Some(p) = f.profile(name) {
            found.get_or_insert_with(Profile::default).merge(p);
        }
    }
    found
}
