//! The real servers nctk's cloud tests run against, on loopback, started
//! by the tests themselves (not published; a dev-dependency only):
//!
//! * [`MotoServer`] (through [`moto()`], which skips visibly or fails
//!   under CI when `moto_server` is not installed): an S3 server, with
//!   helpers to create buckets, put, get and list objects and upload a
//!   directory, so a test can set up what nctk reads and check what it
//!   wrote;
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

mod error;
mod http;
mod moto;
mod proxy;
mod range;
mod runtime;
mod s3;
mod stats;

pub use error::{Error, Result};
pub use moto::{moto, MotoServer};
pub use proxy::{Fault, FaultProxy};
pub use range::{Behaviour, RangeFileServer};
pub use stats::{Seen, Stats};

/// `m`'s guard, also after a panic elsewhere poisoned it (the servers'
/// state stays consistent: each update is one assignment or push).
fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
