//! Format detection: by magic bytes read through a file's byte source (the
//! door, [`crate::door`], recognises directories and URLs).

mod hdf5;

use std::path::Path;

use nctk_store::bytes::ByteSource;

use crate::door::Opened;

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

/// Detects the format of a single file by its first bytes, read through
/// its byte source (and HDF5 after a user block, as netCDF-C finds it).
pub(crate) fn detect_source(source: &dyn ByteSource) -> Result<Format, Error> {
    let mut magic = [0u8; 8];
    let n = source.read_full(0, &mut magic).map_err(|e| Error::Open {
        path: source.name(),
        reason: e.to_string(),
    })?;
    if let Some(format) = detect_magic(&magic[..n]) {
        return Ok(format);
    }
    // netCDF-C also finds HDF5 after a user block (offset 512, 1024, ...).
    if hdf5::find_signature(source)?.is_some() {
        return Ok(Format::Hdf5);
    }
    Err(Error::Open {
        path: source.name(),
        reason: "not a netCDF file: unknown magic number at offset 0".into(),
    })
}

impl From<ProbeError> for Error {
    fn from(e: ProbeError) -> Error {
        Error::Open {
            path: e.file,
            reason: format!("HDF5 data at offset {}: {}", e.offset, e.reason),
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
    let opened = crate::door::open_target(target.as_ref())?;
    if let Opened::File {
        source,
        format: Format::Hdf5,
    } = &opened
    {
        return hdf5_kind(source.as_ref()).map(String::from);
    }
    crate::open::dataset(opened, &target.as_ref().display().to_string())
        .map(|d| d.format_name().to_string())
}

/// `netCDF-4` or `netCDF-4 classic model` for an HDF5 file.
fn hdf5_kind(src: &dyn ByteSource) -> Result<&'static str, Error> {
    let base = hdf5::find_signature(src)?.ok_or_else(|| Error::Open {
        path: src.name(),
        reason: "no HDF5 signature at offset 0, 512, 1024, ...".into(),
    })?;
    Ok(if hdf5::is_classic_model(src, base)? {
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
