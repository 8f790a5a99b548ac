use nctk_codec::CodecError;
use nctk_model::{ErrorKind, HasErrorKind};
use nctk_store::kv::StoreError;

use crate::cell::FillValueError;

/// Errors of the Zarr reader and of URL parsing. Each names the store key
/// (or URL) and the reason.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ZarrError {
    /// The store failed (I/O, zip, invalid key).
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A metadata object is not valid JSON.
    #[error("{key}: invalid JSON: {source}")]
    Json {
        /// The metadata key.
        key: String,
        /// The parser's error.
        #[source]
        source: serde_json::Error,
    },
    /// A metadata object does not decode as the Zarr object it should be
    /// (a field missing or of the wrong type).
    #[error("{key}: {source}")]
    Decode {
        /// The metadata key.
        key: String,
        /// The decoder's error.
        #[source]
        source: serde_json::Error,
    },
    /// Metadata is well-formed JSON but not valid Zarr / NCZarr.
    #[error("{key}: {reason}")]
    Metadata {
        /// The metadata key.
        key: String,
        /// What is wrong.
        reason: String,
    },
    /// A dtype nctk cannot map to netCDF.
    #[error("{key}: unsupported dtype {dtype}: {reason}")]
    UnsupportedDtype {
        /// The `.zarray` key.
        key: String,
        /// The dtype text.
        dtype: String,
        /// Why.
        reason: &'static str,
    },
    /// A chunk's codec is unknown or failed.
    #[error("{key}: codec: {source}")]
    Codec {
        /// The chunk (or `.zarray`) key.
        key: String,
        /// The codec's error.
        #[source]
        source: CodecError,
    },
    /// A `.zarray`'s `fill_value` does not fit its dtype.
    #[error("{key}: {source}")]
    FillValue {
        /// The `.zarray` key.
        key: String,
        /// What does not fit.
        #[source]
        source: FillValueError,
    },
    /// A chunk object has the wrong size.
    #[error("{key}: chunk holds {actual} bytes, expected {expected}")]
    ChunkSize {
        /// The chunk key.
        key: String,
        /// Bytes expected from the metadata.
        expected: u64,
        /// Bytes found.
        actual: u64,
    },
    /// A shard's index is damaged: entries outside the shard or overlapping,
    /// a checksum that does not match, the wrong length.
    #[error("{key}: shard index: {reason}")]
    Shard {
        /// The shard's key.
        key: String,
        /// What is wrong.
        reason: String,
    },
    /// A chunk's decoded bytes are not what its codec promises (a vlen
    /// chunk with the wrong item count or running past its end).
    #[error("{key}: {reason}")]
    Chunk {
        /// The chunk's (or shard's) key.
        key: String,
        /// What is wrong.
        reason: String,
    },
    /// Metadata asks for something nctk does not implement (a storage
    /// transformer, a codec in a place it cannot be read from).
    #[error("{key}: {what} is not supported")]
    Unsupported {
        /// The metadata key.
        key: String,
        /// What.
        what: String,
    },
    /// A variable whose stored chunks cannot be given as references to
    /// their objects (a codec with no Zarr v2 form, a type with no
    /// fixed-width Zarr dtype, a layout Zarr v2 cannot express).
    #[error("variable {var:?}: references: {reason}")]
    Refs {
        /// The variable's path.
        var: String,
        /// Why.
        reason: String,
    },
    /// The store holds no Zarr dataset at its root.
    #[error("{key}: not a Zarr dataset: {reason}")]
    NotZarr {
        /// The key looked for.
        key: String,
        /// Why.
        reason: &'static str,
    },
    /// A request does not fit the dataset (bad variable, bad selection).
    #[error("{var}: {reason}")]
    Request {
        /// The variable.
        var: String,
        /// What is wrong.
        reason: String,
    },
    /// A data request is too large for memory.
    #[error("{var}: {reason}")]
    TooLarge {
        /// The variable.
        var: String,
        /// What overflowed.
        reason: String,
    },
}

/// Metadata that is not JSON, not Zarr or does not fit, a chunk of the
/// wrong size, a store holding no dataset are invalid data; a dtype nctk
/// cannot map is unsupported; the store's and a codec's errors have their
/// own kind; a request that does not fit the dataset is the caller's.
impl HasErrorKind for ZarrError {
    fn kind(&self) -> ErrorKind {
        match self {
            ZarrError::Store(e) => e.kind(),
            ZarrError::Codec { source, .. } => source.kind(),
            ZarrError::FillValue { source, .. } => source.kind(),
            ZarrError::UnsupportedDtype { .. }
            | ZarrError::Unsupported { .. }
            | ZarrError::Refs { .. } => ErrorKind::Unsupported,
            ZarrError::Request { .. } | ZarrError::TooLarge { .. } => ErrorKind::InvalidInput,
            ZarrError::Json { .. }
            | ZarrError::Decode { .. }
            | ZarrError::Metadata { .. }
            | ZarrError::ChunkSize { .. }
            | ZarrError::Shard { .. }
            | ZarrError::Chunk { .. }
            | ZarrError::NotZarr { .. } => ErrorKind::InvalidData,
        }
    }
}

impl ZarrError {
    pub(crate) fn meta(key: impl ToString, reason: impl Into<String>) -> Self {
        ZarrError::Metadata {
            key: key.to_string(),
            reason: reason.into(),
        }
    }
}
