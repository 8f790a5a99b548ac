//! `FaultProxy` between real clients (boto3, urllib) and real servers
//! (moto, `RangeFileServer`): forwarding unchanged, each fault as the
//! client sees it, latency as a lower bound.

mod common;

use std::time::Duration;

use common::{blob, hex, urllib};
use nctk_test_servers::{moto_behind_proxy, Behaviour, Fault, FaultProxy, RangeFileServer};
use nctk_test_support::require;

/// A proxy in front of an honest server holding `blob(len)` as `x`.
fn proxied(len: usize) -> (RangeFileServer, FaultProxy, Vec<u8>) {
    let server = RangeFileServer::start(Behaviour::Honest).unwrap();
    let data = blob(len);
    server.add_blob("x", data.clone());
    server.add_blob("y", data.clone());
    let proxy = FaultProxy::start(&server.endpoint()).unwrap();
    (server, proxy, data)
}

/// boto3, given the proxy as its endpoint, puts (a 3 MB body, signed),
/// lists and reads back objects in moto: moto has the bytes boto3 sent,
/// boto3 reads moto's bytes, and the proxy saw each request.
#[test]
fn boto3_through_the_proxy_reaches_moto_unchanged() {
    let Some((moto, proxy)) = moto_behind_proxy() else {
        return;
    };
    moto.create_bucket("proxied").unwrap();
    let direct = blob(1000);
    moto.put_object("proxied", "direct.bin", direct.clone(), false)
        .unwrap();
    let script = r#"
import sys, boto3
s3 = boto3.client("s3", endpoint_url=sys.argv[1], region_name="us-east-1",
                  aws_access_key_id="any", aws_secret_access_key="any")
body = bytes(i * 7 % 251 for i in range(3_000_000))
s3.put_object(Bucket="proxied", Key="via/proxy.bin", Body=body)
keys = [o["Key"] for o in s3.list_objects_v2(Bucket="proxied")["Contents"]]
print(" ".join(keys))
print(s3.get_object(Bucket="proxied", Key="direct.bin")["Body"].read().hex())
"#;
    let Some(out) = require::python_output(&["boto3"], script, [proxy.endpoint()]) else {
        return;
    };
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines, ["direct.bin via/proxy.bin", hex(&direct).as_str()]);
    assert_eq!(
        moto.get_object("proxied", "via/proxy.bin")
            .unwrap()
            .unwrap(),
        blob(3_000_000)
    );
    let seen: Vec<(String, String)> = proxy
        .stats()
        .seen
        .into_iter()
        .map(|s| (s.method, s.path))
        .collect();
    let expected = [
        ("PUT", "/proxied/via/proxy.bin"),
        ("GET", "/proxied"),
        ("GET", "/proxied/direct.bin"),
    ];
    let expected: Vec<(String, String)> = expected
        .iter()
        .map(|(m, p)| (m.to_string(), p.to_string()))
        .collect();
    assert_eq!(seen, expected);
    let query = proxy.stats().seen[1].query.clone().unwrap_or_default();
    assert!(
        query.split('&').any(|q| q == "list-type=2"),
        "ListObjectsV2's query is forwarded: {query}"
    );
}

/// Queued status faults answer in order (empty bodies, S3's SlowDown and
/// AccessDenied documents) without reaching the upstream; then requests
/// pass again.
#[test]
fn status_faults_answer_in_order_then_requests_pass() {
    let (server, proxy, data) = proxied(100);
    proxy.fail_next(1, Fault::Status(500));
    proxy.fail_next(1, Fault::Status(429));
    proxy.fail_next(1, Fault::SlowDown);
    proxy.fail_next(1, Fault::Forbidden);
    assert_eq!(proxy.pending_faults(), 4);
    let url = format!("{}/x", proxy.endpoint());
    let Some(lines) = urllib(&vec![("GET", url, "-"); 5]) else {
        return;
    };
    let field = |line: &str, i: usize| line.split(' ').nth(i).unwrap_or("").to_owned();
    assert_eq!(lines[0], "500 None ");
    assert_eq!(lines[1], "429 None ");
    let text = |line: &str| {
        let h = field(line, 2);
        let bytes: Vec<u8> = (0..h.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&h[i..i + 2], 16).unwrap())
            .collect();
        String::from_utf8(bytes).unwrap()
    };
    assert_eq!(field(&lines[2], 0), "503");
    assert!(
        text(&lines[2]).contains("<Code>SlowDown</Code>"),
        "{}",
        text(&lines[2])
    );
    assert_eq!(field(&lines[3], 0), "403");
    assert!(text(&lines[3]).contains("<Code>AccessDenied</Code>"));
    assert_eq!(lines[4], format!("200 None 100 bytes {}", hex(&data)));
    assert_eq!(proxy.pending_faults(), 0);
    assert_eq!(proxy.stats().requests(), 5);
    assert_eq!(
        server.stats().requests(),
        1,
        "faults do not reach the upstream"
    );
    // The Host the client sent (the proxy's address) is forwarded as is.
    let proxy_host = proxy.endpoint().trim_start_matches("http://").to_owned();
    assert_eq!(server.stats().seen[0].host.as_deref(), Some(&*proxy_host));
}

/// A fault for a pattern hits only the requests whose path contains it.
#[test]
fn matching_faults_hit_only_matching_paths() {
    let (_server, proxy, _) = proxied(10);
    proxy.fail_next_matching("/y", 1, Fault::Status(503));
    let (x, y) = (
        format!("{}/x", proxy.endpoint()),
        format!("{}/y", proxy.endpoint()),
    );
    let Some(lines) = urllib(&[("GET", x, "-"), ("GET", y.clone(), "-"), ("GET", y, "-")]) else {
        return;
    };
    let codes: Vec<&str> = lines.iter().map(|l| &l[..3]).collect();
    assert_eq!(codes, ["200", "503", "200"]);
}

/// TruncatedBody: the client gets the upstream's headers (the whole
/// Content-Length, the Range answer) and half the body; ResetMidBody: the
/// client's read fails with a connection reset. Requests after pass whole.
#[test]
fn cut_bodies_are_errors_for_the_client() {
    let (_server, proxy, data) = proxied(1_000_000);
    let url = format!("{}/x", proxy.endpoint());
    proxy.fail_next(1, Fault::TruncatedBody);
    proxy.fail_next(1, Fault::TruncatedBody);
    proxy.fail_next(1, Fault::ResetMidBody);
    let Some(lines) = urllib(&[
        ("GET", url.clone(), "-"),
        ("GET", url.clone(), "bytes=0-99999"),
        ("GET", url.clone(), "-"),
        ("GET", url, "bytes=0-9"),
    ]) else {
        return;
    };
    assert_eq!(lines[0], "200 None 1000000 bytes short 500000");
    assert_eq!(
        lines[1],
        "206 bytes 0-99999/1000000 100000 bytes short 50000"
    );
    // A reset, not an end of stream: the read fails with ECONNRESET.
    assert_eq!(
        lines[2],
        "200 None 1000000 bytes error ConnectionResetError"
    );
    assert_eq!(
        lines[3],
        format!("206 bytes 0-9/1000000 10 bytes {}", hex(&data[..10]))
    );
}

/// The proxy streams: of an upstream body that stops after half, the
/// client still gets that half (a proxy that read whole bodies first
/// would give nothing).
#[test]
fn bodies_are_streamed_through() {
    let (server, proxy, _) = proxied(400_000);
    server.set_behaviour(Behaviour::ShortBody);
    let Some(lines) = urllib(&[("GET", format!("{}/x", proxy.endpoint()), "-")]) else {
        return;
    };
    assert_eq!(lines, ["200 None 400000 bytes short 200000"]);
}

/// Each request waits at least the latency set (a lower bound, measured
/// by the client); a latency set back to zero applies from the next
/// request.
#[test]
fn latency_is_added_to_each_request() {
    let (_server, proxy, _) = proxied(10);
    let latency = Duration::from_millis(300);
    proxy.set_latency(latency);
    let script = r#"
import sys, time, urllib.request
for _ in range(3):
    t = time.monotonic()
    urllib.request.urlopen(sys.argv[1]).read()
    print(time.monotonic() - t)
"#;
    let url = format!("{}/x", proxy.endpoint());
    let Some(out) = require::python_output(&["urllib.request"], script, [&url]) else {
        return;
    };
    let times: Vec<f64> = out.lines().map(|l| l.parse().unwrap()).collect();
    assert_eq!(times.len(), 3);
    for t in times {
        assert!(t >= latency.as_secs_f64(), "{t}s < {latency:?}");
    }
}

/// An upstream that is not `http://host:port` is refused, naming it.
#[test]
fn a_bad_upstream_is_refused() {
    for bad in [
        "https://127.0.0.1:1",
        "127.0.0.1:1",
        "http://127.0.0.1:1/prefix",
    ] {
        let Err(e) = FaultProxy::start(bad) else {
            panic!("{bad} was accepted");
        };
        assert!(e.to_string().contains(bad), "{e}");
    }
}

/// Respond: the status and body given, the upstream not asked; Endless:
/// the upstream's status with the declared length, and zeros to fill it
/// (the upstream's own 100 bytes are not sent).
#[test]
fn made_up_answers_are_what_the_client_gets() {
    let (server, proxy, _) = proxied(100);
    let url = format!("{}/x", proxy.endpoint());
    proxy.fail_next(
        1,
        Fault::Respond {
            status: 200,
            content_type: "application/xml",
            body: "<not xml",
        },
    );
    proxy.fail_next(
        1,
        Fault::Respond {
            status: 503,
            content_type: "text/plain",
            body: "busy",
        },
    );
    proxy.fail_next(1, Fault::Endless { declared: 1000 });
    let Some(lines) = urllib(&vec![("GET", url, "-"); 3]) else {
        return;
    };
    assert_eq!(lines[0], format!("200 None 8 None {}", hex(b"<not xml")));
    assert_eq!(lines[1], format!("503 None {}", hex(b"busy")));
    assert_eq!(lines[2], format!("200 None 1000 bytes {}", hex(&[0; 1000])));
    assert_eq!(
        server.stats().requests(),
        1,
        "only Endless asks the upstream"
    );
}
