//! Building the object store a URL names: S3 from [`S3Settings`] (see
//! [`crate::aws`]), GCS, Azure and plain HTTP(S) from their URL and the
//! environment ([`cloud`]).

use std::sync::Arc;

use object_store::aws::AmazonS3Builder;
use object_store::azure::MicrosoftAzureBuilder;
use object_store::gcp::GoogleCloudStorageBuilder;
use object_store::{ObjectStore, ObjectStoreScheme};

use crate::{Remote, RemoteError, RemoteOptions};

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

/// An object store service other than S3, as `object_store` names it
/// from a URL ([`object_store::ObjectStoreScheme`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CloudService {
    /// Google Cloud Storage: `gs://bucket/key`.
    Gcs,
    /// Azure Blob Storage / Data Lake: `az://container/key`,
    /// `abfs[s]://container@account.dfs.core.windows.net/key`, `azure://`,
    /// `adl://`, `https://account.blob.core.windows.net/container/key`.
    Azure,
    /// A plain HTTP(S) server (read-only): `https://host/path`.
    Http,
}

/// Why a store on a plain HTTP(S) server cannot be written.
pub const HTTP_READ_ONLY: &str =
    "a plain HTTP(S) server is read-only; write to s3://, gs:// or az:// storage";

/// What is done with a store: a plain HTTP(S) server can only be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Reads only.
    Read,
    /// Reads and writes.
    Write,
}

/// The service `url` names as `object_store` reads it (S3 and local URLs,
/// which nctk reads by netCDF-C's rules, and unknown schemes give `None`).
pub fn cloud_service(url: &str) -> Option<CloudService> {
    let parsed = url::Url::parse(url).ok()?;
    match ObjectStoreScheme::parse(&parsed).ok()?.0 {
        ObjectStoreScheme::GoogleCloudStorage => Some(CloudService::Gcs),
        ObjectStoreScheme::MicrosoftAzure => Some(CloudService::Azure),
        ObjectStoreScheme::Http => Some(CloudService::Http),
        _ => None,
    }
}

/// The GCS, Azure or HTTP(S) store `url` (without fragment) names, and the
/// dataset's prefix in it. Credentials come from the environment as
/// `object_store` reads it (`GoogleCloudStorageBuilder::from_env`:
/// `GOOGLE_SERVICE_ACCOUNT`, `GOOGLE_APPLICATION_CREDENTIALS`, ...;
/// `MicrosoftAzureBuilder::from_env`: `AZURE_STORAGE_ACCOUNT_NAME`,
/// `AZURE_STORAGE_ACCOUNT_KEY`, ...). A plain HTTP(S) server is read-only:
/// asking to write to one is refused here.
pub fn cloud(url: &str, access: Access, options: &RemoteOptions) -> Result<Remote, RemoteError> {
    let config = |source: object_store::Error| RemoteError::Config {
        url: url.to_string(),
        source,
    };
    let not_supported = |reason: String| {
        config(object_store::Error::NotSupported {
            source: reason.into(),
        })
    };
    let parsed = url::Url::parse(url).map_err(|e| not_supported(format!("not a URL: {e}")))?;
    let (scheme, prefix) = ObjectStoreScheme::parse(&parsed).map_err(|e| config(e.into()))?;
    let allow_http = parsed.scheme() == "http";
    let client = options.client_options(allow_http);
    let store: Arc<dyn ObjectStore> = match scheme {
        ObjectStoreScheme::GoogleCloudStorage => Arc::new(
            GoogleCloudStorageBuilder::from_env()
                .with_url(url)
                .with_retry(options.retry.clone())
                .with_client_options(client)
                .build()
                .map_err(config)?,
        ),
        ObjectStoreScheme::MicrosoftAzure => Arc::new(
            MicrosoftAzureBuilder::from_env()
                .with_url(url)
                .with_retry(options.retry.clone())
                .with_client_options(client)
                .build()
                .map_err(config)?,
        ),
        ObjectStoreScheme::Http if access == Access::Write => {
            return Err(not_supported(HTTP_READ_ONLY.into()))
        }
        ObjectStoreScheme::Http => {
            let base = url.trim_end_matches('/');
            return Ok(Remote::new(http(base, options)?, base, "", options.clone()));
        }
        _ => {
            return Err(not_supported(
                "not a GCS, Azure or HTTP(S) URL (S3 URLs are read by netCDF-C's rules)".into(),
            ))
        }
    };
    Ok(Remote::new(store, url, prefix.as_ref(), options.clone()))
}
