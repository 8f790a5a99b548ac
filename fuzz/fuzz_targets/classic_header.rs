//! Fuzzes the classic header decoder: never panics, and whatever decodes
//! encodes back to a header that decodes to the same value.
#![no_main]

use libfuzzer_sys::fuzz_target;
use nctk_classic::header::{decode_header, encode_header, encoded_len};

fuzz_target!(|data: &[u8]| {
    if let Ok(d) = decode_header(data, data.len() as u64) {
        let bytes = encode_header(&d.header);
        assert_eq!(bytes.len() as u64, encoded_len(&d.header));
        let again = decode_header(&bytes, bytes.len() as u64).expect("re-decode");
        // NaN attribute values compare unequal; compare the encodings instead.
        assert_eq!(encode_header(&again.header), bytes);
    }
});
