//! The two I/O seams of nctk.
//!
//! * [`bytes`]: [`bytes::ByteSource`] and [`bytes::ByteSink`], positioned reads and
//!   writes for single-blob formats (classic netCDF), over a local file or memory.
//! * [`kv`]: the key/value store of Zarr and NCZarr (netCDF-C's zmap): directory,
//!   memory and zip backends.
//! * `conformance` (feature `conformance`): the contract checks every
//!   backend of both seams runs.

pub mod bytes;
#[cfg(feature = "conformance")]
pub mod conformance;
pub mod kv;
