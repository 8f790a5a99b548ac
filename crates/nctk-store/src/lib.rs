//! The two I/O seams of nctk.
//!
//! * [`bytes`]: [`bytes::ByteSource`] and [`bytes::ByteSink`], positioned reads and
//!   writes for single-blob formats (classic netCDF), over a local file or memory.
//! * [`kv`]: the key/value store of Zarr and NCZarr (netCDF-C's zmap): directory,
//!   memory and zip backends with one conformance suite.

pub mod bytes;
pub mod kv;
