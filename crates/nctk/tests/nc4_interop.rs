//! netCDF-4/HDF5 files written by other libraries, read through
//! `nctk::open` (and `nctk::open_mem`): the fixtures of
//! `nctk_test_support::hdf5_fixtures` (h5py, netCDF4-python, h5netcdf,
//! xarray) must hold the variables netCDF-C finds in them, read the values
//! their writing library reads back, and, where netCDF-C's `ncdump` reads
//! a fixture, dump exactly as it does.

use std::path::Path;

use nctk::model::{Selection, Values};
use nctk::Dataset;
use nctk_test_support::hdf5_fixtures::Fixture;
use nctk_test_support::{hdf5_fixtures, peer, require};
use serde_json::Value as Json;

/// One element, as the truth and nctk both give it.
#[derive(Debug, PartialEq)]
enum Elem {
    Int(i128),
    Float(u64),
    NaN,
    /// A string; `None` a null one (JSON's null in the truth).
    Str(Option<String>),
}

/// A float by its bits (so -0.0 and 0.0 differ), NaN as one value.
fn float(x: f64) -> Elem {
    if x.is_nan() {
        Elem::NaN
    } else {
        Elem::Float(x.to_bits())
    }
}

/// The truth's elements (`make_fixtures.py` documents the encoding).
fn truth_elems(kind: &str, values: &[Json]) -> Vec<Elem> {
    values
        .iter()
        .map(|v| match (kind, v) {
            ("string", Json::String(s)) => Elem::Str(Some(s.clone())),
            ("string", Json::Null) => Elem::Str(None),
            (_, Json::String(s)) => match s.as_str() {
                "NaN" => Elem::NaN,
                "Infinity" => float(f64::INFINITY),
                "-Infinity" => float(f64::NEG_INFINITY),
                other => panic!("a number encoded as {other:?}"),
            },
            (_, Json::Number(n)) => match (n.as_i64(), n.as_u64()) {
                (Some(i), _) => Elem::Int(i.into()),
                (_, Some(u)) => Elem::Int(u.into()),
                _ => float(n.as_f64().expect("a JSON number")),
            },
            (_, other) => panic!("a {kind} element encoded as {other}"),
        })
        .collect()
}

/// nctk's elements; `None` for values of user types (compared by `ncdump`).
fn nctk_elems(values: &Values) -> Option<Vec<Elem>> {
    fn ints<T: Copy + Into<i128>>(v: &[T]) -> Option<Vec<Elem>> {
        Some(v.iter().map(|&x| Elem::Int(x.into())).collect())
    }
    match values {
        Values::Byte(v) => ints(v),
        Values::Char(v) => ints(v),
        Values::Short(v) => ints(v),
        Values::Int(v) => ints(v),
        Values::Int64(v) => ints(v),
        Values::UByte(v) => ints(v),
        Values::UShort(v) => ints(v),
        Values::UInt(v) => ints(v),
        Values::UInt64(v) => ints(v),
        Values::Float(v) => Some(v.iter().map(|&x| float(x.into())).collect()),
        Values::Double(v) => Some(v.iter().map(|&x| float(x)).collect()),
        Values::String(v) => Some(v.iter().map(|s| Elem::Str(s.clone())).collect()),
        _ => None,
    }
}

/// Whether `error` is a refusal, naming it, of the filter the fixture
/// `truth` marks optional (szip: "where a crate allows", says the issue).
fn refuses_optional_filter(truth: &Json, error: &str) -> bool {
    truth["optional_filter"]
        .as_str()
        .is_some_and(|f| error.contains(f) && error.contains("unsupported"))
}

/// What is wrong with `ds`'s reading of one truth variable of the fixture
/// `truth_file`, if anything.
fn check_variable(ds: &Dataset, truth_file: &Json, truth: &Json) -> Option<String> {
    let path = truth["path"].as_str().expect("path");
    let kind = truth["kind"].as_str().expect("kind");
    let Some(var) = ds.variable(path) else {
        // netCDF-C passes over datasets of some types; the variable list
        // (`netcdf_c_variables`) judges those.
        return (kind != "other").then(|| format!("{path}: no such variable"));
    };
    let shape: Vec<u64> = truth["shape"]
        .as_array()
        .expect("shape")
        .iter()
        .map(|n| n.as_u64().expect("extent"))
        .collect();
    if var.shape() != shape {
        return Some(format!(
            "{path}: shape {:?}, expected {shape:?}",
            var.shape()
        ));
    }
    if let Some(dims) = truth.get("dims").and_then(Json::as_array) {
        let expected: Vec<&str> = dims.iter().filter_map(Json::as_str).collect();
        if var.dimension_names() != expected {
            return Some(format!(
                "{path}: dimensions {:?}, expected {expected:?}",
                var.dimension_names()
            ));
        }
    }
    let values = match var.read_values(&Selection::all(&shape)) {
        Ok(v) => v,
        Err(e) if refuses_optional_filter(truth_file, &e.to_string()) => return None,
        Err(e) => return Some(format!("{path}: read error: {e}")),
    };
    let expected = truth["values"].as_array()?;
    let expected = truth_elems(kind, expected);
    match nctk_elems(&values) {
        Some(got) if got == expected => None,
        Some(got) => {
            let at = got.iter().zip(&expected).position(|(a, b)| a != b);
            Some(format!(
                "{path}: {} values, expected {}; first difference at {at:?}: {:?} vs {:?}",
                got.len(),
                expected.len(),
                at.map(|i| &got[i]),
                at.map(|i| &expected[i])
            ))
        }
        None => Some(format!("{path}: a {kind} variable read as {values:?}")),
    }
}

/// Every variable of `ds`, by its full path (`/g/v`), sorted.
fn variable_paths(ds: &Dataset) -> Vec<String> {
    let schema = ds.schema();
    let mut paths: Vec<String> = schema
        .var_ids()
        .map(|v| {
            let path = schema.var_path(v);
            if path.starts_with('/') {
                path
            } else {
                format!("/{path}")
            }
        })
        .collect();
    paths.sort();
    paths
}

/// Every problem with one fixture opened as `ds`: its variables against
/// those netCDF-C finds, and each variable against the writer's values.
fn check_fixture(ds: &Dataset, truth: &Json) -> Vec<String> {
    let mut problems = vec![];
    // netCDF-C 4.10.1 lists datasets of h5py's anonymous user types that
    // 4.9.0 passes over: nctk may follow either, but lists no variable
    // netCDF-C does not (and every variable of an atomic type, below).
    if let Some(found) = truth["netcdf_c_variables"].as_array() {
        let found: Vec<&str> = found.iter().filter_map(Json::as_str).collect();
        let extra: Vec<String> = variable_paths(ds)
            .into_iter()
            .filter(|p| !found.contains(&p.as_str()))
            .collect();
        if !extra.is_empty() {
            problems.push(format!("variables netCDF-C does not find: {extra:?}"));
        }
    }
    problems.extend(
        truth["variables"]
            .as_array()
            .expect("variables")
            .iter()
            .filter_map(|v| check_variable(ds, truth, v)),
    );
    problems
}

fn truth(f: &Fixture) -> Json {
    serde_json::from_str(&std::fs::read_to_string(&f.truth).unwrap()).unwrap()
}

/// Every fixture opens from its path and from memory, and each variable
/// the writing library reads (values, shape, h5netcdf's phony dimension
/// names) reads the same through nctk.
#[test]
fn fixtures_read_the_values_their_writers_read() {
    let Some(fx) = hdf5_fixtures() else { return };
    let mut failures = vec![];
    for f in &fx.fixtures {
        let truth = truth(f);
        match nctk::open(&f.file) {
            Ok(ds) => failures.extend(
                check_fixture(&ds, &truth)
                    .into_iter()
                    .map(|p| format!("{}: {p}", f.name)),
            ),
            Err(e) => failures.push(format!("{}: open: {e}", f.name)),
        }
        let bytes = std::fs::read(&f.file).unwrap();
        match nctk::open_mem(bytes) {
            Ok(ds) => failures.extend(
                check_fixture(&ds, &truth)
                    .into_iter()
                    .map(|p| format!("{} (memory): {p}", f.name)),
            ),
            Err(e) => failures.push(format!("{} (memory): open: {e}", f.name)),
        }
    }
    assert!(
        failures.is_empty(),
        "{} problems:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// `ncdump FILE` (netCDF-C, with hdf5plugin's filters on its plugin
/// path), or `None` when netCDF-C cannot read the file.
fn ncdump(file: &Path, plugin_path: &Path) -> Option<String> {
    peer::output(
        std::process::Command::new("ncdump")
            .arg(file)
            .env("HDF5_PLUGIN_PATH", plugin_path),
    )
    .ok()
}

/// Where netCDF-C reads a fixture, nctk's dump of it (schema, phony
/// dimensions, attributes, user types, values) is byte-identical to
/// `ncdump`'s; at least the netCDF4-python, h5netcdf and xarray fixtures
/// are among them.
#[test]
fn fixtures_dump_as_ncdump_prints_them() {
    let Some(fx) = hdf5_fixtures() else { return };
    if !require::tools(&["ncdump"]) {
        return;
    }
    let mut failures = vec![];
    let mut compared = vec![];
    for f in &fx.fixtures {
        // Where ncdump 4.9.0 reads a fixture otherwise than netCDF-C 4.10.1
        // (make_fixtures.py says why), the variable list and values judge it.
        if truth(f)["ncdump_4_9"] == Json::Bool(false) {
            continue;
        }
        let Some(expected) = ncdump(&f.file, &fx.plugin_path) else {
            continue;
        };
        compared.push(f.name.as_str());
        let name = f.file.to_string_lossy();
        let got = nctk::open(&f.file)
            .map_err(|e| e.to_string())
            .and_then(|ds| {
                let mut out = vec![];
                nctk_cdl::print::dump(ds.source(), &name, &Default::default(), &mut out)
                    .map_err(|e| e.to_string())
                    .map(|()| String::from_utf8_lossy(&out).into_owned())
            });
        match got {
            Ok(got) if got == expected => {}
            Ok(got) => failures.push(format!("{}: {}", f.name, first_diff(&got, &expected))),
            Err(e) if refuses_optional_filter(&truth(f), &e) => {}
            Err(e) => failures.push(format!("{}: {e}", f.name)),
        }
    }
    for writer in ["netcdf4_", "h5netcdf", "xarray_", "h5py_"] {
        assert!(
            compared.iter().any(|n| n.starts_with(writer)),
            "ncdump read no {writer} fixture: {compared:?}"
        );
    }
    assert!(
        failures.is_empty(),
        "{} of {} differ:\n{}",
        failures.len(),
        compared.len(),
        failures.join("\n")
    );
}

/// The first line where two dumps differ.
fn first_diff(got: &str, expected: &str) -> String {
    for (i, (a, b)) in got.lines().zip(expected.lines()).enumerate() {
        if a != b {
            return format!("line {}: got {a:?}, expected {b:?}", i + 1);
        }
    }
    format!(
        "got {} lines, expected {}",
        got.lines().count(),
        expected.lines().count()
    )
}
