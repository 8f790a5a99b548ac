//! From what an S3 URL says to the settings of a bucket: region, endpoint
//! and credentials, by netCDF-C's rules (`libdispatch/ds3util.c`,
//! `libdispatch/drc.c`) and the AWS SDKs' where netCDF-C leaves them.
//!
//! [`resolve`] reads this process's environment; [`resolve_with`] is the
//! pure core over an [`AwsEnvironment`] (environment variables, the parsed
//! `~/.aws/config` and `~/.aws/credentials`, the rc files).
//!
//! **Profile**: the URL fragment's `aws.profile`; else the rc files'
//! `AWS.PROFILE`; else `AWS_PROFILE`; else `default` (when defined).
//! `none` or `no` means unsigned requests (public objects). A profile
//! named by any of the first three that neither file defines is an error
//! naming it and the files read (netCDF-C quietly falls back).
//!
//! **Credentials**: a named profile's (fragment, rc or `AWS_PROFILE`) keys
//! win over the environment's, as in netCDF-C, where the environment's
//! keys only replace the `default` profile's. (The AWS SDKs let
//! `AWS_ACCESS_KEY_ID` beat `AWS_PROFILE`; their `--profile` option, like
//! the fragment, beats it.) So: a named profile's
//! `aws_access_key_id`/`aws_secret_access_key`/`aws_session_token`; else
//! `AWS_ACCESS_KEY_ID` + `AWS_SECRET_ACCESS_KEY` (+ `AWS_SESSION_TOKEN`);
//! else the `default` profile's keys; else, when the environment names a
//! web identity token or a container's credentials endpoint,
//! `object_store`'s own chain; else, for an AWS host only, the EC2
//! instance metadata service (IMDSv2, at `AWS_EC2_METADATA_SERVICE_ENDPOINT`
//! or 169.254.169.254, asked once with a short timeout: see
//! `connect::imds`); `AWS_EC2_METADATA_DISABLED=true`, or a server that is
//! not AWS's, makes it [`AwsConfigError::NoCredentials`] at once. The
//! credentials file's keys win over the config file's for the same
//! profile, as in the SDKs (netCDF-C reads the files in that order, later
//! overriding earlier).
//! A profile with one key of the pair and not the other is an error.
//!
//! **Region**: the fragment's `aws.region` or the URL host's region; else
//! the profile's `region` (or `aws_region`, the seed's spelling); else the
//! rc files' `AWS.REGION` (the order netCDF-C documents; its code consults
//! the rc file before the profile); else `AWS_REGION`, then
//! `AWS_DEFAULT_REGION` (netCDF-C's "default region", which it takes from
//! these two); else `us-east-1`.
//!
//! **Endpoint**: the URL's host when it is not AWS's; else, as the AWS
//! SDKs read them (netCDF-C does not), `AWS_ENDPOINT_URL_S3`, then
//! `AWS_ENDPOINT_URL`, then the profile's `endpoint_url`, unless
//! `AWS_IGNORE_CONFIGURED_ENDPOINT_URLS` is `true`.

mod address;
mod env;
pub mod ini;
pub mod rc;
mod resolve;

pub use address::{
    is_aws_endpoint, is_aws_host, is_s3_host, parse_address, S3Address, S3Style,
    AWS_CN_HOST_SUFFIX, AWS_HOST_SUFFIX, GOOGLE_HOST,
};
pub use env::AwsEnvironment;
pub use resolve::resolve_with;

use nctk_model::{ErrorKind, HasErrorKind};

use crate::S3Settings;

/// What an S3 URL names (the door's URL parser fills it in).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct S3Target {
    /// An S3-compatible endpoint (`http://127.0.0.1:9000`); `None` for AWS.
    pub endpoint: Option<String>,
    /// The bucket.
    pub bucket: String,
    /// The dataset's key within the bucket (no leading or trailing `/`;
    /// empty for the bucket's root): rc entries for a URL prefix match it.
    pub key: String,
    /// The URL addressed the bucket as a host name.
    pub virtual_hosted: bool,
    /// The region the URL names (its host or the fragment's `aws.region`).
    pub region: Option<String>,
    /// The profile the fragment's `aws.profile` names.
    pub profile: Option<String>,
}

/// Where the active profile's name came from (named in errors).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProfileSource {
    /// The URL fragment's `aws.profile`.
    Fragment,
    /// An rc file's `AWS.PROFILE`.
    RcFile,
    /// The `AWS_PROFILE` environment variable.
    Environment,
}

impl std::fmt::Display for ProfileSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ProfileSource::Fragment => "the URL's aws.profile",
            ProfileSource::RcFile => "AWS.PROFILE in an rc file",
            ProfileSource::Environment => "AWS_PROFILE",
        })
    }
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
    /// A file is larger than a configuration file can be.
    #[error("{path}: larger than {limit} bytes; not a configuration file")]
    TooLarge {
        /// The file.
        path: String,
        /// The largest size read.
        limit: u64,
    },
    /// A line of a file cannot be read.
    #[error("{path}:{line}: {reason}")]
    Syntax {
        /// The file.
        path: String,
        /// The line (from 1).
        line: usize,
        /// What is wrong.
        reason: String,
    },
    /// The profile asked for is defined nowhere.
    #[error("AWS profile {profile:?} (from {from}) is not defined in {}", files_list(.files))]
    UnknownProfile {
        /// The profile.
        profile: String,
        /// Where its name came from.
        from: ProfileSource,
        /// The configuration and credentials files looked in.
        files: Vec<String>,
    },
    /// A profile or the environment gives one key of the pair only.
    #[error("{origin}: {present} is set but {missing} is not")]
    IncompleteKeys {
        /// The profile (`profile "x"`) or `the environment`.
        origin: String,
        /// The key that is set.
        present: &'static str,
        /// The key that is missing.
        missing: &'static str,
    },
    /// No credentials anywhere: not in the environment or the profile and,
    /// for an AWS host, not from the EC2 instance metadata service either.
    /// Only AWS hosts ask that service (an S3-compatible server elsewhere
    /// would have the request wait on the EC2 metadata address and fail
    /// with that).
    #[error(
        "no AWS credentials for {}: none in the environment (AWS_ACCESS_KEY_ID and \
         AWS_SECRET_ACCESS_KEY) or in profile {profile:?} of {}{metadata}; set them there, \
         name a profile that has them (AWS_PROFILE, or aws.profile=NAME in the URL's \
         #mode=... fragment or an rc file), or read public objects unsigned with \
         aws.profile=none",
        server(.endpoint.as_deref()),
        files_list(.files)
    )]
    NoCredentials {
        /// The S3-compatible server; `None` for AWS's own.
        endpoint: Option<String>,
        /// The profile looked in.
        profile: String,
        /// The configuration and credentials files looked in.
        files: Vec<String>,
        /// What the EC2 instance metadata service gave.
        metadata: MetadataService,
    },
}

/// Whether and how the EC2 instance metadata service was asked for
/// credentials, in an [`AwsConfigError::NoCredentials`] (shown after the
/// places looked in; nothing when it was not asked).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MetadataService {
    /// Not asked: the server is not AWS's.
    NotAsked,
    /// Turned off: `AWS_EC2_METADATA_DISABLED=true`.
    Disabled,
    /// Asked at `endpoint`, and it gave none.
    GaveNone {
        /// The service's address.
        endpoint: String,
        /// Why: unreachable, timed out, no role, a bad answer.
        reason: String,
    },
}

impl std::fmt::Display for MetadataService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MetadataService::NotAsked => Ok(()),
            MetadataService::Disabled => write!(
                f,
                ", and the EC2 instance metadata service is turned off \
                 ({METADATA_DISABLED}=true)"
            ),
            MetadataService::GaveNone { endpoint, reason } => write!(
                f,
                ", and the EC2 instance metadata service at {endpoint} gave none ({reason})"
            ),
        }
    }
}

/// The variable that turns the EC2 instance metadata service off (`true`),
/// as botocore reads it.
pub const METADATA_DISABLED: &str = "AWS_EC2_METADATA_DISABLED";

/// The variable that moves the EC2 instance metadata service, as botocore
/// reads it.
pub const METADATA_ENDPOINT_VARIABLE: &str = "AWS_EC2_METADATA_SERVICE_ENDPOINT";

/// The EC2 instance metadata service's address when nothing moves it.
pub const METADATA_ENDPOINT: &str = "http://169.254.169.254";

/// The server an [`AwsConfigError::NoCredentials`] is about.
fn server(endpoint: Option<&str>) -> String {
    match endpoint {
        Some(e) => format!("the S3 endpoint {e}"),
        None => "AWS S3".into(),
    }
}

/// A configuration or credentials file that cannot be read has its I/O
/// error's kind; one too large or with a line that does not parse breaks
/// its format (invalid data); a profile that is defined nowhere, or keys
/// given by half, are settings the user gave that cannot be used (invalid
/// input).
impl HasErrorKind for AwsConfigError {
    fn kind(&self) -> ErrorKind {
        match self {
            AwsConfigError::Io { source, .. } => ErrorKind::of_io(source),
            AwsConfigError::TooLarge { .. } | AwsConfigError::Syntax { .. } => {
                ErrorKind::InvalidData
            }
            AwsConfigError::UnknownProfile { .. } | AwsConfigError::IncompleteKeys { .. } => {
                ErrorKind::InvalidInput
            }
            AwsConfigError::NoCredentials { .. } => ErrorKind::PermissionDenied,
        }
    }
}

fn files_list(files: &[String]) -> String {
    if files.is_empty() {
        "any file (no HOME, AWS_CONFIG_FILE or AWS_SHARED_CREDENTIALS_FILE)".into()
    } else {
        files.join(" or ")
    }
}

/// The settings for `target` from this process's environment variables,
/// AWS configuration files and rc files.
pub fn resolve(target: &S3Target) -> Result<S3Settings, AwsConfigError> {
    resolve_with(target, &AwsEnvironment::from_process()?)
}
