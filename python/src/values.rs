//! nctk's values as numpy arrays and Python objects, typed as
//! netCDF4-python gives them: numbers as arrays of their own type, `char`
//! as `S1`, strings and vlens as object arrays, compounds as structured
//! arrays at their stored offsets, opaque values as `V<n>`.

use nctk::model::{Attribute, DataType, Schema, UserTypeKind, Values};
use numpy::PyArray1;
use pyo3::exceptions::PyNotImplementedError;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString};

use crate::describe::numpy_dtype_spec;
use crate::layout::native_layout;

/// `values` of type `dtype` as a flat numpy array (the caller reshapes).
pub fn to_numpy<'py>(
    py: Python<'py>,
    schema: &Schema,
    dtype: DataType,
    values: Values,
) -> PyResult<Bound<'py, PyAny>> {
    let numpy = py.import("numpy")?;
    Ok(match values {
        Values::Byte(v) => PyArray1::from_vec(py, v).into_any(),
        Values::UByte(v) => PyArray1::from_vec(py, v).into_any(),
        Values::Short(v) => PyArray1::from_vec(py, v).into_any(),
        Values::UShort(v) => PyArray1::from_vec(py, v).into_any(),
        Values::Int(v) => PyArray1::from_vec(py, v).into_any(),
        Values::UInt(v) => PyArray1::from_vec(py, v).into_any(),
        Values::Int64(v) => PyArray1::from_vec(py, v).into_any(),
        Values::UInt64(v) => PyArray1::from_vec(py, v).into_any(),
        Values::Float(v) => PyArray1::from_vec(py, v).into_any(),
        Values::Double(v) => PyArray1::from_vec(py, v).into_any(),
        Values::Char(v) => PyArray1::from_vec(py, v).call_method1("view", ("S1",))?,
        Values::Opaque { size, bytes } => {
            PyArray1::from_vec(py, bytes).call_method1("view", (format!("V{size}"),))?
        }
        Values::String(v) => {
            let out = numpy.call_method1("empty", (v.len(), "O"))?;
            for (i, s) in v.iter().enumerate() {
                out.set_item(i, PyString::new(py, py_text(s)))?;
            }
            out
        }
        Values::Vlen(items) => {
            let base = match schema.user_kind(dtype) {
                Some(UserTypeKind::Vlen { base }) => *base,
                _ => items.first().map_or(DataType::UByte, Values::dtype),
            };
            let out = numpy.call_method1("empty", (items.len(), "O"))?;
            for (i, item) in items.into_iter().enumerate() {
                out.set_item(i, to_numpy(py, schema, base, item)?)?;
            }
            out
        }
        compound @ Values::Compound { .. } => {
            let size = native_layout(schema, dtype).map_or(0, |l| l.size);
            let n = compound.len();
            let mut buf = vec![0u8; size * n];
            let at: Vec<usize> = (0..n).map(|i| i * size).collect();
            pack(schema, dtype, &compound, &mut buf, &at)?;
            let spec = numpy_dtype_spec(py, schema, dtype)?;
            let np_dtype = py
                .import("nctk._types")?
                .call_method1("dtype_of", (spec,))?;
            PyArray1::from_vec(py, buf).call_method1("view", (np_dtype,))?
        }
        other => {
            return Err(PyNotImplementedError::new_err(format!(
                "{} values cannot be read into numpy yet",
                other.dtype()
            )))
        }
    })
}

/// Writes the fixed-size `values` of type `dtype` into `buf`, value `i`
/// at byte `at[i]`, in native byte order (what numpy's structured dtype
/// reads).
fn pack(
    schema: &Schema,
    dtype: DataType,
    values: &Values,
    buf: &mut [u8],
    at: &[usize],
) -> PyResult<()> {
    match values {
        Values::Compound { fields, .. } => {
            let (Some(UserTypeKind::Compound { fields: defs, .. }), Some(layout)) =
                (schema.user_kind(dtype), native_layout(schema, dtype))
            else {
                return Err(PyNotImplementedError::new_err(format!(
                    "values of compound type {} (with variable-length fields) cannot be read into numpy",
                    schema.type_name(dtype)
                )));
            };
            for ((def, field), offset) in defs.iter().zip(fields).zip(layout.offsets) {
                let count = def.count();
                let width = native_layout(schema, def.dtype).map_or(0, |l| l.size);
                let field_at: Vec<usize> = at
                    .iter()
                    .flat_map(|&p| (0..count).map(move |k| p + offset + k * width))
                    .collect();
                pack(schema, def.dtype, field, buf, &field_at)?;
            }
            Ok(())
        }
        Values::Opaque { size, bytes } => {
            for (chunk, &p) in bytes.chunks_exact(*size).zip(at) {
                buf[p..p + size].copy_from_slice(chunk);
            }
            Ok(())
        }
        Values::String(_) | Values::Vlen(_) => Err(PyNotImplementedError::new_err(
            "compound fields of variable-length types (strings, vlens) cannot be read into numpy",
        )),
        fixed => {
            let bytes = fixed.to_bytes(cfg!(target_endian = "big"));
            let width = bytes.len() / fixed.len().max(1);
            for (chunk, &p) in bytes.chunks_exact(width.max(1)).zip(at) {
                buf[p..p + width].copy_from_slice(chunk);
            }
            Ok(())
        }
    }
}

/// An attribute's value as netCDF4-python gives it: text for `char`, a
/// string (or a list of strings) for `string`, a numpy scalar for one
/// value, else a numpy array.
pub fn attribute_value<'py>(
    py: Python<'py>,
    schema: &Schema,
    attr: &Attribute,
) -> PyResult<Bound<'py, PyAny>> {
    let dtype = attr.user_type.map_or(attr.value.dtype(), DataType::User);
    match &attr.value {
        // netCDF4-python keeps a char `_FillValue` as bytes (the fill of
        // a char variable), and turns other char attributes into text.
        Values::Char(bytes) if attr.name == "_FillValue" => {
            Ok(pyo3::types::PyBytes::new(py, bytes).into_any())
        }
        Values::Char(bytes) => {
            let text = String::from_utf8_lossy(bytes).replace('\0', "");
            Ok(PyString::new(py, &text).into_any())
        }
        Values::String(v) if v.len() == 1 => Ok(PyString::new(py, py_text(&v[0])).into_any()),
        Values::String(v) => Ok(PyList::new(py, v.iter().map(py_text))?.into_any()),
        other => {
            let array = to_numpy(py, schema, dtype, other.clone())?;
            if other.len() == 1 {
                array.get_item(0)
            } else {
                Ok(array)
            }
        }
    }
}

/// A string value as Python text: a null string (`NIL`) is `""`, as
/// netCDF4-python gives it (for data and attributes alike).
fn py_text(s: &Option<String>) -> &str {
    s.as_deref().unwrap_or_default()
}
