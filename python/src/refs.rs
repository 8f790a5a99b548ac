//! Virtual Zarr references: [`refs`], `nctk refs` (kerchunk's reference
//! JSON to the inputs' own bytes) from Python.

use nctk_tools::refs::{RefsFormat, RefsOptions, RefsProgress};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::copy::Report;
use crate::errors::{no_panic, to_py};

/// The references' progress to a Python callable `report(event, name, n)`:
/// `("total", "", steps)` (again when the inputs' variables are counted),
/// `("advance", input or variable, 1)`, `("finish", "", 0)`.
impl RefsProgress for Report {
    fn set_total(&mut self, steps: u64) {
        self.call("total", "", steps);
    }

    fn advance(&mut self, what: &str) {
        self.call("advance", what, 1);
    }

    fn finish(&mut self) {
        self.call("finish", "", 0);
    }
}

/// Writes the kerchunk references of `inputs` (paths or URLs), combined
/// along `concat_dim` when there are several, variables stored whole cut
/// into chunks of at most `chunk_bytes`, to `output` (kerchunk's JSON or
/// Parquet form or an Icechunk repository, by `format` or the output's
/// name; `record_size`
/// references per Parquet file), the inputs read `window` at a time,
/// with the GIL released; `progress`, when
/// given, is called as the [`RefsProgress`] of [`Report`] says. Returns the
/// summary: `variables`, `chunks`.
// Python's keyword arguments, one parameter each.
#[allow(clippy::too_many_arguments)]
#[pyfunction]
#[pyo3(signature = (inputs, output, *, concat_dim = None, chunk_bytes = None, format = None, record_size = None, window = None, progress = None))]
pub fn refs<'py>(
    py: Python<'py>,
    inputs: Vec<String>,
    output: std::path::PathBuf,
    concat_dim: Option<String>,
    chunk_bytes: Option<u64>,
    format: Option<String>,
    record_size: Option<u64>,
    window: Option<usize>,
    progress: Option<Py<PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    no_panic(|| {
        let format = format
            .map(|f| {
                RefsFormat::from_name(&f).ok_or_else(|| {
                    pyo3::exceptions::PyValueError::new_err(format!(
                        "format {f:?}: expected \"json\", \"parquet\" or \"icechunk\""
                    ))
                })
            })
            .transpose()?;
        let options = RefsOptions {
            concat_dim,
            chunk_bytes,
            format,
            record_size,
            window,
        };
        let mut report = progress.map(Report);
        let summary = py
            .detach(|| {
                let mut none = nctk_tools::copy::NoProgress;
                let sink: &mut dyn RefsProgress = match report.as_mut() {
                    Some(r) => r,
                    None => &mut none,
                };
                nctk_tools::refs::refs_with_progress(&inputs, &output, &options, sink)
            })
            .map_err(to_py)?;
        let d = PyDict::new(py);
        d.set_item("variables", summary.variables)?;
        d.set_item("chunks", summary.chunks)?;
        Ok(d)
    })
}
