//! `nctk._nctk`: the native module of the nctk Python package.
//!
//! The package's Python classes (`nctk.Dataset`, `nctk.Variable`, the
//! xarray engine) are thin: they hold a `NativeDataset` (`read.rs`) and ask it
//! for the dataset's description (one nested dictionary built at open) and
//! for values. Reads release the GIL, decode straight into the caller's
//! numpy array and check for Ctrl-C between slabs; errors become the Python
//! exception their kind calls for (`errors.rs`); a panic becomes an nctk
//! error, never a `PanicException`.

mod copy;
mod describe;
mod errors;
mod layout;
mod read;
mod refs;
mod values;
mod write;

use pyo3::prelude::*;

/// The module `nctk._nctk`.
#[pymodule]
fn _nctk(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<read::NativeDataset>()?;
    m.add_function(wrap_pyfunction!(read::open, m)?)?;
    m.add_class::<write::NativeWriter>()?;
    m.add_function(wrap_pyfunction!(write::create, m)?)?;
    m.add_function(wrap_pyfunction!(copy::copy, m)?)?;
    m.add_function(wrap_pyfunction!(refs::refs, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
