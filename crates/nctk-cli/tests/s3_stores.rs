//! `nctk` on NCZarr / Zarr stores kept in S3 (a moto server on loopback,
//! requests signed with a key pair from the environment, as the AWS SDKs
//! read it): the corpus's stores uploaded there dump as they do from
//! disk; `nctk copy` to S3 (NCZarr and pure Zarr) is read by zarr-python
//! (with s3fs) and xarray with the values netCDF4-python reads from the
//! classic source; S3 to S3 and S3 to disk copies and `nctk gen -o` to S3;
//! a copy that fails leaves nothing, so no reader sees a dataset; a second
//! copy to the same URL replaces the first.

use std::path::{Path, PathBuf};

use nctk_test_servers::{moto, MotoServer as Moto};
use nctk_test_support::require;

mod common;
use common::{nctk, nctk_ok};

/// Puts a key pair in this process's environment, which the `nctk` runs
/// inherit (moto takes any), before any test starts one.
fn credentials() {
    static SET: std::sync::Once = std::sync::Once::new();
    SET.call_once(|| {
        std::env::set_var("AWS_ACCESS_KEY_ID", "test");
        std::env::set_var("AWS_SECRET_ACCESS_KEY", "test");
        std::env::remove_var("AWS_PROFILE");
    });
}

/// A dump without its first line (which names the dataset).
fn body(dump: &str) -> String {
    dump.split_once('\n')
        .map_or_else(String::new, |(_, b)| b.to_string())
}

/// The store at `key` of `bucket`, as a netCDF-C URL with `modes`.
fn url(s3: &Moto, bucket: &str, key: &str, modes: &str) -> String {
    format!("{}/{bucket}/{key}#mode={modes},s3", s3.endpoint())
}

/// Uploads each local directory `(dir, key)` under `key` of `bucket`.
fn upload(s3: &Moto, bucket: &str, dirs: &[(PathBuf, String)]) {
    for (dir, key) in dirs {
        s3.upload_dir(bucket, key, dir).expect("upload");
    }
}

/// The keys under `prefix` of `bucket`.
fn listed(s3: &Moto, bucket: &str, prefix: &str) -> Vec<String> {
    s3.list_keys(bucket, prefix).expect("list")
}

/// A sample of the corpus's stores (NCZarr and pure Zarr written by
/// netCDF-C, compressed Zarr by zarr-python, xarray's), with the mode
/// netCDF-C read each in.
fn corpus_stores(root: &Path) -> Vec<(PathBuf, &'static str)> {
    let from_cdl = root.join("generated/from-cdl/netcdf-c");
    let mut nczarr = vec![];
    let mut zarr = vec![];
    for sub in ["ncdump/cdl", "examples/CDL", "nczarr_test"] {
        let Ok(entries) = std::fs::read_dir(from_cdl.join(sub)) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            match p.extension().and_then(|x| x.to_str()) {
                Some("nczarr") if p.is_dir() => nczarr.push(p),
                Some("zarr") if p.is_dir() => zarr.push(p),
                _ => {}
            }
        }
    }
    nczarr.sort();
    zarr.sort();
    let mut out: Vec<(PathBuf, &str)> = vec![];
    out.extend(nczarr.into_iter().step_by(7).map(|p| (p, "nczarr")));
    out.extend(zarr.into_iter().step_by(7).map(|p| (p, "zarr")));
    let other = root.join("generated/other-writers");
    for p in [
        "zarr-python-v2/codecs.zarr",
        "xarray-zarr2/sample_nocomp.zarr",
    ] {
        out.push((other.join(p), "zarr"));
    }
    out.retain(|(p, _)| p.is_dir());
    out
}

#[test]
fn corpus_stores_on_s3_dump_as_their_local_dumps() {
    let Some(root) = require::corpus() else {
        return;
    };
    let Some(s3) = moto() else { return };
    credentials();
    s3.create_bucket("corpus").unwrap();
    let stores = corpus_stores(&root);
    assert!(stores.len() >= 8, "a sample of the corpus: {stores:?}");
    let keys: Vec<(PathBuf, String)> = stores
        .iter()
        .enumerate()
        .map(|(n, (p, _))| {
            let name = p.file_name().unwrap().to_string_lossy();
            (p.clone(), format!("s{n}/{name}"))
        })
        .collect();
    upload(&s3, "corpus", &keys);
    for ((store, mode), (_, key)) in stores.iter().zip(&keys) {
        let local = nctk_ok(&[
            "dump",
            &format!("file://{}#mode={mode},file", store.display()),
        ]);
        let remote = nctk_ok(&["dump", &url(&s3, "corpus", key, mode)]);
        assert_eq!(remote, local, "{}", store.display());
    }
}

/// Reads every numeric variable of each classic file with netCDF4-python
/// and of its copy on S3 with zarr-python + s3fs (and, for stores xarray
/// reads, with xarray), and checks the values are identical.
const COMPARE: &str = r#"
import sys, json, numpy as np, netCDF4, zarr, xarray as xr
ep = sys.argv[1]
so = {"endpoint_url": ep, "key": "x", "secret": "x"}
checked = 0
for case in json.loads(sys.argv[2]):
    src = netCDF4.Dataset(case["local"])
    src.set_auto_maskandscale(False)
    url = "s3://" + case["key"]
    g = zarr.open_group(store=zarr.storage.FsspecStore.from_url(url, storage_options=so, read_only=True), mode="r", zarr_format=2)
    ds = xr.open_zarr(url, storage_options=so, consolidated=False, mask_and_scale=False, decode_times=False) if case["xarray"] else None
    for name, v in src.variables.items():
        if v.dtype.kind not in "iuf":
            continue
        want = np.asarray(v[...])
        got = np.asarray(g[name][...]).reshape(want.shape)
        assert got.dtype == want.dtype, (case, name, got.dtype, want.dtype)
        assert np.array_equal(got, want, equal_nan=want.dtype.kind == "f"), (case, name)
        if ds is not None:
            assert np.array_equal(ds[name].values.reshape(want.shape), want, equal_nan=want.dtype.kind == "f"), (case, name, "xarray")
        checked += 1
print(checked)
"#;

#[test]
fn copies_to_s3_are_read_by_zarr_python_and_xarray() {
    let Some(root) = require::corpus() else {
        return;
    };
    let Some(s3) = moto() else { return };
    credentials();
    s3.create_bucket("copies").unwrap();
    let sources = [
        "generated/from-cdl/netcdf-c/examples/CDL/pres_temp_4D.nc3.nc",
        "generated/from-cdl/netcdf-c/examples/CDL/sfc_pres_temp.nc3.nc",
        "scipy/scipy/io/tests/data/example_1.nc",
        "xarray/xarray/tests/data/bears.nc",
    ];
    let mut cases = vec![];
    for (n, rel) in sources.iter().enumerate() {
        let local = root.join(rel);
        assert!(local.exists(), "{}", local.display());
        for (mode, xarray) in [("nczarr", false), ("zarr", true)] {
            let key = format!("c{n}/{mode}.zarr");
            let out = url(&s3, "copies", &key, mode);
            nctk_ok(&["copy", &local.display().to_string(), &out]);
            cases.push(serde_json::json!({
                "local": local, "key": format!("copies/{key}"), "xarray": xarray,
            }));
        }
    }
    let cases = serde_json::Value::Array(cases).to_string();
    let Some(checked) = require::python_output(
        &["netCDF4", "zarr", "s3fs", "xarray"],
        COMPARE,
        [&s3.endpoint(), &cases],
    ) else {
        return;
    };
    let checked: usize = checked.trim().parse().expect("a count");
    assert!(checked >= 16, "{checked} variables compared");
}

/// S3 to S3 and S3 to disk copies, and `nctk gen -o` to
/// S3, dump as their sources.
#[test]
fn copies_from_and_between_s3_and_gen_to_s3() {
    let Some(root) = require::corpus() else {
        return;
    };
    let Some(s3) = moto() else { return };
    credentials();
    s3.create_bucket("moves").unwrap();
    let src = root.join("generated/from-cdl/netcdf-c/examples/CDL/pres_temp_4D.nc3.nc");
    let want = body(&nctk_ok(&["dump", &src.display().to_string()]));
    let first = url(&s3, "moves", "a/first.zarr", "nczarr");
    let second = url(&s3, "moves", "b/second.zarr", "nczarr");
    nctk_ok(&["copy", &src.display().to_string(), &first]);
    nctk_ok(&["copy", &first, &second]);
    assert_eq!(body(&nctk_ok(&["dump", &second])), want, "S3 to S3");
    let dir = tempfile::tempdir().unwrap();
    let back = dir.path().join("back.nc");
    nctk_ok(&["copy", "-k", "cdf5", &second, &back.display().to_string()]);
    assert_eq!(
        body(&nctk_ok(&["dump", &back.display().to_string()])),
        want,
        "S3 to disk"
    );

    let cdl = root.join("netcdf-c/examples/CDL/pres_temp_4D.cdl");
    let gen_url = url(&s3, "moves", "gen/g.zarr", "nczarr");
    nctk_ok(&[
        "gen",
        "-k",
        "nc4",
        "-o",
        &gen_url,
        &cdl.display().to_string(),
    ]);
    let local = dir.path().join("g.zarr");
    nctk_ok(&[
        "gen",
        "-k",
        "nc4",
        "-o",
        &local.display().to_string(),
        &cdl.display().to_string(),
    ]);
    assert_eq!(
        nctk_ok(&["dump", &gen_url]),
        nctk_ok(&["dump", &local.display().to_string()]),
        "gen to S3 as gen to disk"
    );
}

/// A copy that fails part-way (a corrupt chunk in its source) leaves no
/// object under the output, so no reader sees a
/// dataset; an old store at the URL is replaced by a second copy, keeping
/// none of its objects; a prefix holding other objects is not replaced.
#[test]
fn failed_copies_leave_nothing_and_copies_replace_old_stores() {
    let Some(root) = require::corpus() else {
        return;
    };
    let Some(s3) = moto() else { return };
    credentials();
    s3.create_bucket("fails").unwrap();
    let src = root.join("generated/from-cdl/netcdf-c/examples/CDL/pres_temp_4D.nc3.nc");
    let dir = tempfile::tempdir().unwrap();
    let local = dir.path().join("src.zarr");
    let local_text = local.display().to_string();
    nctk_ok(&[
        "copy",
        "-d",
        "1",
        "-c",
        "temperature:1,1,6,12",
        &src.display().to_string(),
        &local_text,
    ]);
    // Break the last chunk: every other variable and chunk is copied first.
    let chunk = local.join("temperature/1.1.0.0");
    assert!(chunk.is_file(), "{}", chunk.display());
    std::fs::write(&chunk, b"not zlib").unwrap();

    let out = url(&s3, "fails", "x/out.zarr", "nczarr");
    let first = nctk(&["copy", &local_text, &out]);
    assert!(!first.status.success(), "the copy must fail");
    let keys = listed(&s3, "fails", "x/");
    assert_eq!(
        keys,
        Vec::<String>::new(),
        "nothing left after a failed copy"
    );
    assert!(!nctk(&["dump", "-h", &out]).status.success());

    // A good store, then a different one over it: it holds exactly what
    // the second copy makes on its own elsewhere.
    nctk_ok(&["copy", &src.display().to_string(), &out]);
    let other = root.join("generated/from-cdl/netcdf-c/examples/CDL/sfc_pres_temp.nc3.nc");
    let other = other.display().to_string();
    nctk_ok(&["copy", &other, &out]);
    nctk_ok(&[
        "copy",
        &other,
        &url(&s3, "fails", "fresh/out.zarr", "nczarr"),
    ]);
    let fresh: Vec<String> = listed(&s3, "fails", "fresh/")
        .iter()
        .map(|k| k.replacen("fresh/", "x/", 1))
        .collect();
    assert_eq!(
        listed(&s3, "fails", "x/"),
        fresh,
        "the old store's objects are gone"
    );
    assert_eq!(
        body(&nctk_ok(&["dump", &out])),
        body(&nctk_ok(&["dump", &other]))
    );
    // The same failure over a good store: it is gone too, not half-replaced.
    assert!(!nctk(&["copy", &local_text, &out]).status.success());
    assert_eq!(listed(&s3, "fails", "x/"), Vec::<String>::new());

    // A prefix that is not a store is not replaced.
    let other = vec![(
        dir.path().join("src.zarr/latitude"),
        "y/out.zarr/notes".to_string(),
    )];
    upload(&s3, "fails", &other);
    let before = listed(&s3, "fails", "y/");
    assert!(!before.is_empty());
    let refused = nctk(&[
        "copy",
        &src.display().to_string(),
        &url(&s3, "fails", "y/out.zarr", "nczarr"),
    ]);
    assert!(!refused.status.success());
    let text = String::from_utf8_lossy(&refused.stderr);
    assert!(text.contains("not a Zarr/NCZarr store"), "{text}");
    assert_eq!(listed(&s3, "fails", "y/"), before, "left as it was");
}

/// `nctk` run with no AWS credentials anywhere: no key pair in the
/// environment, a HOME without `.aws` files; `vars` set.
fn nctk_without_credentials(args: &[&str], vars: &[(&str, &str)]) -> std::process::Output {
    let home = tempfile::tempdir().unwrap();
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_nctk"));
    for (k, _) in std::env::vars_os() {
        if k.to_string_lossy().starts_with("AWS_") {
            cmd.env_remove(k);
        }
    }
    cmd.env("HOME", home.path())
        .envs(vars.iter().copied())
        .current_dir(home.path())
        .args(args)
        .output()
        .expect("run nctk")
}

/// A dump of a store on an S3-compatible server with no credentials
/// anywhere fails at once with an error that says so and how to give
/// them (not with a request to the EC2 instance metadata address).
#[test]
fn no_credentials_is_an_error_saying_how_to_give_them() {
    let Some(root) = require::corpus() else {
        return;
    };
    let Some(s3) = moto() else { return };
    credentials();
    s3.create_bucket("nocreds").unwrap();
    let src = root.join("generated/from-cdl/netcdf-c/examples/CDL/pres_temp_4D.nc3.nc");
    let store = url(&s3, "nocreds", "p.zarr", "nczarr");
    nctk_ok(&["copy", &src.display().to_string(), &store]);
    let out = nctk_without_credentials(&["dump", "-h", &store], &[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "dumped without credentials");
    let endpoint = s3.endpoint();
    for part in [
        "no AWS credentials",
        endpoint.as_str(),
        "AWS_ACCESS_KEY_ID",
        "aws.profile=none",
    ] {
        assert!(err.contains(part), "{part:?} missing from: {err}");
    }
    assert!(!err.contains("169.254"), "{err}");
}

/// A dump of a store on AWS with no credentials anywhere asks the EC2
/// instance metadata service once, briefly: where nothing answers
/// (`AWS_EC2_METADATA_SERVICE_ENDPOINT` at a closed port), it fails within
/// seconds saying no credentials were found and how to give them; with
/// `AWS_EC2_METADATA_DISABLED=true` it is not asked at all.
#[test]
fn no_credentials_on_aws_asks_the_metadata_service_briefly() {
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let metadata = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    let store = "s3://nctk-no-such-bucket/p.zarr#mode=nczarr";
    let cases = [
        (
            ("AWS_EC2_METADATA_SERVICE_ENDPOINT", metadata.as_str()),
            format!("the EC2 instance metadata service at {metadata} gave none (cannot connect"),
        ),
        (
            ("AWS_EC2_METADATA_DISABLED", "true"),
            "the EC2 instance metadata service is turned off".to_string(),
        ),
    ];
    for (var, said) in cases {
        let started = std::time::Instant::now();
        let out = nctk_without_credentials(&["dump", "-h", store], &[var]);
        let took = started.elapsed();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "dumped without credentials");
        for part in [
            "no AWS credentials for AWS S3",
            said.as_str(),
            "AWS_ACCESS_KEY_ID",
            "AWS_PROFILE",
            "aws.profile=none",
        ] {
            assert!(err.contains(part), "{part:?} missing from: {err}");
        }
        assert!(took < std::time::Duration::from_secs(5), "took {took:?}");
    }
}
