//! Format detection: by magic bytes for single files, by netCDF-C URL or
//! directory layout for Zarr stores.

mod hdf5;

use std::io::Read;
use std::path::{Path, PathBuf};

use nctk_store::bytes::FileSource;
use nctk_zarr::url::{self, Target};

pub use hdf5::ProbeError;

use crate::Error;

/// The storage formats nctk knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// CDF-1, the original classic format.
    Classic,
    /// CDF-2, the 64-bit offset format.
    Offset64,
    /// CDF-5, the 64-bit data format.
    Cdf5,
    /// netCDF-4 in HDF5 (recognised, not supported).
    Hdf5,
    /// An NCZarr or Zarr v2 store.
    Zarr,
}

/// Detects the format of a local file by its first bytes.
pub fn detect_file(path: &Path) -> Result<Format, Error> {
    let io = |source| Error::Io {
        path: path.display().to_string(),
        source,
    };
    if path.is_dir() {
        return Ok(Format::Zarr);
    }
    let mut magic = [0u8; 8];
    let mut file = std::fs::File::open(path).map_err(io)?;
    let n = file.read(&mut magic).map_err(io)?;
    if let Some(format) = detect_magic(&magic[..n]) {
        return Ok(format);
    }
    // netCDF-C also finds HDF5 after a user block (offset 512, 1024, ...).
    if hdf5::find_signature(&file_source(path)?)?.is_some() {
        return Ok(Format::Hdf5);
    }
    Err(Error::Open {
        path: path.display().to_string(),
        reason: "not a netCDF file: unknown magic number at offset 0".into(),
    })
}

/// True when `path` is to be parsed as a netCDF-C URL rather than a path.
pub(crate) fn looks_like_url(path: &Path) -> bool {
    path.to_str()
        .is_some_and(|s| s.contains("://") || s.contains("#mode="))
}

fn file_source(path: &Path) -> Result<FileSource, Error> {
    FileSource::open(path).map_err(|e| Error::Source {
        path: path.display().to_string(),
        source: Box::new(e),
    })
}

impl From<ProbeError> for Error {
    fn from(e: ProbeError) -> Error {
        Error::Source {
            path: e.file.clone(),
            source: Box::new(e),
        }
    }
}

/// The kind of file `target` is, as `ncdump -k` prints it: `classic`,
/// `64-bit offset`, `cdf5`, `netCDF-4` or `netCDF-4 classic model`.
///
/// netCDF-4/HDF5 files cannot be read yet, but their kind is known: it
/// comes from a small probe of the HDF5 structures (the root group's
/// `_nc3_strict` attribute marks the classic model, as netCDF-C decides).
/// Other targets are opened as [`open`](crate::open) does.
pub fn kind(target: impl AsRef<Path>) -> Result<String, Error> {
    let path = target.as_ref();
    if let Some(local) = local_file(path)? {
        if local.is_file() && detect_file(&local)? == Format::Hdf5 {
            return hdf5_kind(&local).map(String::from);
        }
    }
    crate::open(path).map(|d| d.format_name().to_string())
}

/// The local file a path or `file://` URL names, if it names one.
fn local_file(path: &Path) -> Result<Option<PathBuf>, Error> {
    if !looks_like_url(path) {
        return Ok(Some(path.to_path_buf()));
    }
    let name = path.display().to_string();
    let parsed = url::parse(&name).map_err(|e| Error::Source {
        path: name.clone(),
        source: Box::new(e),
    })?;
    Ok(match parsed.target {
        Target::Path(p) | Target::File(p) => Some(p),
        _ => None,
    })
}

/// `netCDF-4` or `netCDF-4 classic model` for an HDF5 file.
fn hdf5_kind(path: &Path) -> Result<&'static str, Error> {
    let src = file_source(path)?;
    let base = hdf5::find_signature(&src)?.ok_or_else(|| Error::Open {
        path: path.display().to_string(),
        reason: "no HDF5 signature at offset 0, 512, 1024, ...".into(),
    })?;
    Ok(if hdf5::is_classic_model(&src, base)? {
        "netCDF-4 classic model"
    } else {
        "netCDF-4"
    })
}

/// The format whose magic number starts `bytes`, if any.
pub fn detect_magic(bytes: &[u8]) -> Option<Format> {
    match bytes {
        [b'C', b'D', b'F', 1, ..] => Some(Format::Classic),
        [b'C', b'D', b'F', 2, ..] => Some(Format::Offset64),
        [b'C', b'D', b'F', 5, ..] => Some(Format::Cdf5),
        [0x89, b'H', b'D', b'F', ..] => Some(Format::Hdf5),
        [b'P', b'K', 3, 4, ..] => Some(Format::Zarr),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn magic_numbers() {
        assert_eq!(detect_magic(b"CDF\x01\0\0\0\0"), Some(Format::Classic));
        assert_eq!(detect_magic(b"CDF\x02"), Some(Format::Offset64));
        assert_eq!(detect_magic(b"CDF\x05"), Some(Format::Cdf5));
        assert_eq!(detect_magic(b"\x89HDF\r\n\x1a\n"), Some(Format::Hdf5));
        assert_eq!(detect_magic(b"CDF\x03"), None);
        assert_eq!(detect_magic(b""), None);
    }
}
