//! What kind of failure an error is: one vocabulary for every crate. Each
//! error type says its own kind where it is made ([`HasErrorKind`]), as
//! `std::io::Error::kind()` does; an error that wraps another asks it.

use std::error::Error as StdError;
use std::io;

use crate::{AttributeError, ModelError, SourceError};

/// The kind of an error of any nctk crate (the facade's `nctk::Error`,
/// the tools' errors, each format's and store's errors): what a caller
/// may branch on without matching messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A file, store, key, variable, dimension or group does not exist
    /// (an object store's HTTP 404 included).
    NotFound,
    /// Access was refused: the operating system's permission error, an
    /// object store's HTTP 403 ("access denied") or 401 ("not
    /// authenticated").
    PermissionDenied,
    /// The caller asked for something invalid: a bad argument or option,
    /// a bad name, a selection that does not fit, a value out of range.
    InvalidInput,
    /// A file or store breaks its format (a truncated or corrupt file,
    /// malformed metadata, a chunk that does not decode).
    InvalidData,
    /// Valid, but not supported (yet): netCDF-4/HDF5 files, writing to a
    /// plain HTTP server, a type the format cannot hold, an unknown codec.
    Unsupported,
    /// The operating system reported an I/O error, or a request to an
    /// object store or HTTP server failed after its retries (a 5xx, a
    /// timeout, a connection reset, a listing that did not end in time):
    /// a transient failure, never read as a missing key.
    Io,
    /// None of the above.
    Other,
}

impl ErrorKind {
    /// The kind of any error: the first link of its source chain that
    /// carries a kind other than [`ErrorKind::Other`] (a [`SourceError`],
    /// an I/O error); `Other` when none does. An error whose type is
    /// known is asked directly ([`HasErrorKind::kind`], or its own
    /// `kind()`, as `nctk::Error::kind()`): this is for errors seen only
    /// as `dyn Error`.
    pub fn of(e: &(dyn StdError + 'static)) -> ErrorKind {
        let mut next = Some(e);
        while let Some(e) = next {
            let carried = match e.downcast_ref::<SourceError>() {
                Some(e) => e.kind(),
                None => e
                    .downcast_ref::<io::Error>()
                    .map_or(ErrorKind::Other, ErrorKind::of_io),
            };
            if carried != ErrorKind::Other {
                return carried;
            }
            next = e.source();
        }
        ErrorKind::Other
    }

    /// The kind of an I/O error: its own kind where it names one of
    /// these (an unexpected end of data is invalid data), else I/O.
    pub fn of_io(e: &io::Error) -> ErrorKind {
        match e.kind() {
            io::ErrorKind::NotFound => ErrorKind::NotFound,
            io::ErrorKind::PermissionDenied => ErrorKind::PermissionDenied,
            io::ErrorKind::InvalidInput => ErrorKind::InvalidInput,
            io::ErrorKind::InvalidData | io::ErrorKind::UnexpectedEof => ErrorKind::InvalidData,
            io::ErrorKind::Unsupported => ErrorKind::Unsupported,
            _ => ErrorKind::Io,
        }
    }

    /// This kind, or `instead` when it is [`ErrorKind::Other`]: what a
    /// wrapper reports for an inner error that does not say (a backend's
    /// failure of unknown kind is I/O, a wrong answer invalid data).
    pub fn known_or(self, instead: ErrorKind) -> ErrorKind {
        match self {
            ErrorKind::Other => instead,
            kind => kind,
        }
    }
}

/// An error that knows what kind of failure it is. Every error enum of
/// every nctk crate implements it, deciding the kind where the error is
/// made and asking the inner error where it wraps one; a
/// [`SourceError`](crate::SourceError) built from it keeps the kind.
pub trait HasErrorKind {
    /// What kind of failure this is.
    fn kind(&self) -> ErrorKind;
}

impl HasErrorKind for io::Error {
    fn kind(&self) -> ErrorKind {
        ErrorKind::of_io(self)
    }
}

/// Something named that does not exist is "not found"; every other rule
/// broken is the caller's (a bad name, selection or value).
impl HasErrorKind for ModelError {
    fn kind(&self) -> ErrorKind {
        match self {
            ModelError::NotFound { .. } => ErrorKind::NotFound,
            _ => ErrorKind::InvalidInput,
        }
    }
}

/// An attribute read as a type it does not hold is the caller's mistake.
impl HasErrorKind for AttributeError {
    fn kind(&self) -> ErrorKind {
        ErrorKind::InvalidInput
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn io_kinds_map_to_their_own() {
        let of = |k| ErrorKind::of_io(&io::Error::from(k));
        assert_eq!(of(io::ErrorKind::NotFound), ErrorKind::NotFound);
        assert_eq!(
            of(io::ErrorKind::PermissionDenied),
            ErrorKind::PermissionDenied
        );
        assert_eq!(of(io::ErrorKind::UnexpectedEof), ErrorKind::InvalidData);
        assert_eq!(of(io::ErrorKind::Unsupported), ErrorKind::Unsupported);
        assert_eq!(of(io::ErrorKind::ConnectionReset), ErrorKind::Io);
    }

    /// A wrapper of unknown type, to see the chain walked.
    #[derive(Debug, thiserror::Error)]
    #[error("while reading")]
    struct Wrapper(#[source] SourceError);

    #[test]
    fn of_walks_the_chain_to_a_link_that_carries_a_kind() {
        let missing = ModelError::NotFound {
            kind: "variable",
            name: "v".into(),
        };
        let e = Wrapper(missing.into());
        assert_eq!(ErrorKind::of(&e), ErrorKind::NotFound);
        // A link of kind Other says nothing: the walk goes on past it.
        let e = Wrapper(SourceError::new(ErrorKind::Other, e));
        assert_eq!(ErrorKind::of(&e), ErrorKind::NotFound);
        let e = Wrapper(SourceError::from("words"));
        assert_eq!(ErrorKind::of(&e), ErrorKind::Other);
    }

    #[test]
    fn model_errors_know_their_kind() {
        let missing = ModelError::NotFound {
            kind: "variable",
            name: "v".into(),
        };
        assert_eq!(missing.kind(), ErrorKind::NotFound);
        assert_eq!(
            ModelError::DuplicateName("v".into()).kind(),
            ErrorKind::InvalidInput
        );
    }
}
