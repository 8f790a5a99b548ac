//! The corpus's netCDF-4 files, and netCDF-4 files `ncgen -k nc4` makes
//! from the corpus's CDL, walked by nctk-hdf5: every group, variable,
//! attribute (in order) and user type netCDF-C's `ncdump -h` lists
//! (`meta/ncdump_names.py` reads its output) is where nctk-hdf5 finds it.

#[path = "meta/walk.rs"]
mod walk;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use nctk_hdf5::{Hdf5File, LinkTarget, ObjectKind};
use nctk_test_support::{corpus::files_under, require};
use serde_json::Value;

const NAMES: &str = include_str!("meta/ncdump_names.py");

/// Attributes netCDF-C keeps to itself (dimension scales, netCDF-4 bookkeeping).
const HIDDEN: &[&str] = &[
    "_Netcdf4Coordinates",
    "_Netcdf4Dimid",
    "_nc3_strict",
    "_NCProperties",
    "DIMENSION_LIST",
    "REFERENCE_LIST",
    "CLASS",
    "NAME",
];

/// `ncdump -h`'s listing of each file.
fn truth(files: &[PathBuf]) -> Option<BTreeMap<String, Value>> {
    if !require::tools(&["ncdump"]) {
        return None;
    }
    let out = require::python_output(&[], NAMES, files)?;
    Some(serde_json::from_str(&out).unwrap())
}

/// Checks one file's every group against libnetcdf's listing.
fn check_file(path: &Path, groups: &serde_json::Map<String, Value>) {
    let file = walk::open(std::fs::read(path).unwrap())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut at = BTreeMap::from([("/".to_string(), file.root_addr())]);
    for (gpath, want) in groups {
        let ctx = format!("{} group {gpath}", path.display());
        let addr = at[gpath];
        let group = file.group(addr).unwrap_or_else(|e| panic!("{ctx}: {e}"));
        assert_eq!(
            visible(&group.attributes),
            names(&want["attrs"]),
            "{ctx}: attributes"
        );
        let link = |name: &str| {
            group
                .links
                .iter()
                .find(|l| l.name == name || l.name == format!("_nc4_non_coord_{name}"))
                .and_then(|l| match l.target {
                    LinkTarget::Hard(a) => Some(a),
                    _ => None,
                })
                .unwrap_or_else(|| panic!("{ctx}: no hard link {name:?}"))
        };
        for (var, attrs) in want["vars"].as_object().unwrap() {
            let d = file
                .dataset(link(var))
                .unwrap_or_else(|e| panic!("{ctx} variable {var}: {e}"));
            assert_eq!(visible(&d.attributes), names(attrs), "{ctx} variable {var}");
        }
        for sub in names(&want["groups"]) {
            let a = link(&sub);
            assert_eq!(
                file.object_kind(a).unwrap(),
                ObjectKind::Group,
                "{ctx}: {sub}"
            );
            let sep = if gpath == "/" { "" } else { "/" };
            at.insert(format!("{gpath}{sep}{sub}"), a);
        }
        let mut types = named_types(&file, &group.links);
        types.sort();
        assert_eq!(types, names(&want["types"]), "{ctx}: user types");
    }
}

fn visible(attrs: &[nctk_hdf5::Attribute]) -> Vec<String> {
    attrs
        .iter()
        .map(|a| a.name.clone())
        .filter(|n| !HIDDEN.contains(&n.as_str()))
        .collect()
}

fn names(list: &Value) -> Vec<String> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect()
}

/// The names of the committed datatypes among `links`.
fn named_types(file: &Hdf5File, links: &[nctk_hdf5::Link]) -> Vec<String> {
    links
        .iter()
        .filter(|l| match l.target {
            LinkTarget::Hard(a) => file.object_kind(a).unwrap() == ObjectKind::NamedDatatype,
            _ => false,
        })
        .map(|l| l.name.clone())
        .collect()
}

/// Checks every file ncdump reads; how many that was.
fn check_all(files: &[PathBuf]) -> usize {
    let Some(truth) = truth(files) else { return 0 };
    let mut checked = 0;
    for path in files {
        let want = &truth[path.to_str().unwrap()];
        if want.get("error").is_some() {
            // ncdump refuses it; nctk-hdf5 must then fail cleanly or
            // read it (HDF5 metadata may be fine where netCDF's is not).
            let _ = walk::walk_all(std::fs::read(path).unwrap());
            continue;
        }
        check_file(path, want.as_object().unwrap());
        checked += 1;
    }
    assert!(checked > 0, "no file checked");
    checked
}

/// The corpus's netCDF-4 files (compound, enum, vlen and opaque types in
/// committed datatypes, attributes of user types, groups, provenance).
#[test]
fn corpus_netcdf4_files() {
    let Some(corpus) = require::corpus() else {
        return;
    };
    let files: Vec<PathBuf> = files_under(&corpus.join("netcdf-c"), |_| true)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "nc"))
        .filter(|p| std::fs::read(p).is_ok_and(|b| b.starts_with(b"\x89HDF")))
        .collect();
    assert!(
        files.len() >= 10,
        "{} HDF5 files in the corpus",
        files.len()
    );
    check_all(&files);
}

/// Every corpus CDL that `ncgen -k nc4` accepts, as a netCDF-4 file.
#[test]
fn ncgen_netcdf4_files() {
    let Some(corpus) = require::corpus() else {
        return;
    };
    if !require::tools(&["ncgen", "ncdump"]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    for (i, cdl) in files_under(&corpus.join("netcdf-c"), |_| true)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "cdl"))
        .enumerate()
    {
        let out = dir.path().join(format!("{i}.nc"));
        let made = std::process::Command::new("ncgen")
            .args(["-k", "nc4", "-o"])
            .arg(&out)
            .arg(&cdl)
            .output()
            .is_ok_and(|o| o.status.success());
        if made {
            files.push(out);
        }
    }
    assert!(files.len() > 100, "ncgen made {} files", files.len());
    check_all(&files);
}

/// Files h5netcdf writes (creation order tracked, dense attributes and
/// links, attributes added out of name order), and the same with h5py's
/// default of no creation order (`track_order=False`): listed as ncdump
/// lists them.
#[test]
fn h5netcdf_files() {
    let dir = tempfile::tempdir().unwrap();
    let script = r#"
import sys
import h5netcdf
for path, track in zip(sys.argv[1:], (True, False)):
    with h5netcdf.File(path, "w", track_order=track) as f:
        f.dimensions = {"x": 3, "t": None}
        for i in range(12):
            v = f.create_variable(f"v{(i * 5) % 12:02d}", ("x",), "f4")
            for j in range(10):
                v.attrs[f"z{(j * 3) % 10}"] = j
        for j in range(11):
            f.attrs[f"g{(j * 4) % 11:02d}"] = j
        g = f.create_group("sub")
        g.attrs["b"] = 1
        g.attrs["a"] = 2
"#;
    let files = [
        dir.path().join("tracked.nc"),
        dir.path().join("untracked.nc"),
    ];
    if require::python_output(&["h5netcdf"], script, &files).is_none() {
        return;
    }
    assert_eq!(check_all(&files), 2);
}
