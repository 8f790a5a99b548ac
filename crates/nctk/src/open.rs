use std::path::Path;

use nctk_classic::ClassicReader;

use crate::detect::{detect_file, detect_magic, Format};
use crate::{Dataset, Error};

fn classic_error(path: &str, e: nctk_classic::ClassicError) -> Error {
    Error::Open {
        path: path.to_string(),
        reason: e.to_string(),
    }
}

fn unsupported(path: &str, format: Format) -> Error {
    let reason = match format {
        Format::Hdf5 => {
            "netCDF-4/HDF5 files are not supported (nctk reads classic netCDF and NCZarr/Zarr)"
        }
        _ => "NCZarr/Zarr stores are not supported yet",
    };
    Error::Open {
        path: path.to_string(),
        reason: reason.into(),
    }
}

/// Opens a dataset for reading: a classic netCDF file (CDF-1, CDF-2, CDF-5),
/// detected by its magic bytes.
pub fn open(path: impl AsRef<Path>) -> Result<Dataset, Error> {
    let path = path.as_ref();
    let name = path.display().to_string();
    match detect_file(path)? {
        Format::Classic | Format::Offset64 | Format::Cdf5 => ClassicReader::open(path)
            .map(Dataset::from_classic)
            .map_err(|e| classic_error(&name, e)),
        other => Err(unsupported(&name, other)),
    }
}

/// Opens a dataset held in memory (a whole classic file's bytes).
pub fn open_mem(bytes: impl Into<bytes_crate::Bytes>) -> Result<Dataset, Error> {
    let bytes = bytes.into();
    match detect_magic(&bytes) {
        Some(Format::Classic | Format::Offset64 | Format::Cdf5) => ClassicReader::from_bytes(bytes)
            .map(Dataset::from_classic)
            .map_err(|e| classic_error("<memory>", e)),
        Some(other) => Err(unsupported("<memory>", other)),
        None => Err(Error::Open {
            path: "<memory>".into(),
            reason: "not a netCDF file: unknown magic number at offset 0".into(),
        }),
    }
}
