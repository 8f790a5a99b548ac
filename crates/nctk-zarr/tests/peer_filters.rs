//! Stores compressed by netCDF-C 4.10.1 (the pip netCDF4 package, with its
//! codec plugins) read with the values netCDF-C reads back: every filter
//! chain netCDF-C builds, including deflate with fletcher32 (`filters:
//! [shuffle, zlib]`, `compressor: fletcher32`). Skipped when netCDF4 is
//! absent.

mod stores;

use std::path::Path;

use nctk_model::{convert::values_to_vec, DataSource, Selection};
use nctk_zarr::ZarrOptions;
use serde_json::Value;

#[test]
fn netcdf_c_filter_chains_read_as_netcdf_c_reads_them() {
    if !nctk_test_support::require::python(&["netCDF4"]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("filters.zarr");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peer_filters.py");
    let out = nctk_test_support::peer::run("python3", [script.as_path(), &store])
        .unwrap_or_else(|e| panic!("peer failed: {e}"));
    let expected: serde_json::Map<String, Value> = serde_json::from_str(&out).unwrap();
    assert!(
        expected.len() >= 20,
        "peer wrote only {:?}",
        expected.keys()
    );

    let r = stores::open_path(&store, ZarrOptions::default()).unwrap();
    let s = r.schema();
    let mut checked = 0;
    for v in s.var_ids() {
        let name = &s.var(v).name;
        let want: Vec<f64> = expected[name]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect();
        let vals = r
            .read(v, &Selection::all(&s.shape(v)))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let got: Vec<f64> = values_to_vec(vals).unwrap();
        assert_eq!(got, want, "{name}");
        checked += 1;
    }
    assert_eq!(checked, expected.len());
}
