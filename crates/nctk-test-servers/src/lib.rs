//! The real servers nctk's cloud tests run against, on loopback, started
//! by the tests themselves (not published; a dev-dependency only):
//!
//! * [`MotoServer`] (through [`moto()`], which skips visibly or fails
//!   under CI when `moto_server` is not installed, or
//!   [`moto_behind_proxy()`] with a [`FaultProxy`] in front of it): an S3
//!   server, with helpers to create buckets, put, get and list objects
//!   and upload a directory, so a test can set up what nctk reads and
//!   check what it wrote;
//! * [`FakeGcsServer`] (through [`fake_gcs()`], or
//!   [`fake_gcs_behind_proxy()`] with a [`FaultProxy`] in front of it):
//!   fake-gcs-server, a GCS emulator, with helpers to create buckets,
//!   upload and list objects;
//! * [`AzuriteServer`] (through [`azurite()`]): Azurite's blob service,
//!   with helpers to create containers and list blobs;
//! * [`RangeFileServer`]: files and blobs over HTTP with `Range`, honest
//!   or wrong on purpose ([`Behaviour`]);
//! * [`FaultProxy`]: a reverse proxy that adds latency and injects
//!   [`Fault`]s (error statuses, S3's `SlowDown` and `AccessDenied`,
//!   bodies reset or cut short); also the binary `nctk-fault-proxy`.
//!
//! The servers run on tokio runtimes of their own, so they work from
//! plain `#[test]`s and from inside a caller's runtime alike, record what
//! they saw ([`Stats`]), and stop when dropped. Nothing here sets process
//! environment variables.

mod azurite;
mod error;
mod gcs;
mod http;
mod moto;
mod process;
mod proxy;
mod range;
mod runtime;
mod s3;
mod stats;

pub use azurite::{azurite, AzuriteServer};
pub use error::{Error, Result};
pub use gcs::{fake_gcs, fake_gcs_behind_proxy, FakeGcsServer};
pub use moto::{moto, moto_behind_proxy, MotoServer};
pub use proxy::{Fault, FaultProxy};
pub use range::{Behaviour, RangeFileServer};
pub use stats::{Seen, Stats};

/// `m`'s guard, also after a panic elsewhere poisoned it (the servers'
/// state stays consistent: each update is one assignment or push).
fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Every file under `local_dir` as `(key, bytes)`: the key is
/// `prefix/relative/path` (`relative/path` when `prefix` is empty),
/// `/`-separated.
fn files_to_upload(
    local_dir: &std::path::Path,
    prefix: &str,
) -> Result<Vec<(String, bytes::Bytes)>> {
    if !local_dir.is_dir() {
        return Err(Error::NotADirectory(local_dir.to_owned()));
    }
    let files = nctk_test_support::corpus::files_under(local_dir, |_| true);
    files
        .iter()
        .map(|file| {
            let relative = file.strip_prefix(local_dir).expect("listed under it");
            let relative: Vec<_> = relative
                .components()
                .map(|c| c.as_os_str().to_string_lossy())
                .collect();
            let relative = relative.join("/");
            let key = match prefix.trim_end_matches('/') {
                "" => relative,
                prefix => format!("{prefix}/{relative}"),
            };
            let bytes =
                std::fs::read(file).map_err(Error::io(format!("reading {}", file.display())))?;
            Ok((key, bytes::Bytes::from(bytes)))
        })
        .collect()
}
