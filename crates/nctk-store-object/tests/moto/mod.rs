//! A moto S3 server for one test (stand-in until `nctk-test-servers`
//! lands): a free loopback port, started and waited for, killed on drop.
//! Shared by the S3 tests of several crates (`#[path]`), so it depends on
//! nothing but `nctk-test-support`.

#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running `moto_server`.
pub struct Moto {
    child: Child,
    /// `http://127.0.0.1:PORT`.
    pub endpoint: String,
}

impl Drop for Moto {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Moto {
    /// Starts a server, or `None` (after `require`) when moto is missing.
    pub fn start() -> Option<Moto> {
        if !nctk_test_support::require::tools(&["moto_server"]) {
            return None;
        }
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let child = Command::new("moto_server")
            .args(["-H", "127.0.0.1", "-p", &port.to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start moto_server");
        let moto = Moto {
            child,
            endpoint: format!("http://127.0.0.1:{port}"),
        };
        let deadline = Instant::now() + Duration::from_secs(30);
        while moto.request("GET", "/").is_err() {
            assert!(Instant::now() < deadline, "moto_server did not start");
            std::thread::sleep(Duration::from_millis(50));
        }
        Some(moto)
    }

    /// One unsigned request (moto does not check signatures) with `body`,
    /// the path sent as written; the status.
    pub fn request_with(&self, method: &str, path: &str, body: &[u8]) -> std::io::Result<u16> {
        let host = self.endpoint.trim_start_matches("http://");
        let mut s = TcpStream::connect(host)?;
        write!(
            s,
            "{method} {path} HTTP/1.1\r\nHost: {host}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            body.len()
        )?;
        s.write_all(body)?;
        let mut out = String::new();
        s.read_to_string(&mut out)?;
        out.split(' ')
            .nth(1)
            .and_then(|c| c.parse().ok())
            .ok_or_else(|| std::io::Error::other(format!("bad reply: {out:.80}")))
    }

    fn request(&self, method: &str, path: &str) -> std::io::Result<u16> {
        self.request_with(method, path, b"")
    }

    /// Creates `bucket`.
    pub fn bucket(&self, bucket: &str) {
        let status = self
            .request("PUT", &format!("/{bucket}"))
            .expect("create bucket");
        assert_eq!(status, 200, "create bucket {bucket}");
    }
}
