//! Inputs found by fuzzing, kept as regression tests.

use nctk_classic::header::{decode_header, encode_header};

/// A CDF-5 header whose attribute data extends past the header proper:
/// it must re-encode to bytes that decode again.
#[test]
fn header_found_by_fuzzing_round_trips() {
    let b: &[u8] = &[
        67, 68, 70, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 11, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 116, 0,
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0,
        0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 100, 1, 129, 129, 129,
    ];
    let d = decode_header(b, b.len() as u64).unwrap();
    let bytes = encode_header(&d.header);
    let again = decode_header(&bytes, bytes.len() as u64);
    assert!(again.is_ok(), "{again:?} for {:?}", d.header);
}
