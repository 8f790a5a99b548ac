//! ncstream, netCDF-Java's streaming format (`.ncs` files and cdmremote
//! header answers): `nctk_ncstream`'s reader and writer (feature
//! `ncstream`).

use std::path::Path;
use std::sync::Arc;

use nctk_store::bytes::ByteSource;

use super::{CreateRequest, FormatEntry};
use crate::output::{OutputError, Sink};
use crate::{Container, Dataset, Error};

/// The ncstream entry.
pub(super) struct NcStream;

impl FormatEntry for NcStream {
    fn name(&self) -> &'static str {
        "ncstream"
    }

    fn holds(&self, container: Container) -> bool {
        container == Container::NcStream
    }

    /// A whole stream (`MAGIC_START`, `CDFS`) or a cdmremote header
    /// answer (`MAGIC_HEADER`); a data answer alone is not a dataset.
    fn recognise(&self, bytes: &[u8]) -> Option<Container> {
        let starts = |m: [u8; 4]| bytes.starts_with(&m);
        (starts(magic::START) || starts(magic::HEADER)).then_some(Container::NcStream)
    }

    #[cfg(feature = "ncstream")]
    fn open(&self, source: Arc<dyn ByteSource>, name: &str) -> Result<Dataset, Error> {
        nctk_ncstream::NcStreamReader::open(source, name)
            .map(|r| Dataset::from_source(Box::new(r)))
            .map_err(|e| super::open_error(name, e))
    }

    #[cfg(not(feature = "ncstream"))]
    fn open(&self, _source: Arc<dyn ByteSource>, name: &str) -> Result<Dataset, Error> {
        Err(super::built_without(name, "an ncstream", "ncstream"))
    }

    fn check_writable(&self, _path: &Path) -> Result<(), OutputError> {
        Ok(())
    }

    fn create(&self, request: &CreateRequest<'_>) -> Result<Sink, OutputError> {
        crate::output::create_file_stream(request)
    }
}

/// The magic numbers that start an ncstream dataset.
#[cfg(feature = "ncstream")]
mod magic {
    use nctk_ncstream::wire::Magic;

    pub(super) const START: [u8; 4] = Magic::Start.bytes();
    pub(super) const HEADER: [u8; 4] = Magic::Header.bytes();
}

/// The magic numbers that start an ncstream dataset (netCDF-Java's
/// `MAGIC_START` and `MAGIC_HEADER`), known without the ncstream crate so
/// that such a file gets a "built without" error.
#[cfg(not(feature = "ncstream"))]
mod magic {
    pub(super) const START: [u8; 4] = *b"CDFS";
    pub(super) const HEADER: [u8; 4] = [0xad, 0xec, 0xce, 0xda];
}

/// Why bytes starting with `magic` do not open: an ncstream that is not a
/// dataset (a cdmremote data answer, which needs its header; an error
/// message, whose text is given), or an unknown magic number.
#[cfg(feature = "ncstream")]
pub(super) fn unknown_magic_reason(source: &dyn ByteSource, magic: &[u8]) -> String {
    use nctk_ncstream::wire::Magic;
    /// The most bytes read of a stream holding only an error message.
    const ERROR_MESSAGE_LIMIT: u64 = 64 << 10;
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
        _ => UNKNOWN_MAGIC.into(),
    }
}

/// Why bytes starting with `magic` do not open.
#[cfg(not(feature = "ncstream"))]
pub(super) fn unknown_magic_reason(_source: &dyn ByteSource, _magic: &[u8]) -> String {
    UNKNOWN_MAGIC.into()
}

/// The reason given for a file no entry recognises.
const UNKNOWN_MAGIC: &str = "not a netCDF file: unknown magic number at offset 0";
