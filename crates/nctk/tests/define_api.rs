//! The define API (`DatasetDef`, `VarDef`): storage set per variable on an
//! NCZarr store is exactly what peers read back (Python netCDF4 on the
//! store, the `.zarray` metadata through zarr-python); what a format
//! cannot hold is refused at the define call with `Unsupported` naming the
//! format and the item, bad values with `InvalidInput`; groups, strings
//! and user-defined types defined call by call give the same dataset as
//! the same schema given to `define_all`.

use std::path::Path;

use nctk::model::{CompoundField, DataType, Endianness, GroupId, Schema, UserTypeKind, Values};
use nctk::{ErrorKind, Format};
use nctk_test_support::require;

/// Defines the storage test dataset in `target` and writes its values.
fn storage_store(target: &Path) {
    let mut def = nctk::create(target, Format::Netcdf4).unwrap();
    let t = def.add_dimension("t", 4).unwrap();
    let x = def.add_dimension("x", 10).unwrap();
    def.add_variable::<f32>("chunked", &[t, x])
        .unwrap()
        .set_chunking(&[2, 5])
        .unwrap();
    def.add_variable::<i32>("deflated", &[t, x])
        .unwrap()
        .set_chunking(&[4, 10])
        .unwrap()
        .set_compression(5, true)
        .unwrap();
    def.add_variable::<f64>("coded", &[t, x])
        .unwrap()
        .set_codecs(r#"[{"id":"zstd","level":3}]"#)
        .unwrap();
    def.add_variable::<i16>("big", &[t, x])
        .unwrap()
        .set_endianness(Endianness::Big)
        .unwrap();
    def.add_variable::<f32>("fletched", &[t, x])
        .unwrap()
        .set_compression(1, false)
        .unwrap()
        .set_fletcher32()
        .unwrap();
    def.add_variable::<f32>("filled", &[x])
        .unwrap()
        .set_fill_value(-9.5f32)
        .unwrap();
    def.add_variable::<i32>("whole", &[t, x])
        .unwrap()
        .set_contiguous()
        .unwrap();
    def.add_variable_of_type("s", DataType::String, &[x])
        .unwrap()
        .set_string_width(16)
        .unwrap();
    let mut ds = def.end_define().unwrap();
    let n = 40;
    ds.put_values("chunked", .., &vec![1.5f32; n]).unwrap();
    ds.put_values("deflated", .., &(0..n as i32).collect::<Vec<_>>())
        .unwrap();
    ds.put_values("coded", .., &vec![2.25f64; n]).unwrap();
    ds.put_values("big", .., &(0..n as i16).collect::<Vec<_>>())
        .unwrap();
    ds.put_values("fletched", .., &vec![0.5f32; n]).unwrap();
    ds.put_values("filled", (0..5,), &[1f32; 5]).unwrap();
    ds.put_values("whole", .., &vec![7i32; n]).unwrap();
    let id = ds.schema().var_by_path("s").unwrap();
    let strings = Values::strings((0..10).map(|i| "s".repeat(i + 1)));
    ds.write(id, &nctk::model::Selection::all(&[10]), &strings)
        .unwrap();
    ds.close().unwrap();
}

#[test]
fn storage_set_per_variable_is_what_peers_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("storage.zarr");
    storage_store(&path);
    // nctk reads the values back.
    let back = nctk::open(&path).unwrap();
    let big: Vec<i16> = back.variable("big").unwrap().get_values(..).unwrap();
    assert_eq!(big, (0..40).collect::<Vec<i16>>());
    // The raw metadata, read by zarr-python.
    let script = r#"
import sys, json, zarr
g = zarr.open_group(sys.argv[1], mode="r", zarr_format=2)
out = {}
for name in ["chunked", "deflated", "coded", "big", "fletched", "filled", "whole", "s"]:
    a = g[name]
    m = a.metadata
    out[name] = {"chunks": list(a.chunks), "dtype": str(m.dtype.to_native_dtype().str) if hasattr(m.dtype, "to_native_dtype") else str(m.dtype),
                 "compressor": m.compressor.get_config() if m.compressor else None,
                 "filters": [f.get_config() for f in (m.filters or [])]}
print(json.dumps(out))
"#;
    if let Some(text) = require::python_output(&["zarr"], script, [&path]) {
        let got: serde_json::Value = serde_json::from_str(text.trim()).unwrap();
        assert_eq!(got["chunked"]["chunks"], serde_json::json!([2, 5]));
        assert_eq!(got["deflated"]["compressor"]["id"], "zlib");
        assert_eq!(got["deflated"]["compressor"]["level"], 5);
        assert_eq!(got["deflated"]["filters"][0]["id"], "shuffle");
        assert_eq!(got["coded"]["compressor"]["id"], "zstd");
        assert_eq!(got["coded"]["compressor"]["level"], 3);
        assert_eq!(got["big"]["dtype"], ">i2");
        assert_eq!(got["fletched"]["compressor"]["id"], "fletcher32");
        assert_eq!(got["whole"]["chunks"], serde_json::json!([4, 10]));
        assert_eq!(got["s"]["dtype"], "|S16");
    }
    // What netCDF-C (the netCDF4 module's libnetcdf) reads of the store.
    let script = r##"
import sys, json, netCDF4
ds = netCDF4.Dataset("file://" + sys.argv[1] + "#mode=nczarr,file")
out = {}
for name, v in ds.variables.items():
    f = v.filters() or {}
    out[name] = {"chunking": v.chunking() if v.chunking() == "contiguous" else list(v.chunking()),
                 "zlib": bool(f.get("zlib")), "shuffle": bool(f.get("shuffle")),
                 "complevel": f.get("complevel", 0), "fletcher32": bool(f.get("fletcher32")),
                 "endian": v.endian(), "fill": float(v._FillValue) if "_FillValue" in v.ncattrs() else None}
print(json.dumps(out))
"##;
    if let Some(text) = require::python_output(&["netCDF4"], script, [&path]) {
        let got: serde_json::Value = serde_json::from_str(text.trim()).unwrap();
        assert_eq!(got["chunked"]["chunking"], serde_json::json!([2, 5]));
        assert_eq!(got["deflated"]["zlib"], true);
        assert_eq!(got["deflated"]["complevel"], 5);
        assert_eq!(got["deflated"]["shuffle"], true);
        assert_eq!(got["chunked"]["zlib"], false);
        assert_eq!(got["chunked"]["shuffle"], false);
        assert_eq!(got["fletched"]["fletcher32"], true);
        assert_eq!(got["big"]["endian"], "big");
        assert_eq!(got["chunked"]["endian"], "little");
        assert_eq!(got["filled"]["fill"], -9.5);
    }
}

#[test]
fn classic_refuses_netcdf4_storage_at_the_define_call() {
    let dir = tempfile::tempdir().unwrap();
    let mut def = nctk::create(dir.path().join("c.nc"), Format::Classic).unwrap();
    let x = def.add_dimension("x", 4).unwrap();
    let unsupported = |e: nctk::Error, what: &str| {
        assert_eq!(e.kind(), ErrorKind::Unsupported, "{e}");
        let text = e.to_string();
        assert!(text.contains("a classic file cannot hold"), "{text}");
        assert!(text.contains(what), "{what}: {text}");
        assert!(text.contains("NC_ENOTNC4"), "{text}");
    };
    let mut v = def.add_variable::<f32>("v", &[x]).unwrap();
    unsupported(v.set_chunking(&[2]).unwrap_err(), "variable \"v\"");
    unsupported(v.set_contiguous().unwrap_err(), "chunking");
    unsupported(v.set_compression(1, true).unwrap_err(), "compression");
    unsupported(
        v.set_codecs(r#"[{"id":"zlib","level":1}]"#).unwrap_err(),
        "codecs",
    );
    unsupported(v.set_filter("307,9").unwrap_err(), "filters");
    unsupported(
        v.set_endianness(Endianness::Little).unwrap_err(),
        "byte order",
    );
    unsupported(v.set_fletcher32().unwrap_err(), "fletcher32");
    v.set_fill_value(-1f32).unwrap();
    unsupported(
        def.add_variable_of_type("s", DataType::String, &[x])
            .unwrap_err(),
        "string variables",
    );
    unsupported(
        def.add_group(GroupId::ROOT, "g").unwrap_err(),
        "group \"g\"",
    );
    let opaque = UserTypeKind::Opaque { size: 4 };
    unsupported(
        def.add_type(GroupId::ROOT, "blob", opaque).unwrap_err(),
        "type \"blob\"",
    );
    // What was refused was not defined; the rest is written.
    let ds = def.end_define().unwrap();
    assert_eq!(ds.schema().num_vars(), 1);
    ds.close().unwrap();
}

#[test]
fn bad_storage_values_are_invalid_input_and_change_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let mut def = nctk::create(dir.path().join("b.zarr"), Format::Netcdf4).unwrap();
    let x = def.add_dimension("x", 4).unwrap();
    let y = def.add_dimension("y", 3).unwrap();
    let mut v = def.add_variable::<f32>("v", &[x, y]).unwrap();
    let invalid = |e: nctk::Error| {
        assert_eq!(e.kind(), ErrorKind::InvalidInput, "{e}");
        assert!(e.to_string().contains("\"v\""), "names the variable: {e}");
        assert!(e.to_string().contains("b.zarr"), "names the dataset: {e}");
    };
    invalid(v.set_chunking(&[2]).unwrap_err());
    invalid(v.set_chunking(&[2, 0]).unwrap_err());
    invalid(v.set_compression(10, false).unwrap_err());
    invalid(v.set_codecs("not json").unwrap_err());
    invalid(v.set_codecs(r#"[{"id":"no-such-codec"}]"#).unwrap_err());
    invalid(v.set_string_width(8).unwrap_err());
    let e = v.set_fill_value(1i32).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidInput, "{e}");
    assert_eq!(
        def.schema().var(nctk::model::VarId(0)).storage,
        Default::default()
    );
    let mut s = def
        .add_variable_of_type("s", DataType::String, &[x])
        .unwrap();
    let e = s.set_string_width(0).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidInput, "{e}");
    // A store holds no user-defined types (netCDF-C's NCZarr has none).
    let e = def
        .add_type(GroupId::ROOT, "blob", UserTypeKind::Opaque { size: 2 })
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Unsupported, "{e}");
    assert!(e.to_string().contains("NCZarr store"), "{e}");
    assert!(e.to_string().contains("type \"blob\""), "{e}");
    // An ncstream holds no storage settings.
    let mut def = nctk::create(dir.path().join("s.ncs"), Format::Netcdf4).unwrap();
    let x = def.add_dimension("x", 4).unwrap();
    let e = def
        .add_variable::<f32>("v", &[x])
        .unwrap()
        .set_chunking(&[2])
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Unsupported, "{e}");
    assert!(e.to_string().contains("an ncstream"), "{e}");
}

/// Groups, dimensions and attributes in groups, and strings: defined call
/// by call, then the same schema through `define_all`.
fn grouped(def: &mut nctk::DatasetDef) {
    let root = GroupId::ROOT;
    def.put_attribute("title", "groups").unwrap();
    let x = def.add_dimension("x", 3).unwrap();
    let g = def.add_group(root, "g").unwrap();
    def.put_group_attribute(g, "level", 1i32).unwrap();
    let y = def.add_dimension_in(g, "y", 2).unwrap();
    def.add_variable_in::<f64>(g, "w", &[y, x])
        .unwrap()
        .put_attribute("units", "m")
        .unwrap();
    let sub = def.add_group(g, "sub").unwrap();
    def.add_variable_of_type_in(sub, "names", DataType::String, &[x])
        .unwrap();
    // A dimension of a sibling scope is not visible.
    let h = def.add_group(root, "h").unwrap();
    let e = def.add_variable_in::<i32>(h, "bad", &[y]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotFound, "{e}");
}

fn fill_grouped(ds: &mut nctk::DatasetMut) {
    ds.put_values("/g/w", .., &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
        .unwrap();
    let s = ds.schema().var_by_path("/g/sub/names").unwrap();
    let names = Values::strings(["a", "bb", "ccc"]);
    ds.write(s, &nctk::model::Selection::all(&[3]), &names)
        .unwrap();
}

/// The structure and values Python netCDF4 reads from a store.
fn peer_view(path: &Path) -> Option<String> {
    let script = r##"
import sys, netCDF4
ds = netCDF4.Dataset("file://" + sys.argv[1] + "#mode=nczarr,file")
def walk(g, out):
    out.append(("group", g.path, sorted((k, str(g.getncattr(k))) for k in g.ncattrs())))
    out.append(("dims", sorted((k, len(d)) for k, d in g.dimensions.items())))
    for k, v in g.variables.items():
        out.append(("var", k, v.dimensions, str(v.dtype), sorted((a, str(v.getncattr(a))) for a in v.ncattrs()), str(v[...].tolist())))
    for c in g.groups.values():
        walk(c, out)
    return out
print(walk(ds, []))
"##;
    require::python_output(&["netCDF4"], script, [path])
}

#[test]
fn groups_and_strings_through_the_api_equal_define_all() {
    let dir = tempfile::tempdir().unwrap();
    let by_calls = dir.path().join("calls.zarr");
    let mut def = nctk::create(&by_calls, Format::Netcdf4).unwrap();
    grouped(&mut def);
    let schema: Schema = def.schema().clone();
    let mut ds = def.end_define().unwrap();
    fill_grouped(&mut ds);
    ds.close().unwrap();
    let whole = dir.path().join("whole.zarr");
    let mut def = nctk::create(&whole, Format::Netcdf4).unwrap();
    def.define_all(&schema).unwrap();
    let mut ds = def.end_define().unwrap();
    fill_grouped(&mut ds);
    ds.close().unwrap();
    let a = nctk::open(&by_calls).unwrap();
    let w: Vec<f64> = a.variable("/g/w").unwrap().get_values(..).unwrap();
    assert_eq!(w, [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    if let (Some(x), Some(y)) = (peer_view(&by_calls), peer_view(&whole)) {
        assert_eq!(x, y);
        for part in [
            "'/g/sub'",
            "'names'",
            "\"['a', 'bb', 'ccc']\"",
            "('level', '1')",
            "'units', 'm'",
        ] {
            assert!(x.contains(part), "{part} in {x}");
        }
    }
    // The netCDF-4 classic model holds no groups.
    let mut def = nctk::create(dir.path().join("strict.zarr"), Format::Netcdf4Classic).unwrap();
    let e = def.add_group(GroupId::ROOT, "g").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Unsupported, "{e}");
    assert!(e.to_string().contains("NC_ESTRICTNC3"), "{e}");
}

/// Every kind of user-defined type, defined call by call into an ncstream
/// (the writable format that holds them), gives the same stream as the
/// same schema through `define_all`.
#[test]
fn user_types_through_the_api_equal_define_all() {
    let dir = tempfile::tempdir().unwrap();
    let define = |def: &mut nctk::DatasetDef| {
        let root = GroupId::ROOT;
        let x = def.add_dimension("x", 2).unwrap();
        let point = def
            .add_type(
                root,
                "point",
                UserTypeKind::Compound {
                    size: 8,
                    fields: vec![
                        CompoundField {
                            name: "a".into(),
                            offset: 0,
                            dtype: DataType::Int,
                            dims: vec![],
                        },
                        CompoundField {
                            name: "b".into(),
                            offset: 4,
                            dtype: DataType::Float,
                            dims: vec![],
                        },
                    ],
                },
            )
            .unwrap();
        let ragged = def
            .add_type(
                root,
                "ragged",
                UserTypeKind::Vlen {
                    base: DataType::Short,
                },
            )
            .unwrap();
        let blob = def
            .add_type(root, "blob", UserTypeKind::Opaque { size: 3 })
            .unwrap();
        let color = def
            .add_type(
                root,
                "color",
                UserTypeKind::Enum {
                    base: DataType::UByte,
                    members: vec![
                        nctk::model::EnumMember {
                            name: "red".into(),
                            value: 0,
                        },
                        nctk::model::EnumMember {
                            name: "blue".into(),
                            value: 1,
                        },
                    ],
                },
            )
            .unwrap();
        for (name, t) in [("p", point), ("r", ragged), ("o", blob), ("c", color)] {
            def.add_variable_of_type(name, DataType::User(t), &[x])
                .unwrap();
        }
    };
    let stream = |by_calls: bool| {
        // One path for both: the stream's header names it.
        let path = dir.path().join("t.ncs");
        let mut def = nctk::create(&path, Format::Netcdf4).unwrap();
        if by_calls {
            define(&mut def);
        } else {
            let mut probe = nctk::create(dir.path().join("probe.ncs"), Format::Netcdf4).unwrap();
            define(&mut probe);
            def.define_all(probe.schema()).unwrap();
        }
        def.end_define().unwrap().close().unwrap();
        std::fs::read(&path).unwrap()
    };
    let a = stream(true);
    let back = nctk::open(dir.path().join("t.ncs")).unwrap();
    assert_eq!(a, stream(false));
    let types = back.schema().type_ids().count();
    assert_eq!(types, 4);
}
