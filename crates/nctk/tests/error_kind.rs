//! `Error::kind()` and `CopyError::kind()` on real failures, each checked
//! against what the operating system or netCDF-C says of the same input.

use std::error::Error as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use nctk::model::{DataType, Selection, SourceError};
use nctk::{ErrorKind, Format};
use nctk_test_servers::{Behaviour, Fault};
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
    let dir = tempfile::tempdir().unwrap();
    let Some(store) = copy_store(
        "generated/other-writers/zarr-python-v2/codecs.zarr",
        dir.path(),
    ) else {
        return;
    };
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
    let Some((s3, proxy)) = nctk_test_servers::moto_behind_proxy() else {
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

    let url = format!("{}/kinds/d#mode=zarr,s3", proxy.endpoint());
    nctk::open(&url).expect("the store opens through the proxy");
    let cases = [
        (Fault::Forbidden, ErrorKind::PermissionDenied),
        (Fault::Status(401), ErrorKind::PermissionDenied),
        (Fault::Status(503), ErrorKind::Io),
    ];
    each_fault_has_its_kind(
        &proxy,
        &url,
        cases,
        &format!("{}/kinds/d", proxy.endpoint()),
    );
}

/// Opens `url` with each fault on every request through `proxy`: the
/// error has the fault's kind and names `names`.
fn each_fault_has_its_kind(
    proxy: &nctk_test_servers::FaultProxy,
    url: &str,
    cases: impl IntoIterator<Item = (Fault, ErrorKind)>,
    names: &str,
) {
    for (fault, kind) in cases {
        proxy.fail_next(usize::MAX, fault);
        let err = nctk::open(url).unwrap_err();
        assert_eq!(err.kind(), kind, "{fault:?}: {err}");
        assert!(err.to_string().contains(names), "{fault:?}: {err}");
        proxy.clear_faults();
    }
}

/// Whether `T` is in `err`'s source chain, itself or carried in a
/// `SourceError` (whose inner error is not a link of the chain).
fn carries<T: std::error::Error + 'static>(err: &(dyn std::error::Error + 'static)) -> bool {
    let mut chain = Some(err);
    while let Some(e) = chain {
        let inner = e
            .downcast_ref::<SourceError>()
            .map(|s| s.get_ref().is::<T>());
        if e.is::<T>() || inner == Some(true) {
            return true;
        }
        chain = e.source();
    }
    false
}

/// The first failure opening `target` and reading each variable whole:
/// its kind and its text. Panics when everything reads.
fn failure(target: &str) -> (ErrorKind, String, Box<dyn std::error::Error + Send + Sync>) {
    let ds = match nctk::open(target) {
        Ok(ds) => ds,
        Err(e) => return (e.kind(), e.to_string(), Box::new(e)),
    };
    let source = ds.source();
    let schema = source.schema();
    for var in schema.var_ids() {
        if let Err(e) = source.read(var, &Selection::all(&schema.shape(var))) {
            return (e.kind(), e.to_string(), Box::new(e));
        }
    }
    panic!("{target} opens and every variable reads");
}

/// A copy of the corpus store `name` under `dir`.
fn copy_store(name: &str, dir: &Path) -> Option<PathBuf> {
    let src = require::corpus_path(name)?;
    let store = dir.join(src.file_name().unwrap());
    for entry in nctk_test_support::corpus::files_under(&src, |_| true) {
        let to = store.join(entry.strip_prefix(&src).unwrap());
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(&entry, &to).unwrap();
    }
    Some(store)
}

/// `bytes` with `with` written at `at`.
fn patched(mut bytes: Vec<u8>, at: usize, with: &[u8]) -> Vec<u8> {
    bytes[at..at + with.len()].copy_from_slice(with);
    bytes
}

/// ncdump refuses `target` too (when it is installed).
fn ncdump_refuses(target: &str) {
    if require::tools(&["ncdump"]) {
        let (ok, stderr) = peer("ncdump", &[target]);
        assert!(!ok, "ncdump reads {target}: {stderr}");
    }
}

/// A damaged input of every format nctk reads is invalid data, and the
/// format's own error is carried to the caller.
#[test]
fn a_damaged_input_of_every_format_is_invalid_data() {
    let Some(nc4) = require::corpus_path("netcdf-c/nc_test/f03tst_open_mem.nc") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let at = |name: &str| dir.path().join(name).to_str().unwrap().to_string();

    // HDF5: the superblock's root object header address (a version 0
    // superblock: offset 64) points past the end of the file.
    let bytes = std::fs::read(&nc4).unwrap();
    assert_eq!(
        &bytes[..9],
        b"\x89HDF\r\n\x1a\n\x00",
        "a version 0 superblock"
    );
    let hdf5 = at("superblock.nc");
    std::fs::write(&hdf5, patched(bytes, 64, &(1u64 << 40).to_le_bytes())).unwrap();
    ncdump_refuses(&hdf5);
    let (kind, text, err) = failure(&hdf5);
    assert_eq!(kind, ErrorKind::InvalidData, "{text}");
    assert!(carries::<nctk_hdf5::netcdf4::Nc4Error>(&*err), "{err:?}");

    // Zarr: a `.zarray` that is not JSON.
    let zarr = copy_store(CLASSIC.replace(".nc3.nc", ".zarr").as_str(), dir.path()).unwrap();
    std::fs::write(
        zarr.join("data/.zarray"),
        b"{\"zarr_format\": 2, \"shape\": [",
    )
    .unwrap();
    let (kind, text, err) = failure(zarr.to_str().unwrap());
    assert_eq!(kind, ErrorKind::InvalidData, "{text}");
    assert!(carries::<nctk_zarr::ZarrError>(&*err), "{err:?}");

    // NCZarr: the root group's `_NCZARR_GROUP` dimensions are no object.
    let nczarr = copy_store(CLASSIC.replace(".nc3.nc", ".nczarr").as_str(), dir.path()).unwrap();
    let zgroup = std::fs::read_to_string(nczarr.join(".zgroup")).unwrap();
    let bad = zgroup.replace("\"dims\": {\"x\": 6, \"y\": 12}", "\"dims\": 7");
    assert_ne!(bad, zgroup);
    std::fs::write(nczarr.join(".zgroup"), bad).unwrap();
    let url = format!("file://{}#mode=nczarr,file", nczarr.display());
    ncdump_refuses(&url);
    let (kind, text, _) = failure(&url);
    assert_eq!(kind, ErrorKind::InvalidData, "{text}");

    // Block-compressed classic: a byte of the last block flipped (its
    // CRC-32 no longer matches).
    let classic = require::corpus_path(CLASSIC).unwrap();
    let compressed = at("c.ncz");
    nctk::compress_classic(&classic, &compressed, &Default::default()).unwrap();
    let mut bytes = std::fs::read(&compressed).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x55;
    std::fs::write(&compressed, bytes).unwrap();
    let (kind, text, err) = failure(&compressed);
    assert_eq!(kind, ErrorKind::InvalidData, "{text}");
    assert!(
        carries::<nctk_classic::compressed::CompressedError>(&*err),
        "{err:?}"
    );

    // ncstream: a header answer cut in half.
    let stream = require::corpus_path("generated/ncstream/siphon/nc4_chararray/00.ncs").unwrap();
    let bytes = std::fs::read(stream).unwrap();
    let cut = at("cut.ncs");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let (kind, text, err) = failure(&cut);
    assert_eq!(kind, ErrorKind::InvalidData, "{text}");
    assert!(carries::<nctk_ncstream::NcStreamError>(&*err), "{err:?}");

    // A zip store whose central directory's first entry has lost its
    // signature.
    let zip =
        require::corpus_path("generated/other-writers/zarr-python-v2/nested_groups.zip").unwrap();
    let bytes = std::fs::read(zip).unwrap();
    let central = bytes.windows(4).position(|w| w == b"PK\x01\x02").unwrap();
    let bad_zip = at("bad.zip");
    std::fs::write(&bad_zip, patched(bytes, central, b"XX\x01\x02")).unwrap();
    let (kind, text, err) = failure(&bad_zip);
    assert_eq!(kind, ErrorKind::InvalidData, "{text}");
    assert!(carries::<nctk_store::kv::StoreError>(&*err), "{err:?}");
}

/// A codec nctk does not know is unsupported, where the chunk is read.
#[test]
fn an_unknown_codec_is_unsupported() {
    let dir = tempfile::tempdir().unwrap();
    let Some(zarr) = copy_store(&CLASSIC.replace(".nc3.nc", ".zarr"), dir.path()) else {
        return;
    };
    let zarray = std::fs::read_to_string(zarr.join("data/.zarray")).unwrap();
    let unknown = zarray.replace(
        "\"compressor\": null",
        "\"compressor\": {\"id\": \"nosuch\"}",
    );
    assert_ne!(unknown, zarray);
    std::fs::write(zarr.join("data/.zarray"), unknown).unwrap();
    let (kind, text, _) = failure(zarr.to_str().unwrap());
    assert_eq!(kind, ErrorKind::Unsupported, "{text}");
}

/// A `#mode=bytes` file on an HTTP server: a 404 is "not found", a 403
/// "permission denied", a 500 that outlasts the retries and a server that
/// is not there are I/O.
#[test]
fn http_failures_have_the_kind_of_their_status() {
    s3_environment();
    let server = nctk_test_servers::RangeFileServer::start(Behaviour::Honest).unwrap();
    let err = nctk::open(format!("{}#mode=bytes", server.url("absent.nc"))).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NotFound, "{err}");
    server.add_blob(
        "a.nc",
        &b"CDF\x01\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0"[..],
    );
    let proxy = nctk_test_servers::FaultProxy::start(&server.endpoint()).unwrap();
    let url = format!("{}/a.nc#mode=bytes", proxy.endpoint());
    nctk::open(&url).expect("the file opens through the proxy");
    each_fault_has_its_kind(
        &proxy,
        &url,
        [
            (Fault::Forbidden, ErrorKind::PermissionDenied),
            (Fault::Status(500), ErrorKind::Io),
        ],
        &format!("{}/a.nc", proxy.endpoint()),
    );
    let err = nctk::open("http://127.0.0.1:1/a.nc#mode=bytes").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Io, "{err}");
}

/// A cdmremote server's answer has the kind of its status (404, 403, 500);
/// a server that is not there is I/O; a 200 that is no ncstream is invalid
/// data.
#[test]
fn cdmremote_failures_have_the_kind_of_their_status() {
    s3_environment();
    let server = nctk_test_servers::RangeFileServer::start(Behaviour::Honest).unwrap();
    let err = nctk::open(format!("cdmremote:{}", server.url("absent.nc"))).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NotFound, "{err}");
    let proxy = nctk_test_servers::FaultProxy::start(&server.endpoint()).unwrap();
    let url = format!("cdmremote:{}/d.nc", proxy.endpoint());
    each_fault_has_its_kind(
        &proxy,
        &url,
        [
            (Fault::Forbidden, ErrorKind::PermissionDenied),
            (Fault::Status(500), ErrorKind::Io),
            (
                Fault::Respond {
                    status: 200,
                    content_type: "application/octet-stream",
                    body: "not an ncstream",
                },
                ErrorKind::InvalidData,
            ),
        ],
        &proxy.endpoint(),
    );
    let err = nctk::open("cdmremote:http://127.0.0.1:1/cdmremote/x.nc").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Io, "{err}");
}

/// The variable that runs a test in a child process of its own (for
/// settings read from the environment, which the other tests share).
const CHILD: &str = "NCTK_ERROR_KIND_CHILD";

/// An AWS config file with a line that is no INI is invalid data (the file
/// breaks its format), named by its path and line; a profile defined
/// nowhere is invalid input (a setting the user gave).
#[test]
fn a_malformed_aws_config_file_is_invalid_data() {
    if std::env::var_os(CHILD).is_none() {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("config");
        std::fs::write(
            &config,
            "[default]\nregion = us-east-1\nthis line is no setting\n",
        )
        .unwrap();
        let out = Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "a_malformed_aws_config_file_is_invalid_data"])
            .env(CHILD, "1")
            .env("HOME", dir.path())
            .env("AWS_CONFIG_FILE", &config)
            .env(
                "AWS_SHARED_CREDENTIALS_FILE",
                dir.path().join("credentials"),
            )
            .env_remove("AWS_PROFILE")
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success() && text.contains("1 passed"), "{text}");
        return;
    }
    let config = std::env::var("AWS_CONFIG_FILE").unwrap();
    let err = nctk::open("s3://bucket/d.zarr#mode=zarr,s3").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidData, "{err}");
    assert!(err.to_string().contains(&format!("{config}:3")), "{err}");
    std::fs::write(&config, "[default]\nregion = us-east-1\n").unwrap();
    let err = nctk::open("s3://bucket/d.zarr#mode=zarr,s3&aws.profile=nosuch").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput, "{err}");
}
