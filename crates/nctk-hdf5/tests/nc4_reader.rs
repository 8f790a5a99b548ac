//! The netCDF-4 reader against netCDF4-python (libnetcdf 4.10.1) reading
//! the same files: dimensions (unlimited lengths as netCDF-C computes
//! them), variables' values (both byte orders, a variable shorter than its
//! unlimited dimension, strings, user types), attributes and the format.

use std::path::Path;
use std::sync::Arc;

use nctk_hdf5::netcdf4::Nc4Reader;
use nctk_model::{DataSource, DataType, Format, NativeMut, Schema, Selection, Values, VarId};
use nctk_store::bytes::FileSource;
use nctk_test_support::require;
use serde_json::Value;

fn open(path: &Path) -> Nc4Reader {
    let source = FileSource::open(path).unwrap();
    Nc4Reader::open(Arc::new(source)).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A value as JSON, as the Python side prints it: numbers as numbers,
/// text as strings, vlens and compounds as lists, opaque as hex.
fn json(values: &Values, schema: &Schema, dtype: DataType) -> Vec<Value> {
    match values {
        Values::Char(b) => vec![Value::from(String::from_utf8_lossy(b).into_owned())],
        Values::String(s) => s.iter().map(|s| Value::from(s.as_deref())).collect(),
        Values::Opaque { size, bytes } => bytes
            .chunks(*size)
            .map(|b| Value::from(b.iter().map(|x| format!("{x:02x}")).collect::<String>()))
            .collect(),
        Values::Vlen(v) => {
            let base = match schema.user_kind(dtype) {
                Some(nctk_model::UserTypeKind::Vlen { base }) => *base,
                _ => panic!("a vlen of {dtype}"),
            };
            v.iter()
                .map(|e| Value::from(json(e, schema, base)))
                .collect()
        }
        Values::Compound { len, fields } => {
            let Some(nctk_model::UserTypeKind::Compound { fields: defs, .. }) =
                schema.user_kind(dtype)
            else {
                panic!("a compound of {dtype}");
            };
            let columns: Vec<Vec<Value>> = fields
                .iter()
                .zip(defs)
                .map(|(f, def)| json(f, schema, def.dtype))
                .collect();
            (0..*len)
                .map(|i| {
                    let mut row = serde_json::Map::new();
                    for (column, def) in columns.iter().zip(defs) {
                        let n = def.count();
                        let mine = &column[i * n..(i + 1) * n];
                        let v = if def.dims.is_empty() {
                            mine[0].clone()
                        } else {
                            Value::from(mine.to_vec())
                        };
                        row.insert(def.name.clone(), v);
                    }
                    Value::from(row)
                })
                .collect()
        }
        v => nctk_model::convert::values_to_vec::<f64>(v.clone())
            .unwrap()
            .into_iter()
            .map(Value::from)
            .collect(),
    }
}

fn read_all(r: &Nc4Reader, var: VarId) -> Values {
    let shape = r.schema().shape(var);
    r.read(var, &Selection::all(&shape)).unwrap()
}

/// Every variable of `path` read whole, against the JSON netCDF4-python
/// printed: `{"vars": {path: [values...]}, "dims": {path: len}, "format": ...}`.
fn check_against(path: &Path, expected: &Value) {
    let r = open(path);
    let schema = r.schema();
    let format = match r.format() {
        Format::Netcdf4 => "NETCDF4",
        Format::Netcdf4Classic => "NETCDF4_CLASSIC",
        f => panic!("format {f:?}"),
    };
    assert_eq!(expected["format"], format);
    for (name, len) in expected["dims"].as_object().unwrap() {
        let (g, d) = name.rsplit_once('/').unwrap();
        let group = schema
            .group_by_path(if g.is_empty() { "/" } else { g })
            .unwrap();
        let dim = schema
            .dim_by_name(group, d)
            .unwrap_or_else(|| panic!("dim {name}"));
        assert_eq!(schema.dim(dim).len, len.as_u64().unwrap(), "dim {name}");
    }
    let vars = expected["vars"].as_object().unwrap();
    assert_eq!(schema.num_vars(), vars.len());
    for (name, values) in vars {
        let var = schema
            .var_by_path(name)
            .unwrap_or_else(|| panic!("no variable {name}"));
        let dtype = schema.var(var).dtype;
        let got = json(&read_all(&r, var), schema, dtype);
        let want: Vec<Value> = match values {
            Value::Array(a) => a.clone(),
            v => vec![v.clone()],
        };
        assert_eq!(got, want, "{name}");
    }
}

/// A generator's JSON answer, or `None` when netCDF4 is not there.
fn generate(script: &str, path: &Path) -> Option<Value> {
    let out = require::python_output(&["netCDF4", "numpy"], script, [path])?;
    Some(serde_json::from_str(&out).unwrap())
}

/// What the Python side prints: every variable flattened (unmasked,
/// numbers as floats, chars joined into one text), every dimension's
/// length, the format.
const REPORT: &str = r#"
import json, numpy as np
def conv(x):
    if isinstance(x, np.ndarray):
        return [conv(e) for e in x.ravel()]
    if isinstance(x, np.void) and x.dtype.names:
        return {n: conv(x[n]) for n in x.dtype.names}
    if isinstance(x, (bytes, np.bytes_)):
        return x.decode("latin-1")
    if isinstance(x, (int, float, np.integer, np.floating)):
        return float(x)
    return x
def report(d):
    out = {"format": d.data_model, "dims": {}, "vars": {}}
    def walk(g, path):
        for n, dim in g.dimensions.items():
            out["dims"][path + "/" + n] = len(dim)
        for n, v in g.variables.items():
            v.set_auto_maskandscale(False)
            x = np.asarray(v[...])
            if x.dtype.kind == "S" and x.dtype.itemsize == 1:
                out["vars"][path + "/" + n] = [b"".join(x.ravel()).decode("latin-1")]
            else:
                out["vars"][path + "/" + n] = conv(x)
        for n, sub in g.groups.items():
            walk(sub, path + "/" + n)
    walk(d, "")
    print(json.dumps(out))
"#;

/// Classic-model data in a netCDF-4 file: big- and little-endian numbers,
/// an unlimited dimension longer than one of its variables (read past its
/// extent as fill), chars, strings, a subgroup using the root's dimension.
#[test]
fn atomic_values_match_netcdf4_python() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("atomic.nc");
    let script = format!(
        "{REPORT}\n{}",
        r#"
import sys, netCDF4, numpy as np
d = netCDF4.Dataset(sys.argv[1], "w")
d.createDimension("t", None)
d.createDimension("x", 3)
d.createDimension("n", 4)
a = d.createVariable("a", "i4", ("t", "x"), endian="big")
a[0:5] = np.arange(15).reshape(5, 3)
b = d.createVariable("b", "f8", ("t",), fill_value=-1.5)
b[0:2] = [0.25, 0.5]
c = d.createVariable("c", "S1", ("n",))
c[:] = np.array(list("abcd"), dtype="S1")
s = d.createVariable("s", str, ("x",))
s[:] = np.array(["one", "", "three"], dtype=object)
u = d.createVariable("u", "u8", ("x",), endian="little")
u[:] = [1, 2**63, 2**64 - 1]
k = d.createVariable("k", "i2", ())
k[...] = -7
g = d.createGroup("g")
h = g.createVariable("h", "u2", ("x",), endian="big", zlib=True, shuffle=True)
h[:] = [7, 8, 9]
d.title = "atomic"
d.close()
report(netCDF4.Dataset(sys.argv[1]))
"#
    );
    let Some(expected) = generate(&script, &path) else {
        return;
    };
    check_against(&path, &expected);
    // `b` is 2 long in a 5-long unlimited dimension: the rest is its fill.
    let r = open(&path);
    let b = r.schema().var_by_path("/b").unwrap();
    assert_eq!(
        read_all(&r, b),
        Values::Double(vec![0.25, 0.5, -1.5, -1.5, -1.5])
    );
}

/// A netCDF-4 classic-model file (`_nc3_strict` on the root) reads as
/// that format, with its values.
#[test]
fn classic_model_files_read_as_netcdf4_classic() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("classic.nc");
    let script = format!(
        "{REPORT}\n{}",
        r#"
import sys, netCDF4, numpy as np
d = netCDF4.Dataset(sys.argv[1], "w", format="NETCDF4_CLASSIC")
d.createDimension("r", None)
d.createDimension("x", 2)
v = d.createVariable("v", "f4", ("r", "x"))
v[0:3] = np.arange(6).reshape(3, 2)
d.close()
report(netCDF4.Dataset(sys.argv[1]))
"#
    );
    let Some(expected) = generate(&script, &path) else {
        return;
    };
    assert_eq!(expected["format"], "NETCDF4_CLASSIC");
    check_against(&path, &expected);
}

/// h5py's fixed-length strings read as netCDF strings (up to the first
/// NUL), keeping their stored width for copies; h5py's values and item
/// size are the truth.
#[test]
fn fixed_length_strings_read_as_h5py_reads_them() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fixed.h5");
    let script = r#"
import sys, json, h5py, numpy as np
with h5py.File(sys.argv[1], "w") as f:
    d = f.create_dataset("s", data=np.array([b"abc", b"de", b"", b"seven77"], dtype="S7"))
    print(json.dumps({"width": d.dtype.itemsize, "values": [v.decode() for v in d[...]]}))
"#;
    let Some(out) = require::python_output(&["h5py", "numpy"], script, [&path]) else {
        return;
    };
    let expected: Value = serde_json::from_str(&out).unwrap();
    let r = open(&path);
    let var = r.schema().var_by_path("/s").unwrap();
    assert_eq!(r.schema().var(var).dtype, DataType::String);
    assert_eq!(
        r.schema().var(var).storage.string_width,
        expected["width"].as_u64().map(|w| w as usize)
    );
    let got = json(&read_all(&r, var), r.schema(), DataType::String);
    assert_eq!(Value::from(got), expected["values"]);
}

/// `read_native` and `read_into` read into the caller's buffer what `read` returns, for
/// big-endian data (swapped in place) and past a dataset's extent.
#[test]
fn read_native_agrees_with_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("native.nc");
    let script = r#"
import sys, netCDF4, numpy as np
d = netCDF4.Dataset(sys.argv[1], "w")
d.createDimension("t", None)
a = d.createVariable("a", "i4", ("t",), endian="big")
a[0:6] = np.arange(6) * 1000 - 2500
b = d.createVariable("b", "f4", ("t",))
b[0:3] = [1.5, 2.5, 3.5]
d.close()
print("{}")
"#;
    if generate(script, &path).is_none() {
        return;
    }
    let r = open(&path);
    for name in ["/a", "/b"] {
        let var = r.schema().var_by_path(name).unwrap();
        let sel = Selection {
            start: vec![1],
            count: vec![3],
            stride: vec![2],
        };
        let want = r.read(var, &sel).unwrap();
        // `read_into` gives the same, into a buffer of another type or of
        // this type (reused).
        let mut buf = Values::String(vec![]);
        for _ in 0..2 {
            r.read_into(var, &sel, &mut buf).unwrap();
            assert_eq!(buf, want);
        }
        match want {
            Values::Int(ref w) => {
                let mut got = vec![0i32; 3];
                r.read_native(var, &sel, NativeMut::Int(&mut got)).unwrap();
                assert_eq!(&got, w);
            }
            Values::Float(ref w) => {
                let mut got = vec![0f32; 3];
                r.read_native(var, &sel, NativeMut::Float(&mut got))
                    .unwrap();
                assert_eq!(&got, w);
            }
            ref other => panic!("{other:?}"),
        }
    }
}

/// netCDF-4's user types: compound (with an array field and a nested
/// enum), enum, vlen and opaque variables and their schema.
#[test]
fn user_type_values_match_netcdf4_python() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("user.nc");
    let script = format!(
        "{REPORT}\n{}",
        r#"
import sys, netCDF4, numpy as np
d = netCDF4.Dataset(sys.argv[1], "w")
d.createDimension("x", 2)
e = d.createEnumType(np.int16, "color", {"red": -1, "green": 2})
ev = d.createVariable("ev", e, ("x",), fill_value=-1)
ev[:] = np.array([2, -1], dtype=np.int16)
ct = d.createCompoundType(np.dtype([("i", "<i4"), ("f", "<f8", (2,))]), "pair")
cv = d.createVariable("cv", ct, ("x",))
data = np.zeros(2, dtype=ct.dtype)
data["i"] = [5, -6]
data["f"] = [[1.5, 2.5], [3.5, 4.5]]
cv[:] = data
vt = d.createVLType(np.int32, "ragged")
vv = d.createVariable("vv", vt, ("x",))
vv[0] = np.array([1, 2, 3], dtype=np.int32)
vv[1] = np.array([4], dtype=np.int32)
d.close()
report(netCDF4.Dataset(sys.argv[1]))
"#
    );
    let Some(expected) = generate(&script, &path) else {
        return;
    };
    check_against(&path, &expected);
    let r = open(&path);
    let schema = r.schema();
    let names: Vec<&str> = schema
        .root()
        .types
        .iter()
        .map(|&t| schema.user_type(t).name.as_str())
        .collect();
    assert_eq!(names, ["color", "pair", "ragged"]);
}
