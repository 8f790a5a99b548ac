//! The writer's error type.

use nctk_model::{ErrorKind, HasErrorKind, ModelError};
use nctk_store::kv::StoreError;

/// Errors of the Zarr / NCZarr writer. Each names the store key or the
/// variable and the reason.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WriteError {
    /// The store failed (I/O, zip, invalid key).
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A codec could not be built, or failed on a chunk.
    #[error("{key}: codec: {source}")]
    Codec {
        /// The chunk or `.zarray` key.
        key: String,
        /// The codec's error.
        #[source]
        source: nctk_codec::CodecError,
    },
    /// A variable's storage options do not fit it (chunk sizes, filters).
    #[error("{var}: {reason}")]
    Options {
        /// The variable's path.
        var: String,
        /// What is wrong.
        reason: String,
    },
    /// A write request does not fit the variable (selection, type, count).
    #[error("{var}: {reason}")]
    Request {
        /// The variable's path.
        var: String,
        /// What is wrong.
        reason: String,
    },
    /// The definitions break netCDF's rules for writing (a name netCDF-C
    /// would not write, a name used twice in one scope, a `_FillValue` that
    /// is not one value of its variable's type).
    #[error("cannot write these definitions: {0}")]
    Definition(#[from] ModelError),
    /// The schema cannot be written as Zarr (a name that is not a store key).
    #[error("{name}: {reason}")]
    Schema {
        /// The object's name or path.
        name: String,
        /// What is wrong.
        reason: String,
    },
}

/// The store's, a codec's and the model's errors have their own kind;
/// options, requests and names the writer refuses are the caller's.
impl HasErrorKind for WriteError {
    fn kind(&self) -> ErrorKind {
        match self {
            WriteError::Store(e) => e.kind(),
            WriteError::Codec { source, .. } => source.kind(),
            WriteError::Definition(e) => e.kind(),
            WriteError::Options { .. } | WriteError::Request { .. } | WriteError::Schema { .. } => {
                ErrorKind::InvalidInput
            }
        }
    }
}
