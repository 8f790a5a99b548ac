//! Compressed stores written by nctk, one variable per codec chain (as CDL's
//! `_DeflateLevel`, `_Shuffle`, `_Fletcher32`, `_Filter` and `_Codecs` ask
//! for them), read back with identical values by each installed peer:
//! netCDF-C 4.10.1 (the pip netCDF4 package, with its codec plugins) reads
//! the NCZarr store of the chains netCDF-C knows; zarr-python and xarray
//! read the pure Zarr store of every chain. Peers that are absent are
//! skipped.

mod stores;

use nctk_test_support::require;
use std::path::Path;

use nctk_model::{DataSource, DataType, GroupId, Schema, Selection, Values};
use nctk_model::{Layout, VarStorage};
use nctk_zarr::{WriteLayout, WriteOptions, ZarrOptions};
use serde_json::Value;

/// (variable name, type, options, netCDF-C has a plugin for every codec).
fn chains() -> Vec<(&'static str, DataType, VarStorage, bool)> {
    let opt = |f: &dyn Fn(&mut VarStorage)| {
        let mut o = VarStorage {
            layout: Layout::Chunked(vec![2, 25]),
            ..VarStorage::default()
        };
        f(&mut o);
        o
    };
    let codecs = |json: &str| opt(&|o| o.codecs = Some(json.to_string()));
    vec![
        (
            "deflate1_shuffle",
            DataType::Float,
            opt(&|o| {
                o.deflate_level = Some(1);
                o.shuffle = true;
            }),
            true,
        ),
        (
            "deflate9_fletcher",
            DataType::Double,
            opt(&|o| {
                o.deflate_level = Some(9);
                o.fletcher32 = true;
            }),
            true,
        ),
        (
            "deflate_shuffle_fletcher",
            DataType::Short,
            opt(&|o| {
                o.deflate_level = Some(4);
                o.shuffle = true;
                o.fletcher32 = true;
            }),
            true,
        ),
        (
            "filter_bzip2",
            DataType::Int,
            opt(&|o| o.filters = Some("307,9".into())),
            true,
        ),
        (
            "filter_zstd",
            DataType::Float,
            opt(&|o| o.filters = Some("32015,3".into())),
            true,
        ),
        (
            "filter_shuffle_zstd",
            DataType::Double,
            opt(&|o| {
                o.shuffle = true;
                o.filters = Some("32015,1".into());
            }),
            true,
        ),
        (
            "blosc_lz4_shuffle",
            DataType::Float,
            codecs(r#"[{"id":"blosc","cname":"lz4","clevel":5,"shuffle":1,"blocksize":0}]"#),
            true,
        ),
        (
            "blosc_zstd_bitshuffle",
            DataType::Int64,
            codecs(r#"[{"id":"blosc","cname":"zstd","clevel":3,"shuffle":2,"blocksize":0}]"#),
            true,
        ),
        (
            "blosc_zlib_noshuffle",
            DataType::UShort,
            codecs(r#"[{"id":"blosc","cname":"zlib","clevel":1,"shuffle":0,"blocksize":0}]"#),
            true,
        ),
        (
            "codecs_lz4",
            DataType::Float,
            codecs(r#"[{"id":"lz4","acceleration":1}]"#),
            false,
        ),
        (
            "codecs_gzip",
            DataType::Int,
            codecs(r#"[{"id":"gzip","level":6}]"#),
            false,
        ),
        (
            "codecs_delta_zlib",
            DataType::Int,
            codecs(r#"[{"id":"delta","dtype":"<i4"},{"id":"zlib","level":5}]"#),
            false,
        ),
        (
            "codecs_blosclz_bitshuffle",
            DataType::Double,
            codecs(r#"[{"id":"blosc","cname":"blosclz","clevel":9,"shuffle":2,"blocksize":0}]"#),
            false,
        ),
    ]
}

fn data(i: usize, dt: DataType, n: usize) -> Values {
    let x = |k: usize| ((k / 3) as f64 * (i as f64 + 1.25)).rem_euclid(997.0);
    match dt {
        DataType::Float => Values::Float((0..n).map(|k| x(k) as f32 * 0.5).collect()),
        DataType::Double => Values::Double((0..n).map(|k| x(k).sqrt()).collect()),
        DataType::Short => Values::Short((0..n).map(|k| x(k) as i16 - 400).collect()),
        DataType::UShort => Values::UShort((0..n).map(|k| x(k) as u16 * 7).collect()),
        DataType::Int => Values::Int((0..n).map(|k| x(k) as i32 * 1000 - 5).collect()),
        DataType::Int64 => Values::Int64((0..n).map(|k| x(k) as i64 * 3_000_000_000).collect()),
        other => unreachable!("no test data for {other}"),
    }
}

fn as_f64(v: &Values) -> Vec<f64> {
    nctk_model::convert::values_to_vec(v.clone()).unwrap()
}

/// Writes the variables picked by `keep` into `path` in `layout`; returns
/// `(name, values)` for each.
fn write_store(
    path: &Path,
    layout: WriteLayout,
    keep: impl Fn(bool) -> bool,
) -> Vec<(String, Vec<f64>)> {
    let (t, x) = (6u64, 50u64);
    let mut s = Schema::new();
    let dt = s.add_dim(GroupId::ROOT, "t", t, false).unwrap();
    let dx = s.add_dim(GroupId::ROOT, "x", x, false).unwrap();
    let mut vars = vec![];
    for (i, (name, ty, o, c_known)) in chains().into_iter().enumerate() {
        if keep(c_known) {
            let id = s.add_var(GroupId::ROOT, name, ty, &[dt, dx]).unwrap();
            s.var_mut(id).storage = o;
            vars.push((id, name.to_string(), data(i, ty, (t * x) as usize)));
        }
    }
    let wo = WriteOptions {
        layout,
        ..WriteOptions::default()
    };
    let mut w = stores::create_dir(path, &s, &wo).unwrap();
    for (id, _, v) in &vars {
        w.write(*id, &Selection::all(&[t, x]), v).unwrap();
    }
    w.finish().unwrap();
    vars.into_iter().map(|(_, n, v)| (n, as_f64(&v))).collect()
}

/// The values `kind` (netcdf4, zarr, xarray) reads from `store`.
fn peer(kind: &str, store: &Path) -> serde_json::Map<String, Value> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/write_peers.py");
    let out = nctk_test_support::peer::run(
        "python3",
        [script.as_os_str(), kind.as_ref(), store.as_os_str()],
    )
    .unwrap_or_else(|e| panic!("{kind}: {e}"));
    let v: Value = serde_json::from_str(&out).unwrap();
    let per_store = v[store.display().to_string()].clone();
    match per_store {
        Value::Object(m) if !m.contains_key("error") => m,
        other => panic!("{kind} could not read {}: {other}", store.display()),
    }
}

fn check(kind: &str, store: &Path, want: &[(String, Vec<f64>)]) {
    let got = peer(kind, store);
    for (name, values) in want {
        // The peers print runs of equal values: [[value, count]...].
        let g: Vec<f64> = got[&format!("/{name}")]
            .as_array()
            .unwrap_or_else(|| panic!("{kind}: no /{name}"))
            .iter()
            .flat_map(|run| {
                let n = run[1].as_u64().unwrap() as usize;
                std::iter::repeat_n(run[0].as_f64().unwrap(), n)
            })
            .collect();
        assert_eq!(&g, values, "{kind}: {name}");
    }
}

#[test]
fn compressed_stores_read_identically_by_nctk_and_the_peers() {
    let dir = tempfile::tempdir().unwrap();
    let nczarr = dir.path().join("known.zarr");
    let pure = dir.path().join("all.zarr");
    let known = write_store(&nczarr, WriteLayout::NcZarr, |c_known| c_known);
    let all = write_store(&pure, WriteLayout::PureZarr { xarray: true }, |_| true);
    assert_eq!(all.len(), chains().len());

    // nctk itself.
    for (path, want, pure_zarr) in [(&nczarr, &known, false), (&pure, &all, true)] {
        let r = stores::open_path(
            path,
            ZarrOptions {
                pure_zarr,
                xarray: true,
                consolidated: false,
            },
        )
        .unwrap();
        let s = r.schema();
        for v in s.var_ids() {
            let name = &s.var(v).name;
            let got = as_f64(&r.read(v, &Selection::all(&s.shape(v))).unwrap());
            let expect = &want.iter().find(|(n, _)| n == name).unwrap().1;
            assert_eq!(&got, expect, "nctk: {name}");
        }
    }
    if require::python(&["netCDF4"]) {
        check("netcdf4", &nczarr, &known);
    }
    for kind in ["zarr", "xarray"] {
        if require::python(&[kind]) {
            check(kind, &pure, &all);
        }
    }
}
