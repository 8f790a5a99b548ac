//! The store writers on S3 (a moto server on loopback): an object store
//! has no rename, so a killed copy leaves the objects it uploaded. What
//! must hold is that nothing at the URL then reads, with nctk or with
//! zarr-python, as a dataset other than the old store or the complete
//! new one: the store's root metadata is stored last, and an old store is
//! deleted root metadata first. A write the server refuses part-way
//! (HTTP 507, its full disk) ends with an error naming the URL and leaves
//! nothing that reads as a dataset.

use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use nctk_test_servers::{moto_behind_proxy, Fault, FaultProxy, MotoServer};

use crate::local::kill;
use crate::support::{inputs, nctk, nctk_read, peer_read, peers_present, PeerKind, Rng, Truth};

const BUCKET: &str = "faults";

/// The copy's chunking (a few objects a variable) and the old store's
/// (many small objects: deleting them takes a while).
const NEW_CHUNKS: &str = "t/2,y/64,x/64";
const OLD_CHUNKS: &str = "t/1,y/32,x/32";

/// `nctk` with moto's key pair and quick retries.
fn nctk_s3() -> Command {
    let mut cmd = nctk();
    cmd.env("AWS_ACCESS_KEY_ID", "test")
        .env("AWS_SECRET_ACCESS_KEY", "test")
        .env_remove("AWS_PROFILE")
        .env("NCTK_S3_MAX_RETRIES", "1")
        .env("NCTK_S3_RETRY_TIMEOUT", "2");
    cmd
}

/// `nctk copy -c chunks input url`, not yet run.
fn copy(input: &Path, url: &str, chunks: &str) -> Command {
    let mut cmd = nctk_s3();
    cmd.args(["copy", "-c", chunks])
        .arg(input)
        .arg(url)
        .stdout(Stdio::null());
    cmd
}

fn copy_ok(input: &Path, url: &str, chunks: &str) -> Duration {
    let start = Instant::now();
    let out = copy(input, url, chunks).output().unwrap();
    assert!(
        out.status.success(),
        "copy to {url}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    start.elapsed()
}

/// What is stored under `key` of the bucket, downloaded into `local` (a
/// new directory), for the peer.
fn download(s3: &MotoServer, key: &str, local: &Path) {
    std::fs::create_dir_all(local).unwrap();
    let prefix = format!("{key}/");
    for object in s3.list_keys(BUCKET, &prefix).unwrap() {
        let path = local.join(&object[prefix.len()..]);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let bytes = s3.get_object(BUCKET, &object).unwrap().unwrap();
        std::fs::write(path, bytes).unwrap();
    }
}

/// What a reader made of the URL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Seen {
    Nothing,
    Old,
    Complete,
}

/// Reads the store at `key` (its URL `url`) with nctk and, from a
/// download into `local`, with zarr-python: each must fail to open it or
/// read exactly the new dataset or, when `old` is given, the old one.
fn check_store(
    s3: &MotoServer,
    (key, url): (&str, &str),
    local: &Path,
    new: &Truth,
    old: Option<&Truth>,
    what: &str,
) -> [Seen; 2] {
    let by_nctk = match nctk_read(url) {
        Err(_) => Seen::Nothing,
        Ok(got) if got == new.nctk => Seen::Complete,
        Ok(got) if old.is_some_and(|o| got == o.nctk) => Seen::Old,
        Ok(_) => panic!("{what}: nctk reads a dataset at {url} that is neither old nor new"),
    };
    download(s3, key, local);
    let by_peer = match peer_read(PeerKind::Zarr, local) {
        Err(_) => Seen::Nothing,
        Ok(view) if view == new.peer => Seen::Complete,
        Ok(view) if old.is_some_and(|o| view == o.peer) => Seen::Old,
        Ok(view) => panic!("{what}: zarr-python reads {view} at {url}, neither old nor new"),
    };
    [by_nctk, by_peer]
}

/// The store kinds, by their netCDF-C URL modes.
const MODES: [(&str, &str); 3] = [
    ("NCZarr", "nczarr,s3"),
    ("Zarr v2", "zarr,s3"),
    ("Zarr v3", "zarr,v3,s3"),
];

/// An uncut copy through `proxy`: the requests it made and how long it
/// took.
fn counted(proxy: &FaultProxy, input: &Path, through: &str) -> (usize, Duration) {
    proxy.reset_stats();
    let took = copy_ok(input, through, NEW_CHUNKS);
    (proxy.stats().requests(), took)
}

/// SIGKILLs `kills` copies to S3 through a proxy (the store kinds in
/// turn, every other round over an old store), each to a key of its own,
/// when the proxy has seen a fraction drawn from `seed` of the requests
/// an uncut copy makes, or, past 1, that fraction of its duration after
/// them; then a copy the server refuses part-way, and one whose deletion
/// of the old store it refuses, of each kind.
pub fn object_store_faults(kills: usize, seed: u64) {
    if !peers_present() {
        return;
    }
    let Some((s3, proxy)) = moto_behind_proxy() else {
        return;
    };
    // nctk, the library, reads the stores with the environment's keys.
    std::env::set_var("AWS_ACCESS_KEY_ID", "test");
    std::env::set_var("AWS_SECRET_ACCESS_KEY", "test");
    std::env::remove_var("AWS_PROFILE");
    s3.create_bucket(BUCKET).unwrap();
    let work = tempfile::tempdir().unwrap();
    let inputs = inputs();
    let new = Truth::of_input(&inputs.s3_src);
    let old = Truth::of_input(&inputs.s3_old);
    let url = |key: &str, mode: &str| format!("{}/{BUCKET}/{key}#mode={mode}", s3.endpoint());

    // The uncut copies, to a new key and over an old store: what they
    // ask of the server, and that both readers read the first (and the
    // old stores, kept for the kills below) as their inputs.
    let mut uncut = vec![];
    for (n, (label, mode)) in MODES.iter().enumerate() {
        let key = format!("uncut{n}/out.zarr");
        let target = url(&key, mode);
        let local = |what: &str| work.path().join(format!("uncut-{what}{n}"));
        let fresh = counted(&proxy, &inputs.s3_src, &through(&s3, &proxy, &target));
        let seen = check_store(&s3, (&key, &target), &local("fresh"), &new, None, label);
        assert_eq!(seen, [Seen::Complete; 2], "{label}: the copy");
        copy_ok(&inputs.s3_old, &target, OLD_CHUNKS);
        let seen = check_store(&s3, (&key, &target), &local("old"), &old, None, label);
        assert_eq!(seen, [Seen::Complete; 2], "{label}: the old store");
        let over_old = counted(&proxy, &inputs.s3_src, &through(&s3, &proxy, &target));
        uncut.push([fresh, over_old]);
    }

    let mut rng = Rng::new(seed);
    let mut mid = 0;
    let mut seen = vec![];
    for i in 0..kills {
        let n = i % MODES.len();
        let (label, mode) = MODES[n];
        let with_old = (i / MODES.len()) % 2 == 0;
        let key = format!("kill{i}/out.zarr");
        let target = url(&key, mode);
        if with_old {
            // The old store as the uncut run's copy stored it.
            s3.upload_dir(BUCKET, &key, &work.path().join(format!("uncut-old{n}")))
                .unwrap();
        }
        let at = (i as f64 + rng.unit()) / kills as f64 * 1.15;
        let (requests, took) = uncut[n][usize::from(with_old)];
        let goal = (at.min(1.0) * requests as f64) as usize;
        proxy.reset_stats();
        let mut child = copy(&inputs.s3_src, &through(&s3, &proxy, &target), NEW_CHUNKS)
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        loop {
            if child.try_wait().unwrap().is_some() {
                break;
            }
            if proxy.stats().requests() >= goal {
                if at >= 1.0 {
                    std::thread::sleep(took.mul_f64(at - 1.0));
                } else {
                    mid += 1;
                }
                kill(&child);
                break;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        let _ = child.wait();
        let what = format!("{label}, kill {i} at {at:.3}");
        let local = work.path().join(format!("kill{i}"));
        let old = with_old.then_some(&*old);
        seen.push(check_store(&s3, (&key, &target), &local, &new, old, &what));
    }
    eprintln!("S3: {kills} kills, {mid} mid-write, seen {seen:?}");
    assert!(
        mid * 2 >= kills,
        "only {mid} of {kills} kills landed mid-write"
    );
    refused_part_way(&s3, &proxy, &url, work.path(), &new);
    old_store_not_deleted(&s3, &proxy, &url, work.path(), (&new, &old));
}

/// `url` (of moto) through `proxy`.
fn through(s3: &MotoServer, proxy: &FaultProxy, url: &str) -> String {
    url.replacen(&s3.endpoint(), &proxy.endpoint(), 1)
}

/// Checks a copy that failed: exit status 1 and an error naming the URL
/// (`through`, without its fragment) and `reason`.
fn failed_naming(out: &std::process::Output, through: &str, reason: &str, what: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    let at = through.split('#').next().unwrap();
    assert_eq!(out.status.code(), Some(1), "{what}: {err}");
    assert!(err.contains(at) && err.contains(reason), "{what}: {err}");
}

/// A copy whose uploads of one variable the server refuses (507,
/// Insufficient Storage, every retry): exit status 1, an error naming the
/// URL, and nothing at the URL that reads as a dataset.
fn refused_part_way(
    s3: &MotoServer,
    proxy: &FaultProxy,
    url: &dyn Fn(&str, &str) -> String,
    work: &Path,
    new: &Arc<Truth>,
) {
    for (n, (label, mode)) in MODES.iter().enumerate() {
        let key = format!("refused{n}/out.zarr");
        let direct = url(&key, mode);
        s3.upload_dir(BUCKET, &key, &work.join(format!("uncut-old{n}")))
            .unwrap();
        let through = through(s3, proxy, &direct);
        proxy.clear_faults();
        proxy.fail_next_matching(&format!("/{key}/w/"), usize::MAX, Fault::Status(507));
        let out = copy(&inputs().s3_src, &through, NEW_CHUNKS)
            .output()
            .unwrap();
        failed_naming(&out, &through, "507", label);
        let local = work.join(format!("refused{n}"));
        let seen = check_store(s3, (&key, &direct), &local, new, None, label);
        assert_eq!(seen, [Seen::Nothing; 2], "{label}: after a refused copy");
    }
}

/// A copy over an old store whose first delete the server refuses (503,
/// and again on its one retry): that is the delete of the object that
/// makes the store a dataset (`.zgroup`, `zarr.json`), alone, so the copy
/// fails naming the URL and the old store is left whole. (Were the old
/// store's objects deleted all at once, other deletes would go through,
/// leaving the root with some of its arrays or chunks gone, read as fill
/// values, for a kill or a failure part-way.)
fn old_store_not_deleted(
    s3: &MotoServer,
    proxy: &FaultProxy,
    url: &dyn Fn(&str, &str) -> String,
    work: &Path,
    (new, old): (&Arc<Truth>, &Arc<Truth>),
) {
    for (n, (label, mode)) in MODES.iter().enumerate() {
        let key = format!("kept{n}/out.zarr");
        let direct = url(&key, mode);
        s3.upload_dir(BUCKET, &key, &work.join(format!("uncut-old{n}")))
            .unwrap();
        proxy.clear_faults();
        // The first delete and its one retry (NCTK_S3_MAX_RETRIES).
        proxy.fail_next_matching("delete", 2, Fault::Status(503));
        let through = through(s3, proxy, &direct);
        let out = copy(&inputs().s3_src, &through, NEW_CHUNKS)
            .output()
            .unwrap();
        failed_naming(&out, &through, "503", label);
        proxy.clear_faults();
        let local = work.join(format!("kept{n}"));
        let seen = check_store(s3, (&key, &direct), &local, new, Some(old), label);
        assert_eq!(seen, [Seen::Old; 2], "{label}: the old store is not whole");
    }
}
