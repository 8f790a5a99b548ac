//! Writing datasets: [`create`] and [`NativeWriter`], which
//! `nctk.create`'s `WritableDataset` wraps: the Rust crate's define API
//! ([`nctk::DatasetDef`], [`nctk::VarDef`]) and data mode
//! ([`nctk::DatasetMut`]), with the GIL released while values are written.
//!
//! Groups, dimensions and variables are named by the ids the define calls
//! return (the Python side keeps the names). Values come as flat,
//! C-contiguous numpy arrays of a numeric type (converted to the
//! variable's type with netCDF's range checks), a list of `str` (a
//! `string` variable) or `bytes` (a `char` variable).

use std::sync::Mutex;

use nctk::model::{DataType, DimId, Endianness, GroupId, NcValue, Selection, Values, VarId};
use nctk::{CreateOptions, DatasetDef, DatasetMut, Extent, StoreLayout, StoreOptions};
use numpy::{PyReadonlyArray1, PyUntypedArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::describe::numeric_code;
use crate::errors::{no_panic, to_py};

/// The atomic numeric types, in the order of netCDF's type codes.
const NUMERIC: [DataType; 10] = [
    DataType::Byte,
    DataType::UByte,
    DataType::Short,
    DataType::UShort,
    DataType::Int,
    DataType::UInt,
    DataType::Int64,
    DataType::UInt64,
    DataType::Float,
    DataType::Double,
];

/// The netCDF type of a numpy type code (`i1` ... `f8`), `S1` (`char`) or
/// `str` (`string`).
fn data_type(code: &str) -> PyResult<DataType> {
    match code {
        "S1" => Ok(DataType::Char),
        "str" => Ok(DataType::String),
        _ => NUMERIC
            .into_iter()
            .find(|&t| numeric_code(t) == Some(code))
            .ok_or_else(|| PyTypeError::new_err(format!("no netCDF type for numpy type {code}"))),
    }
}

/// Runs `$body` with `$t` the Rust type of the numeric type code `$code`.
macro_rules! with_numeric {
    ($code:expr, $t:ident => $body:expr) => {
        match data_type($code)? {
            DataType::Byte => {
                type $t = i8;
                $body
            }
            DataType::UByte => {
                type $t = u8;
                $body
            }
            DataType::Short => {
                type $t = i16;
                $body
            }
            DataType::UShort => {
                type $t = u16;
                $body
            }
            DataType::Int => {
                type $t = i32;
                $body
            }
            DataType::UInt => {
                type $t = u32;
                $body
            }
            DataType::Int64 => {
                type $t = i64;
                $body
            }
            DataType::UInt64 => {
                type $t = u64;
                $body
            }
            DataType::Float => {
                type $t = f32;
                $body
            }
            DataType::Double => {
                type $t = f64;
                $body
            }
            other => Err(PyTypeError::new_err(format!(
                "{other} is not a numeric type"
            ))),
        }
    };
}

/// An attribute's (or fill value's) values: `kind` is `text` (`value` a
/// `str`: a `char` attribute), `bytes` (`char`), `strings` (a list of
/// `str`: a `string` attribute) or a numeric type code (`value` a 1-D
/// numpy array of that type).
fn attr_values(kind: &str, value: &Bound<'_, PyAny>) -> PyResult<Values> {
    match kind {
        "text" => Ok(Values::text(&value.extract::<String>()?)),
        "bytes" => Ok(Values::Char(value.cast::<PyBytes>()?.as_bytes().to_vec())),
        "strings" => Ok(Values::strings(value.extract::<Vec<String>>()?)),
        code => with_numeric!(code, T => {
            let array: PyReadonlyArray1<'_, T> = value.extract()?;
            Ok(T::into_values(array.as_array().to_vec()))
        }),
    }
}

/// The store layout named `name`.
fn layout(name: &str) -> PyResult<StoreLayout> {
    Ok(match name {
        "nczarr" => StoreLayout::NcZarr,
        "nczarr490" => StoreLayout::NcZarr490,
        "zarr" => StoreLayout::PureZarr { xarray: true },
        "zarr-noxarray" => StoreLayout::PureZarr { xarray: false },
        "zarr-v3" => StoreLayout::ZarrV3 { nczarr: false },
        "nczarr-v3" => StoreLayout::ZarrV3 { nczarr: true },
        _ => {
            return Err(PyValueError::new_err(format!(
                "unknown store layout {name:?}: nczarr, nczarr490, zarr, zarr-noxarray, \
                 zarr-v3 or nczarr-v3"
            )))
        }
    })
}

/// A dataset being written: in define mode, then in data mode, then
/// closed (committed or aborted).
enum State {
    Define(DatasetDef),
    Data(Box<DatasetMut>),
    Closed,
}

/// A dataset being written (see `nctk.create`). Thread-safe: calls from
/// many threads take turns; writes release the GIL.
#[pyclass(frozen, module = "nctk._nctk")]
pub struct NativeWriter {
    target: String,
    /// The format, as `ncdump -k` names it.
    format: &'static str,
    state: Mutex<State>,
}

/// Creates the dataset `target` (a path or netCDF-C URL) in `format` (as
/// nccopy's `-k` names it), in define mode.
#[pyfunction]
#[pyo3(signature = (target, format, fill = true, layout = None, consolidated = false,
    existing = false, write_empty_chunks = false, cache_bytes = None, in_memory = false))]
#[allow(clippy::too_many_arguments)]
pub fn create(
    py: Python<'_>,
    target: String,
    format: &str,
    fill: bool,
    layout: Option<&str>,
    consolidated: bool,
    existing: bool,
    write_empty_chunks: bool,
    cache_bytes: Option<usize>,
    in_memory: bool,
) -> PyResult<NativeWriter> {
    no_panic(|| {
        let format = nctk_tools::copy::parse_kind(format)
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        let mut opts = CreateOptions::new().fill(fill);
        let is_store = layout.is_some()
            || consolidated
            || existing
            || write_empty_chunks
            || cache_bytes.is_some();
        if is_store {
            opts = opts.store(StoreOptions {
                layout: layout.map(self::layout).transpose()?,
                consolidated,
                cache_bytes,
                write_empty_chunks,
                existing,
            });
        } else if in_memory {
            opts = opts.classic(nctk::ClassicOptions {
                in_memory,
                compress: None,
            });
        }
        let def = py
            .detach(|| nctk::create_with(&target, format, opts))
            .map_err(to_py)?;
        Ok(NativeWriter {
            target,
            format: format.name(),
            state: Mutex::new(State::Define(def)),
        })
    })
}

impl NativeWriter {
    /// Runs `f` on the state with the GIL released (so that a thread
    /// waiting for the lock never holds the GIL).
    fn with_state<T: Send>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&mut State) -> PyResult<T> + Send,
    ) -> PyResult<T> {
        no_panic(|| {
            py.detach(|| {
                let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
                f(&mut state)
            })
        })
    }

    fn closed(&self) -> PyErr {
        PyValueError::new_err(format!("the dataset {} is closed", self.target))
    }

    /// Runs `f` on the definitions: in define mode only.
    fn define<T: Send>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&mut DatasetDef) -> Result<T, nctk::Error> + Send,
    ) -> PyResult<T> {
        self.with_state(py, |state| match state {
            State::Define(def) => f(def).map_err(to_py),
            State::Data(_) => Err(PyValueError::new_err(format!(
                "{}: definitions (dimensions, groups, variables, attributes) come before the \
                 first values are written",
                self.target
            ))),
            State::Closed => Err(self.closed()),
        })
    }

    /// Runs `f` on the dataset in data mode, leaving define mode first.
    fn data<T: Send>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&mut DatasetMut) -> Result<T, nctk::Error> + Send,
    ) -> PyResult<T> {
        self.with_state(py, |state| {
            end_define(state).map_err(to_py)?;
            match state {
                State::Data(ds) => f(ds).map_err(to_py),
                _ => Err(self.closed()),
            }
        })
    }
}

/// Leaves define mode, if in it (a failure aborts the dataset).
fn end_define(state: &mut State) -> Result<(), nctk::Error> {
    if let State::Define(_) = state {
        let State::Define(def) = std::mem::replace(state, State::Closed) else {
            unreachable!("matched above")
        };
        *state = State::Data(Box::new(def.end_define()?));
    }
    Ok(())
}

/// The extents of the selection `start`, `count`, `stride`.
fn extents(start: &[u64], count: &[u64], stride: &[u64]) -> Vec<Extent> {
    (0..start.len())
        .map(|d| {
            let end = start[d] + count[d].saturating_sub(1) * stride[d] + u64::from(count[d] > 0);
            Extent::stepped(start[d]..end.max(start[d]), stride[d].max(1))
        })
        .collect()
}

#[pymethods]
impl NativeWriter {
    /// Adds a dimension to `group`: fixed of length `size`, or unlimited
    /// when `size` is `None`; its id.
    #[pyo3(signature = (group, name, size))]
    fn add_dimension(
        &self,
        py: Python<'_>,
        group: u32,
        name: &str,
        size: Option<u64>,
    ) -> PyResult<u32> {
        let id = self.define(py, |def| match size {
            Some(len) => def.add_dimension_in(GroupId(group), name, len),
            None => def.add_unlimited_dimension_in(GroupId(group), name),
        })?;
        Ok(id.0)
    }

    /// Adds a subgroup to `parent`; its id.
    fn add_group(&self, py: Python<'_>, parent: u32, name: &str) -> PyResult<u32> {
        Ok(self
            .define(py, |def| def.add_group(GroupId(parent), name))?
            .0)
    }

    /// Adds a variable of type `dtype` (a numpy type code, `S1` or `str`)
    /// on dimensions `dims` to `group`; its id.
    fn add_variable(
        &self,
        py: Python<'_>,
        group: u32,
        name: &str,
        dtype: &str,
        dims: Vec<u32>,
    ) -> PyResult<u32> {
        let dtype = data_type(dtype)?;
        let dims: Vec<DimId> = dims.into_iter().map(DimId).collect();
        let id = self.define(py, |def| {
            Ok(def
                .add_variable_of_type_in(GroupId(group), name, dtype, &dims)?
                .id())
        })?;
        Ok(id.0)
    }

    /// Sets the storage of variable `var` (netCDF-4 outputs): each
    /// setting given is applied in turn, as the Rust crate's `VarDef`
    /// setters apply it.
    #[pyo3(signature = (var, chunksizes = None, contiguous = false, deflate_level = None,
        shuffle = false, codecs = None, filters = None, fletcher32 = false, endianness = None,
        string_width = None, no_fill = false))]
    #[allow(clippy::too_many_arguments)]
    fn set_storage(
        &self,
        py: Python<'_>,
        var: u32,
        chunksizes: Option<Vec<u64>>,
        contiguous: bool,
        deflate_level: Option<u32>,
        shuffle: bool,
        codecs: Option<String>,
        filters: Option<String>,
        fletcher32: bool,
        endianness: Option<String>,
        string_width: Option<usize>,
        no_fill: bool,
    ) -> PyResult<()> {
        let endianness = match endianness.as_deref() {
            None | Some("native") => None,
            Some("little") => Some(Endianness::Little),
            Some("big") => Some(Endianness::Big),
            Some(other) => {
                return Err(PyValueError::new_err(format!(
                    "endianness {other:?}: little, big or native"
                )))
            }
        };
        self.define(py, |def| {
            let mut v = def.variable(VarId(var))?;
            if let Some(chunks) = &chunksizes {
                v.set_chunking(chunks)?;
            }
            if contiguous {
                v.set_contiguous()?;
            }
            if deflate_level.is_some() || shuffle {
                v.set_compression(deflate_level.unwrap_or(0), shuffle)?;
            }
            if let Some(c) = &codecs {
                v.set_codecs(c)?;
            }
            if let Some(f) = &filters {
                v.set_filter(f)?;
            }
            if fletcher32 {
                v.set_fletcher32()?;
            }
            if let Some(e) = endianness {
                v.set_endianness(e)?;
            }
            if let Some(w) = string_width {
                v.set_string_width(w)?;
            }
            if no_fill {
                v.set_no_fill()?;
            }
            Ok(())
        })
    }

    /// Sets the fill value of variable `var` (see [`attr_values`] for
    /// `kind` and `value`).
    fn set_fill_value(
        &self,
        py: Python<'_>,
        var: u32,
        kind: &str,
        value: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let values = attr_values(kind, value)?;
        self.define(py, |def| {
            def.variable(VarId(var))?.set_fill_value(values)?;
            Ok(())
        })
    }

    /// Sets an attribute of variable `var`, or of `group` when `var` is
    /// `None` (see [`attr_values`] for `kind` and `value`).
    #[pyo3(signature = (group, var, name, kind, value))]
    fn put_attribute(
        &self,
        py: Python<'_>,
        group: u32,
        var: Option<u32>,
        name: &str,
        kind: &str,
        value: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let values = attr_values(kind, value)?;
        self.define(py, |def| match var {
            Some(v) => def
                .variable(VarId(v))?
                .put_attribute(name, values)
                .map(|_| ()),
            None => def.put_group_attribute(GroupId(group), name, values),
        })
    }

    /// The current shape of variable `var` (unlimited dimensions at the
    /// length written so far).
    fn shape(&self, py: Python<'_>, var: u32) -> PyResult<Vec<u64>> {
        self.with_state(py, |state| {
            let schema = match state {
                State::Define(def) => def.schema(),
                State::Data(ds) => ds.schema(),
                State::Closed => return Err(self.closed()),
            };
            if var as usize >= schema.num_vars() {
                return Err(PyValueError::new_err(format!("no variable of id {var}")));
            }
            Ok(schema.shape(VarId(var)))
        })
    }

    /// Leaves define mode: the dataset is made under its temporary name.
    fn end_define(&self, py: Python<'_>) -> PyResult<()> {
        self.data(py, |_| Ok(()))
    }

    /// True in define mode.
    fn in_define_mode(&self, py: Python<'_>) -> PyResult<bool> {
        self.with_state(py, |state| Ok(matches!(state, State::Define(_))))
    }

    /// Writes `data` to the selection `start`, `count`, `stride` of `var`:
    /// a flat C-contiguous numpy array of numeric type `kind` (converted
    /// with netCDF's rules, straight from its memory), or for `kind`
    /// `strings` a list of `str`, for `bytes` the bytes of `char` values.
    /// The GIL is released while the values are written.
    #[allow(clippy::too_many_arguments)]
    fn put(
        &self,
        py: Python<'_>,
        var: u32,
        start: Vec<u64>,
        count: Vec<u64>,
        stride: Vec<u64>,
        kind: &str,
        data: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let var = VarId(var);
        let write = |values: Values| {
            let selection = Selection {
                start: start.clone(),
                count: count.clone(),
                stride: stride.clone(),
            };
            self.data(py, move |ds| {
                check_var(ds, var)?;
                ds.write(var, &selection, &values)
            })
        };
        match kind {
            "strings" => write(Values::strings(data.extract::<Vec<String>>()?)),
            "bytes" => write(Values::Char(data.cast::<PyBytes>()?.as_bytes().to_vec())),
            code => with_numeric!(code, T => {
                let array: PyReadonlyArray1<'_, T> = data.extract()?;
                if !array.is_c_contiguous() {
                    return Err(PyValueError::new_err("the values must be C-contiguous"));
                }
                let values = array.as_slice()?;
                let extents = extents(&start, &count, &stride);
                self.data(py, move |ds| {
                    check_var(ds, var)?;
                    let name = ds.schema().var_path(var);
                    ds.put_values::<T>(&name, extents, values)
                })
            }),
        }
    }

    /// netCDF's `nc_sync` (see [`nctk::DatasetMut::sync`]).
    fn sync(&self, py: Python<'_>) -> PyResult<()> {
        self.data(py, DatasetMut::sync)
    }

    /// Completes the dataset and renames it into place (leaving define
    /// mode first); closing a closed dataset does nothing.
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        self.with_state(py, |state| {
            if matches!(state, State::Closed) {
                return Ok(());
            }
            end_define(state).map_err(to_py)?;
            match std::mem::replace(state, State::Closed) {
                State::Data(ds) => ds.close().map_err(to_py),
                _ => Ok(()),
            }
        })
    }

    /// Drops the dataset unfinished: nothing appears at the target (a
    /// store written in place, `existing=True`, keeps the chunks already
    /// stored).
    fn abort(&self, py: Python<'_>) -> PyResult<()> {
        self.with_state(py, |state| {
            *state = State::Closed;
            Ok(())
        })
    }

    /// The format, as `ncdump -k` names it.
    #[getter]
    fn format(&self) -> &'static str {
        self.format
    }

    /// True until closed or aborted.
    fn is_open(&self, py: Python<'_>) -> PyResult<bool> {
        self.with_state(py, |state| Ok(!matches!(state, State::Closed)))
    }
}

/// Refuses a variable id the dataset does not have.
fn check_var(ds: &DatasetMut, var: VarId) -> Result<(), nctk::Error> {
    if (var.0 as usize) < ds.schema().num_vars() {
        return Ok(());
    }
    Err(nctk::Error::Model(nctk::model::ModelError::NotFound {
        kind: "variable",
        name: format!("id {}", var.0),
    }))
}
