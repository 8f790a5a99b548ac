//! `nctk refs` of NCZarr / Zarr v2 / Zarr v3 (sharded) stores, whose
//! chunks are referenced as their own objects (an inner chunk as its
//! bytes in its shard), and of block-compressed classic files, whose
//! blocks are the chunks. The truth is xarray reading each store itself
//! (engine `zarr`), and the classic file a block-compressed file was
//! made from (engine `netcdf4`), in one Python process
//! (`refs/check_stores.py`).

use std::path::{Path, PathBuf};

use nctk::{CodecId, CompressOptions};
use nctk::{ErrorKind, Format, HasErrorKind};
use nctk_test_support::require;
use nctk_tools::copy::{copy, CopyOptions, NoProgress};
use nctk_tools::refs::{refs, RefsOptions};

const CHECK: &str = include_str!("refs/check_stores.py");

/// The Python modules the script imports.
const MODULES: &[&str] = &["netCDF4", "numpy", "xarray", "zarr", "fsspec"];

/// A classic file: a record variable with a fill value and values never
/// written, a coordinate, a fixed variable written in part, a scalar.
fn classic_source(path: &Path) {
    let mut def = nctk::create(path, Format::Classic).unwrap();
    let t = def.add_unlimited_dimension("time").unwrap();
    let lat = def.add_dimension("lat", 4).unwrap();
    let lon = def.add_dimension("lon", 6).unwrap();
    def.add_variable::<f32>("temp", &[t, lat, lon])
        .unwrap()
        .put_attribute("_FillValue", -999f32)
        .unwrap();
    def.add_variable::<f64>("time", &[t]).unwrap();
    def.add_variable::<i16>("sparse", &[lat, lon]).unwrap();
    def.add_variable::<i32>("scalar", &[]).unwrap();
    let mut ds = def.end_define().unwrap();
    let temp: Vec<f32> = (0..72).map(|i| i as f32 * 0.5).collect();
    ds.put_values("temp", (0..3, .., ..), &temp).unwrap();
    ds.put_values("temp", (3..4, 0..1, 0..1), &[2.5f32])
        .unwrap();
    ds.put_values("time", (0..4,), &[0.0, 1.0, 2.0, 3.0])
        .unwrap();
    ds.put_values("sparse", (0..1, ..), &[1i16, 2, 3, 4, 5, 6])
        .unwrap();
    ds.put_values("scalar", (), &[42i32]).unwrap();
    ds.close().unwrap();
}

/// `source` copied to the store `url` with `opts`.
fn store(source: &Path, url: &str, opts: CopyOptions) {
    copy(source, url, &opts, &mut NoProgress).unwrap_or_else(|e| panic!("{url}: {e}"));
}

/// `source` copied to a block-compressed file `out` in blocks of at most
/// `block_bytes`.
fn compressed(source: &Path, out: &Path, block_bytes: u64) {
    let opts = CopyOptions {
        compress: Some(CompressOptions {
            codec: CodecId::Zstd,
            block_bytes,
            ..CompressOptions::default()
        }),
        ..CopyOptions::default()
    };
    copy(source, out, &opts, &mut NoProgress).unwrap_or_else(|e| panic!("{out:?}: {e}"));
}

/// The references of `input` written to `out`; `out`.
fn refs_of(input: &Path, out: PathBuf) -> PathBuf {
    let input = input.to_str().unwrap();
    let summary =
        refs(&[input], &out, &RefsOptions::default()).unwrap_or_else(|e| panic!("{input}: {e}"));
    assert!(summary.chunks > 0, "{input}: {summary:?}");
    out
}

#[test]
fn store_and_block_references_read_as_the_inputs_do() {
    if !require::python(MODULES) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let nc = dir.join("source.nc");
    classic_source(&nc);
    let chunked = |shards: &str| CopyOptions {
        kind: Some(Format::Netcdf4),
        deflate: Some(4),
        shuffle: true,
        chunkspecs: vec!["time/1,lat/2,lon/3".into()],
        shards: if shards.is_empty() {
            vec![]
        } else {
            vec![shards.into()]
        },
        ..CopyOptions::default()
    };
    let url = |name: &str, mode: &str| format!("file://{}#mode={mode}", dir.join(name).display());
    store(&nc, &url("v2.zarr", "zarr,file"), chunked(""));
    store(
        &nc,
        &url("v3.zarr", "zarr,v3,file"),
        chunked("time/2,lat/4,lon/6"),
    );
    store(&nc, &url("nc.zarr", "nczarr,file"), CopyOptions::default());
    let ncb = dir.join("source.ncb");
    compressed(&nc, &ncb, 96);

    let mut args: Vec<PathBuf> = vec![];
    let mut check = |engine: &str, truth: &Path, refs: PathBuf| {
        args.extend([PathBuf::from(engine), truth.to_path_buf(), refs]);
    };
    for name in ["v2.zarr", "v3.zarr", "nc.zarr"] {
        let s = dir.join(name);
        check("zarr", &s, refs_of(&s, dir.join(format!("{name}.json"))));
    }
    // the sharded store's inner chunks are byte ranges of their shards
    let v3: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("v3.zarr.json")).unwrap()).unwrap();
    let (first, second) = (&v3["refs"]["temp/0.0.0"], &v3["refs"]["temp/0.0.1"]);
    let shard = dir.join("v3.zarr/temp/c/0/0/0").canonicalize().unwrap();
    assert_eq!(first[0], second[0], "{v3}");
    assert_eq!(first[0], shard.to_str().unwrap(), "{v3}");
    assert_eq!(
        second[1], first[2],
        "the second inner chunk follows the first: {v3}"
    );
    check("netcdf4", &nc, refs_of(&ncb, dir.join("ncb.json")));
    if let Some(codecs) = require::corpus_path("generated/other-writers/zarr-python-v2/codecs.zarr")
    {
        check("zarr", &codecs, refs_of(&codecs, dir.join("codecs.json")));
    }
    let report = require::python_output(MODULES, CHECK, &args).expect("the peers were found above");
    let agreed = report.lines().filter(|l| l.ends_with(" agree")).count();
    assert_eq!(agreed, args.len() / 3, "{report}");
}

#[test]
fn blocks_that_are_no_chunks_and_zip_stores_are_errors_naming_them() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let nc = dir.join("source.nc");
    classic_source(&nc);
    // blocks of three rows of six: the fourth row of a time step and the
    // first two of the next make one block
    let ncb = dir.join("rows.ncb");
    compressed(&nc, &ncb, 72);
    let out = dir.join("rows.json");
    let err = refs(&[ncb.to_str().unwrap()], &out, &RefsOptions::default()).unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("rows.ncb") && text.contains("\"temp\"") && text.contains("tile"),
        "{text}"
    );
    assert_eq!(err.kind(), ErrorKind::Unsupported, "{text}");
    assert!(!out.exists());

    let zip = dir.join("store.zip");
    store(&nc, zip.to_str().unwrap(), CopyOptions::default());
    let out = dir.join("zip.json");
    let err = refs(&[zip.to_str().unwrap()], &out, &RefsOptions::default()).unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("store.zip") && text.contains("zip archive"),
        "{text}"
    );
    assert_eq!(err.kind(), ErrorKind::Unsupported, "{text}");
    assert!(!out.exists());
}
