//! Everything the AWS rules read, gathered once: environment variables,
//! the two AWS configuration files and the rc files.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::ini::{FileKind, ProfileFile};
use super::rc::RcSettings;
use super::AwsConfigError;

/// The environment the rules of [`super::resolve_with`] read.
#[derive(Debug, Clone, Default)]
pub struct AwsEnvironment {
    vars: BTreeMap<String, String>,
    /// `~/.aws/config` (or `AWS_CONFIG_FILE`), when it exists.
    pub config: Option<ProfileFile>,
    /// `~/.aws/credentials` (or `AWS_SHARED_CREDENTIALS_FILE`), when it exists.
    pub credentials: Option<ProfileFile>,
    /// The AWS files looked for, existing or not (named in errors).
    pub aws_files: Vec<PathBuf>,
    /// The rc files' entries.
    pub rc: RcSettings,
}

impl AwsEnvironment {
    /// This process's environment, its files, and the current directory's
    /// rc files.
    pub fn from_process() -> Result<Self, AwsConfigError> {
        let cwd = std::env::current_dir().unwrap_or_default();
        // vars_os, not vars: a variable that is not Unicode is skipped, not a panic.
        let vars = std::env::vars_os()
            .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)));
        Self::load(vars, &cwd)
    }

    /// The environment `vars` describe, reading the files they point to:
    /// `AWS_CONFIG_FILE` (else `$HOME/.aws/config`),
    /// `AWS_SHARED_CREDENTIALS_FILE` (else `$HOME/.aws/credentials`), a
    /// leading `~/` meaning `$HOME` as in the SDKs; the rc files as
    /// netCDF-C finds them from `HOME`, `NCRCENV_*` and `cwd`. A missing
    /// file is skipped; an unreadable or malformed one is an error.
    pub fn load(
        vars: impl IntoIterator<Item = (String, String)>,
        cwd: &Path,
    ) -> Result<Self, AwsConfigError> {
        let mut env = AwsEnvironment {
            vars: vars.into_iter().filter(|(_, v)| !v.is_empty()).collect(),
            ..Default::default()
        };
        let home = env.var("HOME").map(PathBuf::from);
        let locate = |var: &str, default: &str| -> Option<PathBuf> {
            match env.var(var) {
                Some(p) => match (p.strip_prefix("~/"), &home) {
                    (Some(rest), Some(h)) => Some(h.join(rest)),
                    _ => Some(PathBuf::from(p)),
                },
                None => home.as_ref().map(|h| h.join(".aws").join(default)),
            }
        };
        let config = locate("AWS_CONFIG_FILE", "config");
        let credentials = locate("AWS_SHARED_CREDENTIALS_FILE", "credentials");
        if let Some(p) = &config {
            env.config = ProfileFile::read(p, FileKind::Config)?;
        }
        if let Some(p) = &credentials {
            env.credentials = ProfileFile::read(p, FileKind::Credentials)?;
        }
        env.aws_files = config.into_iter().chain(credentials).collect();
        let rc_files = RcSettings::locations(|k| env.var(k).map(str::to_string), cwd);
        env.rc = RcSettings::read(&rc_files)?;
        Ok(env)
    }

    /// The environment variable `name`, when set and not empty.
    pub fn var(&self, name: &str) -> Option<&str> {
        self.vars.get(name).map(String::as_str)
    }
}
