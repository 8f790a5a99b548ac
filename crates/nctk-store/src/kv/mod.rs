//! The key/value store seam of Zarr and NCZarr (netCDF-C's `zmap`).
//!
//! A store maps validated keys ([`StoreKey`]: `/`-separated UTF-8 paths
//! relative to the dataset root) to byte objects. Only content-bearing keys
//! exist; directories are implied by key prefixes. A missing key reads as
//! `Ok(None)`, never as an error, so a real failure (a permission error, a
//! corrupt zip, a 500 from a server) can never turn into fill values.
//!
//! Abilities are separate traits, every method takes `&self`, and every
//! store is `Send + Sync`, so one store is shared as an `Arc` by many readers:
//!
//! * [`ReadableStore`]: `get`, `get_range`, `size`, `get_many`;
//! * [`ListableStore`]: `list_dir`, the immediate children of a prefix
//!   (S3's delimiter listing, netCDF-C's `search`);
//! * [`WritableStore`]: `put`, `delete`, and `close` after the last put
//!   (where a store that writes an archive writes it).
//!
//! Backends: [`MemoryStore`] (everything), [`DirectoryStore`] (a directory
//! tree, written through temporary files and renames), [`ZipStore`]
//! (read-only, over any [`ByteSource`](crate::bytes::ByteSource)) and
//! [`ZipStoreWriter`] (write-once), and [`StagedZipStore`] (a zip written
//! like any store: staged, then archived into a byte sink on `close`). [`ValueSource`] presents one stored
//! value as a [`ByteSource`](crate::bytes::ByteSource) (so a zip can be read
//! out of any store). The checks every backend passes are in
//! `nctk_store::conformance` (feature `conformance`).

mod capabilities;
mod directory;
mod error;
mod key;
mod memory;
mod traits;
mod value_source;
mod zip;

pub use capabilities::Capabilities;
pub use directory::DirectoryStore;
pub use error::StoreError;
pub use key::{StoreKey, StorePrefix};
pub use memory::MemoryStore;
pub use traits::{ByteRange, ListableStore, Listing, ReadListStore, ReadableStore, WritableStore};
pub use value_source::ValueSource;
pub use zip::{StagedZipStore, ZipRoot, ZipStore, ZipStoreWriter};

/// A shared byte buffer, as stores return it.
pub use bytes::Bytes;
