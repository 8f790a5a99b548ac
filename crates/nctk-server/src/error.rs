//! The server's errors: starting it, and answering a request.

use std::path::PathBuf;

use nctk_model::{ErrorKind, HasErrorKind, SourceError};

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
        source: SourceError,
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

/// The socket's and the directory's I/O errors have their own kind; a
/// malformed `--dataset` is bad input.
impl HasErrorKind for ServeError {
    fn kind(&self) -> ErrorKind {
        match self {
            ServeError::Root { source, .. } | ServeError::Bind { source, .. } => {
                ErrorKind::of_io(source)
            }
            ServeError::Io(e) => ErrorKind::of_io(e),
            ServeError::DatasetOption(_) => ErrorKind::InvalidInput,
        }
    }
}

/// A path naming no dataset is not found; the query's, the dataset's and
/// the encoder's errors have their own kind.
impl HasErrorKind for RequestError {
    fn kind(&self) -> ErrorKind {
        match self {
            RequestError::NotFound(_) => ErrorKind::NotFound,
            RequestError::Query(e) => e.kind(),
            RequestError::Dataset { source, .. } => source.kind(),
            RequestError::Encode { source, .. } => source.kind(),
        }
    }
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
