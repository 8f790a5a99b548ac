//! A running `nctk serve` for the integration tests, killed and waited
//! for when dropped (a failing test leaves no server behind).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};

/// A running `nctk serve`, killed when dropped.
pub struct Served {
    child: Child,
    /// The port it listens on (127.0.0.1).
    pub port: u16,
}

impl Served {
    /// Starts `nctk serve DIR --port 0 EXTRA...` and waits for the address
    /// line; the server is killed if that fails too.
    pub fn start(dir: &Path, extra: &[&str]) -> Served {
        let mut child = Command::new(env!("CARGO_BIN_EXE_nctk"))
            .arg("serve")
            .arg(dir)
            .args(["--port", "0"])
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start nctk serve");
        let stdout = child.stdout.take().expect("piped");
        // Held from here: a panic below kills the server.
        let mut served = Served { child, port: 0 };
        let mut line = String::new();
        BufReader::new(stdout)
            .read_line(&mut line)
            .expect("read the address");
        // "listening on http://127.0.0.1:PORT/cdmremote/"
        let port = line
            .trim()
            .rsplit_once(':')
            .and_then(|(_, rest)| rest.split('/').next())
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| panic!("no address in {line:?}"));
        served.port = port;
        served
    }

    /// The server's process id.
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// The cdmremote base URL.
    pub fn base(&self) -> String {
        format!("http://127.0.0.1:{}/cdmremote/", self.port)
    }

    /// A raw GET of `target` (sent as it is, no normalization): status,
    /// headers (lower-case names) and body.
    pub fn get(&self, target: &str) -> (u16, String, Vec<u8>) {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).expect("connect");
        write!(
            stream,
            "GET {target} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nConnection: close\r\n\r\n",
            self.port
        )
        .expect("send");
        let mut all = Vec::new();
        stream.read_to_end(&mut all).expect("read the answer");
        let split = all
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .expect("a header block");
        let head = String::from_utf8_lossy(&all[..split]).to_ascii_lowercase();
        let status = head[9..12].parse().expect("a status");
        let mut body = all[split + 4..].to_vec();
        if head.contains("transfer-encoding: chunked") {
            body = dechunk(&body);
        }
        (status, head, body)
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The data of an HTTP/1.1 chunked body.
fn dechunk(mut body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let line_end = body
            .windows(2)
            .position(|w| w == b"\r\n")
            .expect("size line");
        let size =
            usize::from_str_radix(std::str::from_utf8(&body[..line_end]).unwrap().trim(), 16)
                .expect("hex size");
        if size == 0 {
            return out;
        }
        out.extend_from_slice(&body[line_end + 2..line_end + 2 + size]);
        body = &body[line_end + 4 + size..];
    }
}
