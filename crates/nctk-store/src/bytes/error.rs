use nctk_model::{ErrorKind, HasErrorKind, SourceError};

/// Errors of byte sources and sinks: each names the blob and the offset.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ByteError {
    /// The operating system reported an error.
    #[error("{path}: {op} at offset {offset}: {source}")]
    Io {
        /// The file (or `<memory>`).
        path: String,
        /// What was attempted (`read`, `write`, `open`, ...).
        op: &'static str,
        /// Byte offset of the operation.
        offset: u64,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The blob ended before the bytes asked for.
    #[error("{path}: unexpected end of data at offset {offset} ({wanted} more bytes wanted)")]
    UnexpectedEof {
        /// The file (or `<memory>`).
        path: String,
        /// Where the data ended.
        offset: u64,
        /// How many bytes were missing.
        wanted: u64,
    },
    /// A range does not fit in memory on this platform.
    #[error("{path}: range of {len} bytes at offset {offset} is too large")]
    TooLarge {
        /// The file (or `<memory>`).
        path: String,
        /// Start of the range.
        offset: u64,
        /// Length of the range.
        len: u64,
    },
    /// The key/value store holding the blob failed (see
    /// [`ValueSource`](crate::kv::ValueSource)).
    #[error("{path}: read at offset {offset}: {source}")]
    Store {
        /// The key of the blob.
        path: String,
        /// Byte offset of the read.
        offset: u64,
        /// The store's error.
        #[source]
        source: Box<crate::kv::StoreError>,
    },
    /// A request for the blob on a remote server (HTTP, S3, ...) failed or
    /// was answered wrongly (a wrong `Content-Range`, a short body).
    #[error("{path}: read at offset {offset}: {source}")]
    Remote {
        /// The URL of the blob.
        path: String,
        /// Byte offset of the read.
        offset: u64,
        /// What went wrong (with its kind: a failed request has its
        /// status's; a wrong answer of unknown kind is invalid data).
        #[source]
        source: SourceError,
    },
    /// The stored bytes under the blob are damaged: a layer that presents
    /// decoded bytes (a block-compressed classic file) found its index or
    /// a block wrong. The source names what and where (variable, block,
    /// offset in the stored file).
    #[error("{path}: read at offset {offset}: {source}")]
    Invalid {
        /// The stored file.
        path: String,
        /// Offset of the read in the decoded blob.
        offset: u64,
        /// What is wrong, and where in the stored file (with its kind;
        /// one of unknown kind is invalid data).
        #[source]
        source: SourceError,
    },
}

impl ByteError {
    pub(crate) fn io(path: &str, op: &'static str, offset: u64, source: std::io::Error) -> Self {
        ByteError::Io {
            path: path.to_string(),
            op,
            offset,
            source,
        }
    }
}

/// The operating system's and the store's errors have their own kind; a
/// failed request has its status's; the data ending early, a range too
/// large, a wrong answer or damaged stored bytes are invalid data.
impl HasErrorKind for ByteError {
    fn kind(&self) -> ErrorKind {
        match self {
            ByteError::Io { source, .. } => ErrorKind::of_io(source),
            ByteError::Store { source, .. } => source.kind(),
            ByteError::Remote { source, .. } | ByteError::Invalid { source, .. } => {
                source.kind().known_or(ErrorKind::InvalidData)
            }
            ByteError::UnexpectedEof { .. } | ByteError::TooLarge { .. } => ErrorKind::InvalidData,
        }
    }
}
