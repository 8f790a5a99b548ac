//! What holds a dataset: netCDF-C's dispatch (`NC_FORMATX_*`), kept apart
//! from the dataset's netCDF [`Format`] (`NC_FORMAT_*`) as netCDF-C keeps it.

use std::path::Path;

use nctk_model::Format;

use crate::OutputError;

/// What holds a dataset ([`crate::Dataset::container`]); each has one
/// entry in the facade's format table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Container {
    /// A classic binary file of this format (CDF-1, CDF-2 or CDF-5).
    Classic(Format),
    /// An HDF5 file holding netCDF-4.
    Hdf5,
    /// An NCZarr or Zarr v2 store (a directory, a zip archive, or an
    /// object store).
    Zarr,
    /// An ncstream (netCDF-Java's streaming format): a whole stream
    /// (`CDFS`, netCDF-Java's `MAGIC_START`) or the body of a cdmremote
    /// header response (`MAGIC_HEADER` first). Its netCDF format is
    /// [`Format::Netcdf4`]: the stream carries netCDF-Java's enhanced
    /// data model.
    NcStream,
    /// A block-compressed classic file (`\x89NCB\r\n\x1a\n`,
    /// `docs/formats/compressed-classic.md`): read as the classic file it
    /// stands for, whose format is its netCDF format.
    Compressed,
    /// A dataset on a cdmremote server (`cdmremote:http://host/path`),
    /// read by a request per read; its format is [`Format::Netcdf4`].
    CdmRemote,
}

impl Container {
    /// True for netCDF-Java's streaming model (an ncstream file or a
    /// cdmremote server), whose `netCDF-4` names a data model, not a file.
    pub fn is_stream(self) -> bool {
        matches!(self, Container::NcStream | Container::CdmRemote)
    }
}

impl Container {
    /// What [`crate::create`] makes for a dataset of `format` at `target`:
    /// an ncstream when `target` names one (a `.ncs` path or `-`, standard
    /// output) whatever the format; a classic file for the classic
    /// formats; for netCDF-4, an NCZarr store when `target` names one (a
    /// netCDF-C URL, a path ending in `.zarr` or `.zip`), else an HDF5
    /// file.
    pub fn for_output(target: &Path, format: Format) -> Container {
        if crate::output::is_ncstream_target(target) {
            Container::NcStream
        } else if format.is_cdf() {
            Container::Classic(format)
        } else if crate::create_zarr::is_store_target(target) {
            Container::Zarr
        } else {
            Container::Hdf5
        }
    }

    /// Refuses an output of this container at `target` when nctk cannot
    /// write it there (an HDF5 file; a block-compressed file that is not a
    /// single local file), naming why; as nccopy, before any other work.
    pub fn check_output(self, target: &Path) -> Result<(), OutputError> {
        crate::formats::entry(self).check_writable(target)
    }
}
