//! From what an S3 URL says to the settings of a bucket: region, endpoint
//! and credentials, by netCDF-C's and the AWS SDKs' rules.

use crate::{S3Credentials, S3Settings};

/// What an S3 URL names (the door's URL parser fills it in).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct S3Target {
    /// An S3-compatible endpoint (`http://127.0.0.1:9000`); `None` for AWS.
    pub endpoint: Option<String>,
    /// The bucket.
    pub bucket: String,
    /// The URL addressed the bucket as a host name.
    pub virtual_hosted: bool,
    /// The region the URL names (its host or the fragment's `aws.region`).
    pub region: Option<String>,
    /// The profile the fragment's `aws.profile` names.
    pub profile: Option<String>,
}

/// A configuration file or setting cannot be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AwsConfigError {
    /// A file could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The error.
        #[source]
        source: std::io::Error,
    },
}

/// The settings for `target` from this process's environment.
pub fn resolve(target: &S3Target) -> Result<S3Settings, AwsConfigError> {
    let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    let region = target
        .region
        .clone()
        .or_else(|| var("AWS_REGION"))
        .or_else(|| var("AWS_DEFAULT_REGION"))
        .unwrap_or_else(|| "us-east-1".to_string());
    let unsigned = target
        .profile
        .as_deref()
        .is_some_and(|p| p.eq_ignore_ascii_case("none") || p.eq_ignore_ascii_case("no"));
    let credentials = match (var("AWS_ACCESS_KEY_ID"), var("AWS_SECRET_ACCESS_KEY")) {
        _ if unsigned => S3Credentials::Unsigned,
        (Some(access_key_id), Some(secret_access_key)) => S3Credentials::Static {
            access_key_id,
            secret_access_key,
            session_token: var("AWS_SESSION_TOKEN"),
        },
        _ => S3Credentials::Chain,
    };
    Ok(S3Settings {
        bucket: target.bucket.clone(),
        region,
        endpoint: target.endpoint.clone(),
        virtual_hosted: target.virtual_hosted,
        credentials,
    })
}
