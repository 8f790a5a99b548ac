//! The server's errors: starting it, and answering a request.

use std::path::PathBuf;

use crate::query::QueryError;

/// An error starting or running the server.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// The served directory cannot be used.
    #[error("{}: cannot serve this directory: {source}", path.display())]
    Root {
        /// The directory given.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A `--dataset` option is not `NAME=TARGET`.
    #[error("--dataset {0:?}: expected NAME=PATH_OR_URL")]
    DatasetOption(String),
    /// The listening socket cannot be made.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address asked for.
        addr: String,
        /// The socket's error.
        #[source]
        source: std::io::Error,
    },
    /// The runtime cannot be built or the accept loop failed.
    #[error("server: {0}")]
    Io(#[from] std::io::Error),
}

/// Why a request gets an error answer instead of its data; each maps to
/// the HTTP status THREDDS answers with.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RequestError {
    /// The path names no dataset under the served directory (404).
    #[error("FileNotFound: {0}")]
    NotFound(String),
    /// The query string is malformed or names what the dataset lacks (400).
    #[error(transparent)]
    Query(#[from] QueryError),
    /// The dataset exists but cannot be opened or read (500).
    #[error("IOException: {path}: {source}")]
    Dataset {
        /// The request path.
        path: String,
        /// nctk's error.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// The answer cannot be encoded (500).
    #[error("{path}: {source}")]
    Encode {
        /// The request path.
        path: String,
        /// The encoder's error.
        #[source]
        source: nctk_ncstream::NcStreamError,
    },
}

impl RequestError {
    /// The HTTP status of the answer.
    pub fn status(&self) -> u16 {
        match self {
            RequestError::NotFound(_) => 404,
            RequestError::Query(_) => 400,
            RequestError::Dataset { .. } | RequestError::Encode { .. } => 500,
        }
    }
}
