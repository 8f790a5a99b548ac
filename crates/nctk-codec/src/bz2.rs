//! `bz2` codec (HDF5 filter 307).

use std::io::Write;

use crate::bounded::read_exact_into;
use crate::error::{CodecError, Result};

/// Compresses like Python's `bz2.compress(data, level)`.
pub(crate) fn encode(input: &[u8], level: u32) -> Result<Vec<u8>> {
    let mut enc = bzip2::write::BzEncoder::new(
        Vec::with_capacity(input.len() / 2 + 64),
        bzip2::Compression::new(level),
    );
    enc.write_all(input)
        .and_then(|_| enc.finish())
        .map_err(|e| CodecError::library("bz2", "encode", e))
}

/// Decompresses one or more bzip2 streams into exactly `out`.
pub(crate) fn decode_into(input: &[u8], out: &mut [u8]) -> Result<()> {
    read_exact_into("bz2", bzip2::read::MultiBzDecoder::new(input), out)
}
