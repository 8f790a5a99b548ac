//! Encode arbitrary data with fuzzer-chosen parameters, then decode: the
//! lossless codecs must give the data back exactly.
#![no_main]

use libfuzzer_sys::fuzz_target;
use nctk_codec::{Codec, CodecContext};
use serde_json::json;

fuzz_target!(|data: &[u8]| {
    if data.len() < 3 {
        return;
    }
    let (p, payload) = data.split_at(3);
    let cname = ["blosclz", "lz4", "lz4hc", "zlib", "zstd"][usize::from(p[0] % 5)];
    let config = match p[0] / 5 % 8 {
        0 => {
            json!({"id": "blosc", "cname": cname, "clevel": p[1] % 10, "shuffle": i64::from(p[2] % 4) - 1,
                    "blocksize": if p[1] > 200 { usize::from(p[2]) * 64 } else { 0 }})
        }
        1 => json!({"id": "zlib", "level": p[1] % 10}),
        2 => json!({"id": "gzip", "level": p[1] % 10}),
        3 => json!({"id": "bz2", "level": 1 + p[1] % 9}),
        4 => json!({"id": "zstd", "level": i64::from(p[1] % 25) - 3, "checksum": p[2] % 2 == 1}),
        5 => json!({"id": "lz4"}),
        6 => json!({"id": "shuffle", "elementsize": 1 + p[1] % 20}),
        _ => json!({"id": "fletcher32"}),
    };
    let elem = 1 + usize::from(p[2] % 16);
    let codec = Codec::from_json_with(&config, &CodecContext::new(elem)).unwrap();
    let enc = codec.encode(payload).unwrap();
    let dec = codec.decode(&enc, payload.len()).unwrap();
    assert_eq!(dec, payload, "{config}");
});
