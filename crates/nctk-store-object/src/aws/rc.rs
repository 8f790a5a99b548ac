//! netCDF-C's rc files (`.ncrc`, `.daprc`, `.dodsrc`; `libdispatch/drc.c`)
//! and the two keys nctk reads from them, `AWS.PROFILE` and `AWS.REGION`.
//!
//! Where netCDF-C looks: the file `NCRCENV_RC` names, alone; otherwise
//! `.ncrc`, `.daprc` and `.dodsrc` in `NCRCENV_HOME` (else `HOME`) and then
//! in the current directory, later files overriding earlier ones;
//! `NCRCENV_IGNORE` set: none.
//!
//! A line is `KEY=value` or `[url]KEY=value`; `#` starts a comment line.
//! A `[url]` entry applies to datasets under that URL; entries with a URL
//! are consulted before those without, each group in file order, as
//! netCDF-C orders them. For an S3 URL the comparison is by service (AWS,
//! or the endpoint's `host[:port]`), bucket and key: a URL naming a bucket
//! or a key prefix (`[s3://bucket/dir]`) applies to every dataset under it.
//! (netCDF-C compares the host as written and the path exactly; nctk reads
//! every S3 URL form alike and matches whole key segments.)

use std::path::{Path, PathBuf};

use super::address::{is_aws_host, parse_address};
use super::{AwsConfigError, S3Target};
use crate::aws::ini::MAX_CONFIG_BYTES;

/// The rc file names, in the order netCDF-C reads them in each directory.
pub const RC_FILE_NAMES: [&str; 3] = [".ncrc", ".daprc", ".dodsrc"];

/// Which S3 datasets a `[url]` prefix names.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Scope {
    /// The endpoint's `host[:port]` in lower case; `None` for AWS.
    endpoint: Option<String>,
    /// The bucket (`None`: every bucket of the endpoint).
    bucket: Option<String>,
    /// The key prefix (empty: the whole bucket).
    key: String,
}

/// One `KEY=value` line.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Entry {
    scope: Option<Scope>,
    key: String,
    value: String,
}

/// The entries of every rc file read, in netCDF-C's lookup order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RcSettings {
    entries: Vec<Entry>,
    files: Vec<PathBuf>,
}

impl RcSettings {
    /// The files netCDF-C would read, given its environment variables
    /// (`var`) and the current directory.
    pub fn locations(var: impl Fn(&str) -> Option<String>, cwd: &Path) -> Vec<PathBuf> {
        if var("NCRCENV_IGNORE").is_some() {
            return vec![];
        }
        if let Some(rc) = var("NCRCENV_RC") {
            return vec![PathBuf::from(rc)];
        }
        let home = var("NCRCENV_HOME").or_else(|| var("HOME"));
        home.map(PathBuf::from)
            .into_iter()
            .chain([cwd.to_path_buf()])
            .flat_map(|dir| RC_FILE_NAMES.map(|n| dir.join(n)))
            .collect()
    }

    /// Reads `files` in order (a missing file is skipped).
    pub fn read(files: &[PathBuf]) -> Result<Self, AwsConfigError> {
        let mut rc = RcSettings::default();
        for path in files {
            let io = |source| AwsConfigError::Io {
                path: path.display().to_string(),
                source,
            };
            let bytes = match std::fs::metadata(path) {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(e) => return Err(io(e)),
                Ok(m) if m.len() > MAX_CONFIG_BYTES => {
                    return Err(AwsConfigError::TooLarge {
                        path: path.display().to_string(),
                        limit: MAX_CONFIG_BYTES,
                    })
                }
                Ok(_) => std::fs::read(path).map_err(io)?,
            };
            rc.parse(path, &bytes)?;
        }
        Ok(rc)
    }

    /// Adds the entries of one file's bytes; `path` names it in errors.
    pub fn parse(&mut self, path: &Path, bytes: &[u8]) -> Result<(), AwsConfigError> {
        let syntax = |line: usize, reason: String| AwsConfigError::Syntax {
            path: path.display().to_string(),
            line,
            reason,
        };
        let text = String::from_utf8_lossy(bytes);
        for (i, raw) in text.lines().enumerate() {
            let line = raw.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let (scope, rest) = match line.strip_prefix('[') {
                Some(inner) => {
                    let Some((url, rest)) = inner.split_once(']') else {
                        return Err(syntax(i + 1, "`[url]` without `]`".into()));
                    };
                    let scope = scope_of(url.trim())
                        .map_err(|reason| syntax(i + 1, format!("[{url}]: {reason}")))?;
                    (Some(scope), rest)
                }
                None => (None, line),
            };
            let (key, value) = rest.split_once('=').unwrap_or((rest, ""));
            let entry = Entry {
                scope,
                key: key.trim().to_string(),
                value: value.trim().to_string(),
            };
            match self
                .entries
                .iter_mut()
                .find(|e| e.scope == entry.scope && e.key == entry.key)
            {
                Some(old) => old.value = entry.value,
                None => self.entries.push(entry),
            }
        }
        self.files.push(path.to_path_buf());
        // Entries with a URL first, each group in file order (stable).
        self.entries.sort_by_key(|e| e.scope.is_none());
        Ok(())
    }

    /// The value of `key` for the dataset `target` names (an empty value
    /// counts as unset).
    pub fn lookup(&self, key: &str, target: &S3Target) -> Option<&str> {
        let endpoint = target.endpoint.as_deref().map(host_port);
        self.entries
            .iter()
            .filter(|e| e.key == key && !e.value.is_empty())
            .find(|e| match &e.scope {
                None => true,
                Some(s) => {
                    s.endpoint.as_deref() == endpoint.as_deref()
                        && s.bucket.as_ref().is_none_or(|b| *b == target.bucket)
                        && under(&target.key, &s.key)
                }
            })
            .map(|e| e.value.as_str())
    }

    /// The rc files read (those that exist).
    pub fn files(&self) -> &[PathBuf] {
        &self.files
    }
}

/// Whether `key` is `prefix` or below it, whole segments compared.
fn under(key: &str, prefix: &str) -> bool {
    prefix.is_empty()
        || key == prefix
        || key
            .strip_prefix(prefix)
            .is_some_and(|rest| rest.starts_with('/'))
}

/// `host[:port]` of an endpoint URL, in lower case.
fn host_port(endpoint: &str) -> String {
    let rest = endpoint.split_once("://").map_or(endpoint, |(_, r)| r);
    rest.split('/').next().unwrap_or("").to_ascii_lowercase()
}

/// The datasets a `[url]` names.
fn scope_of(url: &str) -> Result<Scope, String> {
    let Some((scheme, rest)) = url.split_once("://") else {
        return Err("not a URL".into());
    };
    let rest = rest.split(['?', '#']).next().unwrap_or("");
    let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
    if authority.is_empty() {
        return Err("no host".into());
    }
    let a = match parse_address(scheme, authority, path) {
        Ok(a) => a,
        // A host alone: every bucket there.
        Err(_) if path.trim_matches('/').is_empty() => {
            let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
            return Ok(Scope {
                endpoint: (!is_aws_host(authority)).then(|| host.to_ascii_lowercase()),
                bucket: None,
                key: String::new(),
            });
        }
        Err(e) => return Err(e),
    };
    let endpoint = a.endpoint(scheme).map(|e| host_port(&e));
    Ok(Scope {
        endpoint,
        bucket: Some(a.bucket),
        key: a.key,
    })
}
