//! A dataset's schema as plain Python objects, built once at open: the
//! Python classes read groups, dimensions, variables, attributes, types and
//! storage from it without calling back into Rust.

use nctk::model::{DataType, Endianness, GroupId, Layout, Schema, UserTypeKind, VarId};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};

use crate::layout::native_layout;
use crate::values::{attribute_value, to_numpy};

/// The numpy type code of an atomic numeric type, in native byte order
/// (what reads return); `None` for the other types.
pub fn numeric_code(dtype: DataType) -> Option<&'static str> {
    Some(match dtype {
        DataType::Byte => "i1",
        DataType::UByte => "u1",
        DataType::Short => "i2",
        DataType::UShort => "u2",
        DataType::Int => "i4",
        DataType::UInt => "u4",
        DataType::Int64 => "i8",
        DataType::UInt64 => "u8",
        DataType::Float => "f4",
        DataType::Double => "f8",
        _ => return None,
    })
}

/// The description of `dtype`: a dictionary with `kind` (`numeric`, `char`,
/// `string`, `compound`, `vlen`, `enum`, `opaque`), `dtype` (what
/// `numpy.dtype` takes) and, for user types, `name` and `base` (vlen, enum)
/// or `members` (enum, name to value).
pub fn type_description<'py>(
    py: Python<'py>,
    schema: &Schema,
    dtype: DataType,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    match dtype {
        DataType::Char => {
            d.set_item("kind", "char")?;
            d.set_item("dtype", "S1")?;
        }
        DataType::String => {
            d.set_item("kind", "string")?;
            d.set_item("dtype", "O")?;
        }
        DataType::User(id) => {
            let ut = schema.user_type(id);
            d.set_item("name", &ut.name)?;
            match &ut.kind {
                UserTypeKind::Compound { .. } => {
                    d.set_item("kind", "compound")?;
                    d.set_item("dtype", numpy_dtype_spec(py, schema, dtype)?)?;
                }
                UserTypeKind::Vlen { base } => {
                    d.set_item("kind", "vlen")?;
                    d.set_item("dtype", "O")?;
                    d.set_item("base", type_description(py, schema, *base)?)?;
                }
                UserTypeKind::Enum { base, members } => {
                    d.set_item("kind", "enum")?;
                    d.set_item("dtype", numpy_dtype_spec(py, schema, *base)?)?;
                    let m = PyDict::new(py);
                    for member in members {
                        m.set_item(&member.name, member.value)?;
                    }
                    d.set_item("members", m)?;
                }
                UserTypeKind::Opaque { size } => {
                    d.set_item("kind", "opaque")?;
                    d.set_item("dtype", format!("V{size}"))?;
                }
            }
        }
        _ => {
            d.set_item("kind", "numeric")?;
            d.set_item("dtype", numeric_code(dtype).unwrap_or("O"))?;
        }
    }
    Ok(d)
}

/// What `numpy.dtype` takes for one value of `dtype`: a type code, or for a
/// compound the `names`/`formats`/`offsets`/`itemsize` dictionary (array
/// fields as `(format, shape)`) of its native layout, as netCDF4-python
/// gives it ([`native_layout`]; no offsets when a field has no fixed size).
pub fn numpy_dtype_spec<'py>(
    py: Python<'py>,
    schema: &Schema,
    dtype: DataType,
) -> PyResult<Bound<'py, PyAny>> {
    match dtype {
        DataType::Char => Ok("S1".into_pyobject(py)?.into_any()),
        DataType::String => Ok("O".into_pyobject(py)?.into_any()),
        DataType::User(id) => match &schema.user_type(id).kind {
            UserTypeKind::Compound { fields, .. } => {
                let layout = native_layout(schema, dtype);
                let names = PyList::empty(py);
                let formats = PyList::empty(py);
                let offsets = PyList::empty(py);
                for f in fields {
                    names.append(&f.name)?;
                    let inner = numpy_dtype_spec(py, schema, f.dtype)?;
                    if f.dims.is_empty() {
                        formats.append(inner)?;
                    } else {
                        let shape = PyTuple::new(py, &f.dims)?;
                        formats.append(PyTuple::new(py, [inner, shape.into_any()])?)?;
                    }
                }
                let d = PyDict::new(py);
                d.set_item("names", names)?;
                d.set_item("formats", formats)?;
                if let Some(layout) = layout {
                    for offset in layout.offsets {
                        offsets.append(offset)?;
                    }
                    d.set_item("offsets", offsets)?;
                    d.set_item("itemsize", layout.size)?;
                }
                Ok(d.into_any())
            }
            UserTypeKind::Enum { base, .. } => numpy_dtype_spec(py, schema, *base),
            UserTypeKind::Opaque { size } => Ok(format!("V{size}").into_pyobject(py)?.into_any()),
            UserTypeKind::Vlen { .. } => Ok("O".into_pyobject(py)?.into_any()),
        },
        _ => Ok(numeric_code(dtype)
            .unwrap_or("O")
            .into_pyobject(py)?
            .into_any()),
    }
}

/// `path` from the root: `/` and then the path (`/v`, `/g/v`).
fn full_path(path: &str) -> String {
    if path.starts_with('/') {
        path.to_string()
    } else {
        format!("/{path}")
    }
}

/// The attributes as a list of `(name, value)` pairs, in definition order.
fn attributes<'py>(
    py: Python<'py>,
    schema: &Schema,
    attrs: &[nctk::model::Attribute],
) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for a in attrs {
        let value = attribute_value(py, schema, a)?;
        list.append((&a.name, value))?;
    }
    Ok(list)
}

/// A variable's storage: `layout` (`contiguous`, `chunked`, `compact`),
/// `chunksizes`, `shards`, `deflate_level`, `shuffle`, `fletcher32`,
/// `filters` (the `_Filter` text), `codecs` (the `_Codecs` text),
/// `endianness` (`little`, `big` or `None`), `no_fill`, `fill_value` (the
/// fill a format records apart from `_FillValue`, a Zarr array's
/// `fill_value`, as a numpy scalar; `None` when there is none).
fn storage<'py>(py: Python<'py>, schema: &Schema, var: VarId) -> PyResult<Bound<'py, PyDict>> {
    let s = &schema.var(var).storage;
    let d = PyDict::new(py);
    let (layout, chunks) = match &s.layout {
        Layout::Chunked(c) => ("chunked", Some(c.clone())),
        Layout::Compact => ("compact", None),
        Layout::Contiguous | Layout::Unset => ("contiguous", None),
    };
    d.set_item("layout", layout)?;
    d.set_item("chunksizes", chunks)?;
    d.set_item("shards", s.shards.clone())?;
    d.set_item("deflate_level", s.deflate_level)?;
    d.set_item("shuffle", s.shuffle)?;
    d.set_item("fletcher32", s.fletcher32)?;
    d.set_item("filters", s.filters.clone())?;
    d.set_item("codecs", s.codecs.clone())?;
    d.set_item(
        "endianness",
        s.endianness.map(|e| match e {
            Endianness::Little => "little",
            Endianness::Big => "big",
        }),
    )?;
    d.set_item("no_fill", s.no_fill)?;
    let fill = match &s.fill_value {
        Some(v) if !v.is_empty() => {
            Some(to_numpy(py, schema, schema.var(var).dtype, v.slice(0..1))?.get_item(0)?)
        }
        _ => None,
    };
    d.set_item("fill_value", fill)?;
    Ok(d)
}

/// One variable: `id` (for reads), `name`, `path`, `dimensions` (names),
/// `shape`, `type`, `attrs`, `storage`.
fn variable<'py>(py: Python<'py>, schema: &Schema, id: VarId) -> PyResult<Bound<'py, PyDict>> {
    let v = schema.var(id);
    let d = PyDict::new(py);
    d.set_item("id", id.0)?;
    d.set_item("name", &v.name)?;
    d.set_item("path", full_path(&schema.var_path(id)))?;
    let dims: Vec<&str> = v
        .dims
        .iter()
        .map(|&dim| schema.dim(dim).name.as_str())
        .collect();
    d.set_item("dimensions", dims)?;
    d.set_item("shape", schema.shape(id))?;
    d.set_item("type", type_description(py, schema, v.dtype)?)?;
    d.set_item("attrs", attributes(py, schema, &v.attributes)?)?;
    d.set_item("storage", storage(py, schema, id)?)?;
    Ok(d)
}

/// One group and, recursively, its subgroups: `name`, `path`,
/// `dimensions` (`name`, `size`, `unlimited`), `variables`, `attrs`,
/// `groups`.
pub fn group<'py>(py: Python<'py>, schema: &Schema, id: GroupId) -> PyResult<Bound<'py, PyDict>> {
    let g = schema.group(id);
    let d = PyDict::new(py);
    d.set_item("name", &g.name)?;
    d.set_item("path", full_path(&schema.group_path(id)))?;
    let dims = PyList::empty(py);
    for &dim in &g.dims {
        let dim = schema.dim(dim);
        let dd = PyDict::new(py);
        dd.set_item("name", &dim.name)?;
        dd.set_item("size", dim.len)?;
        dd.set_item("unlimited", dim.unlimited)?;
        dims.append(dd)?;
    }
    d.set_item("dimensions", dims)?;
    let vars = PyList::empty(py);
    for &v in &g.vars {
        vars.append(variable(py, schema, v)?)?;
    }
    d.set_item("variables", vars)?;
    d.set_item("attrs", attributes(py, schema, &g.attributes)?)?;
    let groups = PyList::empty(py);
    for &sub in &g.groups {
        groups.append(group(py, schema, sub)?)?;
    }
    d.set_item("groups", groups)?;
    Ok(d)
}
