//! Slices of plain numbers viewed as their bytes in memory (native byte
//! order), without copying: the one place in nctk that makes that cast.

use std::any::TypeId;

use crate::Values;

mod sealed {
    /// Implemented for the ten primitive number types only.
    pub trait Sealed {}
}

/// A primitive number type (`i8` ... `u64`, `f32`, `f64`): no padding, and
/// every bit pattern is a valid value, so its memory can be read and
/// written as bytes. Sealed: no other type can implement it.
pub trait Plain: sealed::Sealed + Copy + Send + Sync + 'static {}

macro_rules! plain {
    ($($t:ty),*) => {
        $(
            impl sealed::Sealed for $t {}
            impl Plain for $t {}
        )*
        /// True when `T` is one of the [`Plain`] types.
        fn is_plain<T: 'static>() -> bool {
            let t = TypeId::of::<T>();
            $(t == TypeId::of::<$t>())||*
        }
    };
}

plain!(i8, u8, i16, u16, i32, u32, i64, u64, f32, f64);

/// The bytes of `v` in memory.
pub fn as_bytes<T: Plain>(v: &[T]) -> &[u8] {
    // SAFETY: `T: Plain` is a primitive number (the trait is sealed): its
    // memory is `size_of_val(v)` initialized bytes without padding, `u8`
    // has alignment 1, and the view borrows `v` for its whole life.
    unsafe { std::slice::from_raw_parts(v.as_ptr().cast::<u8>(), std::mem::size_of_val(v)) }
}

/// The bytes of `v` in memory, writable.
pub fn as_bytes_mut<T: Plain>(v: &mut [T]) -> &mut [u8] {
    let len = std::mem::size_of_val(v);
    // SAFETY: as in `as_bytes`; besides, every byte pattern written through
    // the view is a valid `T`, and the view borrows `v` mutably.
    unsafe { std::slice::from_raw_parts_mut(v.as_mut_ptr().cast::<u8>(), len) }
}

/// The bytes of `v` when `T` is one of the [`Plain`] types (decided by
/// its `TypeId`), for generic code whose `T` is not bounded by `Plain`.
pub fn try_as_bytes<T: 'static>(v: &[T]) -> Option<&[u8]> {
    if !is_plain::<T>() {
        return None;
    }
    // SAFETY: `T` is one of the `Plain` types (same `TypeId`), see `as_bytes`.
    Some(unsafe { std::slice::from_raw_parts(v.as_ptr().cast::<u8>(), std::mem::size_of_val(v)) })
}

/// [`try_as_bytes`], writable.
pub fn try_as_bytes_mut<T: 'static>(v: &mut [T]) -> Option<&mut [u8]> {
    if !is_plain::<T>() {
        return None;
    }
    let len = std::mem::size_of_val(v);
    // SAFETY: `T` is one of the `Plain` types (same `TypeId`), see `as_bytes_mut`.
    Some(unsafe { std::slice::from_raw_parts_mut(v.as_mut_ptr().cast::<u8>(), len) })
}

/// The memory of the numbers in `values` (native byte order); `None` for
/// strings and user-typed values.
pub fn values_as_bytes(values: &Values) -> Option<&[u8]> {
    Some(match values {
        Values::Byte(v) => as_bytes(v),
        Values::Char(v) | Values::UByte(v) => v,
        Values::Short(v) => as_bytes(v),
        Values::UShort(v) => as_bytes(v),
        Values::Int(v) => as_bytes(v),
        Values::UInt(v) => as_bytes(v),
        Values::Int64(v) => as_bytes(v),
        Values::UInt64(v) => as_bytes(v),
        Values::Float(v) => as_bytes(v),
        Values::Double(v) => as_bytes(v),
        _ => return None,
    })
}

/// [`values_as_bytes`], writable.
pub fn values_as_bytes_mut(values: &mut Values) -> Option<&mut [u8]> {
    Some(match values {
        Values::Byte(v) => as_bytes_mut(v),
        Values::Char(v) | Values::UByte(v) => v,
        Values::Short(v) => as_bytes_mut(v),
        Values::UShort(v) => as_bytes_mut(v),
        Values::Int(v) => as_bytes_mut(v),
        Values::UInt(v) => as_bytes_mut(v),
        Values::Int64(v) => as_bytes_mut(v),
        Values::UInt64(v) => as_bytes_mut(v),
        Values::Float(v) => as_bytes_mut(v),
        Values::Double(v) => as_bytes_mut(v),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The views agree with the standard library's `to_ne_bytes`.
    #[test]
    fn views_are_the_native_bytes() {
        let v = [1.5f64, -0.0, f64::NAN];
        let expected: Vec<u8> = v.iter().flat_map(|x| x.to_ne_bytes()).collect();
        assert_eq!(as_bytes(&v), expected.as_slice());
        assert_eq!(try_as_bytes(&v), Some(expected.as_slice()));
        let mut w = [0u16; 2];
        as_bytes_mut(&mut w).copy_from_slice(&[1, 2, 3, 4]);
        assert_eq!(w, [u16::from_ne_bytes([1, 2]), u16::from_ne_bytes([3, 4])]);
        let mut values = Values::Int(vec![-2, 7]);
        let expected: Vec<u8> = [-2i32, 7].iter().flat_map(|x| x.to_ne_bytes()).collect();
        assert_eq!(
            values_as_bytes_mut(&mut values).unwrap(),
            expected.as_slice()
        );
        assert_eq!(values_as_bytes(&Values::String(vec![])), None);
    }

    /// Types that are not primitive numbers get no view.
    #[test]
    fn other_types_get_none() {
        assert_eq!(try_as_bytes(&[(1u8, 2u32)]), None);
        assert!(try_as_bytes_mut(&mut [String::new()]).is_none());
        assert!(try_as_bytes(&[true]).is_none());
    }
}

/// Fills `out` with copies of `pattern` (one value's bytes; the last copy
/// cut short if `out` does not hold a whole number of them): a memset for
/// zeros, else the pattern doubled by block copies, fast in debug builds
/// too.
pub fn fill_pattern(out: &mut [u8], pattern: &[u8]) {
    if pattern.iter().all(|&b| b == 0) || out.is_empty() {
        out.fill(0);
        return;
    }
    let first = pattern.len().min(out.len());
    out[..first].copy_from_slice(&pattern[..first]);
    let mut done = first;
    while done < out.len() {
        let n = done.min(out.len() - done);
        out.copy_within(0..n, done);
        done += n;
    }
}

#[cfg(test)]
mod fill_tests {
    use super::fill_pattern;

    #[test]
    fn fills_with_whole_and_cut_copies() {
        for len in [0, 1, 3, 4, 7, 64, 1001] {
            let mut out = vec![9u8; len];
            fill_pattern(&mut out, &[1, 2, 3, 4]);
            let expected: Vec<u8> = (0..len).map(|i| [1, 2, 3, 4][i % 4]).collect();
            assert_eq!(out, expected, "{len}");
            fill_pattern(&mut out, &[0, 0]);
            assert!(out.iter().all(|&b| b == 0));
        }
    }
}
