//! Blosc1 decoder on arbitrary bytes: never panics; when the header's size is
//! small enough, decodes into exactly that size (or errors), and a buffer of
//! any other size is refused.
#![no_main]

use libfuzzer_sys::fuzz_target;
use nctk_codec::blosc;

fuzz_target!(|data: &[u8]| {
    let declared = blosc::declared_size(data).ok();
    let expected = match declared {
        Some(n) if n <= 1 << 22 => n,
        _ => 4096,
    };
    let mut out = vec![0u8; expected];
    let r = blosc::decode_into(data, &mut out);
    if declared != Some(expected) {
        assert!(r.is_err());
    }
    if r.is_ok() {
        let mut other = vec![0u8; expected + 1];
        assert!(blosc::decode_into(data, &mut other).is_err());
    }
});
