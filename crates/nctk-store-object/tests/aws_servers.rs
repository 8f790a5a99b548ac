//! Settings resolved by the AWS rules reach a real S3 server (moto), and
//! `connect::cloud` reads a real HTTP server (Python's `http.server`),
//! refusing writes to it. boto3 and the files on disk are the truth.
//!
//! The servers are started by a small helper here until the shared test
//! servers crate lands.

use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use bytes::Bytes;
use nctk_store_object::aws::{resolve_with, AwsEnvironment, S3Target};
use nctk_store_object::connect::{self, Access, CloudService};
use nctk_store_object::{runtime, RemoteError, RemoteOptions};
use nctk_test_support::require;
use object_store::{ObjectStoreExt, PutPayload};

/// A server process on a free loopback port, killed on drop.
struct Server {
    child: Child,
    port: u16,
}

impl Server {
    fn start(program: &str, args: impl Fn(u16) -> Vec<String>) -> Server {
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = Command::new(program)
            .args(args(port))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("{program}: {e}"));
        let server = Server { child, port };
        let start = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                start.elapsed() < Duration::from_secs(30),
                "{program} did not start"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        server
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

const BOTO: &str = r#"
import sys, boto3
endpoint, action, bucket = sys.argv[1], sys.argv[2], sys.argv[3]
s3 = boto3.client("s3", endpoint_url=endpoint, region_name="eu-west-3",
                  aws_access_key_id="x", aws_secret_access_key="x")
if action == "create":
    s3.create_bucket(Bucket=bucket, CreateBucketConfiguration={"LocationConstraint": "eu-west-3"})
else:
    print(s3.get_object(Bucket=bucket, Key=sys.argv[4])["Body"].read().decode())
"#;

fn boto(endpoint: &str, args: &[&str]) -> String {
    let out = Command::new("python3")
        .args(["-c", BOTO, endpoint])
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

/// A profile in a temporary HOME names moto as its `endpoint_url`, its
/// keys and its region; an `s3://` target resolved with it writes an
/// object that boto3 reads back from moto.
#[test]
fn resolved_profile_reaches_moto() {
    if !require::tools(&["moto_server"]) || !require::python(&["boto3"]) {
        return;
    }
    let moto = Server::start("moto_server", |p| {
        vec!["-H".into(), "127.0.0.1".into(), "-p".into(), p.to_string()]
    });
    let endpoint = format!("http://127.0.0.1:{}", moto.port);
    boto(&endpoint, &["create", "nctk-aws"]);

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
        boto(&endpoint, &["get", "nctk-aws", "ds/.zgroup"]),
        "{\"zarr_format\": 2}"
    );
}

/// A plain HTTP server is a read-only store: reads give the files' bytes,
/// a missing key is "not found", and asking to write is refused.
#[test]
fn plain_http_is_read_only() {
    if !require::python(&[]) {
        return;
    }
    let root = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(root.path().join("pub/ds.zarr")).unwrap();
    std::fs::write(
        root.path().join("pub/ds.zarr/.zgroup"),
        b"{\"zarr_format\":2}",
    )
    .unwrap();
    let dir = root.path().display().to_string();
    let http = Server::start("python3", |p| {
        vec![
            "-m".into(),
            "http.server".into(),
            "--bind".into(),
            "127.0.0.1".into(),
            "--directory".into(),
            dir.clone(),
            p.to_string(),
        ]
    });
    let url = format!("http://127.0.0.1:{}/pub/ds.zarr/", http.port);
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
