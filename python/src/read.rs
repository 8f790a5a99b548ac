//! Opening datasets and reading their values: [`open`] and
//! [`NativeDataset`], which `nctk.Dataset` wraps.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

use nctk::model::{DataType, GroupId, Layout, NativeMut, Selection, VarId};
use nctk::Container;
use numpy::{PyArray1, PyArrayMethods};
use pyo3::exceptions::{PyIndexError, PyKeyboardInterrupt, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::describe;
use crate::errors::{no_panic, to_py};
use crate::values::to_numpy;

/// A read of more than this many bytes runs in slabs on a thread of its
/// own (see [`NativeDataset::read_into`]), stopping between slabs when
/// interrupted.
const SLAB_BYTES: u64 = 32 << 20;

/// How often a read waiting for its thread checks for Ctrl-C.
const SIGNAL_POLL: Duration = Duration::from_millis(50);

/// An open dataset: thread-safe, shared by every Python object made from
/// it; reads from many Python threads run at once, with the GIL released.
#[pyclass(frozen, module = "nctk._nctk")]
pub struct NativeDataset {
    dataset: Arc<nctk::Dataset>,
}

/// Opens `target` (a path or netCDF-C URL) with the GIL released;
/// `in_memory` reads a single file whole first (`nccopy -r`).
#[pyfunction]
#[pyo3(signature = (target, in_memory = false))]
pub fn open(py: Python<'_>, target: String, in_memory: bool) -> PyResult<NativeDataset> {
    no_panic(|| {
        let options = nctk::OpenOptions::new().in_memory(in_memory);
        let dataset = py
            .detach(|| nctk::open_with(&target, options))
            .map_err(to_py)?;
        Ok(NativeDataset {
            dataset: Arc::new(dataset),
        })
    })
}

impl NativeDataset {
    /// The variable of id `var`, checked.
    fn var_id(&self, var: u32) -> PyResult<VarId> {
        if (var as usize) < self.dataset.schema().num_vars() {
            Ok(VarId(var))
        } else {
            Err(PyIndexError::new_err(format!("no variable of id {var}")))
        }
    }

    /// The selection of `var` from `start`, `count`, `stride`, checked
    /// against its shape.
    fn selection(
        &self,
        var: VarId,
        start: Vec<u64>,
        count: Vec<u64>,
        stride: Vec<u64>,
    ) -> PyResult<Selection> {
        let shape = self.dataset.schema().shape(var);
        let rank = shape.len();
        if start.len() != rank || count.len() != rank || stride.len() != rank {
            return Err(PyValueError::new_err(format!(
                "a selection of {} needs {rank} starts, counts and strides",
                self.dataset.schema().var_path(var)
            )));
        }
        for d in 0..rank {
            let last =
                start[d].saturating_add(count[d].saturating_sub(1).saturating_mul(stride[d]));
            if stride[d] == 0 || (count[d] > 0 && last >= shape[d]) {
                return Err(PyIndexError::new_err(format!(
                    "selection start {} count {} stride {} is outside dimension {d} (length {}) of {}",
                    start[d],
                    count[d],
                    stride[d],
                    shape[d],
                    self.dataset.schema().var_path(var)
                )));
            }
        }
        Ok(Selection {
            start,
            count,
            stride,
        })
    }

    /// `selection` cut along its first axis of more than one index into
    /// slabs of about [`SLAB_BYTES`], each a whole number of the
    /// variable's chunks along that axis: where an interrupted read stops.
    fn slabs(&self, var: VarId, selection: &Selection, width: u64) -> Vec<Selection> {
        let Some(axis) = selection.count.iter().position(|&c| c > 1) else {
            return vec![selection.clone()];
        };
        let row: u64 = selection.count[axis + 1..].iter().product::<u64>() * width;
        let chunk = match &self.dataset.schema().var(var).storage.layout {
            Layout::Chunked(c) => c.get(axis).copied().unwrap_or(1).max(1),
            _ => 1,
        };
        let stride = selection.stride[axis];
        // Indices of the selection per chunk along the axis (at least 1).
        let per_chunk = chunk.div_ceil(stride).max(1);
        let rows = (SLAB_BYTES / row.max(1)).max(1);
        let step = rows.div_ceil(per_chunk) * per_chunk;
        let count = selection.count[axis];
        (0..count)
            .step_by(step as usize)
            .map(|first| {
                let mut s = selection.clone();
                s.start[axis] = selection.start[axis] + first * stride;
                s.count[axis] = step.min(count - first);
                s
            })
            .collect()
    }
}

/// One numeric read, slab by slab, into a byte buffer: what
/// [`NativeDataset::read_into`] runs in place or on a thread of its own.
struct SlabRead {
    dataset: Arc<nctk::Dataset>,
    var: VarId,
    dtype: DataType,
    width: u64,
    slabs: Vec<Selection>,
    /// Set when the caller was interrupted: stop at the next slab.
    cancel: Arc<AtomicBool>,
}

impl SlabRead {
    /// Reads every slab into `bytes` (exactly their values), in order.
    fn run(&self, bytes: &mut [u8]) -> PyResult<()> {
        let mut at = 0usize;
        for slab in &self.slabs {
            if self.cancel.load(Ordering::Relaxed) {
                return Err(PyKeyboardInterrupt::new_err("read interrupted"));
            }
            let len = (slab.num_elements().unwrap_or(0) * self.width) as usize;
            let part = &mut bytes[at..at + len];
            at += len;
            let buffer = native_buffer(self.dtype, part).ok_or_else(|| {
                PyValueError::new_err("the output is not an aligned array of the variable's type")
            })?;
            self.dataset
                .source()
                .read_native(self.var, slab, buffer)
                .map_err(|e| to_py(nctk::Error::Format(e)))?;
        }
        Ok(())
    }
}

/// The name `describe` gives `container` (`other` for a kind added later).
fn container_name(container: Container) -> &'static str {
    match container {
        Container::Classic(_) => "classic",
        Container::Hdf5 => "hdf5",
        Container::Zarr => "zarr",
        Container::NcStream => "ncstream",
        Container::Compressed => "compressed",
        Container::CdmRemote => "cdmremote",
        _ => "other",
    }
}

/// `bytes` as the native buffer of numeric type `dtype`; `None` when it is
/// not one, or the buffer is not aligned for it.
fn native_buffer(dtype: DataType, bytes: &mut [u8]) -> Option<NativeMut<'_>> {
    macro_rules! typed {
        ($variant:ident, $t:ty) => {{
            // SAFETY: every bit pattern is a valid value of these numeric types.
            let (head, body, tail) = unsafe { bytes.align_to_mut::<$t>() };
            if head.is_empty() && tail.is_empty() {
                Some(NativeMut::$variant(body))
            } else {
                None
            }
        }};
    }
    match dtype {
        DataType::Byte => typed!(Byte, i8),
        DataType::UByte => Some(NativeMut::UByte(bytes)),
        DataType::Short => typed!(Short, i16),
        DataType::UShort => typed!(UShort, u16),
        DataType::Int => typed!(Int, i32),
        DataType::UInt => typed!(UInt, u32),
        DataType::Int64 => typed!(Int64, i64),
        DataType::UInt64 => typed!(UInt64, u64),
        DataType::Float => typed!(Float, f32),
        DataType::Double => typed!(Double, f64),
        _ => None,
    }
}

#[pymethods]
impl NativeDataset {
    /// The dataset's description: `format` (as `ncdump -k` prints it),
    /// `container` (what holds it: `classic`, `hdf5`, `zarr`, `ncstream`,
    /// `compressed`, `cdmremote`, or `None`) and `root`, the root group
    /// (see `describe.rs`).
    fn describe<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        no_panic(|| {
            let schema = self.dataset.schema();
            let d = PyDict::new(py);
            d.set_item("format", self.dataset.format().name())?;
            d.set_item("container", self.dataset.container().map(container_name))?;
            d.set_item("root", describe::group(py, schema, GroupId::ROOT)?)?;
            Ok(d)
        })
    }

    /// Reads the selection of numeric variable `var` into `out`, a
    /// C-contiguous `uint8` view of an array of the variable's type holding
    /// exactly the selection, with the GIL released. A read of more than
    /// one slab runs on a thread of its own while this one waits, checking
    /// for Ctrl-C every [`SIGNAL_POLL`]: an interrupt returns at once (the
    /// reading thread stops at its next slab and lets the array go).
    fn read_into(
        &self,
        py: Python<'_>,
        var: u32,
        start: Vec<u64>,
        count: Vec<u64>,
        stride: Vec<u64>,
        out: &Bound<'_, PyArray1<u8>>,
    ) -> PyResult<()> {
        no_panic(|| {
            let var = self.var_id(var)?;
            let selection = self.selection(var, start, count, stride)?;
            let dtype = self.dataset.schema().var(var).dtype;
            let width = dtype.size().unwrap_or(1) as u64;
            let n = selection.num_elements().unwrap_or(u64::MAX);
            let slabs = self.slabs(var, &selection, width);
            let mut guard = out.readwrite();
            let bytes = guard
                .as_slice_mut()
                .map_err(|e| PyValueError::new_err(e.to_string()))?;
            if Some(bytes.len() as u64) != n.checked_mul(width) {
                return Err(PyValueError::new_err(format!(
                    "the output holds {} bytes, the selection {} values of {} bytes",
                    bytes.len(),
                    n,
                    width
                )));
            }
            let read = SlabRead {
                dataset: Arc::clone(&self.dataset),
                var,
                dtype,
                width,
                slabs,
                cancel: Arc::new(AtomicBool::new(false)),
            };
            if read.slabs.len() <= 1 {
                return py.detach(|| read.run(bytes));
            }
            let (addr, len) = (bytes.as_mut_ptr() as usize, bytes.len());
            drop(guard);
            // The reading thread holds the array: its memory outlives the read.
            let keep: Py<PyArray1<u8>> = out.clone().unbind();
            let cancel = Arc::clone(&read.cancel);
            let (done, answer) = mpsc::channel();
            std::thread::spawn(move || {
                // SAFETY: `keep` holds the array, so its `len` bytes at `addr`
                // stay valid until this thread lets it go; nothing else
                // writes them (the caller made the array for this read, and
                // after an interrupt never sees it).
                let bytes = unsafe { std::slice::from_raw_parts_mut(addr as *mut u8, len) };
                let result = no_panic(|| read.run(bytes));
                let _ = done.send(result);
                Python::attach(|_| drop(keep));
            });
            let mut answer = answer;
            loop {
                let (received, back) =
                    py.detach(move || (answer.recv_timeout(SIGNAL_POLL), answer));
                answer = back;
                match received {
                    Ok(result) => return result,
                    Err(mpsc::RecvTimeoutError::Timeout) => {
                        if let Err(interrupt) = py.check_signals() {
                            cancel.store(true, Ordering::Relaxed);
                            return Err(interrupt);
                        }
                    }
                    Err(mpsc::RecvTimeoutError::Disconnected) => {
                        return Err(PyRuntimeError::new_err(
                            "the reading thread ended without an answer",
                        ));
                    }
                }
            }
        })
    }

    /// Reads the selection of `var` (any type) as a flat numpy array:
    /// `S1` for `char`, objects for strings and vlens, a structured array
    /// for a compound, `V<n>` for opaque, the base integers for an enum.
    fn read<'py>(
        &self,
        py: Python<'py>,
        var: u32,
        start: Vec<u64>,
        count: Vec<u64>,
        stride: Vec<u64>,
    ) -> PyResult<Bound<'py, PyAny>> {
        no_panic(|| {
            let var = self.var_id(var)?;
            let selection = self.selection(var, start, count, stride)?;
            let dataset = &self.dataset;
            let values = py
                .detach(|| dataset.source().read(var, &selection))
                .map_err(|e| to_py(nctk::Error::Format(e)))?;
            let dtype = dataset.schema().var(var).dtype;
            to_numpy(py, dataset.schema(), dtype, values)
        })
    }
}
