//! `RemoteSource` (`#mode=bytes`): the byte-source contract over objects
//! in a real S3 server (moto), read over plain HTTP and through the S3
//! API; request counts and misbehaving servers against
//! `nctk-test-servers`' range server.

#![cfg(feature = "connect")]

use std::sync::Arc;
use std::time::Duration;

use nctk_store::bytes::ByteSource;
use nctk_store::conformance;
use nctk_store_object::{
    connect, Remote, RemoteOptions, RemoteSource, S3Credentials, S3Settings, PART,
};
use nctk_test_servers::{moto, moto_behind_proxy, Behaviour, Fault, MotoServer, RangeFileServer};

/// Few, quick retries: the misbehaving servers misbehave every time.
fn options() -> RemoteOptions {
    let mut o = RemoteOptions::default();
    o.retry.max_retries = 1;
    o.retry.retry_timeout = Duration::from_secs(2);
    o.retry.backoff.init_backoff = Duration::from_millis(10);
    o
}

/// A source over `name` on the HTTP server at `endpoint`.
fn http_source(endpoint: &str, name: &str) -> RemoteSource {
    let store = connect::http(endpoint, &options()).unwrap();
    RemoteSource::new(&Remote::new(store, endpoint, "", options()), name)
}

/// Bytes that depend on their offset.
fn pattern(n: usize) -> Vec<u8> {
    (0..n).map(|i| (i ^ (i >> 8) ^ (i >> 16)) as u8).collect()
}

/// `bucket` in moto through the S3 API (signed, path style).
fn s3_remote(moto: &MotoServer, bucket: &str) -> Remote {
    let url = format!("s3://{bucket}");
    let settings = S3Settings {
        bucket: bucket.into(),
        region: "us-east-1".into(),
        endpoint: Some(moto.endpoint()),
        virtual_hosted: false,
        credentials: S3Credentials::Static {
            access_key_id: "x".into(),
            secret_access_key: "x".into(),
            session_token: None,
        },
    };
    let store = connect::s3(&settings, &options(), &url).unwrap();
    Remote::new(store, url, "", options())
}

/// The byte-source contract over public objects in moto: read over plain
/// HTTP (`http://127.0.0.1:PORT/bucket/key`, unsigned) and through the S3
/// API (signed, path style).
#[test]
fn contract_over_moto_objects() {
    let Some(moto) = moto() else { return };
    moto.create_bucket("contract").unwrap();
    let s3 = s3_remote(&moto, "contract");
    let n = std::sync::atomic::AtomicUsize::new(0);
    let put = |d: &[u8]| {
        let key = format!(
            "obj{}",
            n.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        );
        moto.put_object("contract", &key, d.to_vec(), true).unwrap();
        key
    };
    conformance::byte_source(|d| RemoteSource::new(&s3, &put(d)));
    conformance::byte_source(|d| http_source(&moto.endpoint(), &format!("contract/{}", put(d))));
}

/// A server that ignores `Range` still gives the right bytes: the body is
/// fetched once more in whole (and held once), and every later read,
/// small or batched, is served from that copy without a request.
#[test]
fn a_server_ignoring_range_is_read_from_one_copy() {
    let server = RangeFileServer::start(Behaviour::IgnoreRange).unwrap();
    // Larger than the in-memory limit, so the copy is a spill file.
    let data = pattern(20 << 20);
    server.add_blob("big.bin", data.clone());
    server.add_blob("small.bin", pattern(5000));
    for (name, data) in [("big.bin", data), ("small.bin", pattern(5000))] {
        let before = server.stats().requests();
        let src = http_source(&server.endpoint(), name);
        assert_eq!(&src.read_range(10..20).unwrap()[..], &data[10..20]);
        // HEAD, the range GET answered in whole, the GET of the copy.
        assert_eq!(server.stats().requests() - before, 3, "{name}");
        let ranges = [0..7, 4000..4100, 4090..u64::MAX, 1..1];
        let got = src.read_ranges(&ranges).unwrap();
        for (r, g) in ranges.iter().zip(&got) {
            let end = (r.end as usize).min(data.len()).max(r.start as usize);
            assert_eq!(&g[..], &data[r.start as usize..end], "{name} {r:?}");
        }
        let mut buf = vec![0u8; 3 << 20];
        assert_eq!(
            src.read_full(1, &mut buf).unwrap(),
            (data.len() - 1).min(buf.len())
        );
        assert_eq!(
            &buf[..data.len().min(buf.len()) - 1],
            &data[1..data.len().min(buf.len())]
        );
        assert_eq!(
            server.stats().requests() - before,
            3,
            "{name}: no request after the copy"
        );
    }
}

/// A `Content-Range` naming other bytes than asked, or a body cut short,
/// is an error naming the URL and the offset, never wrong bytes.
#[test]
fn wrong_content_range_and_short_bodies_are_errors() {
    for behaviour in [Behaviour::WrongContentRange, Behaviour::ShortBody] {
        let server = RangeFileServer::start(behaviour).unwrap();
        server.add_blob("x.nc", pattern(3 << 20));
        let src = http_source(&server.endpoint(), "x.nc");
        let url = format!("{}/x.nc", server.endpoint());
        let mut buf = [0u8; 16];
        let e = src.read_full(100, &mut buf).unwrap_err().to_string();
        assert!(
            e.contains(&url) && e.contains("offset 0"),
            "{behaviour:?}: {e}"
        );
        let mut big = vec![0u8; 2 << 20];
        let e = src.read_full(12345, &mut big).unwrap_err().to_string();
        assert!(
            e.contains(&url) && e.contains("offset 12345"),
            "{behaviour:?}: {e}"
        );
        let e = src.read_ranges(&[5..9, 2_500_000..2_500_004]).unwrap_err();
        assert!(e.to_string().contains(&url), "{behaviour:?}: {e}");
    }
}

/// A missing object is "not found", named by its URL.
#[test]
fn a_missing_object_says_not_found() {
    let server = RangeFileServer::start(Behaviour::Honest).unwrap();
    let src = http_source(&server.endpoint(), "nope.nc");
    let e = src.len().unwrap_err().to_string();
    assert!(e.contains("nope.nc") && e.contains("not found"), "{e}");
}

/// With no cache (`RemoteOptions::cache_bytes` 0), each small read is a
/// request of its own; with the default cache, the same reads cost one.
#[test]
fn the_cache_is_as_large_as_asked() {
    let server = RangeFileServer::start(Behaviour::Honest).unwrap();
    let data = pattern(4 << 20);
    server.add_blob("f.nc", data.clone());
    let reads = |cache_bytes: u64| {
        let options = RemoteOptions {
            cache_bytes,
            ..options()
        };
        let store = connect::http(&server.endpoint(), &options).unwrap();
        let src = RemoteSource::new(&Remote::new(store, server.endpoint(), "", options), "f.nc");
        let before = server.stats().requests();
        for i in 0..50u64 {
            let r = i * 100..i * 100 + 37;
            let got = src.read_range(r.clone()).unwrap();
            assert_eq!(&got[..], &data[r.start as usize..r.end as usize]);
        }
        server.stats().requests() - before
    };
    assert_eq!(
        reads(RemoteOptions::default().cache_bytes),
        2,
        "HEAD and one block"
    );
    assert!(reads(0) > 50, "a request per read without a cache");
}

/// Small reads go through the block cache: a header read and the reads
/// near it cost one range request (plus the HEAD); a batch of nearby
/// ranges is one request; ranges far apart are separate requests, run
/// concurrently; a large read is cut into parts. The server counts.
#[test]
fn requests_are_few_and_cached() {
    let server = RangeFileServer::start(Behaviour::Honest).unwrap();
    let data = pattern(40 << 20);
    server.add_blob("f.nc", data.clone());
    let src = http_source(&server.endpoint(), "f.nc");
    let count = || server.stats().requests();
    for i in 0..200u64 {
        let r = i * 100..i * 100 + 37;
        assert_eq!(
            &src.read_range(r.clone()).unwrap()[..],
            &data[r.start as usize..r.end as usize]
        );
    }
    assert_eq!(count(), 2, "HEAD and one block: {:?}", server.stats());
    // A point series: 50 values 64 KiB apart, past the cached block.
    let points: Vec<_> = (0..50u64)
        .map(|i| (2 << 20) + i * 65536..(2 << 20) + i * 65536 + 4)
        .collect();
    let got = src.read_ranges(&points).unwrap();
    for (r, g) in points.iter().zip(&got) {
        assert_eq!(&g[..], &data[r.start as usize..r.end as usize]);
    }
    // One merged span (the gaps are read through), cut into parts.
    let span = points[49].end - points[0].start;
    let parts = span.div_ceil(PART) as usize;
    assert!(parts <= 2);
    assert_eq!(count(), 2 + parts, "coalesced: {:?}", server.stats());
    // Within the cached block again: no request.
    let got = src.read_ranges(&[10..20, 5000..5008]).unwrap();
    assert_eq!(&got[1][..], &data[5000..5008]);
    assert_eq!(count(), 2 + parts);
    // Points 4 MiB apart: one request each (no read-through of 4 MiB gaps).
    let far: Vec<_> = (0..6u64)
        .map(|i| (8 << 20) + i * (4 << 20)..(8 << 20) + i * (4 << 20) + 8)
        .collect();
    let got = src.read_ranges(&far).unwrap();
    assert_eq!(&got[5][..], &data[(28 << 20)..(28 << 20) + 8]);
    assert_eq!(count(), 2 + parts + 6);
    // 9 MiB at once: parts of at most 2 MiB.
    let mut big = vec![0u8; 9 << 20];
    assert_eq!(src.read_full(1 << 20, &mut big).unwrap(), big.len());
    assert!(big == data[1 << 20..10 << 20]);
    assert_eq!(
        count(),
        2 + parts + 6 + (9u64 << 20).div_ceil(PART) as usize
    );
}

/// Reads from inside a caller's tokio runtime neither panic nor deadlock.
#[test]
fn reads_from_inside_a_tokio_runtime() {
    let server = RangeFileServer::start(Behaviour::Honest).unwrap();
    server.add_blob("t.bin", pattern(1000));
    let src = Arc::new(http_source(&server.endpoint(), "t.bin"));
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let got = rt.block_on(async move { src.read_range(3..9).unwrap() });
    assert_eq!(&got[..], &pattern(1000)[3..9]);
}

/// Faults between nctk and moto (`FaultProxy`): 503s, `SlowDown`, a body
/// reset or cut short are retried and give the right bytes; a fault that
/// outlasts the retries is an error naming the URL; 403 is told apart.
#[test]
fn faults_are_retried_or_named() {
    let Some((moto, proxy)) = moto_behind_proxy() else {
        return;
    };
    moto.create_bucket("faults").unwrap();
    let data = pattern(3 << 20);
    moto.put_object("faults", "f.bin", data.clone(), true)
        .unwrap();
    let fresh = || http_source(&proxy.endpoint(), "faults/f.bin");
    for fault in [
        Fault::Status(503),
        Fault::SlowDown,
        Fault::ResetMidBody,
        Fault::TruncatedBody,
    ] {
        let src = fresh();
        assert_eq!(src.len().unwrap(), data.len() as u64);
        proxy.fail_next(1, fault);
        let got = src.read_range(1000..(2 << 20) + 7).unwrap();
        assert!(got == data[1000..(2 << 20) + 7], "{fault:?}: wrong bytes");
        assert_eq!(proxy.pending_faults(), 0, "{fault:?} was not met");
    }
    // More 503s than retries: an error naming the URL, never bytes.
    let src = fresh();
    src.len().unwrap();
    proxy.fail_next(10, Fault::Status(503));
    let e = src.read_range(0..10).unwrap_err().to_string();
    assert!(e.contains("faults/f.bin") && e.contains("503"), "{e}");
    proxy.clear_faults();
    proxy.fail_next(10, Fault::Forbidden);
    let e = fresh().len().unwrap_err().to_string();
    assert!(e.contains("faults/f.bin") && e.contains("403"), "{e}");
    proxy.clear_faults();
}

/// An object replaced while it is read (moto answers the version asked
/// for with `If-Match`, 412 otherwise) is an error, never bytes of two
/// versions; the bytes read before stay those of the first.
#[test]
fn an_object_replaced_while_read_is_an_error() {
    let Some(moto) = moto() else { return };
    moto.create_bucket("versions").unwrap();
    let first = pattern(3 << 20);
    moto.put_object("versions", "v.nc", first.clone(), true)
        .unwrap();
    for src in [
        http_source(&moto.endpoint(), "versions/v.nc"),
        RemoteSource::new(&s3_remote(&moto, "versions"), "v.nc"),
    ] {
        moto.put_object("versions", "v.nc", first.clone(), true)
            .unwrap();
        assert_eq!(&src.read_range(0..10).unwrap()[..], &first[..10]);
        let second: Vec<u8> = first.iter().map(|b| b ^ 0xff).collect();
        moto.put_object("versions", "v.nc", second, true).unwrap();
        // Cached: the first version's bytes.
        assert_eq!(&src.read_range(10..20).unwrap()[..], &first[10..20]);
        let e = src
            .read_range(2 << 20..(2 << 20) + 10)
            .unwrap_err()
            .to_string();
        assert!(e.contains("v.nc") && e.contains("changed"), "{e}");
    }
}
