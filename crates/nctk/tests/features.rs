//! What each build of the facade opens: local classic files and Zarr
//! stores always; netCDF-4/HDF5 files with `hdf5`, ncstreams with
//! `ncstream`, object stores and `#mode=bytes` with `cloud`, cdmremote
//! servers with `cdmremote`. A build without a feature answers a target
//! that needs it with an `Unsupported` error naming the feature, never
//! "unknown format". CI runs this test in the default build, with no
//! default features, and with each feature alone.

use std::path::{Path, PathBuf};

use nctk::{ErrorKind, Format};

/// A path to a repository sample.
fn sample(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../samples")
        .join(name)
}

/// Asserts that `result` is what a build with (`built`) or without the
/// feature `feature` gives for `target`.
fn check(target: &str, feature: &str, built: bool, result: Result<nctk::Dataset, nctk::Error>) {
    match result {
        Ok(_) => assert!(built, "{target}: opened without the `{feature}` feature"),
        Err(e) if !built => {
            assert_eq!(e.kind(), ErrorKind::Unsupported, "{target}: {e}");
            let text = e.to_string();
            assert!(
                text.contains(&format!("`{feature}` feature")) && text.contains(target),
                "{target}: the error names the feature and the target: {text}"
            );
        }
        Err(e) => assert_ne!(
            e.kind(),
            ErrorKind::Unsupported,
            "{target}: built with `{feature}`, yet: {e}"
        ),
    }
}

#[test]
fn every_build_reads_local_classic_files_and_zarr_stores() {
    let dir = tempfile::tempdir().unwrap();
    for (name, format) in [("c.nc", Format::Classic), ("z.zarr", Format::Netcdf4)] {
        let path = dir.path().join(name);
        let mut def = nctk::create(&path, format).unwrap();
        let x = def.add_dimension("x", 3).unwrap();
        def.add_variable::<i32>("v", &[x]).unwrap();
        let mut ds = def.end_define().unwrap();
        ds.put_values("v", .., &[1, 2, 3]).unwrap();
        ds.close().unwrap();
        let back: Vec<i32> = nctk::open(&path)
            .unwrap()
            .variable("v")
            .unwrap()
            .get_values(..)
            .unwrap();
        assert_eq!(back, [1, 2, 3], "{name}");
    }
}

#[test]
fn hdf5_files_need_the_hdf5_feature() {
    let path = sample("enhanced.nc");
    let target = path.display().to_string();
    let built = cfg!(feature = "hdf5");
    check(&target, "hdf5", built, nctk::open(&path));
    let bytes = std::fs::read(&path).unwrap();
    check("<memory>", "hdf5", built, nctk::open_mem(bytes));
    let kind = nctk::kind(&path);
    assert_eq!(kind.is_ok(), built, "{kind:?}");
}

#[test]
fn ncstreams_need_the_ncstream_feature() {
    // The first bytes of a stream, netCDF-Java's MAGIC_START: enough to be
    // recognised; with the feature the reader then finds it incomplete.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.ncs");
    std::fs::write(&path, b"CDFS\0\0\0\0").unwrap();
    let target = path.display().to_string();
    check(
        &target,
        "ncstream",
        cfg!(feature = "ncstream"),
        nctk::open(&path),
    );
    // Writing one needs it too.
    let created = nctk::create(&path, Format::Classic).and_then(|d| d.end_define());
    if cfg!(feature = "ncstream") {
        created.unwrap().close().unwrap();
    } else {
        let e = created.unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Unsupported, "{e}");
        assert!(e.to_string().contains("`ncstream` feature"), "{e}");
    }
}

#[test]
fn remote_targets_need_the_cloud_feature() {
    // A port nothing listens on: with the feature, a failed request.
    let built = cfg!(feature = "cloud");
    for target in [
        "http://127.0.0.1:9/x.nc#mode=bytes",
        "http://127.0.0.1:9/bucket/x.zarr#mode=nczarr,s3",
    ] {
        check(target, "cloud", built, open_once(target));
    }
}

/// Opens `target` making each request once (no retries of a refused
/// connection).
fn open_once(target: &str) -> Result<nctk::Dataset, nctk::Error> {
    #[cfg(feature = "cloud")]
    {
        let mut remote = nctk::RemoteOptions::default();
        remote.retry.max_retries = 0;
        nctk::open_with(target, nctk::OpenOptions::new().remote(remote))
    }
    #[cfg(not(feature = "cloud"))]
    nctk::open(target)
}

#[test]
fn cdmremote_servers_need_the_cdmremote_feature() {
    let target = "cdmremote:http://127.0.0.1:9/thredds/cdmremote/x.nc";
    check(
        target,
        "cdmremote",
        cfg!(feature = "cdmremote"),
        open_once(target),
    );
}
