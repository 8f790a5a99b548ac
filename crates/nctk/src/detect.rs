//! Format detection: by magic bytes read through a file's byte source (the
//! door, [`crate::door`], recognises directories and URLs).

use std::path::Path;

use nctk_classic::compressed::format as compressed;
use nctk_classic::Version;
use nctk_model::Format;
use nctk_ncstream::wire::Magic;
use nctk_store::bytes::{ByteError, ByteSource};

use crate::door::Opened;

use crate::Error;

/// What holds a dataset: netCDF-C's dispatch (`NC_FORMATX_*`), kept apart
/// from the dataset's netCDF [`Format`] (`NC_FORMAT_*`) as netCDF-C keeps it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Container {
    /// A classic binary file of this format (CDF-1, CDF-2 or CDF-5).
    Classic(Format),
    /// An HDF5 file holding netCDF-4.
    Hdf5,
    /// An NCZarr or Zarr v2 store.
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
}

/// Detects what a single file is by its first bytes, read through its
/// byte source (and HDF5 after a user block, as netCDF-C finds it).
pub(crate) fn detect_source(source: &dyn ByteSource) -> Result<Container, Error> {
    let mut magic = [0u8; 8];
    let n = source.read_full(0, &mut magic).map_err(|e| Error::Source {
        path: source.name(),
        source: e.into(),
    })?;
    if let Some(container) = detect_magic(&magic[..n]) {
        return Ok(container);
    }
    // netCDF-C also finds HDF5 after a user block (offset 512, 1024, ...).
    let source_error = |e: ByteError| Error::Source {
        path: source.name(),
        source: e.into(),
    };
    let len = source.len().map_err(source_error)?;
    if nctk_hdf5::superblock::find_signature(source, len)
        .map_err(source_error)?
        .is_some()
    {
        return Ok(Container::Hdf5);
    }
    Err(Error::Open {
        path: source.name(),
        reason: unknown_magic_reason(source, &magic[..n]),
    })
}

/// Why bytes starting with `magic` do not open: an ncstream that is not a
/// dataset (a cdmremote data answer, which needs its header; an error
/// message, whose text is given), or an unknown magic number.
fn unknown_magic_reason(source: &dyn ByteSource, magic: &[u8]) -> String {
    let mark = magic
        .get(..4)
        .and_then(|m| Magic::from_bytes(m.try_into().ok()?));
    match mark {
        Some(Magic::Error) => {
            let head = source.read_range(0..ERROR_MESSAGE_LIMIT.min(source.len().unwrap_or(0)));
            let text = head
                .ok()
                .and_then(|b| nctk_ncstream::remote::error_text(&b));
            format!(
                "an ncstream error message, not a dataset: {}",
                text.as_deref().unwrap_or("(its text does not decode)")
            )
        }
        Some(m @ (Magic::Data | Magic::Data2)) => format!(
            "an ncstream data answer ({} at offset 0) without its header: \
             it is read with the header answer of the same dataset",
            m.name()
        ),
        _ => "not a netCDF file: unknown magic number at offset 0".into(),
    }
}

/// The most bytes read of a stream holding only an error message.
const ERROR_MESSAGE_LIMIT: u64 = 64 << 10;

/// The netCDF format of `target`, the kind `ncdump -k` prints
/// ([`Format::name`]: `classic`, `64-bit offset`, `cdf5`, `netCDF-4` or
/// `netCDF-4 classic model`).
///
/// For an HDF5 file only the superblock and the root group are read (the
/// root's `_nc3_strict` attribute marks the classic model, as netCDF-C
/// decides); other targets are opened as [`open`](crate::open) does (a
/// block-compressed classic file gives the format of the classic file it
/// stands for, from its stored header). An
/// ncstream (a `.ncs` file, a cdmremote URL) is `netCDF-4`: it carries
/// netCDF-Java's enhanced data model (groups, user types, strings), which
/// netCDF-C calls netCDF-4 whatever file holds it.
pub fn kind(target: impl AsRef<Path>) -> Result<Format, Error> {
    let name = target.as_ref().display().to_string();
    match crate::door::open_target(target.as_ref())? {
        Opened::File {
            source,
            container: Container::Hdf5,
        } => nctk_hdf5::netcdf4::format_of(source).map_err(|e| crate::open::open_error(&name, e)),
        opened => crate::open::dataset(opened, &name).map(|d| d.format()),
    }
}

/// The container whose magic number starts `bytes`, if any: classic
/// (`CDF\x01`, `\x02`, `\x05`), block-compressed classic, HDF5, a zip
/// archive (a Zarr store), or an ncstream (`CDFS`, or `MAGIC_HEADER` for a
/// cdmremote header response).
pub fn detect_magic(bytes: &[u8]) -> Option<Container> {
    let stream_start = |m: Magic| bytes.starts_with(&m.bytes());
    if stream_start(Magic::Start) || stream_start(Magic::Header) {
        return Some(Container::NcStream);
    }
    if bytes.starts_with(&compressed::MAGIC) {
        return Some(Container::Compressed);
    }
    match bytes {
        [b'C', b'D', b'F', v, ..] => Version::from_byte(*v).map(|v| Container::Classic(v.into())),
        [0x89, b'H', b'D', b'F', ..] => Some(Container::Hdf5),
        [b'P', b'K', 3, 4, ..] => Some(Container::Zarr),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn magic_numbers() {
        let classic = |f| Some(Container::Classic(f));
        assert_eq!(detect_magic(b"CDF\x01\0\0\0\0"), classic(Format::Classic));
        assert_eq!(detect_magic(b"CDF\x02"), classic(Format::Offset64));
        assert_eq!(detect_magic(b"CDF\x05"), classic(Format::Cdf5));
        assert_eq!(detect_magic(b"\x89HDF\r\n\x1a\n"), Some(Container::Hdf5));
        assert_eq!(detect_magic(b"CDF\x03"), None);
        assert_eq!(
            detect_magic(b"\x89NCB\r\n\x1a\n"),
            Some(Container::Compressed)
        );
        // A prefix of the magic is not enough.
        assert_eq!(detect_magic(b"\x89NCB"), None);
        assert_eq!(detect_magic(b"CDFS\xad\xec"), Some(Container::NcStream));
        assert_eq!(
            detect_magic(&[0xad, 0xec, 0xce, 0xda, 0x10]),
            Some(Container::NcStream)
        );
        // A data response alone is not a dataset: it needs its header.
        assert_eq!(detect_magic(&[0xab, 0xec, 0xce, 0xba]), None);
        assert_eq!(detect_magic(b""), None);
    }
}
