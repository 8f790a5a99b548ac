//! The EC2 instance metadata service as the S3 store's credentials
//! (`connect::imds`), against real sockets on loopback: a closed port and
//! a listener that never answers give the no-credentials error within the
//! short timeout, asked once; a small IMDSv2 server's credentials sign the
//! requests moto receives (seen through the fault proxy), and are kept
//! until shortly before they expire; a server that is not AWS's never
//! asks the service.

#![cfg(feature = "connect")]

#[path = "support/listener.rs"]
mod listener;
use listener::{closed_port, credentials, Listener, Request};

use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use nctk_model::{ErrorKind, HasErrorKind};
use nctk_store_object::aws::{resolve_with, AwsConfigError, AwsEnvironment, S3Target};
use nctk_store_object::connect::imds::{InstanceMetadataProvider, TIMEOUT};
use nctk_store_object::{connect, runtime, RemoteError, RemoteOptions, S3Credentials, S3Settings};
use nctk_test_servers::moto_behind_proxy;
use object_store::{CredentialProvider, ObjectStoreExt, PutPayload};

/// The session token the test service hands out.
const SESSION_TOKEN: &str = "imds-session-token";

/// The role the test service has attached.
const ROLE: &str = "nctk-test-role";

/// The IMDSv2 rules around `role`, the role's own answers: a token needs
/// its life; everything else needs the token.
fn imds(request: &Request, n: usize, role: fn(&str, usize) -> (u16, String)) -> (u16, String) {
    match (request.method.as_str(), request.path.as_str()) {
        ("PUT", "/latest/api/token") => {
            match request.header("x-aws-ec2-metadata-token-ttl-seconds") {
                Some(_) => (200, SESSION_TOKEN.to_string()),
                None => (400, String::new()),
            }
        }
        _ if request.header("x-aws-ec2-metadata-token") != Some(SESSION_TOKEN) => {
            (401, String::new())
        }
        (_, path) => role(path, n.div_ceil(3)),
    }
}

/// The credentials of the `exchange`th exchange (from 1) for `path`,
/// expiring after `life`.
fn role(path: &str, exchange: usize, life: Duration) -> (u16, String) {
    match path.strip_prefix("/latest/meta-data/iam/security-credentials/") {
        Some("") => (200, format!("{ROLE}\n")),
        Some(ROLE) => (
            200,
            credentials(&format!("ASIAIMDS{exchange}"), SESSION_TOKEN, life),
        ),
        _ => (404, String::new()),
    }
}

/// A role whose credentials last an hour.
fn an_hour(request: &Request, n: usize) -> (u16, String) {
    imds(request, n, |path, e| {
        role(path, e, Duration::from_secs(3600))
    })
}

/// A role whose credentials last four seconds.
fn four_seconds(request: &Request, n: usize) -> (u16, String) {
    imds(request, n, |path, e| role(path, e, Duration::from_secs(4)))
}

/// No role attached: what the service answers then (404).
fn no_role(request: &Request, n: usize) -> (u16, String) {
    imds(request, n, |_, _| (404, String::new()))
}

/// Credentials that are not JSON.
fn garbled(request: &Request, n: usize) -> (u16, String) {
    imds(request, n, |path, _| match path.ends_with(ROLE) {
        true => (200, "<Error>not JSON</Error>".to_string()),
        false => (200, ROLE.to_string()),
    })
}

/// The three requests of one exchange.
fn exchange() -> Vec<String> {
    vec![
        "PUT /latest/api/token".to_string(),
        "GET /latest/meta-data/iam/security-credentials/".to_string(),
        format!("GET /latest/meta-data/iam/security-credentials/{ROLE}"),
    ]
}

/// Settings for `bucket` at `s3_endpoint`, credentials from the service
/// at `metadata`.
fn settings(s3_endpoint: String, bucket: &str, metadata: &str) -> S3Settings {
    S3Settings {
        bucket: bucket.into(),
        region: "us-east-1".into(),
        endpoint: Some(s3_endpoint),
        virtual_hosted: false,
        credentials: S3Credentials::InstanceMetadata {
            endpoint: metadata.into(),
            profile: "default".into(),
            files: vec!["/home/u/.aws/config".into()],
        },
    }
}

/// A GET of `key` through a store whose credentials come from the service
/// at `metadata`, its error, and how long it took.
fn failed_get(metadata: &str) -> (RemoteError, Duration) {
    let url = "s3://b/k";
    let store = connect::s3(
        &settings(closed_port(), "b", metadata),
        &RemoteOptions::default(),
        url,
    )
    .unwrap();
    let started = Instant::now();
    let e = runtime::block_on(async move { store.get(&"k".into()).await.map(|_| ()) }).unwrap_err();
    (RemoteError::from_object_store(url, e), started.elapsed())
}

/// The error says no credentials were found, where the service was and why
/// it gave none, and how to give them; it is of the permission kind.
fn assert_no_credentials(e: &RemoteError, metadata: &str, why: &str) {
    assert!(
        matches!(e, RemoteError::NoCredentials { source, .. }
            if matches!(**source, AwsConfigError::NoCredentials { .. })),
        "{e:?}"
    );
    assert_eq!(e.kind(), ErrorKind::PermissionDenied);
    let text = e.to_string();
    for part in [
        "s3://b/k: no AWS credentials",
        "AWS_ACCESS_KEY_ID",
        "/home/u/.aws/config",
        &format!("the EC2 instance metadata service at {metadata} gave none"),
        why,
        "AWS_PROFILE",
        "aws.profile=none",
    ] {
        assert!(text.contains(part), "{part:?} missing from: {text}");
    }
}

/// Nothing listens at the service's address: the error at once.
#[test]
fn closed_port_is_no_credentials_at_once() {
    let metadata = closed_port();
    let (e, took) = failed_get(&metadata);
    assert_no_credentials(&e, &metadata, "onnect");
    assert!(took < Duration::from_millis(1500), "took {took:?}");
}

/// A listener that accepts and never answers: the error within the
/// overall timeout, after one connection (no retries); later requests
/// fail the same way without asking again.
#[test]
fn silent_service_is_asked_once_within_the_timeout() {
    let silent = Listener::start(None);
    let metadata = silent.endpoint();
    let (e, took) = failed_get(&metadata);
    assert_no_credentials(&e, &metadata, "no answer within 2 s");
    assert!(
        took >= TIMEOUT - Duration::from_millis(100) && took < TIMEOUT + Duration::from_secs(1),
        "took {took:?}"
    );
    assert_eq!(silent.connections(), 1);

    // The same store again: the same error at once, not asked again.
    let url = "s3://b/k";
    let store = connect::s3(
        &settings(closed_port(), "b", &metadata),
        &RemoteOptions::default(),
        url,
    )
    .unwrap();
    let started = Instant::now();
    let errors = runtime::block_on(async move {
        let first = store.get(&"k".into()).await.map(|_| ()).unwrap_err();
        let second = store.head(&"k".into()).await.map(|_| ()).unwrap_err();
        (first, second)
    });
    assert!(started.elapsed() < TIMEOUT + Duration::from_secs(1));
    for e in [errors.0, errors.1] {
        assert_no_credentials(
            &RemoteError::from_object_store(url, e),
            &metadata,
            "no answer",
        );
    }
    assert_eq!(
        silent.connections(),
        2,
        "one more store, one more connection"
    );
}

/// A service with no role attached: the error names the answer.
#[test]
fn no_role_is_no_credentials() {
    let service = Listener::start(Some(no_role));
    let (e, _) = failed_get(&service.endpoint());
    assert_no_credentials(&e, &service.endpoint(), "HTTP 404");
    assert_eq!(service.requests()[..2], exchange()[..2]);
}

/// The service's credentials sign the requests moto receives (the access
/// key in the signature, the session token in its header, as the proxy in
/// front of moto sees them); one exchange serves every request.
#[test]
fn service_credentials_reach_moto() {
    let Some((moto, proxy)) = moto_behind_proxy() else {
        return;
    };
    moto.create_bucket("imds").unwrap();
    let service = Listener::start(Some(an_hour));
    let url = "s3://imds/ds";
    let store = connect::s3(
        &settings(proxy.endpoint(), "imds", &service.endpoint()),
        &RemoteOptions::default(),
        url,
    )
    .unwrap();
    let body = b"{\"zarr_format\": 2}";
    let got = runtime::block_on(async move {
        store
            .put(
                &"ds/.zgroup".into(),
                PutPayload::from(Bytes::from_static(body)),
            )
            .await?;
        store.get(&"ds/.zgroup".into()).await?.bytes().await
    })
    .unwrap();
    assert_eq!(&got[..], body);
    assert_eq!(
        moto.get_object("imds", "ds/.zgroup").unwrap().as_deref(),
        Some(&body[..])
    );
    assert_eq!(service.requests(), exchange());
    let seen = proxy.stats().seen;
    assert_eq!(seen.len(), 2, "{seen:?}");
    for s in seen {
        let signature = s.authorization.unwrap_or_default();
        assert!(
            signature.contains("Credential=ASIAIMDS1/"),
            "{} {} signed {signature:?}",
            s.method,
            s.path
        );
        assert_eq!(s.security_token.as_deref(), Some(SESSION_TOKEN));
    }
}

/// Credentials are kept until shortly before they expire (at most half
/// their life), then asked for again.
#[test]
fn credentials_are_kept_then_refreshed() {
    let service = Listener::start(Some(four_seconds));
    let provider =
        InstanceMetadataProvider::new(&service.endpoint(), None, "default", &[]).unwrap();
    let provider = Arc::new(provider);
    let key = |p: &Arc<InstanceMetadataProvider>| {
        let p = p.clone();
        runtime::block_on(async move { p.get_credential().await })
            .unwrap()
            .key_id
            .clone()
    };
    assert_eq!(key(&provider), "ASIAIMDS1");
    assert_eq!(key(&provider), "ASIAIMDS1");
    assert_eq!(service.requests(), exchange());
    // Four seconds (less the part second the expiry drops) of life:
    // refreshed after at most two.
    std::thread::sleep(Duration::from_millis(2100));
    assert_eq!(key(&provider), "ASIAIMDS2");
    assert_eq!(service.requests(), [exchange(), exchange()].concat());
}

/// Credentials that do not parse: the no-credentials error naming the
/// role.
#[test]
fn garbled_credentials_are_named() {
    let service = Listener::start(Some(garbled));
    let (e, _) = failed_get(&service.endpoint());
    assert_no_credentials(
        &e,
        &service.endpoint(),
        &format!("the credentials of role \"{ROLE}\" do not parse"),
    );
}

/// A server that is not AWS's never asks the service, even where the
/// service's variable points at a live listener: no credentials is an
/// error before any request.
#[test]
fn another_server_never_asks_the_service() {
    let service = Listener::start(Some(an_hour));
    let home = tempfile::tempdir().unwrap();
    let env = AwsEnvironment::load(
        [
            ("HOME".to_string(), home.path().display().to_string()),
            (
                "AWS_EC2_METADATA_SERVICE_ENDPOINT".to_string(),
                service.endpoint(),
            ),
        ],
        home.path(),
    )
    .unwrap();
    let target = S3Target {
        endpoint: Some("http://127.0.0.1:9000".into()),
        bucket: "b".into(),
        key: "k".into(),
        virtual_hosted: false,
        region: None,
        profile: None,
    };
    let e = resolve_with(&target, &env).unwrap_err();
    assert!(matches!(e, AwsConfigError::NoCredentials { .. }), "{e:?}");
    assert_eq!(service.connections(), 0);
    // The same environment for an AWS host asks it.
    let aws = S3Target {
        endpoint: None,
        ..target
    };
    let settings = resolve_with(&aws, &env).unwrap();
    assert_eq!(
        settings.credentials,
        S3Credentials::InstanceMetadata {
            endpoint: service.endpoint(),
            profile: "default".into(),
            files: vec![
                home.path().join(".aws/config").display().to_string(),
                home.path().join(".aws/credentials").display().to_string(),
            ],
        }
    );
}
