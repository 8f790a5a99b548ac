//! Settings resolved by the AWS rules reach a real S3 server (moto: the
//! object is read back from it), and `connect::cloud` reads a plain HTTP
//! server (the tests' range server over a directory), refusing writes to it.

#![cfg(feature = "connect")]

use bytes::Bytes;
use nctk_store_object::aws::{resolve_with, AwsEnvironment, S3Target};
use nctk_store_object::connect::{self, Access, CloudService};
use nctk_store_object::{runtime, RemoteError, RemoteOptions};
use nctk_test_servers::{Behaviour, RangeFileServer};
use object_store::{ObjectStoreExt, PutPayload};

/// A profile in a temporary HOME names moto as its `endpoint_url`, its
/// keys and its region; an `s3://` target resolved with it writes an
/// object that moto then serves.
#[test]
fn resolved_profile_reaches_moto() {
    let Some(moto) = nctk_test_servers::moto() else {
        return;
    };
    let endpoint = moto.endpoint();
    moto.create_bucket("nctk-aws").unwrap();

    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir(home.path().join(".aws")).unwrap();
    std::fs::write(
        home.path().join(".aws/config"),
        format!("[profile moto]\nregion = eu-west-3\nendpoint_url = {endpoint}\n"),
    )
    .unwrap();
    std::fs::write(
        home.path().join(".aws/credentials"),
        "[moto]\naws_access_key_id = AKIDMOTO\naws_secret_access_key = secret\n",
    )
    .unwrap();
    let env = AwsEnvironment::load(
        [("HOME".to_string(), home.path().display().to_string())],
        home.path(),
    )
    .unwrap();
    let target = S3Target {
        endpoint: None,
        bucket: "nctk-aws".into(),
        key: "ds".into(),
        virtual_hosted: false,
        region: None,
        profile: Some("moto".into()),
    };
    let settings = resolve_with(&target, &env).unwrap();
    assert_eq!(settings.endpoint.as_deref(), Some(endpoint.as_str()));
    assert_eq!(settings.region, "eu-west-3");
    let url = "s3://nctk-aws/ds#mode=zarr&aws.profile=moto";
    let store = connect::s3(&settings, &RemoteOptions::default(), url).unwrap();
    runtime::block_on(async move {
        store
            .put(
                &"ds/.zgroup".into(),
                PutPayload::from(Bytes::from_static(b"{\"zarr_format\": 2}")),
            )
            .await
    })
    .unwrap();
    assert_eq!(
        moto.get_object("nctk-aws", "ds/.zgroup")
            .unwrap()
            .as_deref(),
        Some(&b"{\"zarr_format\": 2}"[..])
    );
}

/// A plain HTTP server is a read-only store: reads give the files' bytes,
/// a missing key is "not found", and asking to write is refused.
#[test]
fn plain_http_is_read_only() {
    let root = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(root.path().join("pub/ds.zarr")).unwrap();
    std::fs::write(
        root.path().join("pub/ds.zarr/.zgroup"),
        b"{\"zarr_format\":2}",
    )
    .unwrap();
    let http = RangeFileServer::start_dir(root.path(), Behaviour::Honest).unwrap();
    let url = format!("{}/", http.url("pub/ds.zarr"));
    assert_eq!(connect::cloud_service(&url), Some(CloudService::Http));
    let options = RemoteOptions::default();
    let remote = connect::cloud(&url, Access::Read, &options).unwrap();
    let (store, path) = (remote.store().clone(), remote.path(".zgroup"));
    let got = runtime::block_on(async move { store.get(&path).await?.bytes().await }).unwrap();
    assert_eq!(
        &got[..],
        std::fs::read(root.path().join("pub/ds.zarr/.zgroup")).unwrap()
    );
    let (store, path) = (remote.store().clone(), remote.path("missing/.zarray"));
    let err = runtime::block_on(async move { store.get(&path).await }).unwrap_err();
    assert!(RemoteError::from_object_store(remote.key_url("missing/.zarray"), err).is_not_found());

    let e = connect::cloud(&url, Access::Write, &options)
        .unwrap_err()
        .to_string();
    assert!(e.contains("read-only") && e.contains(&url), "{e}");
}
