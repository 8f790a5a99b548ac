//! Numbers as chunk bytes without a conversion loop: values stored in the
//! machine's own byte order are copied as their memory image (one
//! `memcpy`), the common case of little-endian data on a little-endian
//! machine; other orders are swapped element by element.

use std::borrow::Cow;

use nctk_model::bytes::try_as_bytes;
use nctk_model::Values;

/// The bytes of numeric `values`, big-endian when `big` (borrowed when
/// that is the machine's order). Strings are not numbers: `None`.
pub fn number_bytes(values: &Values, big: bool) -> Option<Cow<'_, [u8]>> {
    nctk_model::with_fixed_values!(values, v => slice_bytes(v, big), _ => None)
}

/// The bytes of a slice of numbers (a fixed-width type), big-endian when
/// `big`: the slice's own bytes when that is the machine's order (no
/// copy), else a swapped copy; `None` for any other element type.
pub fn slice_bytes<T: 'static>(values: &[T], big: bool) -> Option<Cow<'_, [u8]>> {
    let bytes = try_as_bytes(values)?;
    let width = std::mem::size_of::<T>();
    if big == cfg!(target_endian = "big") || width == 1 {
        return Some(Cow::Borrowed(bytes));
    }
    let mut out = bytes.to_vec();
    for element in out.chunks_exact_mut(width) {
        element.reverse();
    }
    Some(Cow::Owned(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_bytes_as_to_bytes() {
        let cases = [
            Values::Byte(vec![-1, 2]),
            Values::Char(b"ab".to_vec()),
            Values::Short(vec![-300, 7]),
            Values::UShort(vec![65535, 1]),
            Values::Int(vec![-70000, 3]),
            Values::UInt(vec![u32::MAX, 9]),
            Values::Int64(vec![i64::MIN, 5]),
            Values::UInt64(vec![u64::MAX, 6]),
            Values::Float(vec![1.5, f32::NAN]),
            Values::Double(vec![-2.25, f64::INFINITY]),
        ];
        for v in cases {
            for big in [false, true] {
                assert_eq!(
                    number_bytes(&v, big).map(Cow::into_owned),
                    Some(v.to_bytes(big)),
                    "{v:?} {big}"
                );
            }
        }
        assert_eq!(number_bytes(&Values::strings(["x"]), false), None);
    }
}
