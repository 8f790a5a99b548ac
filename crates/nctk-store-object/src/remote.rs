//! One object store and where in it a dataset lives.

use std::sync::Arc;
use std::time::Duration;

use object_store::path::Path;
use object_store::{ClientOptions, ObjectStore, RetryConfig};

/// How requests are made: `object_store`'s retry and client settings, and
/// how many requests nctk keeps in flight.
#[derive(Debug, Clone)]
pub struct RemoteOptions {
    /// Retries of 5xx, 429/SlowDown, timeouts and broken connections, with
    /// exponential backoff (`object_store`'s defaults: 10 retries within
    /// 3 minutes).
    pub retry: RetryConfig,
    /// Time allowed for one request (connect and body), and for connecting.
    pub timeout: Duration,
    /// Time allowed for connecting.
    pub connect_timeout: Duration,
    /// Requests kept in flight by batch reads and background uploads.
    pub concurrency: usize,
}

impl Default for RemoteOptions {
    fn default() -> Self {
        RemoteOptions {
            retry: RetryConfig::default(),
            timeout: Duration::from_secs(60),
            connect_timeout: Duration::from_secs(10),
            concurrency: 16,
        }
    }
}

impl RemoteOptions {
    /// The `object_store` client options these settings stand for;
    /// `allow_http` permits plain-HTTP endpoints (local and test servers).
    pub fn client_options(&self, allow_http: bool) -> ClientOptions {
        ClientOptions::new()
            .with_timeout(self.timeout)
            .with_connect_timeout(self.connect_timeout)
            .with_allow_http(allow_http)
    }
}

/// An object store, the URL it was opened at (named in every error) and
/// the key prefix of the dataset inside it.
#[derive(Debug, Clone)]
pub struct Remote {
    store: Arc<dyn ObjectStore>,
    url: String,
    prefix: String,
    options: RemoteOptions,
}

impl Remote {
    /// `store` as opened at `url`, holding the dataset under `prefix` (a
    /// key prefix without leading or trailing `/`; empty for the bucket's
    /// root).
    pub fn new(
        store: Arc<dyn ObjectStore>,
        url: impl Into<String>,
        prefix: &str,
        options: RemoteOptions,
    ) -> Self {
        Remote {
            store,
            url: url.into(),
            prefix: prefix.trim_matches('/').to_string(),
            options,
        }
    }

    /// The object store.
    pub fn store(&self) -> &Arc<dyn ObjectStore> {
        &self.store
    }

    /// The URL the store was opened at.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The request settings.
    pub fn options(&self) -> &RemoteOptions {
        &self.options
    }

    /// The object path of `key` (relative to the dataset's prefix), as
    /// written: `café/.zarray` is the object `café/.zarray`, as other
    /// clients name it, not percent-encoded.
    pub fn path(&self, key: &str) -> Path {
        let whole = if self.prefix.is_empty() {
            key.to_string()
        } else if key.is_empty() {
            self.prefix.clone()
        } else {
            format!("{}/{}", self.prefix, key)
        };
        // Validated store keys always parse; anything else is escaped
        // rather than sent as written.
        Path::parse(&whole).unwrap_or_else(|_| Path::from(whole))
    }

    /// The key of an object path under the dataset's prefix (`None` when
    /// the path lies elsewhere).
    pub fn key_of<'a>(&self, path: &'a Path) -> Option<&'a str> {
        let p = path.as_ref();
        if self.prefix.is_empty() {
            return Some(p);
        }
        p.strip_prefix(self.prefix.as_str())?.strip_prefix('/')
    }

    /// The URL of `key`, for messages.
    pub fn key_url(&self, key: &str) -> String {
        if key.is_empty() {
            self.url.clone()
        } else {
            format!("{}/{}", self.url.trim_end_matches('/'), key)
        }
    }
}
