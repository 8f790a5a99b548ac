//! The Zarr writer's definition checks follow netCDF's rules, once, with
//! the classic writer ([`nctk_model::Schema::writable`]):
//!
//! * it refuses exactly the dimension and attribute names netCDF-C refuses
//!   to write (Python netCDF4 over libnetcdf 4.10, writing NCZarr, is the
//!   peer), with netCDF-C's reason, before anything is stored;
//! * names used twice and a `_FillValue` that is not one value of its
//!   variable's type are refused;
//! * what it writes, nctk reads back with the names netCDF-C stores (NFC),
//!   and so do netCDF4 (NCZarr) and zarr-python (pure Zarr).

mod stores;

use std::sync::Arc;

use nctk_model::{Attribute, DataSource, DataType, GroupId, Schema, Values};
use nctk_store::kv::{ListableStore, MemoryStore, StorePrefix};
use nctk_test_support::require;
use nctk_zarr::{WriteError, WriteLayout, WriteOptions, ZarrOptions, ZarrWriter};
use serde_json::Value;

/// Names on both sides of netCDF-C's `NC_check_name`, and two that only
/// a Zarr store could confuse (`.z` prefixes, `:`).
fn name_cases() -> Vec<&'static str> {
    let mut names = nctk_test_support::names::NC_CHECK_NAME_CASES.to_vec();
    names.extend([".zx", "x:y"]);
    names
}

/// nctk's verdict on a dimension (or, with `attr`, a global attribute)
/// named `name`: `Ok` or the error text.
fn nctk_verdict(name: &str, attr: bool) -> Result<(), String> {
    let mut s = Schema::new();
    if attr {
        s.set_attr(
            GroupId::ROOT,
            None,
            Attribute::new(name, Values::Int(vec![1])),
        );
    } else {
        s.add_dim(GroupId::ROOT, name, 1, false).unwrap();
    }
    let store = Arc::new(MemoryStore::new());
    let r = ZarrWriter::create(store.clone(), &s, &WriteOptions::default())
        .and_then(|w| w.finish())
        .map(drop)
        .map_err(|e| e.to_string());
    if r.is_err() {
        let listing = store.list_dir(&StorePrefix::root()).unwrap();
        assert!(
            listing.keys.is_empty() && listing.prefixes.is_empty(),
            "{name:?}: nothing is stored when the definitions are refused"
        );
    }
    r
}

const PEER: &str = r#"
import json, sys, tempfile, os, netCDF4
names = json.load(open(sys.argv[1], encoding="utf-8"))
out = []
with tempfile.TemporaryDirectory() as d:
    for i, n in enumerate(names):
        row = []
        for attr in (False, True):
            url = "file://%s/s%d%d.zarr#mode=nczarr,file" % (d, i, attr)
            ds = netCDF4.Dataset(url, "w", format="NETCDF4")
            try:
                if attr:
                    ds.setncattr(n, 1)
                else:
                    ds.createDimension(n, 1)
                row.append(None)
            except Exception as e:
                row.append(str(e))
            ds.close()
        out.append(row)
print(json.dumps(out))
"#;

#[test]
fn writer_refuses_the_names_netcdf_c_refuses() {
    let dir = tempfile::tempdir().unwrap();
    let names = dir.path().join("names.json");
    std::fs::write(&names, serde_json::to_string(&name_cases()).unwrap()).unwrap();
    let Some(out) = require::python_output(&["netCDF4"], PEER, [&names]) else {
        return;
    };
    let peer: Vec<Vec<Option<String>>> = serde_json::from_str(out.trim()).unwrap();
    let mut problems = vec![];
    for (name, row) in name_cases().iter().zip(peer) {
        for (attr, theirs) in [false, true].into_iter().zip(row) {
            let ours = nctk_verdict(name, attr);
            let what = if attr { "attribute" } else { "dimension" };
            match (&theirs, &ours) {
                (None, Ok(())) => {}
                (Some(t), Err(o)) => {
                    let reason = t.trim_start_matches("NetCDF: ");
                    if !o.contains(reason) || !o.contains(&format!("{name:?}")) {
                        problems.push(format!("{what} {name:?}: netCDF-C {t:?}, nctk {o:?}"));
                    }
                }
                _ => problems.push(format!(
                    "{what} {name:?}: netCDF-C {theirs:?}, nctk {ours:?}"
                )),
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn duplicates_and_fill_value_mismatches_are_refused() {
    let refused = |s: &Schema| match ZarrWriter::create(
        Arc::new(MemoryStore::new()),
        s,
        &WriteOptions::default(),
    ) {
        Err(e @ WriteError::Definition(_)) => e.to_string(),
        other => panic!("expected a definition error, got {other:?}"),
    };
    // Two attributes of one name (a schema built by hand can hold them):
    // one would be lost in `.zattrs`.
    let mut s = Schema::new();
    let x = s.add_dim(GroupId::ROOT, "x", 2, false).unwrap();
    let v = s.add_var(GroupId::ROOT, "v", DataType::Int, &[x]).unwrap();
    for k in 0..2 {
        s.var_mut(v)
            .attributes
            .push(Attribute::new("units", Values::text(&format!("u{k}"))));
    }
    let e = refused(&s);
    assert!(
        e.contains("\"units\"") && e.contains("String match to name in use"),
        "{e}"
    );
    // Two names that are one name once NFC-normalized, as netCDF-C stores them.
    let mut s = Schema::new();
    s.add_dim(GroupId::ROOT, "caf\u{e9}", 1, false).unwrap();
    s.add_dim(GroupId::ROOT, "cafe\u{301}", 1, false).unwrap();
    let e = refused(&s);
    assert!(e.contains("String match to name in use"), "{e}");
    // A _FillValue of another type, or of two values.
    for fill in [Values::Short(vec![1]), Values::Int(vec![1, 2])] {
        let mut s = Schema::new();
        let x = s.add_dim(GroupId::ROOT, "x", 2, false).unwrap();
        let v = s.add_var(GroupId::ROOT, "v", DataType::Int, &[x]).unwrap();
        s.set_attr(GroupId::ROOT, Some(v), Attribute::new("_FillValue", fill));
        let e = refused(&s);
        assert!(
            e.contains("_FillValue type mismatch") && e.contains("\"v\""),
            "{e}"
        );
    }
}

/// A schema using the unusual names netCDF-C writes.
fn unusual() -> Schema {
    let mut s = Schema::new();
    let r = GroupId::ROOT;
    let d = s.add_dim(r, "a b+c", 2, false).unwrap();
    let e = s.add_dim(r, "cafe\u{301}", 3, false).unwrap();
    let v = s
        .add_var(r, "\u{e9}t\u{e9}", DataType::Int, &[d, e])
        .unwrap();
    s.set_attr(r, Some(v), Attribute::new("1a", Values::text("x")));
    s.add_var(r, "_b", DataType::Double, &[e]).unwrap();
    s.set_attr(r, None, Attribute::new("x:y", Values::Int(vec![3])));
    s
}

fn names_of(src: &dyn DataSource) -> Value {
    let s = src.schema();
    let mut dims: Vec<String> = s.dim_ids().map(|d| s.dim(d).name.clone()).collect();
    let mut vars: Vec<String> = s.var_ids().map(|v| s.var(v).name.clone()).collect();
    dims.sort();
    vars.sort();
    serde_json::json!({"dims": dims, "vars": vars})
}

#[test]
fn what_it_writes_reads_back_with_netcdf_c_s_names() {
    let dir = tempfile::tempdir().unwrap();
    let schema = unusual();
    // netCDF-C stores names NFC-normalized.
    let expect = serde_json::json!({
        "dims": ["a b+c", "caf\u{e9}"],
        "vars": ["_b", "\u{e9}t\u{e9}"],
    });
    for (layout, ext) in [
        (WriteLayout::NcZarr, "nczarr.zarr"),
        (WriteLayout::PureZarr { xarray: true }, "zarr"),
    ] {
        let path = dir.path().join(format!("names.{ext}"));
        let opts = WriteOptions {
            layout,
            ..WriteOptions::default()
        };
        stores::create_dir(&path, &schema, &opts)
            .unwrap()
            .finish()
            .unwrap();
        let back = stores::open_path(&path, ZarrOptions::default()).unwrap();
        assert_eq!(names_of(&back), expect, "{layout:?}");
        assert_eq!(back.schema().root().attributes[0].name, "x:y", "{layout:?}");
        let peer = match layout {
            WriteLayout::NcZarr => require::python_output(
                &["netCDF4"],
                "import sys, json, netCDF4\n\
                 d = netCDF4.Dataset('file://' + sys.argv[1] + '#mode=nczarr,file')\n\
                 print(json.dumps({'dims': sorted(d.dimensions), 'vars': sorted(d.variables)}))",
                [&path],
            ),
            WriteLayout::PureZarr { .. } => require::python_output(
                &["zarr"],
                "import sys, json, zarr\n\
                 g = zarr.open_group(sys.argv[1], mode='r')\n\
                 dims = set()\n\
                 for _, a in g.arrays(): dims.update(a.attrs['_ARRAY_DIMENSIONS'])\n\
                 print(json.dumps({'dims': sorted(dims), 'vars': sorted(k for k, _ in g.arrays())}))",
                [&path],
            ),
            _ => None,
        };
        if let Some(out) = peer {
            let theirs: Value = serde_json::from_str(out.trim()).unwrap();
            assert_eq!(theirs, expect, "{layout:?}: the peer reads other names");
        }
    }
}
