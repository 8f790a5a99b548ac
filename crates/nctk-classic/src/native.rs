//! Same-type fast path helpers: viewing a caller's `&mut [T]` as bytes and
//! swapping byte order in place. Only the ten primitive numeric types
//! qualify (checked by `TypeId`), so the casts are sound for any `T`.

use nctk_model::{DataType, NcValue};

/// True when `T` is the Rust type whose in-memory values are exactly the
/// values of `dtype` (char reads as `u8`/`i8` without conversion).
pub(crate) fn is_native<T: NcValue>(dtype: DataType) -> bool {
    T::NATIVE == dtype
        || (dtype == DataType::Char && matches!(T::NATIVE, DataType::Byte | DataType::UByte))
}

/// Views `out` as bytes. Callers check [`is_native`] first, which
/// guarantees `T` is a primitive number (no padding, every bit pattern valid).
pub(crate) fn as_bytes_mut<T: NcValue>(out: &mut [T], dtype: DataType) -> &mut [u8] {
    assert!(is_native::<T>(dtype), "as_bytes_mut on a non-native type");
    let len = std::mem::size_of_val(out);
    // SAFETY: `T` is one of the primitive numeric types (checked above), so
    // its memory is `len` initialized bytes with no padding, and any byte
    // pattern written through the view is a valid `T`.
    unsafe { std::slice::from_raw_parts_mut(out.as_mut_ptr().cast::<u8>(), len) }
}

/// Views `src` as bytes (same conditions as [`as_bytes_mut`]).
pub(crate) fn as_bytes<T: NcValue>(src: &[T], dtype: DataType) -> &[u8] {
    assert!(is_native::<T>(dtype), "as_bytes on a non-native type");
    // SAFETY: as in `as_bytes_mut`; reading the bytes of a primitive is sound.
    unsafe { std::slice::from_raw_parts(src.as_ptr().cast::<u8>(), std::mem::size_of_val(src)) }
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
