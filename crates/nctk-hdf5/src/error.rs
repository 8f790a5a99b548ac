//! The reader's errors: every one names the file and, where there is one,
//! the byte offset (an absolute file offset) and what was being read.

use nctk_model::{ErrorKind, HasErrorKind};
use nctk_store::bytes::ByteError;

/// An error reading an HDF5 file.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Hdf5Error {
    /// The byte source failed (I/O error, remote error, end of data).
    #[error("{file}: reading {what}: {source}")]
    Io {
        /// The file (or URL).
        file: String,
        /// What was being read (`superblock`, `object header`, `chunk`, ...).
        what: String,
        /// The byte source's error (names the offset).
        #[source]
        source: ByteError,
    },
    /// A structure does not fit where the file says it is: an address,
    /// size or count points past the end of the file or of its block.
    #[error("{file}: {what} at offset {offset}: {reason}")]
    OutOfBounds {
        /// The file (or URL).
        file: String,
        /// The structure being read.
        what: String,
        /// Absolute file offset of the structure or field.
        offset: u64,
        /// What does not fit (`needs 40 bytes, 12 left`, `address 9999 past end of file (800 bytes)`).
        reason: String,
    },
    /// A structure is malformed: a wrong signature, version, checksum or value.
    #[error("{file}: {what} at offset {offset}: {reason}")]
    Corrupt {
        /// The file (or URL).
        file: String,
        /// The structure being read.
        what: String,
        /// Absolute file offset of the structure or field.
        offset: u64,
        /// What is wrong.
        reason: String,
    },
    /// A valid HDF5 feature this reader does not implement.
    #[error("{file}: {what} at offset {offset}: not supported: {reason}")]
    Unsupported {
        /// The file (or URL).
        file: String,
        /// The structure being read.
        what: String,
        /// Absolute file offset of the structure.
        offset: u64,
        /// The feature.
        reason: String,
    },
    /// A filter failed to decode a chunk, or names a filter nctk lacks.
    #[error("{file}: chunk at offset {offset}: {source}")]
    Filter {
        /// The file (or URL).
        file: String,
        /// Absolute file offset of the chunk.
        offset: u64,
        /// The codec's error.
        #[source]
        source: nctk_codec::CodecError,
    },
}

/// A structure out of bounds or malformed is invalid data, a feature the
/// reader lacks unsupported; the byte source's and a filter's errors have
/// their own kind.
impl HasErrorKind for Hdf5Error {
    fn kind(&self) -> ErrorKind {
        match self {
            Hdf5Error::Io { source, .. } => source.kind(),
            Hdf5Error::Filter { source, .. } => source.kind(),
            Hdf5Error::Unsupported { .. } => ErrorKind::Unsupported,
            Hdf5Error::OutOfBounds { .. } | Hdf5Error::Corrupt { .. } => ErrorKind::InvalidData,
        }
    }
}

/// The reader's result type.
pub type Result<T, E = Hdf5Error> = std::result::Result<T, E>;
