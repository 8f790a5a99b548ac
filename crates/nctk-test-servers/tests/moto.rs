//! `MotoServer` against boto3 and urllib: what the helpers put, boto3
//! lists and reads; what boto3 puts, the helpers see.

use std::path::Path;

use nctk_test_servers::{moto, MotoServer};
use nctk_test_support::require;

/// boto3 against the server at `argv[1]`: prints a line `key<TAB>hex`
/// for each key (ListObjectsV2 under `argv[3]`) of bucket `argv[2]`, hex
/// being its bytes read back; then puts `argv[4]` = hex of `argv[5]`.
const BOTO3: &str = r#"
import sys, boto3
endpoint, bucket, prefix, put_key, put_hex = sys.argv[1:6]
s3 = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1",
                  aws_access_key_id="any", aws_secret_access_key="any")
for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix):
    for o in page.get("Contents", []):
        body = s3.get_object(Bucket=bucket, Key=o["Key"])["Body"].read()
        print(o["Key"] + "\t" + body.hex())
if put_key:
    s3.put_object(Bucket=bucket, Key=put_key, Body=bytes.fromhex(put_hex))
"#;

/// Runs [`BOTO3`]: the objects it saw under `prefix`, key to hex.
fn boto3_objects(
    moto: &MotoServer,
    bucket: &str,
    prefix: &str,
    put: Option<(&str, &[u8])>,
) -> Option<Vec<(String, String)>> {
    let (key, bytes) = put.unwrap_or(("", b""));
    let out = require::python_output(
        &["boto3"],
        BOTO3,
        [&moto.endpoint(), bucket, prefix, key, &hex(bytes)],
    )?;
    Some(
        out.lines()
            .map(|line| {
                let (k, v) = line.split_once('\t').expect("key<TAB>hex");
                (k.to_owned(), v.to_owned())
            })
            .collect(),
    )
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Objects put by the helpers (private and public, keys with spaces and
/// nesting) are listed and read back by boto3 with the same bytes; an
/// object boto3 puts is listed and read by the helpers; a missing key is
/// `None`.
#[test]
fn boto3_sees_what_the_helpers_put_and_the_reverse() {
    let Some(moto) = moto() else { return };
    moto.create_bucket("roundtrip").unwrap();
    let objects: [(&str, Vec<u8>, bool); 3] = [
        ("a/b c.bin", (0..=255).collect(), false),
        ("a/d/e.nc", b"CDF\x01\0\0\0\0".to_vec(), true),
        ("a/empty", vec![], false),
    ];
    for (key, bytes, public) in &objects {
        moto.put_object("roundtrip", key, bytes.clone(), *public)
            .unwrap();
    }
    moto.put_object("roundtrip", "elsewhere", b"x".to_vec(), false)
        .unwrap();
    let Some(seen) = boto3_objects(&moto, "roundtrip", "a/", Some(("a/from-boto3", b"boto")))
    else {
        return;
    };
    let mut expected: Vec<(String, String)> = objects
        .iter()
        .map(|(k, b, _)| (k.to_string(), hex(b)))
        .collect();
    expected.sort();
    assert_eq!(seen, expected);

    let mut listed = moto.list_keys("roundtrip", "a/").unwrap();
    listed.sort();
    let mut keys: Vec<&str> = objects.iter().map(|(k, ..)| *k).collect();
    keys.push("a/from-boto3");
    keys.sort();
    assert_eq!(listed, keys);
    assert_eq!(
        moto.get_object("roundtrip", "a/from-boto3")
            .unwrap()
            .unwrap(),
        b"boto"
    );
    assert_eq!(moto.get_object("roundtrip", "a/missing").unwrap(), None);
}

/// urllib, with no credentials: a public object is served, with `Range`
/// (206 and the asked bytes, as `#mode=bytes` reads need); a private one
/// is refused (403).
#[test]
fn public_objects_are_served_to_anonymous_range_requests() {
    let Some(moto) = moto() else { return };
    moto.create_bucket("public").unwrap();
    let bytes: Vec<u8> = (0..100).collect();
    moto.put_object("public", "open.bin", bytes.clone(), true)
        .unwrap();
    moto.put_object("public", "closed.bin", bytes.clone(), false)
        .unwrap();
    let script = r#"
import sys, urllib.request, urllib.error
for url in sys.argv[1:]:
    req = urllib.request.Request(url, headers={"Range": "bytes=10-19"})
    try:
        with urllib.request.urlopen(req) as r:
            print(r.status, r.headers["Content-Range"], r.read().hex())
    except urllib.error.HTTPError as e:
        print(e.code)
"#;
    let Some(out) = require::python_output(
        &["urllib.request"],
        script,
        [
            moto.url("public", "open.bin"),
            moto.url("public", "closed.bin"),
        ],
    ) else {
        return;
    };
    let expected = format!("206 bytes 10-19/100 {}\n403\n", hex(&bytes[10..20]));
    assert_eq!(out, expected);
}

/// A corpus store uploaded key by key: the helpers list every file under
/// it with its relative path, and boto3 reads each with the file's bytes.
#[test]
fn upload_dir_puts_a_corpus_store_key_by_key() {
    let rel = "generated/other-writers/zarr-python-v2/cases/i2_nested_sep.zarr";
    let Some(store) = require::corpus_path(rel) else {
        return;
    };
    let Some(moto) = moto() else { return };
    moto.create_bucket("corpus").unwrap();
    let n = moto
        .upload_dir("corpus", "stores/i2.zarr/", &store)
        .unwrap();
    let mut expected = vec![];
    walk(&store, &store, &mut expected);
    expected.sort();
    assert_eq!(n, expected.len());
    let keys: Vec<String> = expected
        .iter()
        .map(|(k, _)| format!("stores/i2.zarr/{k}"))
        .collect();
    assert_eq!(moto.list_keys("corpus", "stores/").unwrap(), keys);
    let Some(seen) = boto3_objects(&moto, "corpus", "stores/i2.zarr/", None) else {
        return;
    };
    let want: Vec<(String, String)> = keys
        .into_iter()
        .zip(expected.iter().map(|(_, hex)| hex.clone()))
        .collect();
    assert_eq!(seen, want);
}

/// Every file under `dir` as (`/`-joined path relative to `root`, hex).
fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, String)>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            walk(root, &path, out);
        } else {
            let rel = path.strip_prefix(root).unwrap().to_str().unwrap();
            out.push((rel.to_owned(), hex(&std::fs::read(&path).unwrap())));
        }
    }
}

/// More keys than one ListObjectsV2 page holds (1000): the helpers follow
/// the continuation token and list every key once, as boto3's paginator
/// does.
#[test]
fn list_keys_follows_continuation_tokens() {
    let Some(moto) = moto() else { return };
    let dir = tempfile::tempdir().unwrap();
    for i in 0..1003 {
        std::fs::write(dir.path().join(format!("k{i:04}")), i.to_string()).unwrap();
    }
    moto.create_bucket("many").unwrap();
    assert_eq!(moto.upload_dir("many", "", dir.path()).unwrap(), 1003);
    let listed = moto.list_keys("many", "").unwrap();
    let expected: Vec<String> = (0..1003).map(|i| format!("k{i:04}")).collect();
    assert_eq!(listed, expected);
    let Some(seen) = boto3_objects(&moto, "many", "", None) else {
        return;
    };
    let keys: Vec<String> = seen.into_iter().map(|(k, _)| k).collect();
    assert_eq!(keys, expected);
}

/// Dropping the server kills it: its port refuses connections after.
#[test]
fn dropping_the_server_stops_it() {
    let Some(moto) = moto() else { return };
    let addr = moto.endpoint().trim_start_matches("http://").to_owned();
    assert!(std::net::TcpStream::connect(&addr).is_ok());
    drop(moto);
    assert!(std::net::TcpStream::connect(&addr).is_err());
}

/// Missing directories are errors naming them.
#[test]
fn upload_of_a_missing_directory_is_an_error() {
    let Some(moto) = moto() else { return };
    moto.create_bucket("nothing").unwrap();
    let missing = Path::new("/nonexistent/nctk-store.zarr");
    let e = moto.upload_dir("nothing", "", missing).unwrap_err();
    assert!(
        e.to_string().contains("/nonexistent/nctk-store.zarr"),
        "{e}"
    );
}
