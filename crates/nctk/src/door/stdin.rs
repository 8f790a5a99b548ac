//! `-`: a dataset read from standard input. The bytes are spooled to an
//! anonymous temporary file (removed by the system when closed), so input
//! of any size is read with bounded memory and then opened as a file:
//! classic, HDF5, a zip store or an ncstream, by its magic number.

use std::io::Read;
use std::sync::Arc;

use nctk_store::bytes::{ByteSource, FileSource};

use crate::Error;

/// The name standard input goes by, as a target and in errors.
pub const STDIN: &str = "-";

/// Copies everything `input` holds into an anonymous temporary file and
/// returns it as a byte source named [`STDIN`].
pub(super) fn spool(mut input: impl Read) -> Result<Arc<dyn ByteSource>, Error> {
    let io_error = |source| Error::Io {
        path: STDIN.to_string(),
        source,
    };
    let mut file = tempfile::tempfile().map_err(io_error)?;
    std::io::copy(&mut input, &mut file).map_err(io_error)?;
    let source = FileSource::from_file(file, STDIN).map_err(|e| Error::Source {
        path: STDIN.to_string(),
        source: e.into(),
    })?;
    Ok(Arc::new(source))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What is spooled reads back whole, byte for byte, named `-`.
    #[test]
    fn spooled_bytes_read_back() {
        let bytes: Vec<u8> = (0..200_000u32).map(|i| (i * 7 % 251) as u8).collect();
        let source = spool(bytes.as_slice()).unwrap();
        assert_eq!(source.len().unwrap(), bytes.len() as u64);
        assert_eq!(source.read_range(0..bytes.len() as u64).unwrap(), bytes);
        assert_eq!(source.name(), STDIN);
    }
}
