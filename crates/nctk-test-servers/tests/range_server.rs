//! `RangeFileServer` as urllib sees it: each `Behaviour`'s status,
//! headers and body, files and blobs, and the requests it recorded.

mod common;

use common::{blob, hex, urllib};
use nctk_test_servers::{Behaviour, RangeFileServer};

/// Honest: 200 for the whole, 206 with the asked bytes for each range
/// form (clamped at the end), 416 past the end, HEAD with the length,
/// 404 for a missing name; every request and its Range recorded, the body
/// bytes counted.
#[test]
fn honest_answers_as_http_says() {
    let server = RangeFileServer::start(Behaviour::Honest).unwrap();
    let data = blob(1000);
    server.add_blob("data.bin", data.clone());
    let url = server.url("data.bin");
    let Some(lines) = urllib(&[
        ("GET", url.clone(), "-"),
        ("GET", url.clone(), "bytes=10-19"),
        ("GET", url.clone(), "bytes=990-"),
        ("GET", url.clone(), "bytes=-5"),
        ("GET", url.clone(), "bytes=995-2000"),
        ("GET", url.clone(), "bytes=1000-1001"),
        ("HEAD", url.clone(), "-"),
        ("GET", server.url("missing.bin"), "-"),
    ]) else {
        return;
    };
    let expected = [
        format!("200 None 1000 bytes {}", hex(&data)),
        format!("206 bytes 10-19/1000 10 bytes {}", hex(&data[10..20])),
        format!("206 bytes 990-999/1000 10 bytes {}", hex(&data[990..])),
        format!("206 bytes 995-999/1000 5 bytes {}", hex(&data[995..])),
        format!("206 bytes 995-999/1000 5 bytes {}", hex(&data[995..])),
        "416 bytes */1000".to_owned(),
        "200 None 1000 bytes ".to_owned(),
        "404 None".to_owned(),
    ];
    // Error statuses: the status and Content-Range (the body is a note).
    let lines: Vec<String> = lines
        .iter()
        .map(|l| match l.split(' ').collect::<Vec<_>>()[..] {
            [code @ ("416" | "404"), ref rest @ .., _body] => [&[code], rest].concat().join(" "),
            _ => l.clone(),
        })
        .collect();
    assert_eq!(lines, expected);
    let stats = server.stats();
    assert_eq!(stats.requests(), 8);
    assert_eq!(
        stats.ranges(),
        [
            "bytes=10-19",
            "bytes=990-",
            "bytes=-5",
            "bytes=995-2000",
            "bytes=1000-1001"
        ]
    );
    assert_eq!(stats.seen[6].method, "HEAD");
    assert_eq!(stats.seen[7].path, "/missing.bin");
    assert_eq!(stats.bytes_sent, 1000 + 10 + 10 + 5 + 5);
    server.reset_stats();
    assert_eq!(server.stats().requests(), 0);
}

/// Files under the root are served as blobs are (streamed from the file,
/// here one larger than the server's read block; names percent-encoded
/// in URLs); paths leaving the root are not served; a missing root is
/// an error naming it.
#[test]
fn files_under_the_root_are_served() {
    let dir = tempfile::tempdir().unwrap();
    let data = blob(600_000);
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    std::fs::write(dir.path().join("sub/f.nc"), &data).unwrap();
    std::fs::create_dir(dir.path().join("sub/a b")).unwrap();
    std::fs::write(dir.path().join("sub/a b/c+d.nc"), &data[..3]).unwrap();
    let server = RangeFileServer::start_dir(dir.path().join("sub"), Behaviour::Honest).unwrap();
    std::fs::write(dir.path().join("secret"), b"not served").unwrap();
    let Some(lines) = urllib(&[
        ("GET", server.url("f.nc"), "bytes=262140-262149"),
        ("GET", server.url("f.nc"), "-"),
        ("GET", format!("{}/%2E%2E/secret", server.endpoint()), "-"),
        ("GET", server.url("a b/c+d.nc"), "-"),
    ]) else {
        return;
    };
    assert_eq!(
        lines[0],
        format!(
            "206 bytes 262140-262149/600000 10 bytes {}",
            hex(&data[262140..262150])
        )
    );
    assert_eq!(lines[1], format!("200 None 600000 bytes {}", hex(&data)));
    assert!(lines[2].starts_with("404 None "), "{}", lines[2]);
    assert_eq!(lines[3], format!("200 None 3 bytes {}", hex(&data[..3])));
    let missing = dir.path().join("missing");
    let Err(e) = RangeFileServer::start_dir(&missing, Behaviour::Honest) else {
        panic!("a missing root was accepted");
    };
    assert!(e.to_string().contains(&*missing.to_string_lossy()), "{e}");
}

/// IgnoreRange: 200 and the whole body whatever Range asks.
#[test]
fn ignore_range_sends_the_whole_body() {
    let server = RangeFileServer::start(Behaviour::IgnoreRange).unwrap();
    let data = blob(300);
    server.add_blob("x", data.clone());
    let Some(lines) = urllib(&[("GET", server.url("x"), "bytes=10-19")]) else {
        return;
    };
    assert_eq!(lines, [format!("200 None 300 bytes {}", hex(&data))]);
    assert_eq!(server.stats().ranges(), ["bytes=10-19"]);
}

/// WrongContentRange: 206 with the asked bytes under a Content-Range that
/// names others, also for a range reaching the end and for the whole.
#[test]
fn wrong_content_range_names_other_bytes() {
    let server = RangeFileServer::start(Behaviour::WrongContentRange).unwrap();
    let data = blob(300);
    server.add_blob("x", data.clone());
    let url = server.url("x");
    let Some(lines) = urllib(&[
        ("GET", url.clone(), "bytes=10-19"),
        ("GET", url.clone(), "bytes=290-299"),
        ("GET", url.clone(), "bytes=0-299"),
    ]) else {
        return;
    };
    let asked = [(10, 19), (290, 299), (0, 299)];
    for (line, (first, last)) in lines.iter().zip(asked) {
        let fields: Vec<&str> = line.split(' ').collect();
        assert_eq!(fields[0], "206", "{line}");
        assert_ne!(fields[2], format!("{first}-{last}/300"), "{line}");
        assert_eq!(fields[5], hex(&data[first..=last]), "{line}");
    }
}

/// ShortBody: the headers declare every asked byte, the body stops after
/// half of them; the behaviour can be switched back to honest.
#[test]
fn short_body_closes_after_half() {
    let server = RangeFileServer::start(Behaviour::ShortBody).unwrap();
    let data = blob(100_000);
    server.add_blob("x", data.clone());
    let url = server.url("x");
    let Some(lines) = urllib(&[
        ("GET", url.clone(), "bytes=0-39999"),
        ("GET", url.clone(), "-"),
    ]) else {
        return;
    };
    assert_eq!(
        lines,
        [
            "206 bytes 0-39999/100000 40000 bytes short 20000",
            "200 None 100000 bytes short 50000"
        ]
    );
    assert_eq!(server.stats().bytes_sent, 70_000);
    server.set_behaviour(Behaviour::Honest);
    let Some(lines) = urllib(&[("GET", url, "bytes=0-3")]) else {
        return;
    };
    assert_eq!(
        lines,
        [format!("206 bytes 0-3/100000 4 bytes {}", hex(&data[..4]))]
    );
}

/// Started, used and dropped from inside a caller's tokio runtime: no
/// panic (the server runs on a runtime of its own).
#[tokio::test]
async fn works_inside_a_callers_runtime() {
    let server = RangeFileServer::start(Behaviour::Honest).unwrap();
    server.add_blob("x", blob(10));
    let Some(lines) = urllib(&[("GET", server.url("x"), "bytes=2-3")]) else {
        return;
    };
    assert_eq!(
        lines,
        [format!("206 bytes 2-3/10 2 bytes {}", hex(&blob(10)[2..4]))]
    );
    drop(server);
}
