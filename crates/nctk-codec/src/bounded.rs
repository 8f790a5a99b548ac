//! Bounded decoding helpers: fill exactly the caller's buffer, never more.

use std::io::{ErrorKind, Read};

use crate::error::{CodecError, Result};

/// Reads from a streaming decoder into `out` until it is full, then checks
/// that the stream has nothing more to give. Memory use is bounded by the
/// decoder's own fixed buffers and `out`.
pub(crate) fn read_exact_into<R: Read>(
    codec: &'static str,
    mut r: R,
    out: &mut [u8],
) -> Result<()> {
    let mut filled = 0;
    while filled < out.len() {
        match r.read(&mut out[filled..]) {
            Ok(0) => return Err(CodecError::size(codec, out.len(), filled)),
            Ok(n) => filled += n,
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) => return Err(CodecError::library(codec, "decode", e)),
        }
    }
    let mut probe = [0u8; 1];
    loop {
        match r.read(&mut probe) {
            Ok(0) => return Ok(()),
            Ok(_) => return Err(CodecError::size(codec, out.len(), out.len() + 1)),
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) => return Err(CodecError::library(codec, "decode", e)),
        }
    }
}

/// Reads a streaming decoder to its end into a new buffer, refusing more
/// than `limit` bytes. The buffer grows as data arrives: nothing is
/// reserved from what a stream claims.
pub(crate) fn read_to_end_limited<R: Read>(
    codec: &'static str,
    r: R,
    limit: usize,
) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    let cap = u64::try_from(limit).unwrap_or(u64::MAX).saturating_add(1);
    let mut r = r.take(cap);
    loop {
        match r.read_to_end(&mut out) {
            Ok(_) => break,
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) => return Err(CodecError::library(codec, "decode", e)),
        }
    }
    if out.len() > limit {
        return Err(CodecError::size(codec, limit, out.len()));
    }
    Ok(out)
}
