//! What a server saw: its requests and the body bytes it sent.

use std::sync::Mutex;

use hyper::header::{HeaderName, AUTHORIZATION, HOST, RANGE};
use hyper::Request;

/// One request as a server received it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Seen {
    /// The method (`GET`, `HEAD`, `PUT`, ...).
    pub method: String,
    /// The path, percent-encoded as sent.
    pub path: String,
    /// The query string, without the `?`, when there was one.
    pub query: Option<String>,
    /// The `Range` header's value, when there was one.
    pub range: Option<String>,
    /// The `Host` header's value, when there was one.
    pub host: Option<String>,
    /// The `Authorization` header's value (an S3 request's signature,
    /// naming the access key), when there was one.
    pub authorization: Option<String>,
    /// The `x-amz-security-token` header's value (a temporary
    /// credential's session token), when there was one.
    pub security_token: Option<String>,
}

impl Seen {
    /// The path with its `%XX` escapes decoded (an object's key, as a
    /// client that escapes `/` and `.` sent it); `None` when an escape is
    /// broken or the bytes are not UTF-8.
    pub fn decoded_path(&self) -> Option<String> {
        crate::s3::decode(&self.path)
    }
}

/// A server's counts since it started (or since its last `reset_stats`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// The requests received, in order of arrival.
    pub seen: Vec<Seen>,
    /// The response body bytes sent (what a client was given, cut bodies
    /// counting what was sent before the cut).
    pub bytes_sent: u64,
}

impl Stats {
    /// How many requests were received.
    pub fn requests(&self) -> usize {
        self.seen.len()
    }

    /// The `Range` headers of the requests that had one, in order.
    pub fn ranges(&self) -> Vec<&str> {
        self.seen
            .iter()
            .filter_map(|s| s.range.as_deref())
            .collect()
    }
}

/// A request header's value, lossily as text.
fn header<B>(req: &Request<B>, name: HeaderName) -> Option<String> {
    req.headers()
        .get(name)
        .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
}

/// The thread-safe recorder behind a server's [`Stats`].
#[derive(Debug, Default)]
pub(crate) struct Recorder(Mutex<Stats>);

impl Recorder {
    fn lock(&self) -> std::sync::MutexGuard<'_, Stats> {
        crate::lock(&self.0)
    }

    /// Notes a request's arrival.
    pub(crate) fn request<B>(&self, req: &Request<B>) {
        let seen = Seen {
            method: req.method().to_string(),
            path: req.uri().path().to_owned(),
            query: req.uri().query().map(str::to_owned),
            range: header(req, RANGE),
            host: header(req, HOST),
            authorization: header(req, AUTHORIZATION),
            security_token: header(req, HeaderName::from_static("x-amz-security-token")),
        };
        self.lock().seen.push(seen);
    }

    /// Adds `n` body bytes sent.
    pub(crate) fn add_bytes(&self, n: u64) {
        self.lock().bytes_sent += n;
    }

    /// A copy of the counts.
    pub(crate) fn snapshot(&self) -> Stats {
        self.lock().clone()
    }

    /// Forgets every count.
    pub(crate) fn reset(&self) {
        *self.lock() = Stats::default();
    }
}
