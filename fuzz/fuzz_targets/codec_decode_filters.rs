//! Filter decoders (shuffle, fletcher32, delta, fixedscaleoffset, bitround,
//! quantize) on arbitrary bytes and sizes. Byte 0 picks the filter, byte 1
//! the output size adjustment.
#![no_main]

use libfuzzer_sys::fuzz_target;
use nctk_codec::{Codec, CodecContext};
use serde_json::json;

fuzz_target!(|data: &[u8]| {
    if data.len() < 2 {
        return;
    }
    let config = match data[0] % 8 {
        0 => json!({"id": "shuffle", "elementsize": 3}),
        1 => json!({"id": "shuffle", "elementsize": 0}),
        2 => json!({"id": "fletcher32"}),
        3 => json!({"id": "delta", "dtype": "<i4", "astype": "<i2"}),
        4 => json!({"id": "delta", "dtype": ">f8", "astype": "<f4"}),
        5 => {
            json!({"id": "fixedscaleoffset", "offset": 1.5, "scale": 7, "dtype": "<f8", "astype": "|u1"})
        }
        6 => json!({"id": "bitround", "keepbits": 3}),
        _ => json!({"id": "quantize", "digits": 3, "dtype": "<f4", "astype": "<f8"}),
    };
    let codec = Codec::from_json_with(&config, &CodecContext::from_dtype("<f8")).unwrap();
    let input = &data[2..];
    let expected = (input.len() as isize + isize::from(data[1] as i8)).max(0) as usize;
    let mut out = vec![0u8; expected];
    let _ = codec.decode_into(input, &mut out);
});
