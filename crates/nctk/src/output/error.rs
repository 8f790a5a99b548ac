//! The output side's error type.

use nctk_model::{ErrorKind, HasErrorKind, SourceError};

/// Why creating, writing or finishing an output failed. Every variant names
/// the output (never its temporary name) and the reason.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OutputError {
    /// The output path has no file name (such as `/` or `..`).
    #[error("{0}: not a file name")]
    NotAFileName(String),
    /// The output format cannot be written (yet).
    #[error("{path}: cannot write {format} output: {reason}")]
    Unsupported {
        /// The output path or URL.
        path: String,
        /// The format.
        format: &'static str,
        /// Why not, and what to do instead.
        reason: String,
    },
    /// Writing a variable's data failed.
    #[error("{path}: variable {var:?}: write failed: {source}")]
    Write {
        /// The output path.
        path: String,
        /// The variable.
        var: String,
        /// The writer's error.
        #[source]
        source: SourceError,
    },
    /// Creating or finishing the output failed (header, layout, flush).
    #[error("{}", crate::error::named_once(path, source))]
    Output {
        /// The output path.
        path: String,
        /// The writer's error.
        #[source]
        source: SourceError,
    },
    /// File-system work on the output (temporary file, rename) failed.
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

/// A path that names no file is the caller's, a format that cannot be
/// written unsupported; the writer's and the file system's errors have
/// their own kind.
impl HasErrorKind for OutputError {
    fn kind(&self) -> ErrorKind {
        match self {
            OutputError::NotAFileName(_) => ErrorKind::InvalidInput,
            OutputError::Unsupported { .. } => ErrorKind::Unsupported,
            OutputError::Write { source, .. } | OutputError::Output { source, .. } => source.kind(),
            OutputError::Io { source, .. } => ErrorKind::of_io(source),
        }
    }
}
