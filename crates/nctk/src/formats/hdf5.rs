//! netCDF-4 on HDF5: `nctk_hdf5`'s reader (feature `hdf5`).

use std::path::Path;
use std::sync::Arc;

use nctk_model::Format;
use nctk_store::bytes::ByteSource;

#[cfg(feature = "hdf5")]
use super::CreateRequest;
use super::FormatEntry;
use crate::output::OutputError;
#[cfg(feature = "hdf5")]
use crate::output::Sink;
use crate::{Container, Dataset, Error};

/// The HDF5 entry.
pub(super) struct Hdf5;

/// HDF5's format signature, at offset 0 or at a user block's end.
const SIGNATURE: [u8; 8] = *b"\x89HDF\r\n\x1a\n";

impl FormatEntry for Hdf5 {
    fn name(&self) -> &'static str {
        "netCDF-4/HDF5"
    }

    fn holds(&self, container: Container) -> bool {
        container == Container::Hdf5
    }

    fn recognise(&self, bytes: &[u8]) -> Option<Container> {
        bytes.starts_with(&SIGNATURE).then_some(Container::Hdf5)
    }

    /// netCDF-4 files are written by `nctk_hdf5`'s [`Netcdf4Writer`]
    /// (the slice it writes so far; it names what it does not).
    ///
    /// [`Netcdf4Writer`]: nctk_hdf5::Netcdf4Writer
    #[cfg(feature = "hdf5")]
    fn check_writable(&self, _path: &Path) -> Result<(), OutputError> {
        Ok(())
    }

    #[cfg(not(feature = "hdf5"))]
    fn check_writable(&self, path: &Path) -> Result<(), OutputError> {
        Err(OutputError::Unsupported {
            path: path.display().to_string(),
            format: "netCDF-4",
            reason: "nctk was built without its HDF5 support (feature `hdf5`)".into(),
        })
    }

    #[cfg(feature = "hdf5")]
    fn create(&self, request: &CreateRequest<'_>) -> Result<Sink, OutputError> {
        crate::output::create_hdf5(request)
    }

    /// netCDF-C also finds HDF5 after a user block (offset 512, 1024, ...).
    #[cfg(feature = "hdf5")]
    fn find(&self, source: &dyn ByteSource) -> Result<Option<Container>, Error> {
        let source_error = |e: nctk_store::bytes::ByteError| Error::Source {
            path: source.name(),
            source: e.into(),
        };
        let len = source.len().map_err(source_error)?;
        let found = nctk_hdf5::superblock::find_signature(source, len).map_err(source_error)?;
        Ok(found.map(|_| Container::Hdf5))
    }

    #[cfg(feature = "hdf5")]
    fn open(&self, source: Arc<dyn ByteSource>, name: &str) -> Result<Dataset, Error> {
        nctk_hdf5::netcdf4::Nc4Reader::open(source)
            .map(|r| Dataset::from_source(Box::new(r)))
            .map_err(|e| super::open_error(name, e))
    }

    #[cfg(not(feature = "hdf5"))]
    fn open(&self, _source: Arc<dyn ByteSource>, name: &str) -> Result<Dataset, Error> {
        Err(super::built_without(name, "a netCDF-4/HDF5 file", "hdf5"))
    }

    /// Only the superblock and the root group are read (the root's
    /// `_nc3_strict` attribute marks the classic model, as netCDF-C decides).
    fn chunk_refs(
        &self,
        dataset: &Dataset,
        var: nctk_model::VarId,
    ) -> Result<nctk_model::ChunkRefs, Error> {
        super::source_chunk_refs(dataset, var)
    }

    #[cfg(feature = "hdf5")]
    fn kind(&self, source: Arc<dyn ByteSource>, name: &str) -> Result<Format, Error> {
        nctk_hdf5::netcdf4::format_of(source).map_err(|e| super::open_error(name, e))
    }

    #[cfg(not(feature = "hdf5"))]
    fn kind(&self, _source: Arc<dyn ByteSource>, name: &str) -> Result<Format, Error> {
        Err(super::built_without(name, "a netCDF-4/HDF5 file", "hdf5"))
    }
}
