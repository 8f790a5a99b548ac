//! nctk's errors as the Python exceptions their kind calls for, and panics
//! kept from the interpreter.
//!
//! The exception classes of nctk's own (`nctk.NctkError`,
//! `nctk.CorruptDataError`) are defined in Python (`nctk/_errors.py`), so
//! that one of them can be both an `NctkError` and an `OSError`.

use std::panic::{catch_unwind, AssertUnwindSafe};

use nctk::{ErrorKind, HasErrorKind};
use pyo3::exceptions::{
    PyFileNotFoundError, PyNotImplementedError, PyOSError, PyPermissionError, PyValueError,
};
use pyo3::prelude::*;

/// An exception of `nctk._errors` named `class`, raised with `message`.
fn nctk_exception(class: &str, message: String) -> PyErr {
    Python::attach(
        |py| match py.import("nctk._errors").and_then(|m| m.getattr(class)) {
            Ok(cls) => PyErr::from_type(cls.cast_into().expect("an exception class"), message),
            Err(e) => e,
        },
    )
}

/// The Python exception for an error of `kind` saying `message`.
pub fn from_kind(kind: ErrorKind, message: String) -> PyErr {
    match kind {
        ErrorKind::NotFound => PyFileNotFoundError::new_err(message),
        ErrorKind::PermissionDenied => PyPermissionError::new_err(message),
        ErrorKind::InvalidInput => PyValueError::new_err(message),
        ErrorKind::InvalidData => nctk_exception("CorruptDataError", message),
        ErrorKind::Unsupported => PyNotImplementedError::new_err(message),
        ErrorKind::Io => PyOSError::new_err(message),
        _ => nctk_exception("NctkError", message),
    }
}

/// The Python exception for any nctk error (its kind and its message).
pub fn to_py<E: HasErrorKind + std::fmt::Display>(e: E) -> PyErr {
    from_kind(e.kind(), e.to_string())
}

/// Runs `f`, turning a panic into an `nctk.NctkError` that says so.
pub fn no_panic<T>(f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|payload| {
        let what = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".to_string());
        Err(nctk_exception(
            "NctkError",
            format!("internal error in nctk (please report it): {what}"),
        ))
    })
}
