//! Stand-ins for `nctk-test-servers` (not merged yet), with the same API
//! so the tests switch to it by changing their `use`: moto started on a
//! free port, and a range server that can get `Range` wrong on purpose.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// An error of a test server.
pub type Result<T> = std::result::Result<T, String>;

/// `moto_server` on a free loopback port; `None` (skipped, or a failure
/// under CI) when it is not installed.
pub fn moto() -> Option<MotoServer> {
    if !nctk_test_support::require::tools(&["moto_server"]) {
        return None;
    }
    Some(MotoServer::start().unwrap())
}

/// A running `moto_server`, killed on drop.
pub struct MotoServer {
    child: Child,
    port: u16,
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .unwrap()
}

impl MotoServer {
    /// Starts moto and waits (at most 60 s) until it answers.
    pub fn start() -> Result<Self> {
        let port = free_port();
        let child = Command::new("moto_server")
            .args(["-H", "127.0.0.1", "-p", &port.to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("moto_server: {e}"))?;
        let server = MotoServer { child, port };
        let deadline = Instant::now() + Duration::from_secs(60);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            if Instant::now() > deadline {
                return Err(format!("moto_server on port {port} did not answer"));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        Ok(server)
    }

    /// `http://127.0.0.1:PORT`.
    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// An unsigned request (moto accepts them) with `headers` and `body`;
    /// fails unless the status is 2xx.
    fn request(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> Result<()> {
        let mut conn = TcpStream::connect(("127.0.0.1", self.port)).map_err(|e| e.to_string())?;
        let mut head = format!(
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Length: {}\r\nConnection: close\r\n",
            self.port,
            body.len()
        );
        for (k, v) in headers {
            head.push_str(&format!("{k}: {v}\r\n"));
        }
        head.push_str("\r\n");
        conn.write_all(head.as_bytes()).map_err(|e| e.to_string())?;
        conn.write_all(body).map_err(|e| e.to_string())?;
        let mut answer = String::new();
        BufReader::new(conn)
            .read_line(&mut answer)
            .map_err(|e| e.to_string())?;
        match answer.split_whitespace().nth(1) {
            Some(code) if code.starts_with('2') => Ok(()),
            _ => Err(format!("{method} {path}: {answer}")),
        }
    }

    /// Creates `bucket`.
    pub fn create_bucket(&self, bucket: &str) -> Result<()> {
        self.request("PUT", &format!("/{bucket}"), &[], b"")
    }

    /// Puts `bytes` at `bucket`/`key`, readable by anyone when `public_read`.
    pub fn put_object(
        &self,
        bucket: &str,
        key: &str,
        bytes: &[u8],
        public_read: bool,
    ) -> Result<()> {
        let acl: &[(&str, &str)] = if public_read {
            &[("x-amz-acl", "public-read")]
        } else {
            &[]
        };
        self.request("PUT", &format!("/{bucket}/{key}"), acl, bytes)
    }
}

impl Drop for MotoServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// How a [`RangeFileServer`] answers `GET`s.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Behaviour {
    /// 206 with the asked bytes and their `Content-Range`.
    Honest,
    /// 200 with the whole body, whatever `Range` asks.
    IgnoreRange,
    /// 206 with the asked bytes but a `Content-Range` one byte further.
    WrongContentRange,
    /// 206 declaring the whole range, closed after half of it.
    ShortBody,
}

/// What a server saw.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    /// `(method, Range header)` of each request, in order.
    pub seen: Vec<(String, Option<String>)>,
}

impl Stats {
    /// How many requests were received.
    pub fn requests(&self) -> usize {
        self.seen.len()
    }
}

struct Shared {
    blobs: Mutex<Vec<(String, Arc<Vec<u8>>)>>,
    behaviour: Behaviour,
    stats: Mutex<Stats>,
    stop: AtomicBool,
}

/// A small HTTP/1.1 server (one connection per request) serving blobs by
/// name, with a [`Behaviour`]; stops on drop.
pub struct RangeFileServer {
    shared: Arc<Shared>,
    port: u16,
}

impl RangeFileServer {
    /// Starts a server answering as `behaviour` says.
    pub fn start(behaviour: Behaviour) -> Result<Self> {
        let listener = TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
        let port = listener.local_addr().map_err(|e| e.to_string())?.port();
        let shared = Arc::new(Shared {
            blobs: Mutex::new(Vec::new()),
            behaviour,
            stats: Mutex::new(Stats::default()),
            stop: AtomicBool::new(false),
        });
        let s = shared.clone();
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                if s.stop.load(Ordering::Relaxed) {
                    break;
                }
                if let Ok(conn) = conn {
                    let s = s.clone();
                    std::thread::spawn(move || serve(&s, conn));
                }
            }
        });
        Ok(RangeFileServer { shared, port })
    }

    /// Serves `bytes` at `/name`.
    pub fn add_blob(&self, name: &str, bytes: impl Into<Vec<u8>>) {
        let mut blobs = self.shared.blobs.lock().unwrap();
        blobs.push((name.to_string(), Arc::new(bytes.into())));
    }

    /// `http://127.0.0.1:PORT`.
    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// What the server saw so far.
    pub fn stats(&self) -> Stats {
        self.shared.stats.lock().unwrap().clone()
    }
}

impl Drop for RangeFileServer {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::Relaxed);
        let _ = TcpStream::connect(("127.0.0.1", self.port));
    }
}

fn serve(s: &Shared, conn: TcpStream) {
    let mut reader = BufReader::new(conn.try_clone().unwrap());
    let mut line = String::new();
    if reader.read_line(&mut line).unwrap_or(0) == 0 {
        return;
    }
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or("").to_string();
    let path = parts
        .next()
        .unwrap_or("")
        .trim_start_matches('/')
        .to_string();
    let mut range = None;
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).unwrap_or(0) == 0 || h == "\r\n" {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            if k.eq_ignore_ascii_case("range") {
                range = Some(v.trim().to_string());
            }
        }
    }
    s.stats
        .lock()
        .unwrap()
        .seen
        .push((method.clone(), range.clone()));
    let blob = s
        .blobs
        .lock()
        .unwrap()
        .iter()
        .find(|(n, _)| *n == path)
        .map(|(_, b)| b.clone());
    let mut out = conn;
    let Some(blob) = blob else {
        let _ = out
            .write_all(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
        return;
    };
    let len = blob.len() as u64;
    let asked = range.as_deref().and_then(|r| {
        let (a, b) = r.strip_prefix("bytes=")?.split_once('-')?;
        let a: u64 = a.parse().ok()?;
        let b: u64 = b.parse::<u64>().ok().unwrap_or(len - 1).min(len - 1);
        Some((a, b))
    });
    let head = method == "HEAD";
    let (status, content_range, body): (&str, Option<String>, &[u8]) = match asked {
        Some((a, b)) if s.behaviour != Behaviour::IgnoreRange => {
            let shown = if s.behaviour == Behaviour::WrongContentRange {
                (a + 1, b + 1)
            } else {
                (a, b)
            };
            (
                "206 Partial Content",
                Some(format!("bytes {}-{}/{len}", shown.0, shown.1)),
                &blob[a as usize..=b as usize],
            )
        }
        _ => ("200 OK", None, &blob[..]),
    };
    let mut header = format!(
        "HTTP/1.1 {status}\r\nContent-Length: {}\r\nAccept-Ranges: bytes\r\nConnection: close\r\n",
        body.len()
    );
    if let Some(cr) = content_range {
        header.push_str(&format!("Content-Range: {cr}\r\n"));
    }
    header.push_str("\r\n");
    let _ = out.write_all(header.as_bytes());
    if head {
        return;
    }
    let body = if s.behaviour == Behaviour::ShortBody && asked.is_some() {
        &body[..body.len() / 2]
    } else {
        body
    };
    let _ = out.write_all(body);
    let _ = out.flush();
    let _ = out.shutdown(std::net::Shutdown::Both);
    let _ = reader.read(&mut [0u8; 1]);
}
