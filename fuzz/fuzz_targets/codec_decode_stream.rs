//! Stream decoders (zlib, gzip, bz2, zstd, lz4, blosc via the Codec API) on
//! arbitrary bytes. Byte 0 picks the codec, bytes 1-2 the expected size.
#![no_main]

use libfuzzer_sys::fuzz_target;
use nctk_codec::Codec;
use serde_json::json;

fuzz_target!(|data: &[u8]| {
    if data.len() < 3 {
        return;
    }
    let config = match data[0] % 6 {
        0 => json!({"id": "zlib"}),
        1 => json!({"id": "gzip"}),
        2 => json!({"id": "bz2"}),
        3 => json!({"id": "zstd"}),
        4 => json!({"id": "lz4"}),
        _ => json!({"id": "blosc"}),
    };
    let codec = Codec::from_json(&config).unwrap();
    let expected = usize::from(u16::from_le_bytes([data[1], data[2]]));
    let mut out = vec![0u8; expected];
    let _ = codec.decode_into(&data[3..], &mut out);
});
