//! The writer's errors.

use nctk_model::{ErrorKind, HasErrorKind};
use nctk_store::bytes::ByteError;

/// An error writing an HDF5 file.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WriteError {
    /// The byte sink failed. Its message leads (it names the file, so
    /// that the error names it once).
    #[error("{source} (writing {what})")]
    Io {
        /// What was being written (`superblock`, `object header`, `chunk`, ...).
        what: String,
        /// The byte sink's error.
        #[source]
        source: ByteError,
    },
    /// Something this writer does not write (yet), named.
    #[error("not written by nctk's HDF5 writer yet: {0}")]
    Unsupported(String),
    /// A call that does not fit what was defined (a wrong size, an
    /// unknown object, a chunk outside the dataset).
    #[error("invalid HDF5 write: {0}")]
    Invalid(String),
    /// A filter failed to encode a chunk.
    #[error("encoding a chunk: {0}")]
    Filter(#[from] nctk_codec::CodecError),
}

impl HasErrorKind for WriteError {
    fn kind(&self) -> ErrorKind {
        match self {
            WriteError::Io { source, .. } => source.kind(),
            WriteError::Filter(e) => e.kind(),
            WriteError::Unsupported(_) => ErrorKind::Unsupported,
            WriteError::Invalid(_) => ErrorKind::InvalidInput,
        }
    }
}

/// The writer's result type.
pub type WriteResult<T> = std::result::Result<T, WriteError>;
