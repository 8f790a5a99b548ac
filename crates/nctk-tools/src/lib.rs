//! The logic of the `nctk` tools as library functions: `dump` (ncdump),
//! `gen` (ncgen), `copy` (nccopy, with the copier itself in [`copy`]) and
//! `validate`, and `refs` (kerchunk references to a file's chunks). Each subcommand is a function that writes to `impl Write`,
//! so tests call it directly; the `nctk` binary only parses arguments and
//! calls these.

pub mod copy;
pub mod dump;
mod enhanced;
pub mod gen;
pub mod refs;
pub mod validate;

/// Removes the temporaries of outputs being written (`nctk gen`, `nctk
/// copy`), for a signal handler before the process ends.
pub use nctk::remove_temporaries;
