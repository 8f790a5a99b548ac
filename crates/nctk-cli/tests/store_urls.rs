//! NCZarr stores and netCDF-C URLs, through the `nctk` binary, with
//! netCDF-C's `ncdump` 4.9.0 (Debian) and netCDF-C 4.10.1 (the pip
//! `netCDF4` wheel) as the peers:
//!
//! * stores written in netCDF-C 4.9.0's layout (`nczarr490`) with an
//!   unlimited dimension, by `nctk gen` and by `nctk copy`, read in
//!   `ncdump` 4.9.0 exactly as `nctk dump` prints them;
//! * the dataset name `nctk dump` prints for a store URL is `ncdump`'s;
//! * storage modes: `s3` on a `file://` URL is an error, as netCDF-C
//!   refuses it; with several of `file`, `zip`, `s3` the last wins, and
//!   `gs3` does not choose the storage, as netCDF-C 4.10.1 reads them.
//!
//! Each test needs its peers as `nctk_test_support::require` rules.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{nctk, nctk_ok};
use nctk_test_support::require;

/// `ncdump` with `args`, or `None` (the skip rule) when it is not installed.
fn ncdump(args: &[&str]) -> Option<Output> {
    require::tools(&["ncdump"]).then(|| {
        Command::new("ncdump")
            .args(args)
            .output()
            .expect("run ncdump")
    })
}

fn sample_cdl() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples/sample.cdl")
}

fn url(dir: &Path, modes: &str) -> String {
    format!("file://{}#mode={modes}", dir.display())
}

/// The sample (an unlimited `time` of 3 records) written in netCDF-C
/// 4.9.0's layout by `nctk gen` and by `nctk copy` from a CDF-5 file.
fn stores_490(tmp: &Path) -> Vec<PathBuf> {
    let cdl = sample_cdl();
    let cdl = cdl.to_str().unwrap();
    let generated = tmp.join("g.zarr");
    nctk_ok(&[
        "gen",
        "-4",
        "-o",
        &url(&generated, "nczarr,file,nczarr490"),
        cdl,
    ]);
    let nc = tmp.join("sample.nc");
    let nc = nc.to_str().unwrap();
    nctk_ok(&["gen", "-5", "-o", nc, cdl]);
    let copied = tmp.join("c.zarr");
    nctk_ok(&["copy", nc, &url(&copied, "nczarr,file,nczarr490")]);
    vec![generated, copied]
}

#[test]
fn stores_in_the_490_layout_with_an_unlimited_dimension_read_in_ncdump_490() {
    let tmp = tempfile::tempdir().unwrap();
    for store in stores_490(tmp.path()) {
        let u = url(&store, "nczarr,file");
        let Some(peer) = ncdump(&[&u]) else {
            return;
        };
        assert!(
            peer.status.success(),
            "ncdump {u}: {}",
            String::from_utf8_lossy(&peer.stderr)
        );
        let want = String::from_utf8(peer.stdout).unwrap();
        assert!(want.contains("time = 3 ;"), "{want}");
        assert_eq!(nctk_ok(&["dump", &u]), want, "{u}");
    }
}

#[test]
fn dataset_names_of_store_urls_are_ncdumps() {
    let tmp = tempfile::tempdir().unwrap();
    let stores = stores_490(tmp.path());
    // Names without an extension, with two, and with a trailing slash.
    for name in ["12", "noext", "y.z.zarr", "x.zarr"] {
        let dir = tmp.path().join(name);
        std::fs::rename(&stores[0], &dir).unwrap();
        let dir_s = dir.display().to_string();
        for u in [
            url(&dir, "nczarr,file"),
            url(&dir, "zarr,file"),
            format!("file://{dir_s}?a=b#mode=nczarr,file"),
            format!("file://{dir_s}/#mode=nczarr,file"),
        ] {
            let Some(peer) = ncdump(&["-h", &u]) else {
                return;
            };
            let want = String::from_utf8(peer.stdout).unwrap();
            let want = want.lines().next().unwrap_or_default();
            let got = nctk_ok(&["dump", "-h", &u]);
            assert_eq!(got.lines().next(), Some(want), "{u}");
        }
        std::fs::rename(&dir, &stores[0]).unwrap();
    }
}

/// netCDF-C 4.10.1 opens `url`: true when it reads it; `None` (the skip
/// rule) without Python's `netCDF4`.
fn netcdf4_reads(url: &str) -> Option<bool> {
    if !require::python(&["netCDF4"]) {
        return None;
    }
    let out = Command::new("python3")
        .args([
            "-c",
            "import sys, netCDF4; netCDF4.Dataset(sys.argv[1]).close()",
            url,
        ])
        .output()
        .expect("run python3");
    Some(out.status.success())
}

#[test]
fn storage_modes_as_netcdf_c_reads_them() {
    let tmp = tempfile::tempdir().unwrap();
    let store = &stores_490(tmp.path())[1];
    for modes in [
        "nczarr,s3",
        "zarr,s3",
        "nczarr,gs3",
        "nczarr,file,s3",
        "nczarr,s3,file",
        "nczarr,zip,file",
        "nczarr,file",
    ] {
        let u = url(store, modes);
        let Some(peer) = netcdf4_reads(&u) else {
            return;
        };
        let ours = nctk(&["dump", "-h", &u]);
        let err = String::from_utf8_lossy(&ours.stderr);
        if modes.ends_with(",s3") {
            // netCDF-C refuses these (4.9.0: "Malformed URL"; 4.10.1 built
            // without S3: "not turned on"); nctk names the contradiction.
            assert!(!peer, "netCDF-C read {u}");
            assert!(!ours.status.success(), "nctk read {u}");
            assert!(
                err.contains("S3 storage") && err.contains("file://"),
                "{err}"
            );
        } else {
            assert!(peer, "netCDF-C did not read {u}");
            assert!(ours.status.success(), "nctk {u}: {err}");
        }
    }
}
