//! The copier's error type.

use nctk_model::{HasErrorKind, SourceError};

use nctk::ErrorKind;

/// A filter that cannot be built for a variable's element size.
#[derive(Debug, thiserror::Error)]
#[error("filter {filter}: {source}")]
pub struct BadFilter {
    /// The filter as given (`id,param,...`).
    pub filter: String,
    /// The codec's error.
    #[source]
    pub source: nctk::codec::CodecError,
}

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
    /// A `-F` filter specification is malformed or names a codec that
    /// cannot be built.
    #[error("bad filter specification {spec:?}: {source}")]
    FilterSpec {
        /// The specification as given.
        spec: String,
        /// What is wrong (the codec's or the JSON parser's error, or a reason).
        #[source]
        source: SourceError,
    },
    /// A `-F` filter cannot be built for a variable (an HDF5 filter with
    /// parameters the codec refuses).
    #[error("variable {var:?}: {source}")]
    Filter {
        /// The variable's path.
        var: String,
        /// The filter and the codec's error.
        #[source]
        source: BadFilter,
    },
    /// An input variable's `_Codecs` text is not a JSON list.
    #[error("variable {var:?}: its codecs {codecs} are not a JSON list: {source}")]
    InputCodecs {
        /// The variable's name.
        var: String,
        /// The codecs text.
        codecs: String,
        /// The JSON parser's error.
        #[source]
        source: serde_json::Error,
    },
    /// The output's definitions break a model rule (a name netCDF-C would
    /// not write, a name used twice).
    #[error(transparent)]
    Model(#[from] nctk_model::ModelError),
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
    Output(#[from] nctk::OutputError),
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

impl CopyError {
    /// What kind of failure this is: a bad option is
    /// [`InvalidInput`](ErrorKind::InvalidInput), a missing variable or
    /// group [`NotFound`](ErrorKind::NotFound), an object the output format
    /// cannot hold [`Unsupported`](ErrorKind::Unsupported); a reader's or
    /// writer's failure has its error's kind.
    pub fn kind(&self) -> ErrorKind {
        match self {
            CopyError::NoSuchVariable(_) | CopyError::NoSuchGroup(_) => ErrorKind::NotFound,
            CopyError::DoesNotFit { .. } => ErrorKind::Unsupported,
            CopyError::Open(e) => e.kind(),
            CopyError::Output(e) => e.kind(),
            CopyError::InputCodecs { .. } => ErrorKind::InvalidData,
            CopyError::Read { source, .. } => source.kind(),
            CopyError::Io { source, .. } => ErrorKind::of_io(source),
            CopyError::Option(_)
            | CopyError::ChunkSpec { .. }
            | CopyError::FilterSpec { .. }
            | CopyError::Filter { .. }
            | CopyError::Model(_)
            | CopyError::SameFile => ErrorKind::InvalidInput,
        }
    }
}

/// [`CopyError::kind`].
impl HasErrorKind for CopyError {
    fn kind(&self) -> ErrorKind {
        CopyError::kind(self)
    }
}

/// A filter the codec refuses for a variable is a bad `-F` option.
impl HasErrorKind for BadFilter {
    fn kind(&self) -> ErrorKind {
        ErrorKind::InvalidInput
    }
}
