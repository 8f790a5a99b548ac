//! The error type of every codec operation.

use nctk_model::{ErrorKind, HasErrorKind};

/// Result alias used throughout the crate.
pub type Result<T, E = CodecError> = std::result::Result<T, E>;

/// Why a codec could not be built, or could not encode or decode a buffer.
///
/// Every variant names the codec involved (its numcodecs id, e.g. `"blosc"`)
/// and says what was expected and what was found. Decoding errors carry a
/// byte offset into the encoded stream where one is known. Callers that
/// decode chunks should wrap these with the chunk key.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum CodecError {
    /// The configuration names a codec id this crate does not implement.
    /// A reader should keep the dataset open and fail only when the data of
    /// a variable using it is read.
    #[error("unknown codec id {id:?}: no implementation of this codec in nctk")]
    UnknownCodec {
        /// The `id` found in the JSON configuration (or the HDF5 filter id as text).
        id: String,
    },

    /// The codec is known but this operation or parameter is not supported
    /// (for example szip, or blosc's snappy inner compressor).
    #[error("{codec}: unsupported: {what}")]
    Unsupported {
        /// Codec id.
        codec: &'static str,
        /// What is not supported.
        what: String,
    },

    /// The JSON configuration (or HDF5 filter parameters) is malformed.
    #[error("{codec}: invalid configuration: {reason}")]
    InvalidConfig {
        /// Codec id (or `"codec"` when the id itself is missing).
        codec: &'static str,
        /// What is wrong.
        reason: String,
    },

    /// The codec needs the array's element size or dtype, and none was given
    /// through a [`crate::CodecContext`].
    #[error("{codec}: needs the array's {what} (build the codec with a CodecContext)")]
    MissingContext {
        /// Codec id.
        codec: &'static str,
        /// `"element size"` or `"dtype"`.
        what: &'static str,
    },

    /// The input to `encode` (or the decoded output) has a length the codec
    /// cannot handle, e.g. not a multiple of the element size.
    #[error("{codec}: invalid input length {len}: {reason}")]
    InvalidLength {
        /// Codec id.
        codec: &'static str,
        /// Length in bytes.
        len: usize,
        /// Why it is invalid.
        reason: String,
    },

    /// The stream decodes (or declares that it decodes) to a size other than
    /// the one the caller expects. Nothing is allocated beyond the expected size.
    #[error("{codec}: decoded size mismatch: expected {expected} bytes, stream gives {got}")]
    SizeMismatch {
        /// Codec id.
        codec: &'static str,
        /// Size the caller declared (chunk size).
        expected: usize,
        /// Size the stream declares or produced (a lower bound when the stream
        /// was longer than expected).
        got: usize,
    },

    /// The encoded stream ends before the data it describes.
    #[error("{codec}: truncated stream: need {needed} bytes at offset {offset}, only {available} present")]
    Truncated {
        /// Codec id.
        codec: &'static str,
        /// Offset where the read started.
        offset: usize,
        /// Bytes needed from that offset.
        needed: usize,
        /// Bytes present from that offset.
        available: usize,
    },

    /// The encoded stream is malformed.
    #[error("{codec}: corrupt stream at offset {offset}: {reason}")]
    Corrupt {
        /// Codec id.
        codec: &'static str,
        /// Offset in the encoded stream (or in the inner stream, as described in `reason`).
        offset: usize,
        /// What is wrong.
        reason: String,
    },

    /// A checksum stored in the stream does not match the data.
    #[error("{codec}: checksum mismatch: stored {stored:#010x}, computed {computed:#010x}")]
    ChecksumMismatch {
        /// Codec id.
        codec: &'static str,
        /// Checksum stored in the stream.
        stored: u32,
        /// Checksum computed from the data.
        computed: u32,
    },

    /// An inner compression library reported an error.
    #[error("{codec}: {op} failed: {reason}")]
    Library {
        /// Codec id.
        codec: &'static str,
        /// `"encode"` or `"decode"`.
        op: &'static str,
        /// The library's message.
        reason: String,
    },
}

impl CodecError {
    pub(crate) fn invalid_config(codec: &'static str, reason: impl Into<String>) -> Self {
        CodecError::InvalidConfig {
            codec,
            reason: reason.into(),
        }
    }

    pub(crate) fn corrupt(codec: &'static str, offset: usize, reason: impl Into<String>) -> Self {
        CodecError::Corrupt {
            codec,
            offset,
            reason: reason.into(),
        }
    }

    pub(crate) fn library(codec: &'static str, op: &'static str, reason: impl ToString) -> Self {
        CodecError::Library {
            codec,
            op,
            reason: reason.to_string(),
        }
    }

    pub(crate) fn size(codec: &'static str, expected: usize, got: usize) -> Self {
        CodecError::SizeMismatch {
            codec,
            expected,
            got,
        }
    }

    pub(crate) fn unsupported(codec: &'static str, what: impl Into<String>) -> Self {
        CodecError::Unsupported {
            codec,
            what: what.into(),
        }
    }
}

/// A codec nctk lacks (or a setting of one) is unsupported, a codec built
/// without what it needs the caller's mistake; every other failure is a
/// stream or configuration that does not decode: invalid data.
impl HasErrorKind for CodecError {
    fn kind(&self) -> ErrorKind {
        match self {
            CodecError::UnknownCodec { .. } | CodecError::Unsupported { .. } => {
                ErrorKind::Unsupported
            }
            CodecError::MissingContext { .. } => ErrorKind::InvalidInput,
            CodecError::InvalidConfig { .. }
            | CodecError::InvalidLength { .. }
            | CodecError::SizeMismatch { .. }
            | CodecError::Truncated { .. }
            | CodecError::Corrupt { .. }
            | CodecError::ChecksumMismatch { .. }
            | CodecError::Library { .. } => ErrorKind::InvalidData,
        }
    }
}
