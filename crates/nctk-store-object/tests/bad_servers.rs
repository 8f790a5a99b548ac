//! The object store's key/value store against a real S3 server (moto)
//! behind the fault proxy answering badly on purpose: malformed XML where a
//! listing is expected, a listing that never ends, an object far larger
//! than declared, garbage headers. Each is an error naming the URL and the
//! key or prefix, in bounded time and memory; never a panic, a hang or a
//! missing key.

#![cfg(feature = "connect")]

mod common;
use common::settings;

use std::time::{Duration, Instant};

use nctk_store::kv::{ListableStore, ReadableStore, StoreError, StoreKey, StorePrefix};
use nctk_store_object::kv::LimitError;
use nctk_store_object::{connect, ObjectKvStore, Remote, RemoteOptions};
use nctk_test_servers::{moto_behind_proxy, Fault, FaultProxy, MotoServer as Moto};

/// Few, quick retries and short deadlines: these servers misbehave every
/// time.
fn options() -> RemoteOptions {
    let mut o = RemoteOptions::default();
    o.retry.max_retries = 1;
    o.retry.retry_timeout = Duration::from_secs(2);
    o.retry.backoff.init_backoff = Duration::from_millis(10);
    o.list_timeout = Duration::from_secs(2);
    o
}

/// A bucket on `s3` holding `v/.zarray` and `.zgroup` under the prefix
/// `d`, and a store of it through `proxy` (in front of `s3`).
fn store_behind(
    s3: &Moto,
    proxy: &FaultProxy,
    bucket: &str,
    options: RemoteOptions,
) -> ObjectKvStore {
    s3.create_bucket(bucket).unwrap();
    s3.put_object(bucket, "d/.zgroup", &b"{\"zarr_format\": 2}"[..], false)
        .unwrap();
    s3.put_object(bucket, "d/v/.zarray", &b"{}"[..], false)
        .unwrap();
    let endpoint = proxy.endpoint();
    let url = format!("{endpoint}/{bucket}/d");
    let store = connect::s3(&settings(endpoint, bucket), &options, &url).expect("connect");
    ObjectKvStore::new(Remote::new(store, url, "d", options))
}

fn key(s: &str) -> StoreKey {
    StoreKey::new(s).unwrap()
}

/// The request of a ListObjectsV2 call (what object_store sends).
const LIST: &str = "list-type=2";

/// `e`'s message and its sources'.
fn chain(e: &StoreError) -> String {
    let mut text = e.to_string();
    let mut next = std::error::Error::source(e);
    while let Some(s) = next {
        text.push_str(" | ");
        text.push_str(&s.to_string());
        next = s.source();
    }
    text
}

#[test]
fn listings_that_are_not_xml_are_errors_naming_the_prefix() {
    let Some((s3, proxy)) = moto_behind_proxy() else {
        return;
    };
    let store = store_behind(&s3, &proxy, "badxml", options());
    let v = StorePrefix::new("v").unwrap();
    // The honest listing first, so the faults below are what breaks it.
    assert_eq!(store.list_dir(&v).unwrap().keys, vec![key("v/.zarray")]);
    let bad = |body| Fault::Respond {
        status: 200,
        content_type: "application/xml",
        body,
    };
    for body in [
        "this is not XML",
        // Cut in the middle of an element.
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<ListBucketResult><Name>badxml</Name><IsTrunc",
        "{\"json\": \"where XML belongs\"}",
    ] {
        proxy.fail_next_matching(LIST, 3, bad(body));
        let e = store.list_dir(&v).unwrap_err();
        let text = chain(&e);
        assert!(text.contains("/badxml/d/v"), "names the URL: {text}");
        assert!(text.contains("list"), "{text}");
        let e = store.list_dir(&StorePrefix::root()).unwrap_err();
        assert!(chain(&e).starts_with("/: list"), "{}", chain(&e));
        assert!(store.keys().is_err(), "keys() with {body:?}");
        assert_eq!(proxy.pending_faults(), 0, "each listing asked once");
    }
}

/// A server answering every page with `IsTruncated` and a continuation
/// token (the same one, so a client that only follows tokens never stops)
/// is listed for at most the list deadline, then an error naming the URL
/// and the prefix; the pages hold nothing, so memory stays flat.
#[test]
fn a_listing_that_never_ends_stops_at_the_deadline() {
    let Some((s3, proxy)) = moto_behind_proxy() else {
        return;
    };
    let store = store_behind(&s3, &proxy, "endless", options());
    let page = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
        <ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">\
        <Name>endless</Name><Prefix>d/</Prefix><KeyCount>0</KeyCount><MaxKeys>1000</MaxKeys>\
        <Delimiter>/</Delimiter><IsTruncated>true</IsTruncated>\
        <ContinuationToken>again</ContinuationToken>\
        <NextContinuationToken>again</NextContinuationToken></ListBucketResult>";
    proxy.fail_next_matching(
        LIST,
        usize::MAX,
        Fault::Respond {
            status: 200,
            content_type: "application/xml",
            body: page,
        },
    );
    let started = Instant::now();
    let e = store.list_dir(&StorePrefix::new("v").unwrap()).unwrap_err();
    let took = started.elapsed();
    let text = chain(&e);
    assert!(
        took < Duration::from_secs(10),
        "stopped at the deadline, took {took:?}"
    );
    assert!(
        text.contains("/endless/d") && text.contains("prefix v"),
        "{text}"
    );
    assert!(
        matches!(&e, StoreError::Backend { source, .. } if source.get_ref().is::<LimitError>()),
        "{e:?}"
    );
    let pages = proxy.stats().requests();
    assert!(
        pages > 2,
        "the server was asked for page after page: {pages}"
    );
    let e = store.keys().unwrap_err();
    assert!(chain(&e).contains("did not finish"), "{}", chain(&e));
    proxy.clear_faults();
    // The store is usable again once the server behaves.
    assert_eq!(
        store.list_dir(&StorePrefix::root()).unwrap().keys,
        vec![key(".zgroup")]
    );
}

/// An object whose answer declares a terabyte (and would send zeros for
/// ever) is refused from its headers: an error naming the key, at once,
/// with no terabyte set aside. Below the bound, the value is read whole.
#[test]
fn an_object_larger_than_the_bound_is_refused_from_its_headers() {
    let Some((s3, proxy)) = moto_behind_proxy() else {
        return;
    };
    let store = store_behind(&s3, &proxy, "huge", options());
    let k = key("v/.zarray");
    assert_eq!(store.get(&k).unwrap().as_deref(), Some(&b"{}"[..]));
    proxy.fail_next_matching("/d/v/.zarray", 1, Fault::Endless { declared: 1 << 40 });
    let started = Instant::now();
    let e = store.get(&k).unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(10));
    let text = chain(&e);
    assert!(text.contains("/huge/d/v/.zarray"), "{text}");
    assert!(text.contains(&(1u64 << 40).to_string()), "{text}");
    // get_many reads through the same bound.
    proxy.fail_next_matching("/d/v/.zarray", 1, Fault::Endless { declared: 1 << 40 });
    let e = store.get_many(&[key(".zgroup"), k.clone()]).unwrap_err();
    assert!(chain(&e).contains("v/.zarray"), "{}", chain(&e));
    // A bound set lower refuses a smaller answer the same way.
    let small = RemoteOptions {
        max_object_size: 1000,
        ..options()
    };
    let store = store_behind(&s3, &proxy, "huge2", small);
    proxy.fail_next_matching("/d/v/.zarray", 1, Fault::Endless { declared: 1001 });
    let e = store.get(&k).unwrap_err();
    assert!(chain(&e).contains("1001"), "{}", chain(&e));
    assert_eq!(store.get(&k).unwrap().as_deref(), Some(&b"{}"[..]));
}

/// A ranged GET answered 206 without the `Content-Range` that says which
/// bytes came, or with a body shorter than asked, is an error naming the
/// key, never bytes taken on trust; an error document that is not XML is
/// still the error its status says.
#[test]
fn answers_with_garbage_headers_are_errors_naming_the_key() {
    let Some((s3, proxy)) = moto_behind_proxy() else {
        return;
    };
    let store = store_behind(&s3, &proxy, "garbage", options());
    let k = key(".zgroup");
    assert_eq!(
        store.get_range(&k, 1..5).unwrap().as_deref(),
        Some(&b"\"zar"[..])
    );
    let garbage = Fault::Respond {
        status: 206,
        content_type: "text/html",
        body: "<html>a captive portal</html>",
    };
    proxy.fail_next_matching("/d/.zgroup", 1, garbage);
    let e = store.get_range(&k, 1..5).unwrap_err();
    assert!(chain(&e).contains("/garbage/d/.zgroup"), "{}", chain(&e));
    // A 403 whose body is not S3's XML is still access denied.
    proxy.fail_next_matching(
        "/d/v/.zarray",
        1,
        Fault::Respond {
            status: 403,
            content_type: "application/xml",
            body: "<Error><Code>AccessDen",
        },
    );
    let e = store.get(&key("v/.zarray")).unwrap_err();
    assert!(chain(&e).contains("access denied"), "{}", chain(&e));
    assert_eq!(proxy.pending_faults(), 0);
    assert_eq!(store.get(&k).unwrap().as_deref().map(<[u8]>::len), Some(18));
}
