//! Format detection: by magic bytes for single files, by netCDF-C URL or
//! directory layout for Zarr stores.

use std::io::Read;
use std::path::Path;

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
    detect_magic(&magic[..n]).ok_or_else(|| Error::Open {
        path: path.display().to_string(),
        reason: "not a netCDF file: unknown magic number at offset 0".into(),
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
