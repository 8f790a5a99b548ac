//! Fuzzes the door's URL parser: any text parses or fails with an error
//! naming it, never a panic; an S3 location never keeps a `..` key
//! segment, and its AWS target carries its bucket and key unchanged.
#![no_main]

use libfuzzer_sys::fuzz_target;
use nctk::fuzz_url::{parse, StoreLocation, Target};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match parse(text) {
        Err(e) => assert_eq!(e.url, text),
        Ok(u) => {
            if let Target::Zarr(z) = u.target {
                if let StoreLocation::S3(l) = &z.location {
                    assert!(!l.key.split('/').any(|s| s == ".."), "{text}");
                    let t = l.target();
                    assert_eq!((&t.bucket, &t.key), (&l.bucket, &l.key));
                }
            }
        }
    }
});
