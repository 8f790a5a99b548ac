//! Consolidated metadata (`.zmetadata`) written on request (URL mode
//! `consolidated`) as zarr-python writes it: zarr-python's
//! `open_consolidated` and xarray's `open_zarr(consolidated=True)` read the
//! store from it alone, and nctk's own consolidated read agrees. Python
//! checks are skipped when zarr/xarray are absent.

use std::path::Path;

use nctk::model::{Attribute, DataType, GroupId, Schema, Selection, Values};

const CHECK: &str = r#"
import json, sys, os
import zarr, xarray as xr
p = sys.argv[1]
meta = json.load(open(os.path.join(p, ".zmetadata")))["metadata"]
# Hide the individual objects below the root (zarr 3 reads the root group
# itself from its own objects): arrays and subgroups must come from .zmetadata.
hidden = [k for k in meta if "/" in k]
for key in hidden:
    os.rename(os.path.join(p, key), os.path.join(p, key) + ".hidden")
g = zarr.open_consolidated(p, mode="r")
out = {"zarr": {k: g[k][...].tolist() for k in ["t", "sub/w"]}}
ds = xr.open_zarr(p, consolidated=True)
out["xarray"] = {"t": ds["t"].values.tolist(), "units": ds["t"].attrs["units"], "title": ds.attrs["title"]}
for key in hidden:
    os.rename(os.path.join(p, key) + ".hidden", os.path.join(p, key))
print(json.dumps(out))
"#;

fn schema() -> Schema {
    let mut s = Schema::new();
    let x = s.add_dim(GroupId::ROOT, "x", 5, false).unwrap();
    let t = s
        .add_var(GroupId::ROOT, "t", DataType::Float, &[x])
        .unwrap();
    s.var_mut(t)
        .attributes
        .push(Attribute::new("units", Values::Char(b"K".to_vec())));
    s.group_mut(GroupId::ROOT).attributes.push(Attribute::new(
        "title",
        Values::Char(b"consolidated".to_vec()),
    ));
    let sub = s.add_group(GroupId::ROOT, "sub").unwrap();
    s.add_var(sub, "w", DataType::Short, &[x]).unwrap();
    s
}

#[test]
fn consolidated_metadata_is_written_and_read_by_every_reader() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.zarr");
    let url = format!("file://{}#mode=zarr,file,consolidated", path.display());
    let s = schema();
    let mut def = nctk::create(&url, nctk::Format::Netcdf4).unwrap();
    def.define_all(&s).unwrap();
    let mut w = def.end_define().unwrap();
    let t_vals = vec![1.5f32, 2.5, -3.0, 4.0, 5.25];
    let w_vals = vec![7i16, -8, 9, 10, 11];
    let ids: Vec<_> = s.var_ids().collect();
    w.write(
        ids[0],
        &Selection::all(&[5]),
        &Values::Float(t_vals.clone()),
    )
    .unwrap();
    w.write(
        ids[1],
        &Selection::all(&[5]),
        &Values::Short(w_vals.clone()),
    )
    .unwrap();
    w.close().unwrap();

    // .zmetadata holds exactly the individual metadata objects.
    let zmeta: serde_json::Value =
        serde_json::from_slice(&std::fs::read(path.join(".zmetadata")).unwrap()).unwrap();
    assert_eq!(zmeta["zarr_consolidated_format"], 1);
    let meta = zmeta["metadata"].as_object().unwrap();
    let mut keys: Vec<&str> = meta.keys().map(String::as_str).collect();
    keys.sort();
    assert_eq!(
        keys,
        [
            ".zattrs",
            ".zgroup",
            "sub/.zgroup",
            "sub/w/.zarray",
            "sub/w/.zattrs",
            "t/.zarray",
            "t/.zattrs"
        ]
    );
    for (key, value) in meta {
        let file: serde_json::Value =
            serde_json::from_slice(&std::fs::read(path.join(key)).unwrap()).unwrap();
        assert_eq!(&file, value, "{key}");
    }

    // nctk reads it back through the consolidated object alone (the
    // URL's `consolidated` mode): the individual objects below the root
    // are hidden while it opens the store.
    let hidden: Vec<_> = keys.iter().filter(|k| k.contains('/')).collect();
    let hide = |back: bool| {
        for key in &hidden {
            let (shown, moved) = (path.join(key), path.join(format!("{key}.hidden")));
            let (from, to) = if back { (moved, shown) } else { (shown, moved) };
            std::fs::rename(from, to).unwrap();
        }
    };
    hide(false);
    let opened = nctk::open(&url);
    hide(true);
    let ds = opened.unwrap();
    let r = ds.source();
    let rs = r.schema();
    let got: Vec<Values> = rs
        .var_ids()
        .map(|v| r.read(v, &Selection::all(&rs.shape(v))).unwrap())
        .collect();
    assert!(got.contains(&Values::Float(t_vals.clone())));
    assert!(got.contains(&Values::Short(w_vals.clone())));

    if !nctk_test_support::require::python(&["zarr", "xarray"]) {
        return;
    }
    let out = nctk_test_support::peer::python(CHECK, [Path::new(&path)])
        .unwrap_or_else(|e| panic!("{e}"));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let t_json: Vec<f64> = t_vals.iter().map(|&x| x as f64).collect();
    let w_json: Vec<i64> = w_vals.iter().map(|&x| x as i64).collect();
    assert_eq!(v["zarr"]["t"], serde_json::json!(t_json));
    assert_eq!(v["zarr"]["sub/w"], serde_json::json!(w_json));
    assert_eq!(v["xarray"]["t"], serde_json::json!(t_json));
    assert_eq!(v["xarray"]["units"], "K");
    assert_eq!(v["xarray"]["title"], "consolidated");
}
