use nctk_model::{ErrorKind, HasErrorKind, SourceError};

/// Errors of key/value stores. Each names the key (or the path of the
/// store) and the reason.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// A string is not a valid store key.
    #[error("invalid store key {key:?}: {reason}")]
    InvalidKey {
        /// The rejected text.
        key: String,
        /// Why it was rejected.
        reason: &'static str,
    },
    /// The operating system reported an error for a key.
    #[error("{key}: {op}: {source}")]
    Io {
        /// The key (or the store's path).
        key: String,
        /// What was attempted (`read`, `write`, `list`, ...).
        op: &'static str,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// A requested byte range lies outside the object.
    #[error("{key}: byte range {start}..{end} is outside the object of {len} bytes")]
    RangeOutOfBounds {
        /// The key.
        key: String,
        /// Start of the requested range.
        start: u64,
        /// End (exclusive) of the requested range.
        end: u64,
        /// The object's length.
        len: u64,
    },
    /// The backend cannot do this operation.
    #[error("{key}: {op} is not supported: {reason}")]
    Unsupported {
        /// The key.
        key: String,
        /// The operation (`put`, `delete`, ...).
        op: &'static str,
        /// Why not.
        reason: &'static str,
    },
    /// A zip archive is malformed or could not be written.
    #[error("{key}: zip: {reason}")]
    Zip {
        /// The key (or the archive's name).
        key: String,
        /// What went wrong.
        reason: String,
    },
    /// A storage backend (an object store, a remote service) failed for a
    /// key; its own error is kept as the source.
    #[error("{key}: {op}: {source}")]
    Backend {
        /// The key (or the store's location).
        key: String,
        /// What was attempted (`get`, `put`, `list`, ...).
        op: &'static str,
        /// The backend's error (with its kind; one of unknown kind is I/O).
        #[source]
        source: SourceError,
    },
    /// The zip library (or the sink under it) failed on an archive.
    #[error("{key}: zip: {source}")]
    ZipLibrary {
        /// The key (or the archive's name).
        key: String,
        /// The library's error (with its kind; one of unknown kind is
        /// invalid data).
        #[source]
        source: SourceError,
    },
    /// An object is larger than this platform can hold in memory.
    #[error("{key}: object of {len} bytes is too large")]
    TooLarge {
        /// The key.
        key: String,
        /// The object's length.
        len: u64,
    },
}

impl StoreError {
    /// The zip library's error: its I/O error's kind, an archive it does
    /// not support is unsupported, any other a malformed archive.
    pub(crate) fn zip(key: impl Into<String>, source: zip::result::ZipError) -> Self {
        use zip::result::ZipError;
        let kind = match &source {
            ZipError::Io(e) => ErrorKind::of_io(e),
            ZipError::UnsupportedArchive(_) => ErrorKind::Unsupported,
            _ => ErrorKind::InvalidData,
        };
        StoreError::ZipLibrary {
            key: key.into(),
            source: SourceError::new(kind, source),
        }
    }

    pub(crate) fn io(key: impl Into<String>, op: &'static str, source: std::io::Error) -> Self {
        StoreError::Io {
            key: key.into(),
            op,
            source,
        }
    }
}

/// A bad key is the caller's; a backend's failure of unknown kind is I/O,
/// a zip library's a malformed archive; an object that does not fit
/// (a range outside it, too large, a malformed archive) is invalid data.
impl HasErrorKind for StoreError {
    fn kind(&self) -> ErrorKind {
        match self {
            StoreError::InvalidKey { .. } => ErrorKind::InvalidInput,
            StoreError::Io { source, .. } => ErrorKind::of_io(source),
            StoreError::Unsupported { .. } => ErrorKind::Unsupported,
            StoreError::Backend { source, .. } => source.kind().known_or(ErrorKind::Io),
            StoreError::ZipLibrary { source, .. } => source.kind().known_or(ErrorKind::InvalidData),
            StoreError::RangeOutOfBounds { .. }
            | StoreError::Zip { .. }
            | StoreError::TooLarge { .. } => ErrorKind::InvalidData,
        }
    }
}
