//! `nctk copy` against nccopy (placeholder, filled in below).
fn main() {}
