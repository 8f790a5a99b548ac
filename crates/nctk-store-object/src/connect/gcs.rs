//! The GCS store a `gs://` URL names, configured from the environment as
//! `object_store` reads it, and pointed at a local emulator the way
//! Google's client libraries and gcsfs are: `STORAGE_EMULATOR_HOST`.
//!
//! The endpoint is `GOOGLE_BASE_URL` (`object_store`'s own variable), else
//! the `gcs_base_url` of a service-account file, else
//! `STORAGE_EMULATOR_HOST` (`host:port`, taken as `http://host:port`, or a
//! full `http(s)://` URL), else `https://storage.googleapis.com`. A plain
//! `http://` endpoint is allowed (emulators serve plain HTTP). With
//! `STORAGE_EMULATOR_HOST` set, or a plain `http://` endpoint (which can
//! only be an emulator), and no credentials configured (no service
//! account, application credentials or bearer token), requests carry an
//! empty bearer token, as the Google client libraries send an emulator
//! anonymous credentials and as `object_store` does for a service account
//! with `disable_oauth`, instead of asking the instance metadata service
//! for a token. (Not `skip_signature`: `object_store` 0.14 still asks for
//! a token before a PUT or DELETE with it.)

use std::sync::Arc;

use object_store::gcp::{
    GcpCredential, GoogleCloudStorage, GoogleCloudStorageBuilder, GoogleConfigKey,
};
use object_store::{ClientConfigKey, StaticCredentialProvider};

use crate::RemoteOptions;

/// The variable naming a GCS emulator (Google's client libraries, gcsfs).
pub const EMULATOR_HOST: &str = "STORAGE_EMULATOR_HOST";

/// The GCS store `url` names, configured from this process's environment.
pub fn store(url: &str, options: &RemoteOptions) -> object_store::Result<GoogleCloudStorage> {
    let emulator = std::env::var(EMULATOR_HOST).ok();
    configure(
        GoogleCloudStorageBuilder::from_env(),
        emulator.as_deref(),
        url,
        options,
    )
    .build()
}

/// `builder` (holding what the environment configures) for `url`, with the
/// emulator at `emulator` (`STORAGE_EMULATOR_HOST`, when set).
fn configure(
    mut builder: GoogleCloudStorageBuilder,
    emulator: Option<&str>,
    url: &str,
    options: &RemoteOptions,
) -> GoogleCloudStorageBuilder {
    let emulator = emulator.map(str::trim).filter(|h| !h.is_empty());
    let configured = |b: &GoogleCloudStorageBuilder, key| b.get_config_value(&key).is_some();
    if let Some(host) = emulator {
        if !configured(&builder, GoogleConfigKey::BaseUrl) {
            builder = builder.with_base_url(&emulator_base_url(host));
        }
    }
    let plain_http = builder
        .get_config_value(&GoogleConfigKey::BaseUrl)
        .is_some_and(|b| b.starts_with("http://"));
    let credentials = [
        GoogleConfigKey::ServiceAccount,
        GoogleConfigKey::ServiceAccountKey,
        GoogleConfigKey::ApplicationCredentials,
        GoogleConfigKey::BearerToken,
    ];
    let emulated = emulator.is_some() || plain_http;
    if emulated && !credentials.into_iter().any(|k| configured(&builder, k)) {
        let anonymous = GcpCredential {
            bearer: String::new(),
        };
        builder = builder.with_credentials(Arc::new(StaticCredentialProvider::new(anonymous)));
    }
    let asked = builder
        .get_config_value(&GoogleConfigKey::Client(ClientConfigKey::AllowHttp))
        .is_some_and(|v| v.eq_ignore_ascii_case("true"));
    builder
        .with_url(url)
        .with_retry(options.retry.clone())
        .with_client_options(options.client_options(plain_http || asked))
}

/// The base URL of the emulator at `host` (`host:port`, or a URL).
fn emulator_base_url(host: &str) -> String {
    let host = host.trim_end_matches('/');
    if host.starts_with("http://") || host.starts_with("https://") {
        host.to_string()
    } else {
        format!("http://{host}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base_url(builder: &GoogleCloudStorageBuilder) -> Option<String> {
        builder.get_config_value(&GoogleConfigKey::BaseUrl)
    }

    /// The credential `store` sends (no request: a static one).
    fn token(store: &GoogleCloudStorage) -> Arc<GcpCredential> {
        let provider = store.credentials().clone();
        crate::runtime::block_on(async move { provider.get_credential().await }).unwrap()
    }

    #[test]
    fn an_emulator_host_is_a_plain_http_base_url_with_anonymous_credentials() {
        let options = RemoteOptions::default();
        let b = configure(
            GoogleCloudStorageBuilder::new(),
            Some("127.0.0.1:4443"),
            "gs://b/k",
            &options,
        );
        assert_eq!(base_url(&b).as_deref(), Some("http://127.0.0.1:4443"));
        // Built without a request: plain HTTP is allowed; the credentials
        // are the empty token.
        let store = b.build().expect("an emulator's store builds");
        let token = token(&store);
        assert_eq!(token.bearer, "");
        let b = configure(
            GoogleCloudStorageBuilder::new(),
            Some("https://gcs.test:4443/"),
            "gs://b/k",
            &options,
        );
        assert_eq!(base_url(&b).as_deref(), Some("https://gcs.test:4443"));
    }

    #[test]
    fn configured_base_urls_and_credentials_win_over_the_emulator() {
        let options = RemoteOptions::default();
        let env = GoogleCloudStorageBuilder::new()
            .with_base_url("http://10.0.0.1:9000")
            .with_config(GoogleConfigKey::BearerToken, "token");
        let b = configure(env, Some("127.0.0.1:4443"), "gs://b/k", &options);
        assert_eq!(base_url(&b).as_deref(), Some("http://10.0.0.1:9000"));
        let store = b.build().expect("a plain-HTTP base URL is allowed");
        let configured = token(&store);
        assert_eq!(
            configured.bearer, "token",
            "the configured token, not the empty one"
        );
        // A plain-HTTP base URL alone is an emulator too.
        let env = GoogleCloudStorageBuilder::new().with_base_url("http://127.0.0.1:4443");
        let store = configure(env, None, "gs://b/k", &options).build().unwrap();
        assert_eq!(token(&store).bearer, "");
        // No emulator: nothing changes.
        let b = configure(GoogleCloudStorageBuilder::new(), None, "gs://b/k", &options);
        assert_eq!(base_url(&b), None);
    }
}
