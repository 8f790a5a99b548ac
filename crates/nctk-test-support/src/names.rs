//! Names on both sides of netCDF-C's `NC_check_name`, shared by the tests
//! that compare nctk's name rules with netCDF-C's (classic and Zarr).

/// A slash, a leading `-`, leading and trailing spaces, control characters,
/// a leading `_` and digit, punctuation, non-ASCII text precomposed and
/// decomposed (NFC).
pub const NC_CHECK_NAME_CASES: [&str; 11] = [
    "a/b",
    "-ab",
    "ab ",
    " ab",
    "a\u{7}b",
    "a\u{7f}b",
    "_b",
    "1a",
    "a b+c",
    "\u{e9}t\u{e9}",
    "cafe\u{301}",
];
