//! Numbers as chunk bytes without a conversion loop: values stored in the
//! machine's own byte order are copied as their memory image (one
//! `memcpy`), the common case of little-endian data on a little-endian
//! machine; other orders go through [`Values::to_bytes`].

use nctk_model::bytes::values_as_bytes;
use nctk_model::Values;

/// The bytes of numeric `values`, big-endian when `big`. Strings are not
/// numbers: `None`.
pub fn number_bytes(values: &Values, big: bool) -> Option<Vec<u8>> {
    if big != cfg!(target_endian = "big") {
        return (!matches!(values, Values::String(_))).then(|| values.to_bytes(big));
    }
    values_as_bytes(values).map(<[u8]>::to_vec)
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
