//! ncstream and cdmremote speed (issue 15), on the 415 MB CDF-5 field
//! `temp(time=100, lat=721, lon=1440)` float32 (`bench-data/
//! classic_temp_cdf5.nc`, made once; `$NCTK_BENCH_DATA` elsewhere):
//!
//! * (a) `nctk serve` (started here on loopback) answering
//!   `req=data&var=temp` to a plain HTTP/1.1 client (a `TcpStream` reading
//!   the body into a 1 MiB buffer as fast as it can): GB/s, uncompressed
//!   and with `deflate=1` (then the server's CPU time over the wall time:
//!   how many cores compress). The floor beside it: the same client
//!   reading the same number of bytes (the `.ncs` file of the field) from
//!   a plain file server on loopback (`nctk_test_servers::RangeFileServer`).
//! * (b) nctk reading the field from a 415 MB stream (`nctk copy temp.nc
//!   temp.ncs` first) and from the classic file, both through `nctk::open`
//!   and `read_into` of the whole variable, same run: the target is the
//!   stream within 1.5x of the classic file.
//! * (c) 16 clients at once, each asking for a different sixteenth of the
//!   time steps: each client's time (min and max: no client starves) and
//!   the server's peak RSS (`VmHWM`).
//!
//! Best of `RUNS` for each time. Prints markdown tables.
//!
//! Run: `cargo bench -p nctk-cli --bench ncstream [-- PART...]`, where
//! the parts `a`, `b`, `c` pick which to measure (all by default).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Instant;

use nctk::model::{Selection, Values};
use nctk_bench_support::{data_dir, write_temp_field};
use nctk_test_servers::{Behaviour, RangeFileServer};

const NT: u64 = 100;
const RUNS: usize = 3;
const CLIENTS: u64 = 16;

/// `nctk serve DIR --port 0`, killed when dropped.
struct Server {
    child: Child,
    /// `host:port`.
    addr: String,
}

impl Server {
    fn start(nctk: &str, dir: &Path) -> Server {
        let mut child = Command::new(nctk)
            .args(["serve", dir.to_str().unwrap(), "--port", "0"])
            .stdout(Stdio::piped())
            .spawn()
            .expect("start nctk serve");
        let mut line = String::new();
        BufReader::new(child.stdout.as_mut().unwrap())
            .read_line(&mut line)
            .unwrap();
        // "listening on http://127.0.0.1:PORT/cdmremote"
        let addr = line
            .trim()
            .strip_prefix("listening on http://")
            .and_then(|rest| rest.split('/').next())
            .unwrap_or_else(|| panic!("nctk serve printed {line:?}"))
            .to_string();
        Server { child, addr }
    }

    /// The server's CPU seconds so far (user + system, from `/proc`).
    fn cpu_seconds(&self) -> f64 {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.child.id())).unwrap();
        let fields: Vec<&str> = stat
            .rsplit_once(')')
            .unwrap()
            .1
            .split_whitespace()
            .collect();
        // after the name: state is field 3, utime 14, stime 15 (1-based)
        let ticks: f64 = fields[11].parse::<f64>().unwrap() + fields[12].parse::<f64>().unwrap();
        ticks / 100.0
    }

    /// The server's peak resident set (`VmHWM`), in MiB.
    fn peak_rss_mib(&self) -> f64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap();
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmHWM:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
            .map_or(f64::NAN, |kb| kb / 1024.0)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// GETs `path` from `addr` with HTTP/1.1 (`Connection: close`) and reads
/// the whole answer; the number of bytes after the head. Panics unless the
/// status is 200.
fn get(addr: &str, path: &str) -> u64 {
    let mut stream = TcpStream::connect(addr).unwrap();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut buf = vec![0u8; 1 << 20];
    let mut head = Vec::new();
    let mut body = 0u64;
    loop {
        let n = stream.read(&mut buf).unwrap();
        if n == 0 {
            break;
        }
        if body == 0 && !head.windows(4).any(|w| w == b"\r\n\r\n") {
            head.extend_from_slice(&buf[..n]);
            if let Some(end) = head.windows(4).position(|w| w == b"\r\n\r\n") {
                body = (head.len() - end - 4) as u64;
            }
        } else {
            body += n as u64;
        }
    }
    let status = String::from_utf8_lossy(&head[..head.len().min(12)]).into_owned();
    assert!(status.ends_with("200"), "GET {path}: {status}");
    body
}

/// The best of [`RUNS`] wall times of `f`, and its last result.
fn best<T>(mut f: impl FnMut() -> T) -> (f64, T) {
    let mut best = f64::INFINITY;
    let mut last = None;
    for _ in 0..RUNS {
        let t0 = Instant::now();
        last = Some(f());
        best = best.min(t0.elapsed().as_secs_f64());
    }
    (best, last.unwrap())
}

fn gbps(bytes: u64) -> impl Fn(f64) -> String {
    move |t| format!("{:.2} GB/s", bytes as f64 / t / 1e9)
}

/// Reads all of `temp` from `path` through `nctk::open` into one buffer.
fn read_all(path: &Path, buf: &mut Values) {
    let ds = nctk::open(path).unwrap();
    let var = ds.schema().var_by_path("/temp").unwrap();
    let shape = ds.schema().shape(var);
    ds.source()
        .read_into(var, &Selection::all(&shape), buf)
        .unwrap();
}

/// The parts named on the command line (`a`, `b`, `c`; cargo's own
/// `--bench` flag aside): `part(p)` is true when `p` is to run, every part
/// when none is named.
fn parts() -> impl Fn(&str) -> bool {
    let named: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    move |p| named.is_empty() || named.iter().any(|n| n == p)
}

fn main() {
    let part = parts();
    let dir = data_dir();
    std::fs::create_dir_all(&dir).unwrap();
    let input = dir.join("classic_temp_cdf5.nc");
    if !input.exists() {
        write_temp_field(&input, NT);
    }
    let nctk = env!("CARGO_BIN_EXE_nctk");
    let ncs = dir.join("classic_temp_cdf5.ncs");
    if !ncs.exists() {
        let ok = Command::new(nctk)
            .args(["copy", input.to_str().unwrap(), ncs.to_str().unwrap()])
            .status()
            .unwrap()
            .success();
        assert!(ok, "nctk copy to {}", ncs.display());
    }
    let ncs_len = std::fs::metadata(&ncs).unwrap().len();
    let var_bytes = NT * nctk_bench_support::NLAT * nctk_bench_support::NLON * 4;

    // (a) and (c) ask a server
    let server = (part("a") || part("c")).then(|| Server::start(nctk, &dir));
    if let (true, Some(server)) = (part("a"), &server) {
        // (a) serving the whole variable, and the floor
        let data = "/cdmremote/classic_temp_cdf5.nc?req=data&var=temp";
        let (served, body) = best(|| get(&server.addr, data));
        assert!(body >= var_bytes, "the answer holds {body} bytes");
        let floor = RangeFileServer::start_dir(&dir, Behaviour::Honest).unwrap();
        let floor_addr = floor
            .endpoint()
            .trim_start_matches("http://")
            .trim_end_matches('/')
            .to_string();
        let (plain, plain_body) = best(|| get(&floor_addr, "/classic_temp_cdf5.ncs"));
        assert_eq!(plain_body, ncs_len);
        println!(
            "\n### (a) serving temp, {:.0} MB float32, on loopback\n",
            var_bytes as f64 / 1e6
        );
        println!("| measure | nctk serve | plain file server (floor) | nctk / floor |");
        println!("| --- | --- | --- | --- |");
        let rate = gbps(body);
        println!(
            "| `req=data&var=temp`, best of {RUNS} | {} ({served:.2} s) | {} ({plain:.2} s) | {:.2}x the time |",
            rate(served),
            gbps(plain_body)(plain),
            served / plain
        );
        let deflated = format!("{data}&deflate=1");
        let cpu0 = server.cpu_seconds();
        let t0 = Instant::now();
        let zbody = get(&server.addr, &deflated);
        let wall = t0.elapsed().as_secs_f64();
        let cpu = server.cpu_seconds() - cpu0;
        println!(
            "| `deflate=1`, one run | {wall:.2} s, {:.0} MB sent, server CPU {cpu:.2} s = {:.2} cores | | |",
            zbody as f64 / 1e6,
            cpu / wall
        );
    }
    if let (true, Some(server)) = (part("c"), &server) {
        // (c) 16 clients at once, each a sixteenth of the time steps
        let per = NT.div_ceil(CLIENTS);
        let times: Vec<f64> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..CLIENTS)
                .map(|i| {
                    let addr = server.addr.clone();
                    s.spawn(move || {
                        let first = (i * per).min(NT - 1);
                        let last = ((i + 1) * per - 1).min(NT - 1);
                        let path = format!(
                            "/cdmremote/classic_temp_cdf5.nc?req=data&var=temp({first}:{last},:,:)"
                        );
                        let t0 = Instant::now();
                        get(&addr, &path);
                        t0.elapsed().as_secs_f64()
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let (min, max) = times
            .iter()
            .fold((f64::INFINITY, 0f64), |(a, b), &t| (a.min(t), b.max(t)));
        println!("\n### (c) {CLIENTS} clients at once, {per} time steps each\n");
        println!("| fastest client | slowest client | slowest / fastest | server peak RSS |");
        println!("| --- | --- | --- | --- |");
        println!(
            "| {min:.2} s | {max:.2} s | {:.2}x | {:.0} MiB |",
            max / min,
            server.peak_rss_mib()
        );
    }
    drop(server);

    if part("b") {
        // (b) reading the stream against reading the classic file
        let mut buf = Values::Float(Vec::new());
        let (classic, ()) = best(|| read_all(&input, &mut buf));
        let (stream, ()) = best(|| read_all(&ncs, &mut buf));
        println!(
            "\n### (b) nctk reading all of temp, best of {RUNS} (target: the stream within 1.5x)\n"
        );
        println!("| measure | .ncs stream | classic CDF-5 | stream / classic |");
        println!("| --- | --- | --- | --- |");
        let rate = gbps(var_bytes);
        println!(
            "| `nctk::open` + `read_into` | {} ({stream:.2} s) | {} ({classic:.2} s) | {:.2}x the time |",
            rate(stream),
            rate(classic),
            stream / classic
        );
    }
}
