use std::fmt::Display;

pub use nctk_model::{ErrorKind, HasErrorKind};

/// `path: reason`, or `reason` alone when it already starts by naming
/// `path` (or a key inside it): every message names its path once.
pub(crate) fn named_once(path: &str, reason: impl Display) -> String {
    let reason = reason.to_string();
    let names_it = reason
        .strip_prefix(path)
        .is_some_and(|rest| rest.starts_with(':') || rest.starts_with('/'));
    if names_it && !path.is_empty() {
        reason
    } else {
        format!("{path}: {reason}")
    }
}

/// Errors from the nctk API.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A model rule was broken (range error, bad selection, bad name, ...).
    #[error(transparent)]
    Model(#[from] nctk_model::ModelError),
    /// An attribute is not of the type or count asked for.
    #[error(transparent)]
    Attribute(#[from] nctk_model::AttributeError),
    /// The extents given do not fit the variable.
    #[error("bad extents: {0}")]
    Extent(String),
    /// The format reader or writer failed.
    #[error(transparent)]
    Format(nctk_model::SourceError),
    /// The path or URL names nothing nctk can open (no known magic number,
    /// no HDF5 signature).
    #[error("{}", named_once(path, reason))]
    Open {
        /// The path or URL.
        path: String,
        /// Why it cannot be opened.
        reason: String,
    },
    /// The options given do not fit what they are given for (another
    /// format's settings).
    #[error("{}", named_once(path, reason))]
    Options {
        /// The path or URL.
        path: String,
        /// What does not fit.
        reason: String,
    },
    /// The path or URL names a format or storage nctk cannot use yet
    /// (netCDF-4/HDF5 files, object stores other than S3, creating a store
    /// format through the classic API).
    #[error("{}", named_once(path, reason))]
    Unsupported {
        /// The path or URL (empty when none is concerned).
        path: String,
        /// What is not supported.
        reason: String,
    },
    /// A definition given to the define API is invalid (a chunk shape of
    /// the wrong rank or with a zero length, a deflate level over 9, codecs
    /// that do not parse); it names the dataset and the variable.
    #[error("{}", named_once(path, reason))]
    Definition {
        /// The dataset's path or URL.
        path: String,
        /// What is wrong, naming the variable.
        reason: String,
    },
    /// Opening or creating the named path or URL failed in its format
    /// reader, its store or its URL parser.
    #[error("{}", named_once(path, source))]
    Source {
        /// The path or URL.
        path: String,
        /// The format's, store's or parser's error.
        #[source]
        source: nctk_model::SourceError,
    },
    /// Creating, writing or finishing an output failed (it names the
    /// output, never its temporary name).
    #[error(transparent)]
    Output(#[from] crate::output::OutputError),
    /// Plain I/O on the named path failed.
    #[error("{}", named_once(path, source))]
    Io {
        /// The path.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
}

impl Error {
    /// The error as an output's: an [`Error::Output`] as it is, any other
    /// told of `target` (tools whose errors are
    /// [`OutputError`](crate::OutputError)s take the library's through it).
    pub fn into_output(self, target: &std::path::Path) -> crate::OutputError {
        match self {
            Error::Output(e) => e,
            e => crate::OutputError::Output {
                path: target.display().to_string(),
                source: e.into(),
            },
        }
    }

    /// What kind of failure this is (a missing file, a corrupt one, a bad
    /// argument, something not supported yet, ...): the kind the format's
    /// or store's error carries.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::Model(e) => e.kind(),
            Error::Attribute(e) => e.kind(),
            Error::Extent(_) | Error::Options { .. } | Error::Definition { .. } => {
                ErrorKind::InvalidInput
            }
            Error::Format(source) | Error::Source { source, .. } => source.kind(),
            Error::Open { .. } => ErrorKind::InvalidData,
            Error::Unsupported { .. } => ErrorKind::Unsupported,
            Error::Io { source, .. } => ErrorKind::of_io(source),
            Error::Output(e) => e.kind(),
        }
    }
}

/// [`Error::kind`], for code generic over errors that know their kind (a
/// [`SourceError`](nctk_model::SourceError) made from an [`Error`] keeps it).
impl HasErrorKind for Error {
    fn kind(&self) -> ErrorKind {
        Error::kind(self)
    }
}

#[cfg(test)]
mod tests {
    use super::named_once;

    #[test]
    fn paths_are_named_once() {
        assert_eq!(named_once("a.nc", "a.nc: bad header"), "a.nc: bad header");
        assert_eq!(
            named_once("s.zarr", "s.zarr/v/0: bad chunk"),
            "s.zarr/v/0: bad chunk"
        );
        assert_eq!(named_once("a.nc", "bad header"), "a.nc: bad header");
        assert_eq!(named_once("a.nc", "a.ncx: other"), "a.nc: a.ncx: other");
    }
}
