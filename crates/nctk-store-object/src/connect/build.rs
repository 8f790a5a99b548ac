//! The stores themselves, built through `object_store` (the `connect`
//! feature).

use std::sync::Arc;

use object_store::aws::{AmazonS3Builder, AmazonS3ConfigKey};
use object_store::azure::{AzureConfigKey, MicrosoftAzure, MicrosoftAzureBuilder};
use object_store::{ClientConfigKey, ObjectStore, ObjectStoreScheme};

use super::imds::InstanceMetadataProvider;
use super::{Access, S3Credentials, S3Settings, HTTP_READ_ONLY};
use crate::{Remote, RemoteError, RemoteOptions};

/// The S3 store `settings` name; `url` names it in errors.
pub fn s3(
    settings: &S3Settings,
    options: &RemoteOptions,
    url: &str,
) -> Result<Arc<dyn ObjectStore>, RemoteError> {
    let config = |source| RemoteError::Config {
        url: url.to_string(),
        source,
    };
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
        S3Credentials::Chain => {
            CHAIN_CONFIG
                .into_iter()
                .fold(builder, |b, (var, key)| match std::env::var(var) {
                    Ok(value) if !value.is_empty() => b.with_config(key, value),
                    _ => b,
                })
        }
        S3Credentials::InstanceMetadata {
            endpoint,
            profile,
            files,
        } => {
            let provider = InstanceMetadataProvider::new(
                endpoint,
                settings.endpoint.as_deref(),
                profile,
                files,
            )
            .map_err(config)?;
            builder.with_credentials(Arc::new(provider))
        }
    };
    let store = builder.build().map_err(config)?;
    Ok(Arc::new(store))
}

/// The variables `object_store`'s credential chain reads for web identity
/// and container credentials ([`S3Credentials::Chain`]), and its settings
/// for them: [`AmazonS3Builder::from_env`] would read them, but also the
/// endpoint, region and keys that nctk's own rules decide.
const CHAIN_CONFIG: [(&str, AmazonS3ConfigKey); 7] = [
    (
        "AWS_WEB_IDENTITY_TOKEN_FILE",
        AmazonS3ConfigKey::WebIdentityTokenFile,
    ),
    ("AWS_ROLE_ARN", AmazonS3ConfigKey::RoleArn),
    ("AWS_ROLE_SESSION_NAME", AmazonS3ConfigKey::RoleSessionName),
    ("AWS_ENDPOINT_URL_STS", AmazonS3ConfigKey::StsEndpoint),
    (
        "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
        AmazonS3ConfigKey::ContainerCredentialsRelativeUri,
    ),
    (
        "AWS_CONTAINER_CREDENTIALS_FULL_URI",
        AmazonS3ConfigKey::ContainerCredentialsFullUri,
    ),
    (
        "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE",
        AmazonS3ConfigKey::ContainerAuthorizationTokenFile,
    ),
];

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

/// The GCS, Azure or HTTP(S) store `url` (without fragment) names, and the
/// dataset's prefix in it. Credentials come from the environment as
/// `object_store` reads it (`GoogleCloudStorageBuilder::from_env`:
/// `GOOGLE_SERVICE_ACCOUNT`, `GOOGLE_APPLICATION_CREDENTIALS`, ...,
/// and a GCS emulator from `STORAGE_EMULATOR_HOST`: see [`super::gcs`];
/// `MicrosoftAzureBuilder::from_env`: `AZURE_STORAGE_ACCOUNT_NAME`,
/// `AZURE_STORAGE_ACCOUNT_KEY`, `AZURE_STORAGE_USE_EMULATOR` (Azurite),
/// ...). A plain `http://` endpoint configured there is allowed. A plain
/// HTTP(S) server is read-only: asking to write to one is refused here.
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
    let store: Arc<dyn ObjectStore> = match scheme {
        ObjectStoreScheme::GoogleCloudStorage => {
            Arc::new(super::gcs::store(url, options).map_err(config)?)
        }
        ObjectStoreScheme::MicrosoftAzure => Arc::new(azure(url, options).map_err(config)?),
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

/// The Azure store `url` names, configured from this process's environment
/// (`MicrosoftAzureBuilder::from_env`); plain HTTP is allowed when the
/// configured endpoint (`AZURE_STORAGE_ENDPOINT`) is an `http://` URL or
/// the environment allows it (`AZURE_ALLOW_HTTP`); Azurite
/// (`AZURE_STORAGE_USE_EMULATOR`) is always reached over plain HTTP.
fn azure(url: &str, options: &RemoteOptions) -> object_store::Result<MicrosoftAzure> {
    let builder = MicrosoftAzureBuilder::from_env();
    let plain_http = builder
        .get_config_value(&AzureConfigKey::Endpoint)
        .is_some_and(|e| e.starts_with("http://"));
    let asked = builder
        .get_config_value(&AzureConfigKey::Client(ClientConfigKey::AllowHttp))
        .is_some_and(|v| v.eq_ignore_ascii_case("true"));
    builder
        .with_url(url)
        .with_retry(options.retry.clone())
        .with_client_options(options.client_options(plain_http || asked))
        .build()
}
