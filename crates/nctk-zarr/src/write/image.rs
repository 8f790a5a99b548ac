//! Numbers as chunk bytes without a conversion loop: values stored in the
//! machine's own byte order are copied as their memory image (one
//! `memcpy`), the common case of little-endian data on a little-endian
//! machine; other orders go through [`Values::to_bytes`].

use nctk_model::Values;

/// The ten primitive number types: no padding, every bit pattern valid.
trait Primitive: Copy + 'static {}

impl Primitive for i8 {}
impl Primitive for u8 {}
impl Primitive for i16 {}
impl Primitive for u16 {}
impl Primitive for i32 {}
impl Primitive for u32 {}
impl Primitive for i64 {}
impl Primitive for u64 {}
impl Primitive for f32 {}
impl Primitive for f64 {}

/// A copy of the bytes of `v` in memory.
fn image<T: Primitive>(v: &[T]) -> Vec<u8> {
    // SAFETY: `T` is a primitive number (the trait is private and
    // implemented only for them): its memory is `size_of_val(v)`
    // initialized bytes without padding, and reading them as `u8` is sound.
    let bytes =
        unsafe { std::slice::from_raw_parts(v.as_ptr().cast::<u8>(), std::mem::size_of_val(v)) };
    bytes.to_vec()
}

/// The bytes of numeric `values`, big-endian when `big`. Strings (and any
/// type without a fixed-size image) are not numbers: `None`.
pub fn number_bytes(values: &Values, big: bool) -> Option<Vec<u8>> {
    if big != cfg!(target_endian = "big") {
        return (!matches!(values, Values::String(_))).then(|| values.to_bytes(big));
    }
    Some(match values {
        Values::Byte(v) => image(v),
        Values::Char(v) | Values::UByte(v) => image(v),
        Values::Short(v) => image(v),
        Values::UShort(v) => image(v),
        Values::Int(v) => image(v),
        Values::UInt(v) => image(v),
        Values::Int64(v) => image(v),
        Values::UInt64(v) => image(v),
        Values::Float(v) => image(v),
        Values::Double(v) => image(v),
        // Strings and any other type without a fixed-size image.
        _ => return None,
    })
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
                assert_eq!(number_bytes(&v, big), Some(v.to_bytes(big)), "{v:?} {big}");
            }
        }
        assert_eq!(number_bytes(&Values::String(vec!["x".into()]), false), None);
    }
}
