use std::path::Path;

use nctk_classic::ClassicReader;
use nctk_zarr::url::{self, Target};
use nctk_zarr::ZarrOptions;

use crate::detect::{detect_file, detect_magic, looks_like_url, Format};
use crate::{Dataset, Error};

fn open_error(path: &str, e: impl Into<nctk_model::SourceError>) -> Error {
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

fn hdf5_unsupported(path: &str) -> Error {
    unsupported(
        path,
        "netCDF-4/HDF5 files cannot be read yet (nctk reads classic netCDF and NCZarr/Zarr; `nctk dump -k` gives the kind)",
    )
}

/// Opens a dataset for reading.
///
/// `target` is a local path or a netCDF-C URL:
/// * a classic netCDF file (CDF-1, CDF-2, CDF-5), detected by its magic bytes;
/// * a directory or zip holding an NCZarr or Zarr v2 store, read in NCZarr
///   mode (pure Zarr stores are read with xarray's `_ARRAY_DIMENSIONS`);
/// * `file:///abs/path#mode=nczarr,file`, `#mode=zarr,zip`, ... as netCDF-C
///   parses them (unknown modes are an error).
pub fn open(target: impl AsRef<Path>) -> Result<Dataset, Error> {
    let path = target.as_ref();
    let name = path.display().to_string();
    if !looks_like_url(path) {
        return open_local(path, &name);
    }
    let parsed = url::parse(&name).map_err(|e| open_error(&name, e))?;
    match parsed.target {
        Target::Path(p) | Target::File(p) => open_local(&p, &name),
        Target::Zarr(z) => z
            .open()
            .map(|r| Dataset::from_source(Box::new(r)))
            .map_err(|e| open_error(&name, e)),
        Target::Bytes(_) => Err(unsupported(
            &name,
            "byte-range access (#mode=bytes) is not available yet",
        )),
    }
}

fn open_local(path: &Path, name: &str) -> Result<Dataset, Error> {
    match detect_file(path)? {
        Format::Classic | Format::Offset64 | Format::Cdf5 => ClassicReader::open(path)
            .map(Dataset::from_classic)
            .map_err(|e| open_error(name, e)),
        Format::Zarr => nctk_zarr::open_path(path, ZarrOptions::default())
            .map(|r| Dataset::from_source(Box::new(r)))
            .map_err(|e| open_error(name, e)),
        Format::Hdf5 => Err(hdf5_unsupported(name)),
    }
}

/// Opens a dataset held in memory (a whole classic file's bytes).
pub fn open_mem(bytes: impl Into<bytes_crate::Bytes>) -> Result<Dataset, Error> {
    let bytes = bytes.into();
    let name = "<memory>";
    match detect_magic(&bytes) {
        Some(Format::Classic | Format::Offset64 | Format::Cdf5) => ClassicReader::from_bytes(bytes)
            .map(Dataset::from_classic)
            .map_err(|e| open_error(name, e)),
        Some(Format::Hdf5) => Err(hdf5_unsupported(name)),
        Some(Format::Zarr) => Err(unsupported(
            name,
            "zip stores in memory are not supported yet",
        )),
        None => Err(Error::Open {
            path: name.to_string(),
            reason: "not a netCDF file: unknown magic number at offset 0".into(),
        }),
    }
}
