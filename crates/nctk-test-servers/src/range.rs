//! [`RangeFileServer`]: files and in-memory blobs over HTTP/1.1 with
//! `Range` support, honest or misbehaving on purpose.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex};

use bytes::{Bytes, BytesMut};
use hyper::body::{Frame, Incoming};
use hyper::header::{ACCEPT_RANGES, CONTENT_LENGTH, CONTENT_RANGE, ETAG, RANGE};
use hyper::{Method, Request, Response, StatusCode};
use tokio::io::{AsyncReadExt, AsyncSeekExt};

use crate::error::{Error, Result};
use crate::http::{self, Body, Cut, Metered, ResetFlag};
use crate::lock;
use crate::runtime::Background;
use crate::stats::{Recorder, Stats};

/// How a [`RangeFileServer`] answers `GET`s.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Behaviour {
    /// As HTTP says: 200 with the whole body without `Range`, 206 with the
    /// asked bytes and their `Content-Range` for `Range: bytes=a-b` (also
    /// `a-` and the suffix `-n`), 416 when the range starts past the end.
    #[default]
    Honest,
    /// 200 with the whole body, whatever `Range` asks.
    IgnoreRange,
    /// 206 with the asked bytes but a `Content-Range` naming others (one
    /// byte further; one byte back when the range reaches the end).
    WrongContentRange,
    /// As [`Behaviour::Honest`], but the connection is closed after half
    /// of the body (the headers declare all of it).
    ShortBody,
}

/// What the server serves.
struct Content {
    root: Option<PathBuf>,
    blobs: Mutex<HashMap<String, Bytes>>,
    behaviour: Mutex<Behaviour>,
    recorder: Arc<Recorder>,
}

/// A small HTTP/1.1 server of the tests' own on `127.0.0.1`, serving the
/// files under a directory and blobs registered by name, with a
/// [`Behaviour`] to test clients against servers that get `Range` wrong.
/// `HEAD` gives the length (`Content-Length`) and `Accept-Ranges: bytes`.
/// Stops when dropped.
///
/// ```no_run
/// use nctk_test_servers::{Behaviour, RangeFileServer};
/// let server = RangeFileServer::start(Behaviour::Honest).unwrap();
/// server.add_blob("a.nc", b"CDF\x01...".to_vec());
/// let url = server.url("a.nc"); // http://127.0.0.1:PORT/a.nc
/// # let _ = url;
/// assert!(server.stats().requests() <= 4);
/// ```
pub struct RangeFileServer {
    content: Arc<Content>,
    addr: SocketAddr,
    // Last: the runtime (and the listener on it) stops when dropped.
    _runtime: Background,
}

impl RangeFileServer {
    /// A server of in-memory blobs only ([`RangeFileServer::add_blob`]).
    pub fn start(behaviour: Behaviour) -> Result<Self> {
        Self::launch(None, behaviour)
    }

    /// A server of the files under the directory `root` (`/a/b.nc` is
    /// `root/a/b.nc`, streamed from the file, never read whole), and of
    /// blobs.
    pub fn start_dir(root: impl Into<PathBuf>, behaviour: Behaviour) -> Result<Self> {
        let root = root.into();
        if !root.is_dir() {
            return Err(Error::NotADirectory(root));
        }
        Self::launch(Some(root), behaviour)
    }

    fn launch(root: Option<PathBuf>, behaviour: Behaviour) -> Result<Self> {
        let runtime = Background::new("range-server")?;
        let content = Arc::new(Content {
            root,
            blobs: Mutex::default(),
            behaviour: Mutex::new(behaviour),
            recorder: Arc::default(),
        });
        let served = content.clone();
        let addr = http::serve(&runtime, ([127, 0, 0, 1], 0).into(), move |req, reset| {
            let content = served.clone();
            async move { content.answer(req, reset).await }
        })?;
        Ok(Self {
            content,
            addr,
            _runtime: runtime,
        })
    }

    /// Serves `bytes` at `/name` (before any file of that name).
    pub fn add_blob(&self, name: &str, bytes: impl Into<Bytes>) {
        let name = name.trim_start_matches('/').to_owned();
        lock(&self.content.blobs).insert(name, bytes.into());
    }

    /// Answers from now on as `behaviour` says.
    pub fn set_behaviour(&self, behaviour: Behaviour) {
        *lock(&self.content.behaviour) = behaviour;
    }

    /// `http://127.0.0.1:PORT`.
    pub fn endpoint(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The URL of `name` (a blob's name or a path under the root),
    /// percent-encoded.
    pub fn url(&self, name: &str) -> String {
        let name = crate::s3::encode(name.trim_start_matches('/'), b"/");
        format!("{}/{name}", self.endpoint())
    }

    /// The requests received and the body bytes sent so far.
    pub fn stats(&self) -> Stats {
        self.content.recorder.snapshot()
    }

    /// Forgets the counts so far.
    pub fn reset_stats(&self) {
        self.content.recorder.reset();
    }
}

/// Where a served object's bytes come from.
enum Object {
    Blob(Bytes),
    /// A file, its length and its entity tag (length and modification
    /// time, as nginx makes them).
    File(PathBuf, u64, String),
}

impl Object {
    fn len(&self) -> u64 {
        match self {
            Object::Blob(b) => b.len() as u64,
            Object::File(_, len, _) => *len,
        }
    }

    /// Bytes `start..end` as a body: a slice of the blob, or the file read
    /// in blocks as the connection takes them.
    fn body(&self, start: u64, end: u64) -> Body {
        match self {
            Object::Blob(b) => http::full(b.slice(start as usize..end as usize)),
            Object::File(path, _, _) => {
                let (mut tx, body) = http_body_util::channel::Channel::new(4);
                let path = path.clone();
                tokio::spawn(async move {
                    if let Err(e) = stream_file(&path, start, end, &mut tx).await {
                        tx.abort(e.into());
                    }
                });
                http::boxed(body)
            }
        }
    }
}

/// Sends `path`'s bytes `start..end` down `tx` in blocks.
async fn stream_file(
    path: &Path,
    start: u64,
    end: u64,
    tx: &mut http_body_util::channel::Sender<Bytes, http::BoxError>,
) -> std::io::Result<()> {
    const BLOCK: u64 = 256 * 1024;
    let mut file = tokio::fs::File::open(path).await?;
    file.seek(std::io::SeekFrom::Start(start)).await?;
    let mut at = start;
    while at < end {
        let want = (end - at).min(BLOCK) as usize;
        let mut buf = BytesMut::zeroed(want);
        file.read_exact(&mut buf).await?;
        at += want as u64;
        if tx.send(Frame::data(buf.freeze())).await.is_err() {
            break; // the client went away
        }
    }
    Ok(())
}

/// A `Range: bytes=...` request for an object of `len` bytes.
#[derive(Debug, PartialEq, Eq)]
enum Wanted {
    /// Bytes `start..end` (clamped to the object).
    Bytes(u64, u64),
    /// The range starts past the end.
    Unsatisfiable,
}

/// Parses a single-range `Range` header value; `None` when it is not one.
fn parse_range(value: &str, len: u64) -> Option<Wanted> {
    let spec = value.trim().strip_prefix("bytes=")?.trim();
    let (first, last) = spec.split_once('-')?;
    let (first, last) = (first.trim(), last.trim());
    if first.is_empty() {
        let n: u64 = last.parse().ok()?;
        return Some(if n == 0 {
            Wanted::Unsatisfiable
        } else {
            Wanted::Bytes(len.saturating_sub(n), len)
        });
    }
    let start: u64 = first.parse().ok()?;
    let end = match last {
        "" => len,
        last => last.parse::<u64>().ok()?.checked_add(1)?,
    };
    if end <= start {
        return None;
    }
    Some(if start >= len {
        Wanted::Unsatisfiable
    } else {
        Wanted::Bytes(start, end.min(len))
    })
}

fn plain(status: StatusCode, text: String) -> Response<Body> {
    let mut response = Response::new(http::full(text));
    *response.status_mut() = status;
    response
}

impl Content {
    /// The object at a request path (percent-decoded), when there is one.
    async fn find(&self, path: &str) -> Option<Object> {
        let name = crate::s3::decode(path)?;
        let name = name.trim_start_matches('/');
        if let Some(blob) = lock(&self.blobs).get(name) {
            return Some(Object::Blob(blob.clone()));
        }
        let relative = Path::new(name);
        if !relative
            .components()
            .all(|c| matches!(c, Component::Normal(_)))
        {
            return None;
        }
        let path = self.root.as_ref()?.join(relative);
        let meta = tokio::fs::metadata(&path).await.ok()?;
        let modified = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos());
        let etag = format!("\"{:x}-{modified:x}\"", meta.len());
        meta.is_file().then(|| Object::File(path, meta.len(), etag))
    }

    async fn answer(&self, req: Request<Incoming>, reset: ResetFlag) -> Response<Body> {
        self.recorder.request(&req);
        let behaviour = *lock(&self.behaviour);
        let head = match *req.method() {
            Method::GET => false,
            Method::HEAD => true,
            ref other => {
                return plain(
                    StatusCode::METHOD_NOT_ALLOWED,
                    format!("{other} is not served"),
                )
            }
        };
        let path = req.uri().path();
        let Some(object) = self.find(path).await else {
            return plain(StatusCode::NOT_FOUND, format!("{path}: no such object"));
        };
        let len = object.len();
        let range = req.headers().get(RANGE).map(|v| v.to_str().unwrap_or(""));
        let wanted = match range {
            Some(_) if behaviour == Behaviour::IgnoreRange => None,
            Some(value) => match parse_range(value, len) {
                Some(wanted) => Some(wanted),
                None => {
                    return plain(
                        StatusCode::BAD_REQUEST,
                        format!("{path}: unsupported Range {value:?}"),
                    )
                }
            },
            None => None,
        };
        let (status, start, end) = match wanted {
            None => (StatusCode::OK, 0, len),
            Some(Wanted::Bytes(start, end)) => (StatusCode::PARTIAL_CONTENT, start, end),
            Some(Wanted::Unsatisfiable) => {
                let mut response = plain(
                    StatusCode::RANGE_NOT_SATISFIABLE,
                    format!("{path}: range past the end ({len} bytes)"),
                );
                response.headers_mut().insert(
                    CONTENT_RANGE,
                    format!("bytes */{len}").parse().expect("ASCII"),
                );
                return response;
            }
        };
        let body = if head {
            http::full(Bytes::new())
        } else {
            let metered = Metered::new(object.body(start, end), self.recorder.clone());
            match behaviour {
                Behaviour::ShortBody => {
                    http::boxed(metered.cut_after((end - start) / 2, Cut::Close, reset))
                }
                _ => http::boxed(metered),
            }
        };
        let mut response = Response::new(body);
        *response.status_mut() = status;
        let headers = response.headers_mut();
        headers.insert(ACCEPT_RANGES, "bytes".parse().expect("ASCII"));
        headers.insert(CONTENT_LENGTH, (end - start).into());
        if let Object::File(_, _, etag) = &object {
            // Clients resume an interrupted body only when they can check
            // that the object has not changed.
            headers.insert(ETAG, etag.parse().expect("ASCII"));
        }
        if status == StatusCode::PARTIAL_CONTENT {
            // The bytes named: the asked ones, or (on purpose) others.
            let (first, last) = match behaviour {
                Behaviour::WrongContentRange if end < len => (start + 1, end),
                Behaviour::WrongContentRange if start > 0 => (start - 1, end - 2),
                // The whole object asked: name bytes from the second on.
                Behaviour::WrongContentRange => (1, end),
                _ => (start, end - 1),
            };
            headers.insert(
                CONTENT_RANGE,
                format!("bytes {first}-{last}/{len}")
                    .parse()
                    .expect("ASCII"),
            );
        }
        response
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The forms of RFC 9110's byte ranges, against its examples for a
    /// 10000-byte representation (section 14.1.2).
    #[test]
    fn ranges_as_rfc_9110_reads_them() {
        let len = 10000;
        // A last position past the end is clamped; a first one is not.
        for (value, wanted) in [
            ("bytes=0-499", Wanted::Bytes(0, 500)),
            ("bytes=500-999", Wanted::Bytes(500, 1000)),
            ("bytes=-500", Wanted::Bytes(9500, 10000)),
            ("bytes=9500-", Wanted::Bytes(9500, 10000)),
            ("bytes=9999-20000", Wanted::Bytes(9999, 10000)),
            ("bytes=10000-10001", Wanted::Unsatisfiable),
            ("bytes=-0", Wanted::Unsatisfiable),
        ] {
            assert_eq!(parse_range(value, len), Some(wanted), "{value}");
        }
        for bad in [
            "bytes=5-1",
            "items=0-1",
            "bytes=a-b",
            "bytes=0-1,5-6",
            "0-1",
        ] {
            assert_eq!(parse_range(bad, len), None, "{bad}");
        }
    }
}
