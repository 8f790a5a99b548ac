//! [`MotoServer`]: moto's S3 server, started on a free loopback port and
//! driven with plain unsigned HTTP requests.

use std::path::Path;

use bytes::Bytes;
use hyper::{Method, StatusCode};

use crate::error::Result;
use crate::process::{check_ok, Driver, ServerProcess};
use crate::proxy::FaultProxy;
use crate::s3;

/// The program started.
const PROGRAM: &str = "moto_server";

/// What the helpers send as `Authorization`: the form of a SigV4
/// signature, which moto does not check.
const OWNER: &str = "AWS4-HMAC-SHA256 Credential=nctk-test/20260101/us-east-1/s3/aws4_request, \
                     SignedHeaders=host, Signature=00";

/// Objects uploaded at once by [`MotoServer::upload_dir`].
const UPLOADS_AT_ONCE: usize = 8;

/// A `moto_server` (`pip install 'moto[server]'`) on a free port of
/// `127.0.0.1`: an S3 server that takes any key and secret, or none.
/// Killed (and reaped) when dropped.
///
/// The helpers send path-style requests with an `Authorization` header
/// that is not a real signature: moto does not verify signatures, and
/// takes such requests as the buckets' owner's (a request without the
/// header is anonymous, and reads only public objects).
///
/// ```no_run
/// let Some(moto) = nctk_test_servers::moto() else { return };
/// moto.create_bucket("data").unwrap();
/// moto.put_object("data", "a/b.nc", b"CDF\x01".to_vec(), true).unwrap();
/// assert_eq!(moto.list_keys("data", "a/").unwrap(), ["a/b.nc"]);
/// let url = format!("{}/data/a/b.nc", moto.endpoint());
/// # let _ = url;
/// ```
pub struct MotoServer {
    // Dropped first: the server stops before the driver's runtime.
    _process: ServerProcess,
    endpoint: String,
    driver: Driver,
}

/// A started [`MotoServer`], or `None` after a visible `SKIPPED` line when
/// `moto_server` is not installed (a failure under CI, as
/// [`nctk_test_support::require`] says). A `moto_server` that is installed
/// but does not start fails the test.
#[track_caller]
pub fn moto() -> Option<MotoServer> {
    if !nctk_test_support::require::moto_server() {
        return None;
    }
    Some(MotoServer::start().unwrap_or_else(|e| panic!("{e}")))
}

/// [`moto()`] behind a [`FaultProxy`] on a free port of `127.0.0.1`: a
/// client given the proxy's [`FaultProxy::endpoint`] reaches moto through
/// it, each request seen there or answered with a fault, while the
/// server's own helpers ([`MotoServer::create_bucket`], ...) go to moto
/// directly. `None` after a visible `SKIPPED` line when `moto_server` is
/// not installed, as [`moto()`]; a server or proxy that does not start
/// fails the test.
#[track_caller]
pub fn moto_behind_proxy() -> Option<(MotoServer, FaultProxy)> {
    let moto = moto()?;
    let proxy = FaultProxy::start(&moto.endpoint()).unwrap_or_else(|e| panic!("{e}"));
    Some((moto, proxy))
}

impl MotoServer {
    /// Starts `moto_server -H 127.0.0.1 -p PORT` on a free port and waits
    /// (a bounded time) until it answers.
    pub fn start() -> Result<Self> {
        let driver = Driver::new("moto-client", Some(OWNER))?;
        let process = ServerProcess::start(
            PROGRAM,
            |port| {
                vec![
                    "-H".into(),
                    "127.0.0.1".into(),
                    "-p".into(),
                    port.to_string(),
                ]
            },
            |port| format!("http://127.0.0.1:{port}/"),
            &driver,
        )?;
        Ok(Self {
            endpoint: format!("http://127.0.0.1:{}", process.port()),
            _process: process,
            driver,
        })
    }

    /// `http://127.0.0.1:PORT`.
    pub fn endpoint(&self) -> String {
        self.endpoint.clone()
    }

    /// The URL of `key` in `bucket` (path style), or of the bucket when
    /// `key` is empty.
    pub fn url(&self, bucket: &str, key: &str) -> String {
        let bucket = s3::encode(bucket, b"");
        match key {
            "" => format!("{}/{bucket}", self.endpoint),
            key => format!("{}/{bucket}/{}", self.endpoint, s3::encode(key, b"/")),
        }
    }

    /// Creates `bucket` (an existing bucket of ours is kept).
    pub fn create_bucket(&self, bucket: &str) -> Result<()> {
        self.expect_ok(Method::PUT, self.url(bucket, ""), &[], Bytes::new())
            .map(drop)
    }

    /// Stores `bytes` as `key` in `bucket`, readable without credentials
    /// (`x-amz-acl: public-read`, so served to plain HTTP `GET`s) when
    /// `public_read`.
    pub fn put_object(
        &self,
        bucket: &str,
        key: &str,
        bytes: impl Into<Bytes>,
        public_read: bool,
    ) -> Result<()> {
        let acl: &[_] = if public_read {
            &[("x-amz-acl", "public-read")]
        } else {
            &[]
        };
        self.expect_ok(Method::PUT, self.url(bucket, key), acl, bytes.into())
            .map(drop)
    }

    /// Uploads every file under `local_dir` (a corpus store, say) to
    /// `bucket`, key by key: `prefix/relative/path` (`relative/path` when
    /// `prefix` is empty), `/`-separated; the number of objects.
    pub fn upload_dir(&self, bucket: &str, prefix: &str, local_dir: &Path) -> Result<usize> {
        let files = crate::files_to_upload(local_dir, prefix)?;
        let count = files.len();
        let puts = files
            .into_iter()
            .map(|(key, bytes)| (Method::PUT, self.url(bucket, &key), bytes))
            .collect();
        self.driver.expect_all_ok(puts, UPLOADS_AT_ONCE)?;
        Ok(count)
    }

    /// `key`'s bytes, or `None` when `bucket` has no such key (404).
    pub fn get_object(&self, bucket: &str, key: &str) -> Result<Option<Vec<u8>>> {
        let url = self.url(bucket, key);
        let (status, body) = self
            .driver
            .send(Method::GET, url.clone(), &[], Bytes::new())?;
        if status == StatusCode::NOT_FOUND {
            return Ok(None);
        }
        check_ok(Method::GET, &url, (status, body)).map(|b| Some(b.to_vec()))
    }

    /// Every key of `bucket` that starts with `prefix`, in S3's order
    /// (`ListObjectsV2`, following continuation tokens).
    pub fn list_keys(&self, bucket: &str, prefix: &str) -> Result<Vec<String>> {
        s3::list_keys(&self.driver, &self.url(bucket, ""), prefix)
    }

    /// Sends a request and checks that it succeeded; the response body.
    fn expect_ok(
        &self,
        method: Method,
        url: String,
        headers: &[(&str, &str)],
        body: Bytes,
    ) -> Result<Bytes> {
        self.driver.expect_ok(method, url, headers, body)
    }
}
