//! [`FaultProxy`]: an HTTP/1.1 reverse proxy that adds latency and
//! injects the faults object stores show.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use hyper::body::Incoming;
use hyper::header::{HeaderMap, HeaderName, CONTENT_LENGTH, CONTENT_TYPE};
use hyper::{Request, Response, StatusCode, Uri};

use crate::error::{Error, Result};
use crate::http::{self, Body, Cut, HttpClient, Metered, ResetFlag};
use crate::lock;
use crate::runtime::Background;
use crate::stats::{Recorder, Stats};

/// A fault the proxy puts in place of a request's answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// This status with an empty body, without asking the upstream
    /// (500, 503, 429, ...; a number that is no status gives 500).
    Status(u16),
    /// 503 with S3's `SlowDown` error document.
    SlowDown,
    /// 403 with S3's `AccessDenied` error document.
    Forbidden,
    /// The upstream's status, headers and about half of its body, then the
    /// connection is reset (RST).
    ResetMidBody,
    /// The upstream's status, headers (the full `Content-Length`) and about
    /// half of its body, then the connection is closed (FIN).
    TruncatedBody,
    /// This status, `Content-Type` and body, without asking the upstream:
    /// malformed XML or JSON where a listing, an error document or a
    /// metadata object is expected (a number that is no status gives 500).
    Respond {
        /// The status.
        status: u16,
        /// The `Content-Type`.
        content_type: &'static str,
        /// The body.
        body: &'static str,
    },
    /// The upstream's status and headers, but `Content-Length: declared`,
    /// and a body of zeros that never ends (the connection carries at most
    /// `declared` bytes of it): an object far larger than its listing said.
    Endless {
        /// The length the answer declares.
        declared: u64,
    },
}

/// A body of zeros without end, of no known length.
struct Zeros;

impl hyper::body::Body for Zeros {
    type Data = Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        self: std::pin::Pin<&mut Self>,
        _: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<std::result::Result<hyper::body::Frame<Bytes>, Self::Error>>> {
        static ZEROS: [u8; 64 << 10] = [0; 64 << 10];
        std::task::Poll::Ready(Some(Ok(hyper::body::Frame::data(Bytes::from_static(
            &ZEROS,
        )))))
    }
}

/// `count` more requests whose path and query contain `pattern` (any
/// request when `None`) get `fault`.
#[derive(Debug)]
struct Rule {
    pattern: Option<String>,
    count: usize,
    fault: Fault,
}

/// The proxy's settings and counts, shared with its connections.
struct Control {
    upstream: Uri,
    client: HttpClient,
    latency: Mutex<Duration>,
    rules: Mutex<VecDeque<Rule>>,
    recorder: Arc<Recorder>,
}

/// An HTTP/1.1 reverse proxy on `127.0.0.1` in front of an `http://`
/// upstream (moto, a [`crate::RangeFileServer`], any S3 server): it
/// forwards each request (method, path, query, headers, `Host` as the
/// client sent it so signatures still verify, bodies streamed both ways)
/// after the latency set, unless a queued [`Fault`] answers instead.
/// Settings change at any time from any thread. Stops when dropped.
///
/// ```no_run
/// use nctk_test_servers::{Fault, FaultProxy};
/// let proxy = FaultProxy::start("http://127.0.0.1:9000").unwrap();
/// proxy.set_latency(std::time::Duration::from_millis(20));
/// proxy.fail_next(2, Fault::SlowDown);
/// proxy.fail_next_matching("/bucket/data/0.0", 1, Fault::ResetMidBody);
/// let endpoint = proxy.endpoint(); // what the client under test is given
/// # let _ = endpoint;
/// ```
pub struct FaultProxy {
    control: Arc<Control>,
    addr: SocketAddr,
    // Last: the runtime (and the listener on it) stops when dropped.
    _runtime: Background,
}

impl FaultProxy {
    /// A proxy on a free port of `127.0.0.1` in front of `upstream`
    /// (`http://host:port`).
    pub fn start(upstream: &str) -> Result<Self> {
        Self::start_on(([127, 0, 0, 1], 0).into(), upstream)
    }

    /// A proxy listening on `listen` in front of `upstream`.
    pub fn start_on(listen: SocketAddr, upstream: &str) -> Result<Self> {
        let upstream: Uri = upstream
            .trim_end_matches('/')
            .parse()
            .ok()
            .filter(|u: &Uri| {
                u.scheme_str() == Some("http")
                    && u.authority().is_some()
                    && matches!(u.path(), "" | "/")
            })
            .ok_or_else(|| Error::Malformed {
                url: upstream.to_owned(),
                reason: "the upstream must be http://host:port".into(),
            })?;
        let runtime = Background::new("fault-proxy")?;
        let control = Arc::new(Control {
            upstream,
            client: http::client(),
            latency: Mutex::default(),
            rules: Mutex::default(),
            recorder: Arc::default(),
        });
        let served = control.clone();
        let addr = http::serve(&runtime, listen, move |req, reset| {
            let control = served.clone();
            async move { control.answer(req, reset).await }
        })?;
        Ok(Self {
            control,
            addr,
            _runtime: runtime,
        })
    }

    /// `http://127.0.0.1:PORT`: the endpoint to give the client under test.
    pub fn endpoint(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Waits `latency` before forwarding (or failing) each request from now
    /// on.
    pub fn set_latency(&self, latency: Duration) {
        *lock(&self.control.latency) = latency;
    }

    /// The next `n` requests get `fault` (after the faults queued before).
    pub fn fail_next(&self, n: usize, fault: Fault) {
        self.queue(None, n, fault);
    }

    /// The next `n` requests whose path and query contain `pattern` get
    /// `fault`; other requests pass.
    pub fn fail_next_matching(&self, pattern: &str, n: usize, fault: Fault) {
        self.queue(Some(pattern.to_owned()), n, fault);
    }

    fn queue(&self, pattern: Option<String>, count: usize, fault: Fault) {
        if count > 0 {
            lock(&self.control.rules).push_back(Rule {
                pattern,
                count,
                fault,
            });
        }
    }

    /// Drops every queued fault.
    pub fn clear_faults(&self) {
        lock(&self.control.rules).clear();
    }

    /// How many queued faults are still to be injected.
    pub fn pending_faults(&self) -> usize {
        lock(&self.control.rules).iter().map(|r| r.count).sum()
    }

    /// The requests received and the response body bytes sent so far.
    pub fn stats(&self) -> Stats {
        self.control.recorder.snapshot()
    }

    /// Forgets the counts so far.
    pub fn reset_stats(&self) {
        self.control.recorder.reset();
    }
}

/// Headers that concern one connection, not the message (RFC 9110 7.6.1),
/// dropped when forwarding.
const HOP_BY_HOP: [&str; 7] = [
    "connection",
    "keep-alive",
    "proxy-connection",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
];

fn strip_hop_by_hop(headers: &mut HeaderMap) {
    for name in HOP_BY_HOP {
        headers.remove(HeaderName::from_static(name));
    }
}

/// S3's error document for `code`.
fn s3_error(status: StatusCode, code: &str, message: &str, resource: &str) -> Response<Body> {
    let xml = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>{code}</Code>\
         <Message>{message}</Message><Resource>{resource}</Resource>\
         <RequestId>nctk-fault-proxy</RequestId></Error>"
    );
    let mut response = Response::new(http::full(xml));
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(CONTENT_TYPE, "application/xml".parse().expect("ASCII"));
    response
}

fn status_only(status: StatusCode) -> Response<Body> {
    let mut response = Response::new(http::full(Bytes::new()));
    *response.status_mut() = status;
    response
}

impl Control {
    /// The fault for a request to `target` (path and query), if one is
    /// queued for it: the first matching rule is used up by one.
    fn take_fault(&self, target: &str) -> Option<Fault> {
        let mut rules = lock(&self.rules);
        let at = rules
            .iter()
            .position(|r| r.pattern.as_deref().is_none_or(|p| target.contains(p)))?;
        let rule = &mut rules[at];
        rule.count -= 1;
        let fault = rule.fault;
        if rule.count == 0 {
            rules.remove(at);
        }
        Some(fault)
    }

    async fn answer(&self, req: Request<Incoming>, reset: ResetFlag) -> Response<Body> {
        self.recorder.request(&req);
        let latency = *lock(&self.latency);
        if !latency.is_zero() {
            tokio::time::sleep(latency).await;
        }
        let target = req
            .uri()
            .path_and_query()
            .map_or("/", |pq| pq.as_str())
            .to_owned();
        let fault = self.take_fault(&target);
        let path = req.uri().path().to_owned();
        match fault {
            Some(Fault::Status(code)) => {
                return status_only(
                    StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
                )
            }
            Some(Fault::SlowDown) => {
                return s3_error(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "SlowDown",
                    "Please reduce your request rate.",
                    &path,
                )
            }
            Some(Fault::Forbidden) => {
                return s3_error(
                    StatusCode::FORBIDDEN,
                    "AccessDenied",
                    "Access Denied",
                    &path,
                )
            }
            Some(Fault::Respond {
                status,
                content_type,
                body,
            }) => {
                let mut response = status_only(
                    StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
                );
                *response.body_mut() = http::full(body);
                if let Ok(value) = content_type.parse() {
                    response.headers_mut().insert(CONTENT_TYPE, value);
                }
                return response;
            }
            Some(Fault::ResetMidBody | Fault::TruncatedBody | Fault::Endless { .. }) | None => {}
        }
        let (mut parts, body) = req.into_parts();
        let mut uri = self.upstream.clone().into_parts();
        uri.path_and_query = Some(target.parse().expect("taken from a valid URI"));
        parts.uri = Uri::from_parts(uri).expect("scheme, authority and path");
        strip_hop_by_hop(&mut parts.headers);
        let upstream = match self
            .client
            .request(Request::from_parts(parts, http::boxed(body)))
            .await
        {
            Ok(response) => response,
            Err(e) => {
                return s3_error(
                    StatusCode::BAD_GATEWAY,
                    "BadGateway",
                    &format!("upstream {}: {e}", self.upstream),
                    &path,
                )
            }
        };
        let (mut parts, body) = upstream.into_parts();
        strip_hop_by_hop(&mut parts.headers);
        let body = Metered::new(http::boxed(body), self.recorder.clone());
        let half = || {
            parts
                .headers
                .get(CONTENT_LENGTH)
                .and_then(|v| v.to_str().ok()?.parse::<u64>().ok())
                .map_or(0, |len| len / 2)
        };
        let body = match fault {
            Some(Fault::ResetMidBody) => body.cut_after(half(), Cut::Reset, reset),
            Some(Fault::TruncatedBody) => body.cut_after(half(), Cut::Close, reset),
            Some(Fault::Endless { declared }) => {
                parts.headers.insert(CONTENT_LENGTH, declared.into());
                Metered::new(http::boxed(Zeros), self.recorder.clone())
            }
            _ => body,
        };
        Response::from_parts(parts, http::boxed(body))
    }
}
