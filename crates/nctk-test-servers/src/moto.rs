//! [`MotoServer`]: moto's S3 server, started on a free loopback port and
//! driven with plain unsigned HTTP requests.

use std::io::{Read, Seek};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::BodyExt;
use hyper::{Method, Request, StatusCode};

use crate::error::{Error, Result};
use crate::http::{self, HttpClient};
use crate::runtime::Background;
use crate::s3;

/// The program started.
const PROGRAM: &str = "moto_server";

/// How long moto may take to answer its first request.
const READY_WITHIN: Duration = Duration::from_secs(60);

/// How long one request to moto may take.
const REQUEST_WITHIN: Duration = Duration::from_secs(120);

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
    child: Child,
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

impl MotoServer {
    /// Starts `moto_server -H 127.0.0.1 -p PORT` on a free port and waits
    /// (a bounded time) until it answers.
    pub fn start() -> Result<Self> {
        let driver = Driver {
            runtime: Background::new("moto-client")?,
            client: http::client(),
        };
        // The port is free when chosen, but another process may take it
        // before moto binds it: then moto exits, and another is tried.
        let mut attempts = 3;
        loop {
            attempts -= 1;
            let port = free_port()?;
            let command = format!("{PROGRAM} -H 127.0.0.1 -p {port}");
            let log = tempfile::tempfile().map_err(Error::io("creating moto's log file"))?;
            let output = || {
                log.try_clone()
                    .map(Stdio::from)
                    .map_err(Error::io("sharing moto's log file"))
            };
            let mut child = Command::new(PROGRAM)
                .args(["-H", "127.0.0.1", "-p", &port.to_string()])
                .stdin(Stdio::null())
                .stdout(output()?)
                .stderr(output()?)
                .spawn()
                .map_err(|source| Error::Spawn {
                    command: command.clone(),
                    source,
                })?;
            let endpoint = format!("http://127.0.0.1:{port}");
            let Err(reason) = driver.wait_ready(&mut child, &endpoint) else {
                return Ok(Self {
                    child,
                    endpoint,
                    driver,
                });
            };
            let exited = child.try_wait().ok().flatten().is_some();
            stop(&mut child);
            if !exited || attempts == 0 {
                return Err(Error::NotReady {
                    command,
                    reason,
                    log: read_log(log),
                });
            }
        }
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
        if !local_dir.is_dir() {
            return Err(Error::NotADirectory(local_dir.to_owned()));
        }
        let files = nctk_test_support::corpus::files_under(local_dir, |_| true);
        let mut jobs = vec![];
        for file in &files {
            let relative = file.strip_prefix(local_dir).expect("listed under it");
            let relative: Vec<_> = relative
                .components()
                .map(|c| c.as_os_str().to_string_lossy())
                .collect();
            let relative = relative.join("/");
            let key = match prefix.trim_end_matches('/') {
                "" => relative,
                prefix => format!("{prefix}/{relative}"),
            };
            let bytes =
                std::fs::read(file).map_err(Error::io(format!("reading {}", file.display())))?;
            jobs.push((self.url(bucket, &key), Bytes::from(bytes)));
        }
        for batch in jobs.chunks(UPLOADS_AT_ONCE) {
            let puts = batch.iter().map(|(url, bytes)| {
                self.driver
                    .spawn(Method::PUT, url.clone(), &[], bytes.clone())
            });
            let puts: Vec<_> = puts.collect();
            for (put, (url, _)) in puts.into_iter().zip(batch) {
                check_ok(
                    Method::PUT,
                    url,
                    put.recv().expect("the request task answers")?,
                )?;
            }
        }
        Ok(files.len())
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
        let mut keys = vec![];
        let mut token: Option<String> = None;
        loop {
            let mut url = format!(
                "{}?list-type=2&prefix={}",
                self.url(bucket, ""),
                s3::encode(prefix, b"")
            );
            if let Some(token) = &token {
                url.push_str(&format!("&continuation-token={}", s3::encode(token, b"")));
            }
            let body = self.expect_ok(Method::GET, url.clone(), &[], Bytes::new())?;
            let page = std::str::from_utf8(&body)
                .map_err(|e| e.to_string())
                .and_then(s3::parse_list_page)
                .map_err(|reason| Error::Malformed {
                    url: url.clone(),
                    reason,
                })?;
            keys.extend(page.keys);
            match page.next {
                Some(next) if token.as_ref() == Some(&next) => {
                    return Err(Error::Malformed {
                        url,
                        reason: format!("the continuation token {next:?} repeats"),
                    })
                }
                Some(next) => token = Some(next),
                None => return Ok(keys),
            }
        }
    }

    /// Sends a request and checks that it succeeded; the response body.
    fn expect_ok(
        &self,
        method: Method,
        url: String,
        headers: &[(&str, &str)],
        body: Bytes,
    ) -> Result<Bytes> {
        let answer = self
            .driver
            .send(method.clone(), url.clone(), headers, body)?;
        check_ok(method, &url, answer)
    }
}

impl Drop for MotoServer {
    fn drop(&mut self) {
        stop(&mut self.child);
    }
}

/// Kills and reaps `child`.
fn stop(child: &mut Child) {
    let _ = child.kill();
    let _ = child.wait();
}

/// A port of `127.0.0.1` free now.
fn free_port() -> Result<u16> {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .map_err(Error::io("finding a free port on 127.0.0.1"))
}

/// The end of what a server wrote to its log file.
fn read_log(mut log: std::fs::File) -> String {
    const TAIL: usize = 4000;
    let mut text = String::new();
    let _ = log.rewind().and_then(|()| log.read_to_string(&mut text));
    match text.char_indices().rev().nth(TAIL) {
        Some((at, _)) => format!("...{}", &text[at..]),
        None => text,
    }
}

/// `answer`'s body when its status is a success, else an error naming the
/// request.
fn check_ok(method: Method, url: &str, (status, body): (StatusCode, Bytes)) -> Result<Bytes> {
    if status.is_success() {
        return Ok(body);
    }
    Err(Error::Status {
        method: method.to_string(),
        url: url.to_owned(),
        status: status.as_u16(),
        body: String::from_utf8_lossy(&body).into_owned(),
    })
}

/// Sends requests on a runtime of its own and waits for their answers.
struct Driver {
    runtime: Background,
    client: HttpClient,
}

/// What a request gave: its status and whole body.
type Answer = Result<(StatusCode, Bytes)>;

impl Driver {
    /// Starts a request; its answer comes on the channel.
    fn spawn(
        &self,
        method: Method,
        url: String,
        headers: &[(&str, &str)],
        body: Bytes,
    ) -> std::sync::mpsc::Receiver<Answer> {
        let mut request = Request::builder()
            .method(method.clone())
            .uri(&url)
            .header("authorization", OWNER)
            .header("content-type", "application/octet-stream");
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let client = self.client.clone();
        let (tx, rx) = std::sync::mpsc::channel();
        let fail = move |reason: String| Error::Request {
            method: method.to_string(),
            url,
            reason,
        };
        self.runtime.handle().spawn(async move {
            let exchange = async {
                let request = request.body(http::full(body)).map_err(|e| e.to_string())?;
                let response = client.request(request).await.map_err(|e| e.to_string())?;
                let status = response.status();
                let body = response
                    .into_body()
                    .collect()
                    .await
                    .map_err(|e| e.to_string())?;
                Ok((status, body.to_bytes()))
            };
            let answer = match tokio::time::timeout(REQUEST_WITHIN, exchange).await {
                Ok(Ok(answer)) => Ok(answer),
                Ok(Err(reason)) => Err(fail(reason)),
                Err(_) => Err(fail(format!(
                    "no answer within {}s",
                    REQUEST_WITHIN.as_secs()
                ))),
            };
            let _ = tx.send(answer);
        });
        rx
    }

    /// Sends a request and waits for its answer.
    fn send(&self, method: Method, url: String, headers: &[(&str, &str)], body: Bytes) -> Answer {
        self.spawn(method, url, headers, body)
            .recv()
            .expect("the request task answers")
    }

    /// Waits until the server at `endpoint` answers `GET /`; why not, when
    /// `child` exits first or the wait runs out.
    fn wait_ready(&self, child: &mut Child, endpoint: &str) -> Result<(), String> {
        let deadline = Instant::now() + READY_WITHIN;
        loop {
            if let Ok(Some(status)) = child.try_wait() {
                return Err(format!("exited ({status}) before answering"));
            }
            if self
                .send(Method::GET, format!("{endpoint}/"), &[], Bytes::new())
                .is_ok()
            {
                return Ok(());
            }
            if Instant::now() >= deadline {
                return Err(format!("did not answer within {}s", READY_WITHIN.as_secs()));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}
