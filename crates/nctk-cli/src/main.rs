//! The `nctk` binary.
fn main() {}
