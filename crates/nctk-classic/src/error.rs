use nctk_model::{DataType, ErrorKind, HasErrorKind, ModelError};
use nctk_store::bytes::ByteError;

use crate::Version;

/// Errors of the classic format crate. Each names the file (`<memory>` for
/// in-memory data) and, for bad bytes, the byte offset and the reason.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ClassicError {
    /// The header is not a valid classic header (netCDF-C's `NC_ENOTNC`,
    /// `NC_EINVAL`, `NC_EBADDIM`, `NC_EUNLIMPOS`, ...).
    #[error("{file}: invalid classic header at byte {offset}: {reason}")]
    Header {
        /// The file.
        file: String,
        /// Byte offset of the problem.
        offset: u64,
        /// What is wrong.
        reason: String,
    },
    /// Reading or writing bytes failed.
    #[error(transparent)]
    Io(#[from] ByteError),
    /// A selection or a value conversion failed (`NC_EINVALCOORDS`,
    /// `NC_EEDGE`, `NC_ERANGE`, `NC_ECHAR`).
    #[error("{file}: variable {var:?}: {source}")]
    Data {
        /// The file.
        file: String,
        /// The variable's name.
        var: String,
        /// The model error.
        #[source]
        source: ModelError,
    },
    /// A definition is not allowed (bad name, duplicate, bad dimension,
    /// second unlimited dimension, bad attribute type, ...).
    #[error("{file}: {reason}")]
    Define {
        /// The file.
        file: String,
        /// What is wrong.
        reason: String,
    },
    /// A type that this format version cannot hold (CDF-5 types in CDF-1/2, strings).
    #[error(
        "{file}: type {dtype} is not allowed in {version} files (netCDF-C: Not a valid data type or _FillValue type mismatch)"
    )]
    TypeNotSupported {
        /// The file.
        file: String,
        /// The type.
        dtype: DataType,
        /// The format version.
        version: Version,
    },
    /// A variable or the file is too large for the format version (`NC_EVARSIZE`).
    #[error("{file}: {reason} (too large for {version}; use CDF-2 or CDF-5)")]
    VarSize {
        /// The file.
        file: String,
        /// The format version.
        version: Version,
        /// Which variable and why.
        reason: String,
    },
    /// The operation is not allowed in the current mode (define vs data mode).
    #[error("{file}: {reason}")]
    Mode {
        /// The file.
        file: String,
        /// What is wrong.
        reason: &'static str,
    },
    /// A variable's data cannot be given as references to the file's
    /// bytes (the file ends before the data its header describes).
    #[error("{file}: variable {var:?}: references: {reason}")]
    Refs {
        /// The file.
        file: String,
        /// The variable's name.
        var: String,
        /// Why.
        reason: String,
    },
}

/// Result type of this crate.
pub type Result<T, E = ClassicError> = std::result::Result<T, E>;

/// A bad header is invalid data, a type the version cannot hold
/// unsupported; the bytes' and the model's errors have their own kind;
/// a definition, size or mode the format refuses is the caller's.
impl HasErrorKind for ClassicError {
    fn kind(&self) -> ErrorKind {
        match self {
            ClassicError::Header { .. } | ClassicError::Refs { .. } => ErrorKind::InvalidData,
            ClassicError::Io(e) => e.kind(),
            ClassicError::Data { source, .. } => source.kind(),
            ClassicError::TypeNotSupported { .. } => ErrorKind::Unsupported,
            ClassicError::Define { .. }
            | ClassicError::VarSize { .. }
            | ClassicError::Mode { .. } => ErrorKind::InvalidInput,
        }
    }
}
