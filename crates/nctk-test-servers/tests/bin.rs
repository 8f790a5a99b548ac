//! The `nctk-fault-proxy` binary: it prints its endpoint and forwards to
//! its upstream with the latency asked, as urllib sees it.

mod common;

use std::io::BufRead;
use std::process::{Command, Stdio};

use std::time::{Duration, Instant};

use common::{blob, hex, urllib};
use nctk_test_servers::{Behaviour, RangeFileServer};

/// `--listen 0 --upstream URL --latency-ms 1000`: the first stdout line is
/// the endpoint; a Range request through it gets the upstream's answer,
/// no sooner than the 1000 ms asked.
#[test]
fn the_binary_forwards_with_latency() {
    let server = RangeFileServer::start(Behaviour::Honest).unwrap();
    let data = blob(1000);
    server.add_blob("x", data.clone());
    let mut child = Command::new(env!("CARGO_BIN_EXE_nctk-fault-proxy"))
        .args(["--listen", "0", "--upstream", &server.endpoint()])
        .args(["--latency-ms", "1000"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut endpoint = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut endpoint)
        .unwrap();
    let url = format!("{}/x", endpoint.trim());
    let started = Instant::now();
    let lines = urllib(&[("GET", url, "bytes=5-9")]);
    let elapsed = started.elapsed();
    let _ = child.kill();
    let _ = child.wait();
    let Some(lines) = lines else { return };
    assert_eq!(
        lines,
        [format!("206 bytes 5-9/1000 5 bytes {}", hex(&data[5..10]))]
    );
    // A lower bound: the client's own start only adds to it.
    assert!(elapsed >= Duration::from_secs(1), "{elapsed:?}");
    assert_eq!(server.stats().ranges(), ["bytes=5-9"]);
}

/// A bad upstream: the binary exits unsuccessfully, naming it.
#[test]
fn the_binary_refuses_a_bad_upstream() {
    let out = Command::new(env!("CARGO_BIN_EXE_nctk-fault-proxy"))
        .args(["--listen", "0", "--upstream", "ftp://example"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("ftp://example"), "{stderr}");
}
