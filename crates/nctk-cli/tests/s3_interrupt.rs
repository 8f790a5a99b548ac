//! A copy to S3 (moto on loopback) interrupted by SIGINT or SIGTERM
//! deletes what it uploaded before it exits (128 + the signal); after
//! SIGKILL, what it left (marked by `.nctk-writing`) is removed by the next
//! write to the same URL, whose store is then exactly what that copy makes
//! elsewhere; a marker left by a process still running on this machine is
//! refused, naming it. The object store's form of the local rules
//! (`output_safety.rs`). One moto serves every check.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use nctk_test_servers::{moto, MotoServer as Moto};

mod common;
use common::{nctk_ok, root_data};

/// `nctk` with a key pair in its environment (moto takes any).
fn nctk() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_nctk"));
    cmd.env("AWS_ACCESS_KEY_ID", "test")
        .env("AWS_SECRET_ACCESS_KEY", "test")
        .env_remove("AWS_PROFILE");
    cmd
}

fn signal(child: &Child, sig: i32) {
    // SAFETY: kill(2) on our own child's pid.
    let rc = unsafe { libc::kill(child.id() as libc::pid_t, sig) };
    assert_eq!(rc, 0);
}

/// The store `key` of bucket `bkt` as a netCDF-C URL.
fn url(s3: &Moto, key: &str) -> String {
    format!("{}/bkt/{key}#mode=nczarr,s3", s3.endpoint())
}

/// Starts a copy of `input` (in chunks of 1000 values: many objects) to
/// `key` and waits until some of its objects are in the bucket.
fn copy_under_way(s3: &Moto, input: &str, key: &str) -> Child {
    let mut child = nctk()
        .args(["copy", "-c", "v:1000", input, &url(s3, key)])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while s3.list_keys("bkt", key).unwrap().len() < 3 {
        assert!(
            child.try_wait().unwrap().is_none(),
            "the copy ended before its uploads were seen"
        );
        assert!(start.elapsed() < Duration::from_secs(60), "no upload seen");
        std::thread::sleep(Duration::from_millis(5));
    }
    child
}

#[test]
fn interrupted_copies_to_s3_leave_nothing_or_what_the_next_copy_removes() {
    let Some(s3) = moto() else { return };
    s3.create_bucket("bkt").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let cdl = dir.path().join("big.cdl");
    std::fs::write(
        &cdl,
        "netcdf big {\ndimensions:\n  x = 2000000 ;\nvariables:\n  float v(x) ;\n}\n",
    )
    .unwrap();
    let input = dir.path().join("in.nc");
    nctk_ok(&[
        "gen",
        "-o",
        &input.display().to_string(),
        &cdl.display().to_string(),
    ]);
    let input = input.display().to_string();

    for (sig, status) in [(libc::SIGINT, 130), (libc::SIGTERM, 143)] {
        let key = format!("sig{sig}/out.zarr");
        let child = copy_under_way(&s3, &input, &key);
        signal(&child, sig);
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(status), "signal {sig}: {stderr}");
        assert_eq!(
            s3.list_keys("bkt", &key).unwrap(),
            Vec::<String>::new(),
            "signal {sig}: objects left"
        );
    }

    // SIGKILL: the objects stay, marked; the next copy to the URL removes
    // them and leaves exactly its own store.
    let child = copy_under_way(&s3, &input, "killed/out.zarr");
    signal(&child, libc::SIGKILL);
    drop(child.wait_with_output().unwrap());
    let left = s3.list_keys("bkt", "killed/").unwrap();
    assert!(
        left.contains(&"killed/out.zarr/.nctk-writing".to_string()),
        "{left:?}"
    );
    let small = dir.path().join("small.cdl");
    std::fs::write(
        &small,
        "netcdf small {\ndimensions:\n  x = 3 ;\nvariables:\n  int v(x) ;\ndata:\n  v = 1, 2, 3 ;\n}\n",
    )
    .unwrap();
    let small_nc = dir.path().join("small.nc").display().to_string();
    nctk_ok(&["gen", "-o", &small_nc, &small.display().to_string()]);
    let second = nctk()
        .args(["copy", &small_nc, &url(&s3, "killed/out.zarr")])
        .output()
        .unwrap();
    assert!(
        second.status.success(),
        "{}",
        String::from_utf8_lossy(&second.stderr)
    );
    let fresh = nctk()
        .args(["copy", &small_nc, &url(&s3, "fresh/out.zarr")])
        .output()
        .unwrap();
    assert!(fresh.status.success());
    let fresh: Vec<String> = s3
        .list_keys("bkt", "fresh/")
        .unwrap()
        .iter()
        .map(|k| k.replacen("fresh/", "killed/", 1))
        .collect();
    assert_eq!(s3.list_keys("bkt", "killed/").unwrap(), fresh);
    let dumped = nctk()
        .args(["dump", &url(&s3, "killed/out.zarr")])
        .output()
        .unwrap();
    assert_eq!(
        root_data(&String::from_utf8_lossy(&dumped.stdout)),
        root_data(&nctk_ok(&["dump", &small_nc]))
    );

    // A marker of a process running on this machine (this test's) is a
    // write under way: refused, and left as it is.
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap();
    let marker = format!("nctk {} {}", std::process::id(), host.trim());
    s3.put_object("bkt", "busy/out.zarr/.nctk-writing", marker.clone(), false)
        .unwrap();
    let refused = nctk()
        .args(["copy", &small_nc, &url(&s3, "busy/out.zarr")])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success(), "{text}");
    assert!(text.contains("another nctk process"), "{text}");
    assert_eq!(
        s3.list_keys("bkt", "busy/").unwrap(),
        ["busy/out.zarr/.nctk-writing"]
    );
}
