//! What a request to an object store failed with.

use nctk_model::{ErrorKind, HasErrorKind};

use crate::aws::AwsConfigError;

/// A request to an object store failed. Each names the URL of the object
/// (or of the store) and keeps `object_store`'s error as the source.
///
/// "Not found" is its own case so that callers can tell a missing key (a
/// chunk never written: fill values) from a failure (never fill values),
/// and "access denied" (HTTP 403) from "not authenticated" (401).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RemoteError {
    /// The object does not exist (HTTP 404).
    #[error("{url}: not found (HTTP 404)")]
    NotFound {
        /// The object's URL.
        url: String,
    },
    /// The server refused access (HTTP 403): wrong credentials for this
    /// bucket, or a private object read without signing.
    #[error("{url}: access denied (HTTP 403); check the credentials and the profile: {source}")]
    Forbidden {
        /// The object's URL.
        url: String,
        /// `object_store`'s error.
        #[source]
        source: object_store::Error,
    },
    /// The server wants credentials (HTTP 401).
    #[error("{url}: not authenticated (HTTP 401): {source}")]
    Unauthenticated {
        /// The object's URL.
        url: String,
        /// `object_store`'s error.
        #[source]
        source: object_store::Error,
    },
    /// No credentials anywhere: not in the environment, the profile or the
    /// EC2 instance metadata service (asked when the first request needed
    /// them).
    #[error("{url}: {source}")]
    NoCredentials {
        /// The object's URL.
        url: String,
        /// What was looked in, and how to give credentials.
        #[source]
        source: Box<AwsConfigError>,
    },
    /// The store could not be configured (a bad endpoint, region or
    /// credential setting).
    #[error("{url}: cannot configure the object store: {source}")]
    Config {
        /// The store's URL.
        url: String,
        /// `object_store`'s error.
        #[source]
        source: object_store::Error,
    },
    /// Any other failure, after `object_store`'s retries: a server error,
    /// a timeout, a connection reset, a malformed response.
    #[error("{url}: {source}")]
    Request {
        /// The object's URL.
        url: String,
        /// `object_store`'s error.
        #[source]
        source: object_store::Error,
    },
}

impl RemoteError {
    /// Classifies `object_store`'s error for the object at `url`.
    pub fn from_object_store(url: impl Into<String>, source: object_store::Error) -> Self {
        let url = url.into();
        match source {
            object_store::Error::NotFound { .. } => RemoteError::NotFound { url },
            object_store::Error::PermissionDenied { .. } => RemoteError::Forbidden { url, source },
            object_store::Error::Unauthenticated { .. } => {
                RemoteError::Unauthenticated { url, source }
            }
            object_store::Error::Generic { store, source } => {
                match source.downcast::<AwsConfigError>() {
                    Ok(source) => RemoteError::NoCredentials { url, source },
                    Err(source) => RemoteError::Request {
                        url,
                        source: object_store::Error::Generic { store, source },
                    },
                }
            }
            source => RemoteError::Request { url, source },
        }
    }

    /// True when the object does not exist.
    pub fn is_not_found(&self) -> bool {
        matches!(self, RemoteError::NotFound { .. })
    }
}

/// A 404 is "not found", a 403 or 401 "permission denied" (as are no
/// credentials at all), a bad store
/// setting bad input; any other failure (after the retries: a 5xx, a
/// timeout, a reset connection) is I/O.
impl HasErrorKind for RemoteError {
    fn kind(&self) -> ErrorKind {
        match self {
            RemoteError::NotFound { .. } => ErrorKind::NotFound,
            RemoteError::Forbidden { .. } | RemoteError::Unauthenticated { .. } => {
                ErrorKind::PermissionDenied
            }
            RemoteError::NoCredentials { source, .. } => source.kind(),
            RemoteError::Config { .. } => ErrorKind::InvalidInput,
            RemoteError::Request { .. } => ErrorKind::Io,
        }
    }
}
