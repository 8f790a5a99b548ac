//! The `nctk` command line as library functions: each subcommand is a
//! function that writes to `impl Write`, so tests call it directly.

pub mod copy;
pub mod dump;
pub mod gen;
pub mod validate;
