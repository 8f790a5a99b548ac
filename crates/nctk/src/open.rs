use std::path::Path;
use std::sync::Arc;

use nctk_classic::compressed::CompressedSource;
use nctk_classic::ClassicReader;
use nctk_hdf5::netcdf4::Nc4Reader;
use nctk_ncstream::NcStreamReader;
use nctk_store::bytes::{ByteSource, MemSource};
use nctk_zarr::ZarrReader;

use crate::detect::{detect_magic, Container};
use crate::door::{open_target, Opened};
use crate::{Dataset, Error};

pub(crate) fn open_error(path: &str, e: impl Into<nctk_model::SourceError>) -> Error {
    Error::Source {
        path: path.to_string(),
        source: e.into(),
    }
}

fn unsupported(path: &str, reason: &str) -> Error {
    Error::Unsupported {
        path: path.to_string(),
        reason: reason.to_string(),
    }
}

/// The dataset in the ncstream `source` (a whole stream or a cdmremote
/// header answer; `name` names it in errors).
fn ncstream(source: Arc<dyn ByteSource>, name: &str) -> Result<Dataset, Error> {
    NcStreamReader::open(source, name)
        .map(|r| Dataset::from_source(Box::new(r)))
        .map_err(|e| open_error(name, e))
}

/// The classic dataset in the classic file `source` (`name` names it in
/// errors).
fn classic(source: Arc<dyn ByteSource>, name: &str) -> Result<Dataset, Error> {
    ClassicReader::from_source(source)
        .map(|r| Dataset::from_source(Box::new(r)))
        .map_err(|e| open_error(name, e))
}

/// The classic dataset a block-compressed file stands for, read through
/// a [`CompressedSource`] over the stored file `source`.
fn compressed(source: Arc<dyn ByteSource>, name: &str) -> Result<Dataset, Error> {
    let decoded = CompressedSource::open(source).map_err(|e| open_error(name, e))?;
    classic(Arc::new(decoded), name)
}

/// The netCDF-4 dataset in the HDF5 file `source` (`name` names it in errors).
fn hdf5(source: Arc<dyn ByteSource>, name: &str) -> Result<Dataset, Error> {
    Nc4Reader::open(source)
        .map(|r| Dataset::from_source(Box::new(r)))
        .map_err(|e| open_error(name, e))
}

/// Opens a dataset for reading.
///
/// `target` is a local path or a netCDF-C URL:
/// * a classic netCDF file (CDF-1, CDF-2, CDF-5), detected by its magic bytes;
/// * a block-compressed classic file (`docs/formats/compressed-classic.md`),
///   read as the classic file it stands for (also from memory and over
///   `#mode=bytes` URLs);
/// * a netCDF-4 (HDF5) file, read as netCDF-C reads it (also from memory and
///   over `#mode=bytes` URLs);
/// * a directory or zip holding an NCZarr or Zarr v2 store, read in NCZarr
///   mode (pure Zarr stores are read with xarray's `_ARRAY_DIMENSIONS`);
/// * `file:///abs/path#mode=nczarr,file`, `#mode=zarr,zip`, ... as netCDF-C
///   parses them (unknown modes are an error);
/// * an ncstream (netCDF-Java's streaming format, `.ncs`): a whole stream or
///   the body of a cdmremote header answer, detected by its first bytes;
///   its format is [`Format::Netcdf4`](crate::Format::Netcdf4);
/// * `cdmremote:http://host/path` (or `https`): a dataset on a cdmremote
///   server (THREDDS, `nctk serve`): the header is read at open, each read
///   asks the server for exactly the section read;
/// * `-`: standard input, spooled to an anonymous temporary file (any size,
///   bounded memory), then any of the single-file kinds above.
pub fn open(target: impl AsRef<Path>) -> Result<Dataset, Error> {
    let path = target.as_ref();
    dataset(open_target(path)?, &path.display().to_string())
}

/// The dataset in what the door opened (`name` names it in errors).
pub(crate) fn dataset(opened: Opened, name: &str) -> Result<Dataset, Error> {
    match opened {
        Opened::Store { store, options } => ZarrReader::open(store, options)
            .map(|r| Dataset::from_source(Box::new(r)))
            .map_err(|e| open_error(name, e)),
        Opened::File { source, container } => match container {
            Container::Classic(_) => classic(source, name),
            Container::Compressed => compressed(source, name),
            Container::Hdf5 => hdf5(source, name),
            Container::NcStream => ncstream(source, name),
            Container::Zarr => Err(unsupported(name, "a zip store is not a single file")),
        },
        Opened::Remote(source) => Ok(Dataset::from_source(source)),
    }
}

impl Dataset {
    /// The dataset in what [`crate::door::open_target`] opened; `name`
    /// names it in errors.
    pub fn open_in(opened: Opened, name: &str) -> Result<Dataset, Error> {
        dataset(opened, name)
    }
}

/// Opens a dataset held in memory (a whole classic or netCDF-4/HDF5 file's
/// bytes, or an ncstream).
pub fn open_mem(bytes: impl Into<bytes_crate::Bytes>) -> Result<Dataset, Error> {
    open_bytes("<memory>", bytes.into())
}

/// As [`open_mem`], naming the bytes `name` in errors.
pub fn open_bytes(name: &str, bytes: bytes_crate::Bytes) -> Result<Dataset, Error> {
    match detect_magic(&bytes) {
        Some(Container::Classic(_)) => ClassicReader::from_bytes(bytes)
            .map(|r| Dataset::from_source(Box::new(r)))
            .map_err(|e| open_error(name, e)),
        Some(Container::Compressed) => {
            compressed(Arc::new(MemSource::new(bytes).with_name(name)), name)
        }
        Some(Container::Hdf5) => hdf5(Arc::new(MemSource::new(bytes).with_name(name)), name),
        Some(Container::NcStream) => {
            ncstream(Arc::new(MemSource::new(bytes).with_name(name)), name)
        }
        Some(Container::Zarr) => Err(unsupported(
            name,
            "zip stores in memory are not supported yet",
        )),
        None => Err(Error::Open {
            path: name.to_string(),
            reason: "not a netCDF file: unknown magic number at offset 0".into(),
        }),
    }
}
