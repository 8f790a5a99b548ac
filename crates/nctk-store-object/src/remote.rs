//! One object store and where in it a dataset lives.

use std::sync::Arc;
use std::time::Duration;

use nctk_model::{ErrorKind, HasErrorKind};
use object_store::path::Path;
use object_store::{ClientOptions, ObjectStore, RetryConfig};

/// How requests are made: `object_store`'s retry and client settings, how
/// many requests nctk keeps in flight, and the bounds that keep a
/// misbehaving server from hanging or exhausting the client.
///
/// [`RemoteOptions::from_env`] is the one place these are read from the
/// environment (`NCTK_S3_MAX_RETRIES`, `NCTK_S3_RETRY_TIMEOUT`,
/// `NCTK_S3_LIST_TIMEOUT`).
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
    /// Time allowed for one whole listing, every page: a server that
    /// answers every page with "more to come" (`IsTruncated`) would
    /// otherwise be listed for ever (`object_store` follows continuation
    /// tokens without bound).
    pub list_timeout: Duration,
    /// The largest object read whole (a GET without a range): a larger
    /// `Content-Length` is refused before any of the body is read or
    /// memory is set aside for it.
    pub max_object_size: u64,
    /// Bytes of a `#mode=bytes` file's blocks kept in its cache (whole
    /// [`BLOCK`](crate::BLOCK)s, least recently used evicted; default
    /// [`CACHE_BLOCKS`](crate::CACHE_BLOCKS) blocks, 32 MiB; 0: none).
    pub cache_bytes: u64,
}

impl Default for RemoteOptions {
    fn default() -> Self {
        RemoteOptions {
            retry: RetryConfig::default(),
            timeout: Duration::from_secs(60),
            connect_timeout: Duration::from_secs(10),
            concurrency: 32,
            list_timeout: Duration::from_secs(300),
            max_object_size: DEFAULT_MAX_OBJECT_SIZE,
            cache_bytes: crate::CACHE_BLOCKS as u64 * crate::BLOCK,
        }
    }
}

/// The default [`RemoteOptions::max_object_size`]: 2 GiB (larger than any
/// Zarr chunk or metadata object nctk writes or netCDF-C reads).
pub const DEFAULT_MAX_OBJECT_SIZE: u64 = 2 << 30;

/// An environment variable that [`RemoteOptions::from_env`] reads holds
/// something it cannot use.
#[derive(Debug, thiserror::Error)]
#[error("environment variable {var}={value:?}: {reason}")]
pub struct EnvError {
    /// The variable.
    pub var: &'static str,
    /// Its value.
    pub value: String,
    /// What it should be.
    pub reason: &'static str,
}

/// A setting the user gave that cannot be used is bad input.
impl HasErrorKind for EnvError {
    fn kind(&self) -> ErrorKind {
        ErrorKind::InvalidInput
    }
}

/// The value of `var`, parsed, when it is set.
fn env_number<T: std::str::FromStr>(
    var: &'static str,
    reason: &'static str,
) -> Result<Option<T>, EnvError> {
    match std::env::var(var) {
        Err(_) => Ok(None),
        Ok(value) => value
            .trim()
            .parse()
            .map(Some)
            .map_err(|_| EnvError { var, value, reason }),
    }
}

impl RemoteOptions {
    /// The defaults, with what the environment sets:
    /// `NCTK_S3_MAX_RETRIES` (retries of a failed request, a whole
    /// number), `NCTK_S3_RETRY_TIMEOUT` (seconds within which retries may
    /// be made) and `NCTK_S3_LIST_TIMEOUT` (seconds allowed for one
    /// listing). An unusable value is an error naming the variable.
    pub fn from_env() -> Result<Self, EnvError> {
        const SECONDS: &str = "not a number of seconds";
        let seconds = |var| -> Result<Option<Duration>, EnvError> {
            let s: Option<f64> = env_number(var, SECONDS)?;
            s.map(|s| {
                Duration::try_from_secs_f64(s).map_err(|_| EnvError {
                    var,
                    value: s.to_string(),
                    reason: SECONDS,
                })
            })
            .transpose()
        };
        let mut options = RemoteOptions::default();
        if let Some(n) = env_number("NCTK_S3_MAX_RETRIES", "not a whole number of retries")? {
            options.retry.max_retries = n;
        }
        if let Some(t) = seconds("NCTK_S3_RETRY_TIMEOUT")? {
            options.retry.retry_timeout = t;
        }
        if let Some(t) = seconds("NCTK_S3_LIST_TIMEOUT")? {
            options.list_timeout = t;
        }
        Ok(options)
    }

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
