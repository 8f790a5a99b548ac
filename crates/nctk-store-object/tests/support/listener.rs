//! [`Listener`]: a loopback HTTP/1.1 server run by a thread, small enough
//! to play a credentials service (the EC2 instance metadata service, a
//! container's credentials endpoint), or to accept and never answer.

// Each test binary including this uses a part of it.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// One request as the listener read it (its body, if any, is not read).
pub struct Request {
    /// `GET`, `PUT`, ...
    pub method: String,
    /// The path as sent.
    pub path: String,
    headers: Vec<(String, String)>,
}

impl Request {
    /// The header `name` (any case), when sent.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// What the server answers to a request (the `n`th it received, from 1):
/// a status and a body.
pub type Answer = fn(&Request, usize) -> (u16, String);

/// A loopback listener counting the connections it accepts and answering
/// one request on each with `answer` (or holding it open, silent, when
/// `answer` is `None`). Stopped when dropped.
pub struct Listener {
    addr: SocketAddr,
    connections: Arc<AtomicUsize>,
    requests: Arc<Mutex<Vec<String>>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Listener {
    /// Listening on a free port of `127.0.0.1`.
    pub fn start(answer: Option<Answer>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let addr = listener.local_addr().unwrap();
        let connections = Arc::new(AtomicUsize::new(0));
        let requests = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let (counted, seen, stopping) = (connections.clone(), requests.clone(), stop.clone());
        let thread = std::thread::spawn(move || {
            let mut held = Vec::new();
            while !stopping.load(Ordering::SeqCst) {
                match listener.accept() {
                    Ok((stream, _)) => {
                        counted.fetch_add(1, Ordering::SeqCst);
                        match answer {
                            Some(answer) => serve(stream, answer, &seen),
                            None => held.push(stream),
                        }
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(5)),
                }
            }
        });
        Listener {
            addr,
            connections,
            requests,
            stop,
            thread: Some(thread),
        }
    }

    /// `http://127.0.0.1:PORT`.
    pub fn endpoint(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The connections accepted, once the count has settled (a client's
    /// connection may wait in the backlog a few milliseconds).
    pub fn connections(&self) -> usize {
        std::thread::sleep(Duration::from_millis(100));
        self.connections.load(Ordering::SeqCst)
    }

    /// The requests answered, as `METHOD path`, in order.
    pub fn requests(&self) -> Vec<String> {
        self.requests.lock().unwrap().clone()
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// A free loopback port nothing listens on, as `http://127.0.0.1:PORT`.
pub fn closed_port() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    format!("http://{}", listener.local_addr().unwrap())
}

/// Answers the one request on `stream` (HTTP/1.1, closed after).
fn serve(stream: TcpStream, answer: Answer, seen: &Mutex<Vec<String>>) {
    stream.set_nonblocking(false).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(2)))
        .unwrap();
    let mut reader = BufReader::new(&stream);
    let mut line = String::new();
    if reader.read_line(&mut line).is_err() {
        return;
    }
    let mut words = line.split_whitespace();
    let mut request = Request {
        method: words.next().unwrap_or_default().to_string(),
        path: words.next().unwrap_or_default().to_string(),
        headers: Vec::new(),
    };
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header).unwrap_or(0) == 0 || header.trim().is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            request
                .headers
                .push((name.trim().to_string(), value.trim().to_string()));
        }
    }
    let n = {
        let mut seen = seen.lock().unwrap();
        seen.push(format!("{} {}", request.method, request.path));
        seen.len()
    };
    let (status, body) = answer(&request, n);
    let mut out = &stream;
    let _ = write!(
        out,
        "HTTP/1.1 {status} X\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
}

/// A credentials answer (the instance metadata service's and a
/// container endpoint's shape) for the access key `key_id` and session
/// token `token`, expiring after `life`.
pub fn credentials(key_id: &str, token: &str, life: Duration) -> String {
    let expiration = chrono::Utc::now() + life;
    format!(
        r#"{{"Code": "Success", "LastUpdated": "2026-01-01T00:00:00Z", "Type": "AWS-HMAC",
            "AccessKeyId": "{key_id}", "SecretAccessKey": "test-secret",
            "Token": "{token}", "Expiration": "{}"}}"#,
        expiration.format("%Y-%m-%dT%H:%M:%SZ")
    )
}
