//! Null strings (ncdump's `NIL`: a NULL `char *` in netCDF-C, an HDF5
//! variable-length string pointing at no heap object) against netCDF-C
//! 4.9.0 and the Python peers, on netCDF-4 files `ncgen -k nc4` writes
//! from the corpus's `ref_niltest.cdl` and `ref_tst_h_scalar.cdl` and from
//! a CDL mixing `NIL`, `""` and fill values (in data, attributes, a
//! `_FillValue` and a compound's default fill):
//!
//! * `nctk dump` prints what `ncdump` prints, byte for byte;
//! * `nctk copy -k nc4` keeps the nulls: `ncdump` prints the same for the
//!   copy as for ncgen's file;
//! * `nctk gen -k nc4` writes them as ncgen does: `ncdump -s` prints the
//!   same for both files;
//! * formats without a null write `""` where the null was: a Zarr v3
//!   store read by zarr-python, and an ncstream read back, hold what
//!   netCDF4-python reads from the source (which gives `""` for a null).

mod copy_support;
mod enhanced_support;

use std::path::{Path, PathBuf};

use copy_support::{kind, peer_dump_body};
use enhanced_support::{ncgen_nc4, netcdf4};
use nctk::Format;
use nctk_model::{Selection, Values};
use nctk_test_support::{peer, require};
use nctk_tools::copy::{copy, CopyOptions, NoProgress};
use nctk_tools::dump::{dump_file, DumpArgs};
use nctk_tools::gen::{gen, GenArgs};

/// `NIL` beside `""` and `_` in data and attributes, a null `_FillValue`,
/// and a compound whose default fill holds a null string field.
const MIXED: &str = r#"netcdf mixed {
types:
  compound cmp { int i ; string s ; } ;
dimensions:
  d = 3 ;
variables:
  string s(d) ;
    string s:a = "x", NIL, "" ;
    string s:_FillValue = NIL ;
  string t(d) ;
  cmp c(d) ;
  cmp u(d) ;
  string :g = NIL, "y" ;
data:
  s = "a", NIL, _ ;
  t = "a", NIL, _ ;
  c = {1, "b"} ;
}
"#;

/// The same strings without the compound (Zarr stores no user types).
const FLAT: &str = r#"netcdf flat {
dimensions:
  d = 3 ;
variables:
  string s(d) ;
    string s:a = "x", NIL, "" ;
  string t(d) ;
  string :g = NIL, "y" ;
data:
  s = "a", NIL, _ ;
  t = NIL, "", "c" ;
}
"#;

/// The CDLs of the test, as files in `dir`: the corpus's two and ours.
fn cdls(corpus: &Path, dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = ["ref_niltest.cdl", "ref_tst_h_scalar.cdl"]
        .iter()
        .map(|n| corpus.join("netcdf-c/ncdump/cdl").join(n))
        .collect();
    for (name, text) in [("mixed", MIXED), ("flat", FLAT)] {
        let path = dir.join(format!("{name}.cdl"));
        std::fs::write(&path, text).unwrap();
        out.push(path);
    }
    out
}

/// `nctk dump path`.
fn nctk_dump(path: &Path) -> String {
    let args = DumpArgs {
        file: path.to_string_lossy().into_owned(),
        ..DumpArgs::default()
    };
    let mut out = Vec::new();
    dump_file(&args, &mut out).unwrap_or_else(|e| panic!("nctk dump {}: {e}", path.display()));
    String::from_utf8(out).unwrap()
}

#[test]
fn null_strings_dump_copy_and_gen_as_netcdf_c_does() {
    let Some(corpus) = require::corpus() else {
        return;
    };
    if !require::tools(&["ncgen", "ncdump"]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for cdl in cdls(&corpus, dir.path()) {
        let stem = cdl.file_stem().unwrap().to_string_lossy().into_owned();
        let theirs = dir.path().join(format!("{stem}.nc"));
        assert!(ncgen_nc4(&cdl, &theirs), "ncgen -k nc4 refused {stem}");
        let want = peer::run("ncdump", [&theirs]).unwrap();
        assert!(
            want.contains("NIL"),
            "{stem}: ncdump prints no NIL:\n{want}"
        );
        assert_eq!(nctk_dump(&theirs), want, "{stem}: nctk dump");

        let copied = dir.path().join(format!("{stem}-copy.nc"));
        copy(&theirs, &copied, &kind(Format::Netcdf4), &mut NoProgress).unwrap();
        assert_eq!(
            peer_dump_body(&[], &copied),
            peer_dump_body(&[], &theirs),
            "{stem}: ncdump of nctk copy -k nc4"
        );

        let ours = dir.path().join(format!("{stem}-gen.nc"));
        let args = GenArgs {
            kind: Some("nc4".into()),
            output: Some(ours.clone()),
            ..GenArgs::default()
        };
        gen(&args, std::fs::read(&cdl).unwrap(), dir.path()).unwrap();
        assert_eq!(
            peer_dump_body(&["-s"], &ours),
            peer_dump_body(&["-s"], &theirs),
            "{stem}: ncdump -s of nctk gen -k nc4"
        );
    }
}

/// Prints, as JSON, netCDF4-python's strings of `argv[1]` (variables and
/// attributes) and zarr-python's of the Zarr v3 store `argv[2]`.
const PEERS: &str = r#"
import json, sys
import netCDF4, zarr
nc = netCDF4.Dataset(sys.argv[1])
z = zarr.open_group(sys.argv[2], mode="r")
out = {}
for name in ["s", "t"]:
    out[name] = {"netcdf4": [str(x) for x in nc[name][:]],
                 "zarr": [str(x) for x in z[name][:]]}
out["s:a"] = {"netcdf4": list(nc["s"].getncattr("a")), "zarr": list(z["s"].attrs["a"])}
out[":g"] = {"netcdf4": list(nc.getncattr("g")), "zarr": list(z.attrs["g"])}
print(json.dumps(out))
"#;

/// A null goes as `""` where the format has no null: zarr-python reads
/// the Zarr v3 store, and nctk the ncstream, as netCDF4-python reads the
/// netCDF-4 source.
#[test]
fn formats_without_a_null_write_what_netcdf4_python_reads() {
    if !require::tools(&["ncgen"]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let source = netcdf4(dir.path(), "flat", FLAT);
    let store = dir.path().join("flat.zarr");
    let stream = dir.path().join("flat.ncs");
    let opts = CopyOptions::default();
    let zarr_target = PathBuf::from(format!("file://{}#mode=zarr,v3", store.display()));
    copy(&source, &zarr_target, &opts, &mut NoProgress).unwrap();
    copy(&source, &stream, &opts, &mut NoProgress).unwrap();
    let Some(out) = require::python_output(&["netCDF4", "zarr"], PEERS, [&source, &store]) else {
        return;
    };
    let peers: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    let strings =
        |v: &serde_json::Value| -> Vec<String> { serde_json::from_value(v.clone()).unwrap() };
    let ds = nctk::open(&stream).unwrap();
    let schema = ds.schema();
    for name in ["s", "t"] {
        let want = strings(&peers[name]["netcdf4"]);
        assert!(want.iter().any(String::is_empty), "{name}: {want:?}");
        assert_eq!(strings(&peers[name]["zarr"]), want, "zarr-python's {name}");
        let v = schema.var_by_path(name).unwrap();
        let got = ds.source().read(v, &Selection::all(&[3])).unwrap();
        assert_eq!(got, Values::strings(want), "ncstream's {name}");
    }
    let attr = |var: Option<&str>, name: &str| {
        let owner = var.map(|v| schema.var_by_path(v).unwrap());
        let attrs = match owner {
            Some(v) => &schema.var(v).attributes,
            None => &schema.group(nctk_model::GroupId::ROOT).attributes,
        };
        attrs.iter().find(|a| a.name == name).unwrap().value.clone()
    };
    for name in ["s:a", ":g"] {
        let want = strings(&peers[name]["netcdf4"]);
        assert_eq!(strings(&peers[name]["zarr"]), want, "zarr-python's {name}");
    }
    assert_eq!(
        attr(Some("s"), "a"),
        Values::strings(strings(&peers["s:a"]["netcdf4"])),
        "ncstream's s:a"
    );
    assert_eq!(
        attr(None, "g"),
        Values::strings(strings(&peers[":g"]["netcdf4"])),
        "ncstream's :g"
    );
}
