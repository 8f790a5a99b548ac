//! Same-type fast path helpers: which Rust type holds a netCDF type's
//! values unconverted, and swapping byte order in place (the byte views
//! themselves are [`nctk_model::bytes`]).

use nctk_model::{DataType, NcValue};

/// True when `T` is the Rust type whose in-memory values are exactly the
/// values of `dtype` (char reads as `u8`/`i8` without conversion).
pub(crate) fn is_native<T: NcValue>(dtype: DataType) -> bool {
    T::NATIVE == dtype
        || (dtype == DataType::Char && matches!(T::NATIVE, DataType::Byte | DataType::UByte))
}

/// Converts big-endian values of `size` bytes each to native order, in place.
pub(crate) fn be_to_native(bytes: &mut [u8], size: usize) {
    if cfg!(target_endian = "big") {
        return;
    }
    macro_rules! swap {
        ($t:ty) => {{
            // SAFETY: every bit pattern is a valid unsigned integer.
            let (pre, mid, post) = unsafe { bytes.align_to_mut::<$t>() };
            for x in mid.iter_mut() {
                *x = <$t>::from_be(*x);
            }
            swap_slow(pre, size);
            swap_slow(post, size);
        }};
    }
    match size {
        2 => swap!(u16),
        4 => swap!(u32),
        8 => swap!(u64),
        _ => {}
    }
}

/// Native order to big-endian is the same swap.
pub(crate) fn native_to_be(bytes: &mut [u8], size: usize) {
    be_to_native(bytes, size);
}

fn swap_slow(bytes: &mut [u8], size: usize) {
    for c in bytes.chunks_exact_mut(size) {
        c.reverse();
    }
}
