//! A server program run as a child process on a free port of `127.0.0.1`
//! ([`ServerProcess`]: killed and reaped when dropped), and the
//! [`Driver`] the servers' helpers send plain HTTP requests with.

use std::io::{Read, Seek};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::BodyExt;
use hyper::{Method, Request, StatusCode};

use crate::error::{Error, Result};
use crate::http::{self, HttpClient};
use crate::runtime::Background;

/// How long a server may take to answer its first request.
const READY_WITHIN: Duration = Duration::from_secs(60);

/// How long one request to a server may take.
const REQUEST_WITHIN: Duration = Duration::from_secs(120);

/// A server started by [`ServerProcess::start`]; killed when dropped.
pub(crate) struct ServerProcess {
    child: Child,
    port: u16,
}

impl ServerProcess {
    /// Starts `program` with the arguments `args(port)` for a free port
    /// and waits (a bounded time) until `GET {probe(port)}` gets any
    /// answer from it through `driver`. The port is free when chosen, but
    /// another process may take it first: then the server exits, and
    /// another port is tried (three in all).
    pub(crate) fn start(
        program: &str,
        args: impl Fn(u16) -> Vec<String>,
        probe: impl Fn(u16) -> String,
        driver: &Driver,
    ) -> Result<Self> {
        let mut attempts = 3;
        loop {
            attempts -= 1;
            let port = free_port()?;
            let args = args(port);
            let command = format!("{program} {}", args.join(" "));
            let log = tempfile::tempfile().map_err(Error::io("creating a server's log file"))?;
            let output = || {
                log.try_clone()
                    .map(Stdio::from)
                    .map_err(Error::io("sharing a server's log file"))
            };
            let mut child = Command::new(program)
                .args(&args)
                .stdin(Stdio::null())
                .stdout(output()?)
                .stderr(output()?)
                .spawn()
                .map_err(|source| Error::Spawn {
                    command: command.clone(),
                    source,
                })?;
            let Err(reason) = driver.wait_ready(&mut child, &probe(port)) else {
                return Ok(Self { child, port });
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

    /// The port the server listens on.
    pub(crate) fn port(&self) -> u16 {
        self.port
    }
}

impl Drop for ServerProcess {
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
pub(crate) fn check_ok(
    method: Method,
    url: &str,
    (status, body): (StatusCode, Bytes),
) -> Result<Bytes> {
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

/// Sends requests on a runtime of its own and waits for their answers,
/// each with the same `Authorization` header (when one is given).
pub(crate) struct Driver {
    runtime: Background,
    client: HttpClient,
    authorization: Option<&'static str>,
}

/// What a request gave: its status and whole body.
pub(crate) type Answer = Result<(StatusCode, Bytes)>;

impl Driver {
    /// A driver on a runtime named `name`, sending `authorization`.
    pub(crate) fn new(name: &str, authorization: Option<&'static str>) -> Result<Self> {
        Ok(Self {
            runtime: Background::new(name)?,
            client: http::client(),
            authorization,
        })
    }

    /// Starts a request; its answer comes on the channel.
    pub(crate) fn spawn(
        &self,
        method: Method,
        url: String,
        headers: &[(&str, &str)],
        body: Bytes,
    ) -> std::sync::mpsc::Receiver<Answer> {
        let mut request = Request::builder().method(method.clone()).uri(&url);
        if let Some(authorization) = self.authorization {
            request = request.header("authorization", authorization);
        }
        if !headers
            .iter()
            .any(|(n, _)| n.eq_ignore_ascii_case("content-type"))
        {
            request = request.header("content-type", "application/octet-stream");
        }
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
    pub(crate) fn send(
        &self,
        method: Method,
        url: String,
        headers: &[(&str, &str)],
        body: Bytes,
    ) -> Answer {
        self.spawn(method, url, headers, body)
            .recv()
            .expect("the request task answers")
    }

    /// Sends a request and checks that it succeeded; the response body.
    pub(crate) fn expect_ok(
        &self,
        method: Method,
        url: String,
        headers: &[(&str, &str)],
        body: Bytes,
    ) -> Result<Bytes> {
        let answer = self.send(method.clone(), url.clone(), headers, body)?;
        check_ok(method, &url, answer)
    }

    /// Sends the requests `(method, url, body)` at most `at_once` at a time
    /// and checks that each succeeded.
    pub(crate) fn expect_all_ok(
        &self,
        requests: Vec<(Method, String, Bytes)>,
        at_once: usize,
    ) -> Result<()> {
        for batch in requests.chunks(at_once.max(1)) {
            let sent: Vec<_> = batch
                .iter()
                .map(|(method, url, body)| {
                    self.spawn(method.clone(), url.clone(), &[], body.clone())
                })
                .collect();
            for (answer, (method, url, _)) in sent.into_iter().zip(batch) {
                let answer = answer.recv().expect("the request task answers")?;
                check_ok(method.clone(), url, answer)?;
            }
        }
        Ok(())
    }

    /// Waits until `GET url` gets an answer; why not, when `child` exits
    /// first or the wait runs out.
    fn wait_ready(&self, child: &mut Child, url: &str) -> Result<(), String> {
        let deadline = Instant::now() + READY_WITHIN;
        loop {
            if let Ok(Some(status)) = child.try_wait() {
                return Err(format!("exited ({status}) before answering"));
            }
            if self
                .send(Method::GET, url.to_string(), &[], Bytes::new())
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
