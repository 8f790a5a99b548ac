//! nctk's storage seams on object stores: S3 (and S3-compatible servers),
//! Google Cloud Storage, Azure Blob Storage and plain HTTP(S), through the
//! [`object_store`] crate.
//!
//! * [`Remote`]: one object store, the location it was opened at (for
//!   messages) and the key prefix under which a dataset lives;
//!   [`RemoteOptions`]: retries, timeouts and concurrency, exposed;
//! * [`aws`]: from an S3 URL to its region, endpoint and credentials, by
//!   netCDF-C's rules (fragment, rc files, `~/.aws` files, environment);
//! * [`connect`]: building the object store for S3 ([`S3Settings`]), and
//!   for GCS, Azure and plain HTTP(S) from their URL ([`connect::cloud`]);
//! * [`RemoteSource`]: one object as a byte source (`#mode=bytes`): range
//!   requests, coalesced and concurrent, through a bounded block cache;
//! * [`ObjectKvStore`]: the key/value store seam (Zarr / NCZarr stores) on
//!   an object store;
//! * [`RemoteError`]: what a request failed with, telling "not found",
//!   "access denied" and "not authenticated" apart from other failures.
//!
//! `object_store` is async; nctk's seams are blocking. Every request runs
//! on this crate's own tokio runtime ([`runtime::block_on`]), so calling
//! nctk from inside a caller's tokio runtime neither panics nor deadlocks.
//!
//! Without the `connect` feature (on by default) only the parts that need
//! no network are built: [`aws`], [`S3Settings`] and
//! [`connect::cloud_service`]; no `object_store`, tokio or HTTP client.

// The documentation above links the parts `connect` builds.
#![cfg_attr(not(feature = "connect"), allow(rustdoc::broken_intra_doc_links))]

pub mod aws;
pub mod connect;
#[cfg(feature = "connect")]
mod error;
#[cfg(feature = "connect")]
pub mod kv;
#[cfg(feature = "connect")]
mod remote;
#[cfg(feature = "connect")]
pub mod runtime;
mod service;
mod settings;
#[cfg(feature = "connect")]
mod source;

#[cfg(feature = "connect")]
pub use error::RemoteError;
#[cfg(feature = "connect")]
pub use kv::ObjectKvStore;
#[cfg(feature = "connect")]
pub use remote::{EnvError, Remote, RemoteOptions, DEFAULT_MAX_OBJECT_SIZE};
pub use settings::{S3Credentials, S3Settings};
#[cfg(feature = "connect")]
pub use source::{RemoteSource, RemoteSourceError, BLOCK, CACHE_BLOCKS, PART, REMOTE_COALESCE};
