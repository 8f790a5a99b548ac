//! `Error::kind()` and `CopyError::kind()` on real failures, each checked
//! against what the operating system or netCDF-C says of the same input.

use std::error::Error as _;
use std::process::Command;

use nctk::model::{DataType, SourceError};
use nctk::{ErrorKind, Format};
use nctk_test_support::require;

const CLASSIC: &str = "generated/from-cdl/netcdf-c/examples/CDL/simple_xy.nc3.nc";

/// Runs a netCDF-C tool; its exit status and stderr.
fn peer(program: &str, args: &[&str]) -> (bool, String) {
    let out = Command::new(program).args(args).output().unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_missing_file_is_not_found() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("absent.nc");
    let os = std::fs::File::open(&path).unwrap_err();
    assert_eq!(os.kind(), std::io::ErrorKind::NotFound);
    let err = nctk::open(&path).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NotFound, "{err}");
    let url = format!("file://{}#mode=nczarr,file", path.display());
    let err = nctk::open(&url).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NotFound, "{err}");
}

#[test]
fn a_truncated_classic_file_is_invalid_data_as_netcdf_c_finds_it() {
    let Some(src) = require::corpus_path(CLASSIC) else {
        return;
    };
    let bytes = std::fs::read(&src).unwrap();
    let dir = tempfile::tempdir().unwrap();
    // Cut inside the variable list, where netCDF-C stops ("Invalid
    // argument"); it reads shorter cuts that end between whole lists.
    const CUT: usize = 70;
    let cut = dir.path().join("cut.nc");
    std::fs::write(&cut, &bytes[..CUT]).unwrap();
    if require::tools(&["ncdump"]) {
        let (ok, stderr) = peer("ncdump", &["-h", cut.to_str().unwrap()]);
        assert!(!ok, "ncdump reads the truncated file: {stderr}");
    }
    let err = nctk::open(&cut).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidData, "{err}");
    // The same bytes in memory, and the classic error kept as the source
    // (carried with its kind in a `SourceError`).
    let err = nctk::open_mem(bytes[..CUT].to_vec()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidData, "{err}");
    assert!(
        err.source()
            .and_then(|s| s.downcast_ref::<SourceError>())
            .is_some_and(|s| s.get_ref().is::<nctk_classic::ClassicError>()),
        "{err:?}"
    );
}

/// Debian's netCDF-C 4.9.0 is built without S3 (nctk reads and writes S3
/// stores: `tests/s3_stores.rs`), so it is no peer for them.
#[test]
fn netcdf_c_4_9_is_built_without_s3() {
    let url = "s3://bucket/data.zarr#mode=nczarr,s3";
    if require::tools(&["ncdump"]) {
        let (ok, stderr) = peer("ncdump", &["-h", url]);
        assert!(!ok && stderr.contains("not turned on"), "{stderr}");
    }
}

#[test]
fn a_value_out_of_range_on_write_is_invalid_input() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("b.nc");
    let mut def = nctk::create(&path, Format::Classic).unwrap();
    let x = def.add_dimension("x", 2).unwrap();
    def.add_variable_of_type("b", DataType::Byte, &[x]).unwrap();
    let mut ds = def.end_define().unwrap();
    // netCDF-C's NC_ERANGE: 300 is not a signed byte (i8 says the same).
    assert!(i8::try_from(300i32).is_err());
    let err = ds.put_values("b", .., &[1i32, 300]).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput, "{err}");
}

#[test]
fn a_corrupt_zarr_chunk_is_invalid_data_with_the_codec_error_as_source() {
    let Some(src) = require::corpus_path("generated/other-writers/zarr-python-v2/codecs.zarr")
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("codecs.zarr");
    for entry in nctk_test_support::corpus::files_under(&src, |_| true) {
        let to = store.join(entry.strip_prefix(&src).unwrap());
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(&entry, &to).unwrap();
    }
    std::fs::write(store.join("zlib/0.0"), b"not a zlib stream").unwrap();
    if require::python(&["zarr"]) {
        let script = "import sys, zarr\ntry:\n    zarr.open(sys.argv[1], mode='r')['zlib'][:]\nexcept Exception:\n    print('failed')\nelse:\n    print('read')";
        let out = nctk_test_support::peer::python(script, [&store]).unwrap();
        assert_eq!(out.trim(), "failed", "zarr-python reads the corrupt chunk");
    }
    let ds = nctk::open(&store).unwrap();
    let err = ds
        .variable("zlib")
        .unwrap()
        .get_values::<i32>(..)
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidData, "{err}");
    let mut chain = Some(&err as &(dyn std::error::Error + 'static));
    let mut codec = false;
    while let Some(e) = chain {
        codec |= e.is::<nctk_codec::CodecError>();
        chain = e.source();
    }
    assert!(codec, "no CodecError in the source chain of {err:?}");
}

/// Puts what the door reads for S3 in this process's environment, before
/// any S3 test opens a URL: a key pair (moto takes any) and few, quick
/// retries (`NCTK_S3_MAX_RETRIES`, `NCTK_S3_RETRY_TIMEOUT`).
fn s3_environment() {
    static SET: std::sync::Once = std::sync::Once::new();
    SET.call_once(|| {
        std::env::set_var("AWS_ACCESS_KEY_ID", "test");
        std::env::set_var("AWS_SECRET_ACCESS_KEY", "test");
        std::env::remove_var("AWS_PROFILE");
        std::env::set_var("NCTK_S3_MAX_RETRIES", "1");
        std::env::set_var("NCTK_S3_RETRY_TIMEOUT", "2");
    });
}

/// A 404 from the server is "not found" (moto's own answer for the key is
/// the truth); a 403 and a 401 are "permission denied"; a 503 that
/// outlasts the retries is I/O (transient), naming the URL.
#[test]
fn remote_failures_have_the_kind_of_their_http_status() {
    let Some(s3) = nctk_test_servers::moto() else {
        return;
    };
    s3_environment();
    s3.create_bucket("kinds").unwrap();
    s3.put_object("kinds", "d/.zgroup", &b"{\"zarr_format\": 2}"[..], false)
        .unwrap();
    assert_eq!(s3.get_object("kinds", "absent.nc").unwrap(), None);
    let absent = format!("{}/kinds/absent.nc#mode=bytes,s3", s3.endpoint());
    let err = nctk::open(&absent).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NotFound, "{err}");

    let proxy = nctk_test_servers::FaultProxy::start(&s3.endpoint()).unwrap();
    let url = format!("{}/kinds/d#mode=zarr,s3", proxy.endpoint());
    nctk::open(&url).expect("the store opens through the proxy");
    let cases = [
        (
            nctk_test_servers::Fault::Forbidden,
            ErrorKind::PermissionDenied,
        ),
        (
            nctk_test_servers::Fault::Status(401),
            ErrorKind::PermissionDenied,
        ),
        (nctk_test_servers::Fault::Status(503), ErrorKind::Io),
    ];
    for (fault, kind) in cases {
        proxy.fail_next(usize::MAX, fault);
        let err = nctk::open(&url).unwrap_err();
        assert_eq!(err.kind(), kind, "{fault:?}: {err}");
        assert!(
            err.to_string()
                .contains(&format!("{}/kinds/d", proxy.endpoint())),
            "{err}"
        );
        proxy.clear_faults();
    }
}
