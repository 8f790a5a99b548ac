//! Building the object store a URL names.

use std::sync::Arc;

use object_store::aws::AmazonS3Builder;
use object_store::ObjectStore;

use crate::{RemoteError, RemoteOptions};

/// How S3 requests are signed.
#[derive(Clone, PartialEq, Eq)]
pub enum S3Credentials {
    /// Unsigned requests (netCDF-C's profile `none`/`no`): public objects.
    Unsigned,
    /// A key pair (and session token) from a profile or the environment.
    Static {
        /// `aws_access_key_id`.
        access_key_id: String,
        /// `aws_secret_access_key`.
        secret_access_key: String,
        /// `aws_session_token`, when the credentials are temporary.
        session_token: Option<String>,
    },
    /// `object_store`'s own chain (instance metadata, web identity, ...),
    /// for when neither a profile nor the environment holds a key pair.
    Chain,
}

impl std::fmt::Debug for S3Credentials {
    /// Never prints a secret.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            S3Credentials::Unsigned => f.write_str("Unsigned"),
            S3Credentials::Static { access_key_id, .. } => f
                .debug_struct("Static")
                .field("access_key_id", access_key_id)
                .finish_non_exhaustive(),
            S3Credentials::Chain => f.write_str("Chain"),
        }
    }
}

/// Everything needed to reach one S3 bucket.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct S3Settings {
    /// The bucket.
    pub bucket: String,
    /// The region requests are signed for.
    pub region: String,
    /// An S3-compatible endpoint (`http://127.0.0.1:9000`); `None` for AWS.
    pub endpoint: Option<String>,
    /// Address the bucket as `https://<bucket>.<endpoint>` rather than
    /// `https://<endpoint>/<bucket>`.
    pub virtual_hosted: bool,
    /// How requests are signed.
    pub credentials: S3Credentials,
}

/// The S3 store `settings` name; `url` names it in errors.
pub fn s3(
    settings: &S3Settings,
    options: &RemoteOptions,
    url: &str,
) -> Result<Arc<dyn ObjectStore>, RemoteError> {
    let allow_http = settings
        .endpoint
        .as_deref()
        .is_some_and(|e| e.starts_with("http://"));
    let mut builder = AmazonS3Builder::new()
        .with_bucket_name(&settings.bucket)
        .with_region(&settings.region)
        .with_virtual_hosted_style_request(settings.virtual_hosted)
        .with_retry(options.retry.clone())
        .with_client_options(options.client_options(allow_http));
    if let Some(endpoint) = &settings.endpoint {
        builder = builder.with_endpoint(endpoint);
    }
    builder = match &settings.credentials {
        S3Credentials::Unsigned => builder.with_skip_signature(true),
        S3Credentials::Static {
            access_key_id,
            secret_access_key,
            session_token,
        } => {
            let b = builder
                .with_access_key_id(access_key_id)
                .with_secret_access_key(secret_access_key);
            match session_token {
                Some(t) => b.with_token(t),
                None => b,
            }
        }
        S3Credentials::Chain => builder,
    };
    let store = builder.build().map_err(|source| RemoteError::Config {
        url: url.to_string(),
        source,
    })?;
    Ok(Arc::new(store))
}

/// The plain HTTP(S) server at `base` (`scheme://host[:port]`), read-only:
/// objects are addressed by their URL path.
pub fn http(base: &str, options: &RemoteOptions) -> Result<Arc<dyn ObjectStore>, RemoteError> {
    let store = object_store::http::HttpBuilder::new()
        .with_url(base)
        .with_retry(options.retry.clone())
        .with_client_options(options.client_options(base.starts_with("http://")))
        .build()
        .map_err(|source| RemoteError::Config {
            url: base.to_string(),
            source,
        })?;
    Ok(Arc::new(store))
}
