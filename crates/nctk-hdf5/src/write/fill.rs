//! The fill value message (type 5), version 3.

use super::encode::Enc;
use crate::fill::FillValue;

/// The encoded fill value message body of `fill`.
pub fn encode(fill: &FillValue) -> Vec<u8> {
    let mut e = Enc::new();
    let mut flags = (fill.alloc_time & 3) | ((fill.fill_time & 3) << 2);
    match (&fill.value, fill.defined) {
        (Some(v), _) => {
            flags |= 0x20;
            e.u8(3).u8(flags).u32(v.len() as u32).bytes(v);
        }
        (None, true) => {
            e.u8(3).u8(flags);
        }
        (None, false) => {
            e.u8(3).u8(flags | 0x10);
        }
    }
    e.into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fill_values_read_back_as_written() {
        for fill in [
            FillValue {
                alloc_time: 2,
                fill_time: 2,
                defined: true,
                value: Some(vec![1, 0, 0, 0x80]),
            },
            FillValue {
                alloc_time: 3,
                fill_time: 1,
                defined: false,
                value: None,
            },
        ] {
            let body = encode(&fill);
            let ctx = super::super::test_ctx(&body);
            let mut cur = ctx.cursor(&body, 0, "fill");
            assert_eq!(FillValue::parse(&mut cur).unwrap(), fill);
        }
    }
}
