//! The copier's error type.

use nctk_model::SourceError;

/// Why a copy failed. Every variant names what it is about: the option, the
/// path, the variable or the attribute, and the reason.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CopyError {
    /// A command-line option has a bad value (nccopy's usage errors, such as
    /// `invalid output format: foo` or `invalid deflation level: 12`).
    #[error("{0}")]
    Option(String),
    /// A variable named with `-v`/`-V` is not in the input.
    #[error("{0}: No such variable")]
    NoSuchVariable(String),
    /// A group named with `-g`/`-G` is not in the input.
    #[error("{0}: No such group")]
    NoSuchGroup(String),
    /// A `-c` chunk specification does not fit the input.
    #[error("bad chunk specification {spec:?}: {reason}")]
    ChunkSpec {
        /// The specification as given.
        spec: String,
        /// What is wrong.
        reason: String,
    },
    /// The input and output are the same file.
    #[error("output would overwrite input")]
    SameFile,
    /// The input cannot be opened.
    #[error(transparent)]
    Open(#[from] nctk::Error),
    /// Part of the input does not fit the output format (a CDF-5 or netCDF-4
    /// type in a CDF-1/2 file, a group in a classic file, ...).
    #[error("cannot copy {what} to a {format} file: {reason}")]
    DoesNotFit {
        /// The format, as `ncdump -k` names it.
        format: &'static str,
        /// The object, e.g. `variable "big"` or `attribute "big:units"`.
        what: String,
        /// Why not.
        reason: String,
    },
    /// Reading a variable's data failed.
    #[error("{path}: variable {var:?}: read failed: {source}")]
    Read {
        /// The input path.
        path: String,
        /// The variable (group path for netCDF-4 inputs).
        var: String,
        /// The reader's error.
        #[source]
        source: SourceError,
    },
    /// Creating, writing, finishing or renaming the output into place
    /// failed (or its format cannot be written yet).
    #[error(transparent)]
    Output(#[from] nctk::output::OutputError),
    /// File-system work on the input (reading it whole) failed.
    #[error("{path}: {op}: {source}")]
    Io {
        /// The path.
        path: String,
        /// What was being done.
        op: &'static str,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
}
