//! Numeric filters that need the array's dtype: delta, fixedscaleoffset,
//! bitround, quantize.

pub mod bitround;
pub mod delta;
pub mod fixedscaleoffset;
pub mod quantize;

use crate::dtype::Dtype;
use crate::error::{CodecError, Result};

/// Number of elements in `len` bytes of `dtype`, or an error naming `codec`.
pub(crate) fn count(codec: &'static str, dtype: &Dtype, len: usize) -> Result<usize> {
    if len % dtype.size != 0 {
        return Err(CodecError::InvalidLength {
            codec,
            len,
            reason: format!(
                "not a multiple of the {} byte element size of {dtype}",
                dtype.size
            ),
        });
    }
    Ok(len / dtype.size)
}

/// Checks that `out` holds `n` elements of `dtype`.
pub(crate) fn check_out(codec: &'static str, dtype: &Dtype, n: usize, out: &[u8]) -> Result<()> {
    if out.len() != n * dtype.size {
        return Err(CodecError::size(codec, out.len(), n * dtype.size));
    }
    Ok(())
}
