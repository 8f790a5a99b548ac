//! What kind of failure an error is, read from the structured errors of
//! the format and store crates (walking the source chain where an error
//! only wraps another).

use std::error::Error as StdError;
use std::io;

use nctk_classic::ClassicError;
use nctk_codec::CodecError;
use nctk_hdf5::netcdf4::Nc4Error;
use nctk_hdf5::Hdf5Error;
use nctk_model::{AttributeError, ModelError};
use nctk_store::bytes::ByteError;
use nctk_store::kv::StoreError;
use nctk_store_object::kv::LimitError;
use nctk_store_object::{EnvError, RemoteError};
use nctk_zarr::{WriteError, ZarrError};

use crate::door::url::UrlError;
use crate::output::OutputError;
use crate::ProbeError;

/// The kind of an [`Error`](crate::Error) or an
/// [`OutputError`](crate::output::OutputError) (and of the tools' errors
/// built on them): what a caller may branch on without matching messages.
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
    /// The kind of any error: the first error in its source chain whose
    /// type says what kind it is (nctk's own errors, the format and store
    /// crates' errors, I/O errors); [`ErrorKind::Other`] when none does.
    pub fn of(e: &(dyn StdError + 'static)) -> ErrorKind {
        kind_of(e)
    }

    /// The kind of an I/O error.
    pub fn of_io(e: &io::Error) -> ErrorKind {
        io_kind(e)
    }
}

/// The kind of `e`: the first error in its source chain whose type says
/// what kind it is; [`ErrorKind::Other`] when none does.
pub(crate) fn kind_of(e: &(dyn StdError + 'static)) -> ErrorKind {
    let mut next = Some(e);
    while let Some(e) = next {
        if let Some(kind) = own_kind(e) {
            return kind;
        }
        next = e.source();
    }
    ErrorKind::Other
}

/// The kind `e`'s own type gives, if it is one of nctk's errors (or an
/// I/O error).
fn own_kind(e: &(dyn StdError + 'static)) -> Option<ErrorKind> {
    if let Some(e) = e.downcast_ref::<crate::Error>() {
        return Some(e.kind());
    }
    if let Some(e) = e.downcast_ref::<OutputError>() {
        return Some(output(e));
    }
    if e.is::<UrlError>() {
        return Some(ErrorKind::InvalidInput);
    }
    if let Some(e) = e.downcast_ref::<ClassicError>() {
        return Some(classic(e));
    }
    if let Some(e) = e.downcast_ref::<ZarrError>() {
        return Some(zarr(e));
    }
    if let Some(e) = e.downcast_ref::<Nc4Error>() {
        return Some(nc4(e));
    }
    if let Some(e) = e.downcast_ref::<Hdf5Error>() {
        return Some(hdf5(e));
    }
    if let Some(e) = e.downcast_ref::<WriteError>() {
        return Some(zarr_write(e));
    }
    if let Some(e) = e.downcast_ref::<CodecError>() {
        return Some(codec(e));
    }
    if let Some(e) = e.downcast_ref::<StoreError>() {
        return Some(store(e));
    }
    if let Some(e) = e.downcast_ref::<ByteError>() {
        return Some(bytes(e));
    }
    if let Some(e) = e.downcast_ref::<ModelError>() {
        return Some(model(e));
    }
    if e.is::<AttributeError>() {
        return Some(ErrorKind::InvalidInput);
    }
    if let Some(e) = e.downcast_ref::<RemoteError>() {
        return Some(remote(e));
    }
    if let Some(e) = e.downcast_ref::<LimitError>() {
        return Some(limit(e));
    }
    if e.is::<EnvError>() {
        return Some(ErrorKind::InvalidInput);
    }
    if e.is::<ProbeError>() || e.is::<serde_json::Error>() {
        return Some(ErrorKind::InvalidData);
    }
    e.downcast_ref::<io::Error>().map(io_kind)
}

/// The kind of an I/O error.
pub(crate) fn io_kind(e: &io::Error) -> ErrorKind {
    match e.kind() {
        io::ErrorKind::NotFound => ErrorKind::NotFound,
        io::ErrorKind::PermissionDenied => ErrorKind::PermissionDenied,
        io::ErrorKind::InvalidInput => ErrorKind::InvalidInput,
        io::ErrorKind::InvalidData | io::ErrorKind::UnexpectedEof => ErrorKind::InvalidData,
        io::ErrorKind::Unsupported => ErrorKind::Unsupported,
        _ => ErrorKind::Io,
    }
}

/// A 404 is "not found", a 403 or 401 "permission denied", a bad store
/// setting bad input; any other failure (after the retries) is I/O.
fn remote(e: &RemoteError) -> ErrorKind {
    match e {
        RemoteError::NotFound { .. } => ErrorKind::NotFound,
        RemoteError::Forbidden { .. } | RemoteError::Unauthenticated { .. } => {
            ErrorKind::PermissionDenied
        }
        RemoteError::Config { .. } => ErrorKind::InvalidInput,
        _ => ErrorKind::Io,
    }
}

/// A listing that did not end in time is a failure of the server (I/O);
/// an object larger than allowed or than declared breaks its store.
fn limit(e: &LimitError) -> ErrorKind {
    match e {
        LimitError::ListTimeout { .. } => ErrorKind::Io,
        _ => ErrorKind::InvalidData,
    }
}

pub(super) fn model(e: &ModelError) -> ErrorKind {
    match e {
        ModelError::NotFound { .. } => ErrorKind::NotFound,
        _ => ErrorKind::InvalidInput,
    }
}

fn classic(e: &ClassicError) -> ErrorKind {
    match e {
        ClassicError::Header { .. } => ErrorKind::InvalidData,
        ClassicError::Io(e) => bytes(e),
        ClassicError::Data { source, .. } => model(source),
        ClassicError::TypeNotSupported { .. } => ErrorKind::Unsupported,
        _ => ErrorKind::InvalidInput,
    }
}

/// A backend's error is read through its own chain; an error of unknown
/// type from a backend is I/O.
fn nc4(e: &Nc4Error) -> ErrorKind {
    match e {
        Nc4Error::Hdf5(e) => hdf5(e),
        Nc4Error::Model { source, .. } => model(source),
        Nc4Error::Unsupported { .. } => ErrorKind::Unsupported,
        _ => ErrorKind::InvalidData,
    }
}

fn hdf5(e: &Hdf5Error) -> ErrorKind {
    match e {
        Hdf5Error::Io { source, .. } => bytes(source),
        Hdf5Error::Filter { source, .. } => codec(source),
        Hdf5Error::Unsupported { .. } => ErrorKind::Unsupported,
        _ => ErrorKind::InvalidData,
    }
}

fn store(e: &StoreError) -> ErrorKind {
    match e {
        StoreError::InvalidKey { .. } => ErrorKind::InvalidInput,
        StoreError::Io { source, .. } => io_kind(source),
        StoreError::Unsupported { .. } => ErrorKind::Unsupported,
        StoreError::Backend { source, .. } => match kind_of(&**source) {
            ErrorKind::Other => ErrorKind::Io,
            kind => kind,
        },
        StoreError::ZipLibrary { source, .. } => match kind_of(&**source) {
            ErrorKind::Other => ErrorKind::InvalidData,
            kind => kind,
        },
        _ => ErrorKind::InvalidData,
    }
}

fn bytes(e: &ByteError) -> ErrorKind {
    match e {
        ByteError::Io { source, .. } => io_kind(source),
        ByteError::Store { source, .. } => store(source),
        // A failed request has its status's kind; an answer that is wrong
        // (a bad `Content-Range`, a short body) is invalid data.
        ByteError::Remote { source, .. } => match kind_of(&**source) {
            ErrorKind::Other => ErrorKind::InvalidData,
            kind => kind,
        },
        _ => ErrorKind::InvalidData,
    }
}

fn codec(e: &CodecError) -> ErrorKind {
    match e {
        CodecError::UnknownCodec { .. } | CodecError::Unsupported { .. } => ErrorKind::Unsupported,
        CodecError::MissingContext { .. } => ErrorKind::InvalidInput,
        _ => ErrorKind::InvalidData,
    }
}

fn zarr(e: &ZarrError) -> ErrorKind {
    match e {
        ZarrError::Store(e) => store(e),
        ZarrError::Codec { source, .. } => codec(source),
        ZarrError::UnsupportedDtype { .. } => ErrorKind::Unsupported,
        ZarrError::Request { .. } | ZarrError::TooLarge { .. } => ErrorKind::InvalidInput,
        _ => ErrorKind::InvalidData,
    }
}

fn zarr_write(e: &WriteError) -> ErrorKind {
    match e {
        WriteError::Store(e) => store(e),
        WriteError::Codec { source, .. } => codec(source),
        WriteError::Definition(e) => model(e),
        _ => ErrorKind::InvalidInput,
    }
}

fn output(e: &OutputError) -> ErrorKind {
    match e {
        OutputError::Unsupported { .. } => ErrorKind::Unsupported,
        OutputError::Write { source, .. } | OutputError::Output { source, .. } => {
            kind_of(&**source)
        }
        OutputError::Io { source, .. } => io_kind(source),
        _ => ErrorKind::InvalidInput,
    }
}
