//! The library's netCDF-user API (`Dataset::dimensions`, `groups`,
//! `attributes`, `group(path)`, `Variable::dimensions`, attribute access
//! without matching on the value enum), checked against what Python's
//! netCDF4 (libnetcdf) reports for the same files: classic files and
//! NCZarr stores with groups from the corpus, and a store with nested
//! groups that netCDF4 writes itself.

use std::path::{Path, PathBuf};

use nctk::model::{Attribute, DataType, Values};
use nctk::{Dataset, Group};
use nctk_test_support::{corpus::files_under, peer, require};
use serde_json::{json, Value};

/// Prints one JSON line per path: the group tree as netCDF4-python sees it
/// (`dimensions`, `ncattrs()`/`getncattr`, `variables`, `groups`), numbers
/// as the bits of their `float` value (NaN as "nan"). netCDF-C hides the
/// root's `_NCProperties` from `ncattrs()` but returns it when asked by
/// name: it is reported on its own. `argv[1]` is "names"
/// to report dimension names and each group's own dimensions, "lengths" to
/// report only each variable's dimension lengths.
const PY_TREE: &str = r#"
import json, struct, sys
import netCDF4, numpy as np
names = sys.argv[1] == "names"
def num(x):
    x = float(x)
    return "nan" if x != x else struct.unpack("<q", struct.pack("<d", x))[0]
def value(v):
    if isinstance(v, str):
        return {"text": v}
    a = np.atleast_1d(v)
    if a.dtype.kind in "USO":
        return {"strings": [str(s) for s in a]}
    return {"nums": [num(x) for x in a.ravel()]}
def attrs(o):
    return [[n, value(o.getncattr(n))] for n in o.ncattrs() if n != "_NCZARR_ATTR"]
def var(v):
    out = {"attrs": attrs(v)}
    if names:
        out["dims"] = [[d.name, len(d), d.isunlimited()] for d in v.get_dims()]
    else:
        out["dims"] = [len(d) for d in v.get_dims()]
    if v.dtype != str and v.dtype.kind in "iuf":
        out["data"] = [num(x) for x in np.ravel(v[:])]
    return out
def group(g):
    out = {
        "attrs": attrs(g),
        "vars": [[n, var(v)] for n, v in g.variables.items()],
        "groups": [[n, group(c)] for n, c in g.groups.items()],
    }
    if names:
        out["dims"] = [[d.name, len(d), d.isunlimited()] for d in g.dimensions.values()]
    if g.parent is None:
        try:
            out["_NCProperties"] = g.getncattr("_NCProperties")
        except AttributeError:
            pass
    return out
for path in sys.argv[2:]:
    ds = netCDF4.Dataset(path)
    ds.set_auto_maskandscale(False)
    print(json.dumps(group(ds)))
    ds.close()
"#;

/// A number as `PY_TREE` writes it.
fn num(x: f64) -> Value {
    if x.is_nan() {
        json!("nan")
    } else {
        json!(x.to_bits() as i64)
    }
}

/// An attribute's value as `PY_TREE` writes it, through the accessors
/// under test: `as_str` for text, `as_f64_vec` (and `TryFrom`) for numbers.
fn attr_value(a: &Attribute) -> Value {
    match (a.dtype(), &a.value) {
        (DataType::Char, Values::Char(bytes)) => {
            let text = a.as_str().expect("char attribute is UTF-8");
            // netCDF4-python drops every NUL; `as_str` stops at the first.
            let without_nuls: Vec<u8> = bytes.iter().copied().filter(|&b| b != 0).collect();
            let without_nuls = String::from_utf8(without_nuls).expect("UTF-8");
            assert!(without_nuls.starts_with(text), "{}", a.name);
            json!({ "text": without_nuls })
        }
        (DataType::String, Values::String(all)) => match a.as_str() {
            Some(s) => json!({ "text": s }),
            None => json!({ "strings": all }),
        },
        _ => {
            let nums = Vec::<f64>::try_from(a).expect("numeric attribute");
            let first = nums.first().map(|x| x.to_bits());
            assert_eq!(a.as_f64().map(f64::to_bits), first, "{}", a.name);
            assert_eq!(a.len(), nums.len(), "{}", a.name);
            json!({ "nums": nums.into_iter().map(num).collect::<Vec<_>>() })
        }
    }
}

/// The root's `_NCProperties`, which netCDF-C lists apart.
const NC_PROPERTIES: &str = "_NCProperties";

fn attrs(list: &[Attribute]) -> Value {
    list.iter()
        .filter(|a| a.name != NC_PROPERTIES)
        .map(|a| json!([a.name, attr_value(a)]))
        .collect()
}

fn variable(v: nctk::Variable<'_>, names: bool) -> Value {
    let dims: Vec<Value> = v
        .dimensions()
        .iter()
        .map(|d| match names {
            true => json!([d.name(), d.len(), d.is_unlimited()]),
            false => json!(d.len()),
        })
        .collect();
    let mut out = json!({ "attrs": attrs(v.attributes()), "dims": dims });
    if v.dtype().is_numeric() {
        let data: Vec<f64> = v.get_values(..).expect("read");
        out["data"] = data.into_iter().map(num).collect();
    }
    out
}

/// The tree `PY_TREE` prints, built from the API under test: every group
/// reached through `groups()`, every variable also looked up by path
/// relative to its group and from the root.
fn tree(ds: &Dataset, g: Group<'_>, names: bool) -> Value {
    for v in g.variables() {
        let relative = g.variable(v.name()).expect("group-relative lookup");
        let absolute = ds
            .variable(&format!("{}/{}", g.path(), v.name()))
            .expect("lookup from the root");
        assert_eq!((relative.id(), absolute.id()), (v.id(), v.id()));
        assert_eq!(v.group(), g);
    }
    for child in g.groups() {
        assert_eq!(ds.group(&child.path()), Some(child));
        assert_eq!(child.parent(), Some(g));
    }
    let mut out = json!({
        "attrs": attrs(g.attributes()),
        "vars": g.variables().map(|v| json!([v.name(), variable(v, names)])).collect::<Vec<_>>(),
        "groups": g.groups().map(|c| json!([c.name(), tree(ds, c, names)])).collect::<Vec<_>>(),
    });
    if names {
        out["dims"] = g
            .dimensions()
            .map(|d| json!([d.name(), d.len(), d.is_unlimited()]))
            .collect();
    }
    if let (None, Some(props)) = (g.parent(), g.attribute(NC_PROPERTIES)) {
        out[NC_PROPERTIES] = json!(props.as_str().expect("text"));
    }
    out
}

/// How netCDF-C names a local path: NCZarr stores need a URL.
fn peer_name(path: &Path) -> String {
    if path.is_dir() {
        format!("file://{}#mode=nczarr,file", path.display())
    } else {
        path.display().to_string()
    }
}

/// Sorts every group's subgroups and variables by name. A store without
/// NCZarr metadata lists them in its key order, which libnetcdf 4.9.0 (and
/// nctk) and 4.10 walk differently.
fn by_name(tree: &mut Value) {
    for key in ["groups", "vars"] {
        if let Some(Value::Array(items)) = tree.get_mut(key) {
            items.sort_by(|a, b| a[0].as_str().cmp(&b[0].as_str()));
            if key == "groups" {
                items.iter_mut().for_each(|item| by_name(&mut item[1]));
            }
        }
    }
}

/// Compares nctk's tree of each file with netCDF4-python's, file by file.
fn compare_with_netcdf4(paths: &[PathBuf], names: bool) {
    let mode = if names { "names" } else { "lengths" };
    let args: Vec<String> = std::iter::once(mode.to_string())
        .chain(paths.iter().map(|p| peer_name(p)))
        .collect();
    let out = peer::python(PY_TREE, &args).expect("netCDF4 reads every file");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), paths.len());
    for (path, line) in paths.iter().zip(lines) {
        let expected: Value = serde_json::from_str(line).expect("peer JSON");
        let ds = nctk::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(
            ds.attributes().len(),
            ds.root().attributes().len(),
            "{}",
            path.display()
        );
        let mut ours = tree(&ds, ds.root(), names);
        let mut expected = expected;
        if !names {
            by_name(&mut ours);
            by_name(&mut expected);
        }
        assert_eq!(ours, expected, "{}", path.display());
    }
}

/// Every CDF-5 file ncgen made from the corpus CDL (all twelve types but
/// string, unlimited dimensions, text and numeric attributes): dimensions,
/// global and variable attributes and values as netCDF4-python reports them.
#[test]
fn classic_files_read_as_netcdf4_python_reads_them() {
    let Some(corpus) = require::corpus() else {
        return;
    };
    if !require::python(&["netCDF4", "numpy"]) {
        return;
    }
    let files: Vec<PathBuf> = files_under(&corpus.join("generated/from-cdl"), |_| true)
        .into_iter()
        .filter(|p| p.to_string_lossy().ends_with(".nc5.nc"))
        .collect();
    assert!(
        files.len() > 20,
        "CDF-5 files in the corpus: {}",
        files.len()
    );
    compare_with_netcdf4(&files, true);
}

/// NCZarr stores with groups that netCDF-C 4.9.0 wrote: the group tree,
/// group and variable attributes, variable shapes and values as
/// netCDF4-python reports them. (libnetcdf 4.10 places these stores'
/// dimensions differently from 4.9.0, so dimension names are left to the
/// next test.)
#[test]
fn nczarr_groups_read_as_netcdf4_python_reads_them() {
    let Some(dir) = require::corpus_path("generated/from-cdl/netcdf-c/nczarr_test") else {
        return;
    };
    if !require::python(&["netCDF4", "numpy"]) {
        return;
    }
    let stores: Vec<PathBuf> = [
        "ref_groups_regular",
        "ref_xarraygroup",
        "ref_zarr_test_data",
        "ref_zarr_test_data_2d",
        "ref_oldformat",
    ]
    .iter()
    .map(|name| dir.join(format!("{name}.nczarr")))
    .collect();
    compare_with_netcdf4(&stores, false);
    let ds = nctk::open(&stores[0]).unwrap();
    let my_group = ds.group("/MyGroup").expect("MyGroup");
    let names: Vec<&str> = my_group.groups().map(|g| g.name()).collect();
    assert_eq!(names, ["Group_A", "Group_B"]);
}

/// A store with nested groups, dimensions at every level (one unlimited),
/// and attributes of several types, written by netCDF4-python: everything,
/// dimension placement included, as netCDF4 reads it back; and group-relative
/// lookup equals lookup by full path.
#[test]
fn store_written_by_netcdf4_reads_the_same() {
    if !require::python(&["netCDF4", "numpy"]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("groups.nczarr");
    let write = r##"
import sys
import netCDF4, numpy as np
ds = netCDF4.Dataset("file://" + sys.argv[1] + "#mode=nczarr,file", "w")
ds.title = "peer written"
ds.version = np.int32(3)
ds.ranges = np.array([1.5, -2.0, np.nan])
ds.big = np.uint64(2**64 - 2)
ds.createDimension("time", None)
ds.createDimension("x", 3)
t = ds.createVariable("t", "f4", ("time", "x"), fill_value=np.float32(-1))
t.units = "K"
t[0:2, :] = np.arange(6).reshape(2, 3)
g = ds.createGroup("g")
g.createDimension("y", 4)
g.note = "inner"
w = g.createVariable("w", "i2", ("x", "y"))
w.scale_factor = np.float32(0.5)
w.valid_range = np.array([-100, 100], dtype="i2")
w[:] = np.arange(12).reshape(3, 4)
s = g.createGroup("sub")
s.createDimension("z", 2)
v = s.createVariable("v", "u8", ("y", "z"))
v[:] = (np.arange(8, dtype="u8") * 3).reshape(4, 2)
ds.close()
"##;
    peer::python(write, [&store]).expect("netCDF4 writes the store");
    compare_with_netcdf4(std::slice::from_ref(&store), true);

    let ds = nctk::open(&store).unwrap();
    let g = ds.group("/g").expect("/g");
    assert_eq!(g.variable("w"), ds.variable("/g/w"));
    assert_eq!(g.variable("sub/v"), ds.variable("/g/sub/v"));
    assert_eq!(ds.group("g/sub"), g.group("sub"));
    let v = g.variable("sub/v").unwrap();
    let dims: Vec<_> = v
        .dimensions()
        .iter()
        .map(|d| (d.name(), d.group()))
        .collect();
    assert_eq!(
        dims,
        [("y", g.id()), ("z", g.group("sub").unwrap().id())],
        "dimensions come from the groups that define them"
    );
    // Typed attribute access: the netCDF4 values, and clear errors naming
    // the attribute and the type found.
    assert_eq!(
        String::try_from(ds.attribute("title").unwrap()).unwrap(),
        "peer written"
    );
    assert_eq!(i64::try_from(ds.attribute("version").unwrap()).unwrap(), 3);
    let big = i64::try_from(ds.attribute("big").unwrap()).unwrap_err();
    assert!(
        big.to_string().contains("\"big\"") && big.to_string().contains("uint64"),
        "{big}"
    );
    let text = f64::try_from(ds.attribute("title").unwrap()).unwrap_err();
    assert!(
        text.to_string().contains("\"title\"") && text.to_string().contains("char"),
        "{text}"
    );
    let many = f64::try_from(ds.attribute("ranges").unwrap()).unwrap_err();
    assert!(many.to_string().contains("3 values"), "{many}");
}
