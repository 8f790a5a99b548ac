//! Copying datasets as nccopy does: [`copy`], `nctk copy` (the crate
//! `nctk-tools`' [`CopyArgs`]) with nccopy's options as keyword
//! arguments, reporting progress to a Python callable.

use nctk_tools::copy::command::CopyArgs;
use nctk_tools::copy::{CopyError, Progress};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::{no_panic, to_py};

/// Tells a Python callable `report(event, name, bytes)` how the copy goes:
/// `("start", "", total)`, `("advance", variable, bytes)`, `("finish", "", 0)`
/// (and how `nctk.refs` goes: its `RefsProgress` in `refs.rs`).
pub(crate) struct Report(pub(crate) Py<PyAny>);

impl Report {
    pub(crate) fn call(&self, event: &str, name: &str, bytes: u64) {
        Python::attach(|py| {
            if let Err(e) = self.0.call1(py, (event, name, bytes)) {
                // A progress callback's failure does not stop the work.
                e.write_unraisable(py, Some(self.0.bind(py)));
            }
        });
    }
}

impl Progress for Report {
    fn start(&mut self, total_bytes: u64) {
        self.call("start", "", total_bytes);
    }

    fn advance(&mut self, var: &str, bytes: u64) {
        self.call("advance", var, bytes);
    }

    fn finish(&mut self) {
        self.call("finish", "", 0);
    }
}

/// A copy error as the Python exception its kind calls for; bad options
/// are `ValueError`s.
fn copy_error(e: CopyError) -> PyErr {
    match e {
        CopyError::Option(message) => PyValueError::new_err(message),
        e => to_py(e),
    }
}

/// Copies `input` to `output` as `nctk copy` (nccopy) does, with the GIL
/// released; `progress`, when given, is called as [`Report`] says. Each
/// option is nccopy's flag of the same meaning, given as nccopy takes it
/// (text for sizes and levels, lists for repeated flags). Returns the
/// copy's summary: `kind`, `variables`, `bytes`, `stored_chunks`,
/// `input_data_ends_at`.
#[pyfunction]
#[pyo3(signature = (input, output, *, kind = None, deflate = None, shuffle = false, codec = None,
    block_size = None, no_shuffle = false, chunkspecs = vec![], shards = vec![],
    fix_unlimited = false, write_in_memory = false, vars = None, vars_only = None, groups = None,
    groups_only = None, buffer = None, chunk_cache = None, chunk_cache_elems = None,
    read_in_memory = false, filters = vec![], min_chunk = None, fill = false,
    write_empty_chunks = false, progress = None))]
#[allow(clippy::too_many_arguments)]
pub fn copy<'py>(
    py: Python<'py>,
    input: String,
    output: String,
    kind: Option<String>,
    deflate: Option<String>,
    shuffle: bool,
    codec: Option<String>,
    block_size: Option<String>,
    no_shuffle: bool,
    chunkspecs: Vec<String>,
    shards: Vec<String>,
    fix_unlimited: bool,
    write_in_memory: bool,
    vars: Option<String>,
    vars_only: Option<String>,
    groups: Option<String>,
    groups_only: Option<String>,
    buffer: Option<String>,
    chunk_cache: Option<String>,
    chunk_cache_elems: Option<String>,
    read_in_memory: bool,
    filters: Vec<String>,
    min_chunk: Option<String>,
    fill: bool,
    write_empty_chunks: bool,
    progress: Option<Py<PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    no_panic(|| {
        let args = CopyArgs {
            kind,
            deflate,
            shuffle,
            codec,
            block_size,
            no_shuffle,
            chunkspecs,
            shards,
            fix_unlimited,
            write_in_memory,
            vars,
            vars_only,
            groups,
            groups_only,
            buffer,
            chunk_cache,
            chunk_cache_elems,
            read_in_memory,
            filters,
            min_chunk,
            extra: if fill { vec!["f".into()] } else { vec![] },
            write_empty_chunks,
            input,
            output,
            ..CopyArgs::default()
        };
        let opts = args.to_options().map_err(copy_error)?;
        let summary = py
            .detach(|| {
                let mut none = nctk_tools::copy::NoProgress;
                let mut report = progress.map(Report);
                let sink: &mut dyn Progress = match report.as_mut() {
                    Some(r) => r,
                    None => &mut none,
                };
                nctk_tools::copy::copy(&args.input, &args.output, &opts, sink)
            })
            .map_err(copy_error)?;
        let d = PyDict::new(py);
        d.set_item("kind", summary.kind.name())?;
        d.set_item("variables", summary.variables)?;
        d.set_item("bytes", summary.bytes)?;
        d.set_item("stored_chunks", summary.stored_chunks)?;
        d.set_item("input_data_ends_at", summary.input_data_ends_at)?;
        Ok(d)
    })
}
