//! `object_store`'s own chain, given the variables nctk's rules leave to
//! it: with `AWS_CONTAINER_CREDENTIALS_FULL_URI` and
//! `AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE` set (EKS Pod Identity), the
//! settings resolved from this process's environment are the chain's, and
//! the store signs moto's requests with the credentials that endpoint
//! gives (the access key and session token seen by the fault proxy in
//! front of moto). One test in its own binary: it sets process variables.

#![cfg(feature = "connect")]

#[path = "support/listener.rs"]
mod listener;
use listener::{credentials, Listener, Request};

use std::time::Duration;

use bytes::Bytes;
use nctk_store_object::aws::{resolve, S3Target};
use nctk_store_object::{connect, runtime, RemoteOptions, S3Credentials};
use nctk_test_servers::moto_behind_proxy;
use object_store::{ObjectStoreExt, PutPayload};

/// The bearer token the pod's token file holds.
const POD_TOKEN: &str = "pod-identity-token";

/// The pod's credentials endpoint: credentials for the bearer of the
/// token only.
fn pod_identity(request: &Request, _: usize) -> (u16, String) {
    match (request.path.as_str(), request.header("authorization")) {
        ("/v1/credentials", Some(POD_TOKEN)) => (
            200,
            credentials("ASIAPOD", "pod-session", Duration::from_secs(3600)),
        ),
        _ => (401, String::new()),
    }
}

#[test]
fn container_credentials_reach_moto_through_the_chain() {
    let Some((moto, proxy)) = moto_behind_proxy() else {
        return;
    };
    moto.create_bucket("pod").unwrap();
    let pod = Listener::start(Some(pod_identity));
    let home = tempfile::tempdir().unwrap();
    let token_file = home.path().join("token");
    std::fs::write(&token_file, POD_TOKEN).unwrap();
    for (k, _) in std::env::vars_os() {
        if k.to_string_lossy().starts_with("AWS_") {
            std::env::remove_var(k);
        }
    }
    std::env::set_var("HOME", home.path());
    std::env::set_var("NCRCENV_IGNORE", "1");
    std::env::set_var(
        "AWS_CONTAINER_CREDENTIALS_FULL_URI",
        format!("{}/v1/credentials", pod.endpoint()),
    );
    std::env::set_var("AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE", &token_file);

    let target = S3Target {
        endpoint: Some(proxy.endpoint()),
        bucket: "pod".into(),
        key: "ds".into(),
        virtual_hosted: false,
        region: None,
        profile: None,
    };
    let settings = resolve(&target).unwrap();
    assert_eq!(settings.credentials, S3Credentials::Chain);
    let store = connect::s3(&settings, &RemoteOptions::default(), "s3://pod/ds").unwrap();
    let body = b"{\"zarr_format\": 2}";
    runtime::block_on(async move {
        store
            .put(
                &"ds/.zgroup".into(),
                PutPayload::from(Bytes::from_static(body)),
            )
            .await
    })
    .unwrap();
    assert_eq!(
        moto.get_object("pod", "ds/.zgroup").unwrap().as_deref(),
        Some(&body[..])
    );
    assert_eq!(pod.requests(), ["GET /v1/credentials"]);
    let seen = proxy.stats().seen;
    assert_eq!(seen.len(), 1, "{seen:?}");
    let signature = seen[0].authorization.as_deref().unwrap_or_default();
    assert!(signature.contains("Credential=ASIAPOD/"), "{signature}");
    assert_eq!(seen[0].security_token.as_deref(), Some("pod-session"));
}
