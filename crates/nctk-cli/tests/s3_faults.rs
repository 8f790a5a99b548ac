//! `nctk dump` of a Zarr store on S3 (moto) through the fault proxy when
//! the server misbehaves: a listing that is not XML, a `.zarray` that is
//! not JSON, a 403, a chunk whose GET keeps failing with 503. Each run
//! exits non-zero with a message naming the URL and the key or prefix,
//! and prints no value it did not read (never fill values for a failure):
//! what it printed is a prefix of the store's local dump. Retries are set
//! through the environment (`NCTK_S3_MAX_RETRIES`, `NCTK_S3_RETRY_TIMEOUT`),
//! and an unusable setting there is refused by name.

use std::process::{Command, Output};

use nctk_test_servers::{moto_behind_proxy, Fault, FaultProxy, MotoServer as Moto};
use nctk_test_support::require;

const STORE: &str = "generated/other-writers/zarr-python-v2/codecs.zarr";

/// Runs `nctk` with a key pair for moto, quick retries and `env`.
fn nctk_with(env: &[(&str, &str)], args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_nctk"))
        .args(args)
        .env("AWS_ACCESS_KEY_ID", "test")
        .env("AWS_SECRET_ACCESS_KEY", "test")
        .env_remove("AWS_PROFILE")
        .env("NCTK_S3_MAX_RETRIES", "1")
        .env("NCTK_S3_RETRY_TIMEOUT", "2")
        .envs(env.iter().copied())
        .output()
        .expect("run nctk")
}

/// A test's start: the corpus store uploaded to a bucket on moto, with a
/// proxy in front of moto.
struct Served {
    // Dropped first: the proxy stops before the server behind it.
    proxy: FaultProxy,
    /// The server behind the proxy, kept running.
    _s3: Moto,
    /// The store's URL through the proxy, without its `#mode`.
    at: String,
    /// `at` with `#mode=zarr,s3`: what `nctk` is given.
    url: String,
    /// The store's local dump's body.
    whole: String,
}

/// The corpus store uploaded to `bucket` on moto behind a proxy, checked
/// to dump through it as it dumps locally; `None` when the corpus or
/// moto is missing.
fn served(bucket: &str) -> Option<Served> {
    let local = require::corpus_path(STORE)?;
    let (s3, proxy) = moto_behind_proxy()?;
    s3.create_bucket(bucket).unwrap();
    s3.upload_dir(bucket, "codecs.zarr", &local).unwrap();
    let at = format!("{}/{bucket}/codecs.zarr", proxy.endpoint());
    let url = format!("{at}#mode=zarr,s3");
    let local_dump = nctk_with(
        &[],
        &[
            "dump",
            &format!("file://{}#mode=zarr,file", local.display()),
        ],
    );
    assert!(local_dump.status.success());
    let good = nctk_with(&[], &["dump", &url]);
    assert!(
        good.status.success(),
        "{}",
        String::from_utf8_lossy(&good.stderr)
    );
    assert_eq!(body(&good.stdout), body(&local_dump.stdout));
    Some(Served {
        proxy,
        _s3: s3,
        at,
        url,
        whole: body(&local_dump.stdout),
    })
}

/// A dump without its first line (which names the dataset).
fn body(out: &[u8]) -> String {
    let text = String::from_utf8_lossy(out);
    text.split_once('\n')
        .map_or_else(String::new, |(_, b)| b.to_string())
}

/// `out` failed, its stderr contains each of `names`, and its stdout is a
/// prefix of `whole` (nothing printed that was not read).
fn failed_naming(out: &Output, names: &[&str], whole: &str) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!out.status.success(), "exit 0; stderr {stderr}");
    for name in names {
        assert!(stderr.contains(name), "{name} not in: {stderr}");
    }
    eprintln!("STDERR: {stderr}");
    let printed = body(&out.stdout);
    assert!(
        whole.starts_with(&printed),
        "printed what the store does not hold:\n{printed}"
    );
    assert!(printed.len() < whole.len(), "the whole dump was printed");
    stderr
}

#[test]
fn a_listing_or_metadata_that_does_not_parse_is_an_error_naming_it() {
    let Some(store) = served("malformed") else {
        return;
    };
    // A pure Zarr store without .zmetadata is listed to find its arrays.
    store.proxy.fail_next_matching(
        "list-type=2",
        usize::MAX,
        Fault::Respond {
            status: 200,
            content_type: "application/xml",
            body: "<?xml version=\"1.0\"?><ListBucketResult><Name>malfor",
        },
    );
    let out = nctk_with(&[], &["dump", &store.url]);
    let stderr = failed_naming(&out, &[&store.at, "list"], &store.whole);
    assert!(!stderr.contains("panicked"), "{stderr}");
    store.proxy.clear_faults();
    store.proxy.fail_next_matching(
        "/zlib/.zarray",
        usize::MAX,
        Fault::Respond {
            status: 200,
            content_type: "application/json",
            body: "{\"shape\": [10, 100], \"chunks\": [4,",
        },
    );
    let out = nctk_with(&[], &["dump", &store.url]);
    failed_naming(&out, &["zlib/.zarray"], &store.whole);
}

#[test]
fn access_denied_and_failures_after_retries_are_errors_never_fill_values() {
    let Some(store) = served("denied") else {
        return;
    };
    store.proxy.fail_next(usize::MAX, Fault::Forbidden);
    let out = nctk_with(&[], &["dump", &store.url]);
    failed_naming(&out, &[&store.at, "access denied"], &store.whole);
    store.proxy.clear_faults();
    // One chunk of one variable keeps failing: the dump stops there.
    store
        .proxy
        .fail_next_matching("/zlib/1.2", usize::MAX, Fault::Status(503));
    store.proxy.reset_stats();
    let out = nctk_with(&[], &["dump", &store.url]);
    failed_naming(&out, &[&format!("{}/zlib/1.2", store.at)], &store.whole);
    let asked = store
        .proxy
        .stats()
        .seen
        .iter()
        .filter(|s| s.path.contains("/zlib/1.2"))
        .count();
    assert_eq!(
        asked, 2,
        "one request and the one retry NCTK_S3_MAX_RETRIES allows"
    );
}

#[test]
fn an_unusable_retry_setting_is_refused_by_name() {
    let out = nctk_with(
        &[("NCTK_S3_MAX_RETRIES", "many")],
        &["dump", "s3://bucket/store.zarr#mode=zarr,s3"],
    );
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("NCTK_S3_MAX_RETRIES") && stderr.contains("many"),
        "{stderr}"
    );
}
