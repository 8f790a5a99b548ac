//! The contract every backend of the two seams must keep, as checks a
//! backend's tests run (feature `conformance`, off by default).
//!
//! Each check takes a constructor of the backend and panics with a message
//! naming the offset or key on the first failure:
//!
//! * [`byte_source`]: a [`ByteSource`](crate::bytes::ByteSource) made from
//!   given bytes (lengths, reads within and across the end, empty and
//!   out-of-range requests, `read_ranges` against single reads, threads);
//! * [`byte_sink`]: an empty [`ByteSink`](crate::bytes::ByteSink) (writes,
//!   gaps, `set_len`, then every source check on what was written);
//! * [`kv_store`]: an empty writable, listable store;
//! * [`kv_contents`]: a readable, listable store holding [`fixture`] (for
//!   read-only backends such as zip, filled by other means);
//! * [`kv_deletes`]: a writable, listable store holding [`fixture`] (for a
//!   backend filled by other means that deletes but cannot put, such as a
//!   GCS emulator without the XML API's uploads).
//!
//! A new backend passes them unchanged:
//! `nctk_store::conformance::kv_store(|| MyStore::new())`.
//!
//! [`CountingSource`] counts the requests an access makes of a source.

mod bytes;
mod counting;
mod kv;

pub use self::bytes::{byte_sink, byte_source};
pub use self::counting::CountingSource;
pub use self::kv::{fixture, kv_contents, kv_deletes, kv_store};
