//! Virtual Zarr references: [`refs`], `nctk refs` (kerchunk's reference
//! JSON to the inputs' own bytes) from Python.

use nctk_tools::refs::{RefsFormat, RefsOptions};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::{no_panic, to_py};

/// Writes the kerchunk references of `inputs` (paths or URLs), combined
/// along `concat_dim` when there are several, variables stored whole cut
/// into chunks of at most `chunk_bytes`, to `output` (kerchunk's JSON or
/// Parquet form or an Icechunk repository, by `format` or the output's
/// name; `record_size`
/// references per Parquet file), with the GIL released. Returns the summary: `variables`, `chunks`.
#[pyfunction]
#[pyo3(signature = (inputs, output, *, concat_dim = None, chunk_bytes = None, format = None, record_size = None))]
pub fn refs<'py>(
    py: Python<'py>,
    inputs: Vec<String>,
    output: std::path::PathBuf,
    concat_dim: Option<String>,
    chunk_bytes: Option<u64>,
    format: Option<String>,
    record_size: Option<u64>,
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
        };
        let summary = py
            .detach(|| nctk_tools::refs::refs(&inputs, &output, &options))
            .map_err(to_py)?;
        let d = PyDict::new(py);
        d.set_item("variables", summary.variables)?;
        d.set_item("chunks", summary.chunks)?;
        Ok(d)
    })
}
