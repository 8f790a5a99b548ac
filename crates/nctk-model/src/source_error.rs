//! [`SourceError`]: the error of the reader and writer seams, a format's
//! own error carried with its [`ErrorKind`], as `std::io::Error` carries
//! its kind with a custom error.

use std::error::Error as StdError;
use std::fmt;

use crate::{ErrorKind, HasErrorKind};

/// The error type of a [`DataSource`](crate::DataSource) (and of a
/// [`DataSink`](crate::DataSink): [`SinkError`](crate::SinkError) is the
/// same type): each format's own structured error, boxed, with its kind.
///
/// It is transparent: its message is the inner error's, and its
/// [`source`](StdError::source) is the inner error's source, so messages
/// and chains read as the inner error's. [`SourceError::get_ref`] gives the
/// inner error itself (to downcast it).
///
/// Any error that knows its kind converts with `?` or `.into()` (the kind
/// is asked at conversion); an error of another library, or a message, is
/// given its kind with [`SourceError::new`].
pub struct SourceError {
    kind: ErrorKind,
    error: Box<dyn StdError + Send + Sync + 'static>,
}

impl SourceError {
    /// `error` (an error value or a message) as a failure of `kind`.
    pub fn new(kind: ErrorKind, error: impl Into<Box<dyn StdError + Send + Sync>>) -> Self {
        SourceError {
            kind,
            error: error.into(),
        }
    }

    /// What kind of failure this is.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The inner error.
    pub fn get_ref(&self) -> &(dyn StdError + Send + Sync + 'static) {
        &*self.error
    }

    /// The inner error, boxed.
    pub fn into_inner(self) -> Box<dyn StdError + Send + Sync + 'static> {
        self.error
    }
}

impl fmt::Display for SourceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.error, f)
    }
}

impl fmt::Debug for SourceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SourceError")
            .field("kind", &self.kind)
            .field("error", &self.error)
            .finish()
    }
}

impl StdError for SourceError {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        self.error.source()
    }
}

impl<E: StdError + HasErrorKind + Send + Sync + 'static> From<E> for SourceError {
    fn from(error: E) -> Self {
        SourceError::new(error.kind(), error)
    }
}

/// A message alone is of kind [`ErrorKind::Other`]; where the kind is
/// known, build the error with [`SourceError::new`].
impl From<String> for SourceError {
    fn from(message: String) -> Self {
        SourceError::new(ErrorKind::Other, message)
    }
}

/// A message alone is of kind [`ErrorKind::Other`]; where the kind is
/// known, build the error with [`SourceError::new`].
impl From<&str> for SourceError {
    fn from(message: &str) -> Self {
        SourceError::new(ErrorKind::Other, message)
    }
}

#[cfg(test)]
mod tests {
    use std::io;

    use super::*;
    use crate::ModelError;

    #[test]
    fn the_kind_is_kept_through_from() {
        let e: SourceError = io::Error::from(io::ErrorKind::PermissionDenied).into();
        assert_eq!(e.kind(), ErrorKind::PermissionDenied);
        let missing = ModelError::NotFound {
            kind: "variable",
            name: "v".into(),
        };
        let e = SourceError::from(missing.clone());
        assert_eq!(e.kind(), ErrorKind::NotFound);
        assert_eq!(e.get_ref().downcast_ref::<ModelError>(), Some(&missing));
        assert_eq!(SourceError::from("no").kind(), ErrorKind::Other);
        let e = SourceError::new(ErrorKind::InvalidData, format!("bad byte at {}", 3));
        assert_eq!(e.kind(), ErrorKind::InvalidData);
    }

    #[test]
    fn the_message_is_the_inner_errors() {
        let missing = ModelError::NotFound {
            kind: "variable",
            name: "v".into(),
        };
        let text = missing.to_string();
        assert_eq!(SourceError::from(missing).to_string(), text);
        assert_eq!(SourceError::from("plain words").to_string(), "plain words");
    }

    /// An error with a cause, to see the chain kept.
    #[derive(Debug, thiserror::Error)]
    #[error("reading the header")]
    struct Outer(#[source] io::Error);

    impl HasErrorKind for Outer {
        fn kind(&self) -> ErrorKind {
            HasErrorKind::kind(&self.0)
        }
    }

    #[test]
    fn the_source_chain_is_the_inner_errors() {
        let cause = io::Error::new(io::ErrorKind::UnexpectedEof, "cut short");
        let e = SourceError::from(Outer(cause));
        assert_eq!(e.kind(), ErrorKind::InvalidData);
        assert_eq!(e.to_string(), "reading the header");
        let source = e.source().expect("the inner error's source");
        assert_eq!(source.to_string(), "cut short");
        assert!(source.is::<io::Error>());
        assert!(source.source().is_none());
        assert!(e.get_ref().is::<Outer>());
        let inner = e.into_inner();
        assert!(inner.is::<Outer>());
    }
}
