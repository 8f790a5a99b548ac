//! `nctk` on NCZarr / Zarr stores in Azure Blob Storage, against Azurite
//! (`npm install -g azurite`) configured as a user configures
//! `object_store` for it (`AZURE_STORAGE_USE_EMULATOR`,
//! `AZURITE_BLOB_STORAGE_URL`): copies of classic files to Azure (NCZarr
//! and pure Zarr) are read by zarr-python through adlfs with the values
//! netCDF4-python reads from the source; every Azure URL form nctk
//! documents (`az://`, `azure://`, `adl://`, `abfs[s]://container@account
//! .dfs.core.windows.net/`, `https://account.blob.core.windows.net/`)
//! names the same store; Azure to Azure and Azure to disk copies dump as
//! their source; a store zarr-python puts there through adlfs dumps as it
//! does from disk; a copy that fails leaves nothing; through the fault
//! proxy, a 403 and a chunk that keeps failing with 503 are errors naming
//! the URL and key, never fill values. One Azurite serves every check (a
//! single test, run in order).

use nctk_test_servers::{azurite, AzuriteServer, Fault, FaultProxy};
use nctk_test_support::require;

mod common;
use common::{nctk, nctk_ok};

/// A dump without its first line (which names the dataset).
fn body(dump: &str) -> String {
    dump.split_once('\n')
        .map_or_else(String::new, |(_, b)| b.to_string())
}

/// Points `object_store` (in this process's environment, which the `nctk`
/// runs inherit) at `az`, with its development account.
fn configure(az: &AzuriteServer) {
    std::env::set_var("AZURE_STORAGE_USE_EMULATOR", "true");
    std::env::set_var("AZURITE_BLOB_STORAGE_URL", az.endpoint());
}

/// The store `key` of `container` as an `az://` URL with `mode`.
fn url(container: &str, key: &str, mode: &str) -> String {
    format!("az://{container}/{key}#mode={mode}")
}

/// Reads every numeric variable of each classic file with netCDF4-python
/// and of its copy on Azure with zarr-python through adlfs, and checks
/// the values are identical; prints how many were compared.
const COMPARE: &str = r#"
import sys, json, numpy as np, netCDF4, zarr
so = {"connection_string": sys.argv[1]}
checked = 0
for case in json.loads(sys.argv[2]):
    src = netCDF4.Dataset(case["local"])
    src.set_auto_maskandscale(False)
    store = zarr.storage.FsspecStore.from_url("abfs://" + case["key"], storage_options=so, read_only=True)
    g = zarr.open_group(store=store, mode="r", zarr_format=2)
    for name, v in src.variables.items():
        if v.dtype.kind not in "iuf":
            continue
        want = np.asarray(v[...])
        got = np.asarray(g[name][...]).reshape(want.shape)
        assert got.dtype == want.dtype, (case, name, got.dtype, want.dtype)
        assert np.array_equal(got, want, equal_nan=want.dtype.kind == "f"), (case, name)
        checked += 1
print(checked)
"#;

/// Puts the local directory `sys.argv[2]` under `sys.argv[3]`
/// (`container/key`) through adlfs, as zarr-python's users upload a store.
const PUT: &str = r#"
import sys, adlfs
fs = adlfs.AzureBlobFileSystem(connection_string=sys.argv[1])
fs.put(sys.argv[2], sys.argv[3], recursive=True)
"#;

#[test]
fn azure_stores_round_trip_and_are_read_by_zarr_python() {
    let Some(root) = require::corpus() else {
        return;
    };
    let Some(az) = azurite() else { return };
    configure(&az);
    for container in ["copies", "forms", "moves", "theirs", "fails"] {
        az.create_container(container).unwrap();
    }
    let classic = |rel: &str| {
        let p = root.join(rel);
        assert!(p.exists(), "{}", p.display());
        p.display().to_string()
    };
    let pres = classic("generated/from-cdl/netcdf-c/examples/CDL/pres_temp_4D.nc3.nc");
    let sfc = classic("generated/from-cdl/netcdf-c/examples/CDL/sfc_pres_temp.nc3.nc");
    let bears = classic("xarray/xarray/tests/data/bears.nc");

    // Copies to Azure, read by zarr-python through adlfs.
    let mut cases = vec![];
    for (n, local) in [&pres, &sfc, &bears].into_iter().enumerate() {
        for mode in ["nczarr", "zarr"] {
            let key = format!("c{n}/{mode}.zarr");
            nctk_ok(&["copy", local, &url("copies", &key, mode)]);
            cases.push(serde_json::json!({"local": local, "key": format!("copies/{key}")}));
        }
    }
    let cases = serde_json::Value::Array(cases).to_string();
    let connection = az.connection_string();
    if let Some(checked) = require::python_output(
        &["netCDF4", "zarr", "adlfs"],
        COMPARE,
        [&connection, &cases],
    ) {
        let checked: usize = checked.trim().parse().expect("a count");
        assert!(checked >= 10, "{checked} variables compared");
    }

    // Every URL form names the same store.
    let want = body(&nctk_ok(&["dump", &pres]));
    nctk_ok(&["copy", &pres, &url("forms", "p/s.zarr", "nczarr")]);
    let account = nctk_test_servers::AzuriteServer::ACCOUNT;
    for form in [
        "az://forms/p/s.zarr".to_string(),
        "azure://forms/p/s.zarr".to_string(),
        "adl://forms/p/s.zarr".to_string(),
        format!("abfs://forms@{account}.dfs.core.windows.net/p/s.zarr"),
        format!("abfss://forms@{account}.dfs.core.windows.net/p/s.zarr"),
        format!("https://{account}.blob.core.windows.net/forms/p/s.zarr"),
    ] {
        let dump = nctk_ok(&["dump", &format!("{form}#mode=nczarr")]);
        assert_eq!(body(&dump), want, "{form}");
    }

    // Azure to Azure, and Azure to disk.
    let first = url("moves", "a/first.zarr", "nczarr");
    let second = url("moves", "b/second.zarr", "zarr");
    nctk_ok(&["copy", &sfc, &first]);
    nctk_ok(&["copy", &first, &second]);
    let want = body(&nctk_ok(&["dump", &sfc]));
    let dir = tempfile::tempdir().unwrap();
    let back = dir.path().join("back.nc").display().to_string();
    nctk_ok(&["copy", "-k", "cdf5", &first, &back]);
    assert_eq!(body(&nctk_ok(&["dump", &back])), want, "Azure to disk");
    let local_zarr = dir.path().join("second.zarr");
    let local_zarr_text = local_zarr.display().to_string();
    nctk_ok(&["copy", &sfc, &format!("file://{local_zarr_text}#mode=zarr")]);
    assert_eq!(
        body(&nctk_ok(&["dump", &second])),
        body(&nctk_ok(&[
            "dump",
            &format!("file://{local_zarr_text}#mode=zarr")
        ])),
        "Azure to Azure (pure Zarr) as the same copy on disk"
    );

    // A store zarr-python wrote, put on Azure through adlfs, dumps as it
    // does from disk.
    let theirs = root.join("generated/other-writers/zarr-python-v2/codecs.zarr");
    assert!(theirs.is_dir(), "{}", theirs.display());
    let theirs_text = theirs.display().to_string();
    let uploaded = require::python_output(
        &["adlfs"],
        PUT,
        [&connection, &theirs_text, "theirs/codecs.zarr"],
    )
    .is_some();
    if uploaded {
        assert_eq!(
            body(&nctk_ok(&["dump", &url("theirs", "codecs.zarr", "zarr")])),
            body(&nctk_ok(&[
                "dump",
                &format!("file://{theirs_text}#mode=zarr")
            ])),
            "zarr-python's store from Azure"
        );
    }

    // Faults, on zarr-python's store.
    if uploaded {
        faults_are_named(&az);
    }

    // A copy that fails part-way (a corrupt chunk) leaves nothing.
    let broken = dir.path().join("broken.zarr");
    let broken_text = broken.display().to_string();
    nctk_ok(&[
        "copy",
        "-d",
        "1",
        "-c",
        "temperature:1,1,6,12",
        &pres,
        &broken_text,
    ]);
    std::fs::write(broken.join("temperature/1.1.0.0"), b"not zlib").unwrap();
    let out = url("fails", "x/out.zarr", "nczarr");
    assert!(!nctk(&["copy", &broken_text, &out]).status.success());
    assert_eq!(az.list_keys("fails", "x/").unwrap(), Vec::<String>::new());
    nctk_ok(&["copy", &pres, &out]);
    assert!(!az.list_keys("fails", "x/").unwrap().is_empty());
    assert!(!nctk(&["copy", &broken_text, &out]).status.success());
    assert_eq!(
        az.list_keys("fails", "x/").unwrap(),
        Vec::<String>::new(),
        "a failed copy over a store leaves nothing"
    );
}

/// Through the fault proxy in front of `az` (retries as the environment
/// sets them): a 403 and a chunk whose GET keeps failing stop a dump of
/// zarr-python's store (put there before) with an error naming the store
/// and key; what was printed is a prefix of the dump.
fn faults_are_named(az: &AzuriteServer) {
    let proxy = FaultProxy::start(&az.endpoint()).unwrap();
    let store = url("theirs", "codecs.zarr", "zarr");
    let whole = body(&nctk_ok(&["dump", &store]));
    let through_proxy = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_nctk"))
            .args(args)
            .env("AZURITE_BLOB_STORAGE_URL", proxy.endpoint())
            .env("NCTK_S3_MAX_RETRIES", "1")
            .env("NCTK_S3_RETRY_TIMEOUT", "2")
            .output()
            .expect("run nctk")
    };
    let failed_naming = |out: &std::process::Output, names: &[&str]| {
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "exit 0; stderr {stderr}");
        for name in names {
            assert!(stderr.contains(name), "{name} not in: {stderr}");
        }
        let printed = body(&String::from_utf8_lossy(&out.stdout));
        assert!(whole.starts_with(&printed), "printed what is not there");
        assert!(printed.len() < whole.len(), "the whole dump was printed");
    };
    proxy.fail_next(usize::MAX, Fault::Forbidden);
    let out = through_proxy(&["dump", &store]);
    failed_naming(&out, &["az://theirs/codecs.zarr", "access denied"]);
    proxy.clear_faults();
    proxy.fail_next_matching("/zlib/1.2", usize::MAX, Fault::Status(503));
    let out = through_proxy(&["dump", &store]);
    failed_naming(&out, &["az://theirs/codecs.zarr", "zlib/1.2"]);
}
