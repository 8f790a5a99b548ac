//! Errors of the netCDF-4 layer: the HDF5 reader's, and netCDF-level
//! problems naming the file and the object.

use nctk_model::{ErrorKind, HasErrorKind};

use crate::Hdf5Error;

/// An error reading an HDF5 file as netCDF-4.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Nc4Error {
    /// The HDF5 structures could not be read.
    #[error(transparent)]
    Hdf5(#[from] Hdf5Error),
    /// The netCDF-4 conventions are broken (a hidden attribute of the
    /// wrong shape, a dimension that cannot be found, ...).
    #[error("{file}: {object}: {reason}")]
    Invalid {
        /// The file (or URL).
        file: String,
        /// The HDF5 object (dataset, attribute, group path).
        object: String,
        /// What is wrong.
        reason: String,
    },
    /// A valid HDF5 construct netCDF-4 (or nctk) does not read.
    #[error("{file}: {object}: not supported: {reason}")]
    Unsupported {
        /// The file (or URL).
        file: String,
        /// The HDF5 object.
        object: String,
        /// The construct.
        reason: String,
    },
    /// A request the schema refuses (a selection outside a variable, a
    /// name clash in the file's definitions).
    #[error("{file}: {object}: {source}")]
    Model {
        /// The file (or URL).
        file: String,
        /// The variable or group.
        object: String,
        /// The model's error.
        #[source]
        source: nctk_model::ModelError,
    },
}

/// Broken netCDF-4 conventions are invalid data, a construct nctk does not
/// read unsupported; the HDF5 reader's and the model's errors have their
/// own kind.
impl HasErrorKind for Nc4Error {
    fn kind(&self) -> ErrorKind {
        match self {
            Nc4Error::Hdf5(e) => e.kind(),
            Nc4Error::Model { source, .. } => source.kind(),
            Nc4Error::Unsupported { .. } => ErrorKind::Unsupported,
            Nc4Error::Invalid { .. } => ErrorKind::InvalidData,
        }
    }
}
