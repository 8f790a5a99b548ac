//! `nctk::open` and `nctk::create` on NCZarr / Zarr stores in S3 (moto on
//! loopback): stores zarr-python writes there (Zarr v2, blosc, zlib and no
//! compressor, consolidated or not) read with zarr-python's values, and
//! opening a consolidated store lists nothing (requests counted by a proxy);
//! a dataset created on S3 reads back, and one dropped unfinished leaves
//! no object behind.

use std::sync::Once;

use nctk_test_servers::{moto, moto_behind_proxy, MotoServer};
use nctk_test_support::require;

/// Credentials for every request of this process (moto takes any key
/// pair), set once before any store is opened.
fn credentials() {
    static SET: Once = Once::new();
    SET.call_once(|| {
        std::env::set_var("AWS_ACCESS_KEY_ID", "test");
        std::env::set_var("AWS_SECRET_ACCESS_KEY", "test");
        std::env::remove_var("AWS_PROFILE");
    });
}

/// Writes two Zarr v2 groups with zarr-python + s3fs (`plain.zarr`, and
/// `consolidated.zarr` with `.zmetadata`), arrays with blosc-lz4, zlib and
/// no compressor, partial edge chunks; prints each array's values.
const WRITE: &str = r#"
import sys, json, numpy as np, numcodecs, zarr
ep, bucket = sys.argv[1:]
so = {"endpoint_url": ep, "key": "x", "secret": "x"}
out = {}
for name in ["plain.zarr", "consolidated.zarr"]:
    store = zarr.storage.FsspecStore.from_url(f"s3://{bucket}/{name}", storage_options=so)
    g = zarr.open_group(store=store, mode="w", zarr_format=2)
    arrays = {
        "blosc": (np.arange(60, dtype="f8").reshape(6, 10) * 0.5 - 7, (4, 3), numcodecs.Blosc(cname="lz4", shuffle=1), ["y", "x"]),
        "zlib": (np.arange(-3, 4, dtype="i4") * 1000, (3,), numcodecs.Zlib(level=5), ["n"]),
        "raw": (np.arange(20, dtype="u2").reshape(5, 4) + 60000, (5, 4), None, ["a", "b"]),
    }
    for k, (data, chunks, comp, dims) in arrays.items():
        a = g.create_array(k, shape=data.shape, chunks=chunks, dtype=data.dtype, compressors=comp)
        a[...] = data
        a.attrs["_ARRAY_DIMENSIONS"] = dims
        out[k] = data.ravel().astype("f8").tolist()
    if name == "consolidated.zarr":
        zarr.consolidate_metadata(store, zarr_format=2)
print(json.dumps(out))
"#;

/// zarr-python's stores in `bucket`, and the values it wrote; `None` when
/// a peer is missing.
fn zarr_python_stores(
    s3: &MotoServer,
    bucket: &str,
) -> Option<serde_json::Map<String, serde_json::Value>> {
    s3.create_bucket(bucket).unwrap();
    let out = require::python_output(
        &["zarr", "s3fs", "numcodecs"],
        WRITE,
        [s3.endpoint().as_str(), bucket],
    )?;
    match serde_json::from_str(&out).expect("json") {
        serde_json::Value::Object(m) => Some(m),
        other => panic!("{other}"),
    }
}

#[test]
fn zarr_python_stores_on_s3_read_with_its_values() {
    let Some(s3) = moto() else { return };
    credentials();
    let Some(want) = zarr_python_stores(&s3, "zarr-python") else {
        return;
    };
    for store in ["plain.zarr", "consolidated.zarr"] {
        let url = format!("{}/zarr-python/{store}#mode=zarr,s3", s3.endpoint());
        let ds = nctk::open(&url).unwrap_or_else(|e| panic!("{url}: {e}"));
        for (name, values) in &want {
            let v = ds.variable(name).unwrap_or_else(|| panic!("{url}: {name}"));
            let got: Vec<f64> = v.get_values(..).unwrap();
            let values: Vec<f64> = values
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_f64().unwrap())
                .collect();
            assert_eq!(got, values, "{url}: {name}");
        }
    }
}

/// Opening a consolidated store reads `.zmetadata` and lists nothing; the
/// same store without it is listed (the count is real).
#[test]
fn opening_a_consolidated_store_lists_nothing() {
    let Some((s3, proxy)) = moto_behind_proxy() else {
        return;
    };
    credentials();
    let Some(_) = zarr_python_stores(&s3, "counted") else {
        return;
    };
    let lists = |store: &str| {
        proxy.reset_stats();
        let url = format!("{}/counted/{store}#mode=zarr,s3", proxy.endpoint());
        let ds = nctk::open(&url).unwrap_or_else(|e| panic!("{url}: {e}"));
        assert_eq!(ds.variables().count(), 3, "{url}");
        let stats = proxy.stats();
        stats
            .seen
            .iter()
            .filter(|s| s.query.as_deref().is_some_and(|q| q.contains("list-type")))
            .count()
    };
    assert_eq!(lists("consolidated.zarr"), 0, "no listing with .zmetadata");
    assert!(
        lists("plain.zarr") > 0,
        "a store without .zmetadata is listed"
    );
}

/// `nctk::create` on an S3 URL: the dataset reads back after `close`; one
/// dropped before `close` leaves no object under its URL.
#[test]
fn create_on_s3_reads_back_and_a_dropped_one_leaves_nothing() {
    let Some(s3) = moto() else { return };
    credentials();
    s3.create_bucket("made").unwrap();
    let write = |key: &str, close: bool| {
        let url = format!("{}/made/{key}#mode=nczarr,s3", s3.endpoint());
        let mut def = nctk::create(&url, nctk::Format::Netcdf4).unwrap();
        let t = def.add_unlimited_dimension("t").unwrap();
        let x = def.add_dimension("x", 4).unwrap();
        def.add_variable::<f32>("v", &[t, x])
            .unwrap()
            .put_attribute("units", "K")
            .unwrap();
        let mut ds = def.end_define().unwrap();
        let values: Vec<f32> = (0..12).map(|i| i as f32 * 1.5).collect();
        ds.put_values("v", (0..3, 0..4), &values).unwrap();
        if close {
            ds.close().unwrap();
        }
        (url, values)
    };
    let (url, values) = write("kept.zarr", true);
    let ds = nctk::open(&url).unwrap();
    let v = ds.variable("v").unwrap();
    assert_eq!(v.get_values::<f32>(..).unwrap(), values);
    assert_eq!(
        v.attribute("units")
            .and_then(|a| a.as_str().map(str::to_string)),
        Some("K".to_string())
    );
    assert!(!s3.list_keys("made", "kept.zarr/").unwrap().is_empty());

    let (url, _) = write("dropped.zarr", false);
    assert_eq!(
        s3.list_keys("made", "dropped.zarr/").unwrap(),
        Vec::<String>::new()
    );
    assert!(nctk::open(&url).is_err(), "no dataset at {url}");
}
