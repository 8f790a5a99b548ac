//! Zip stores: a read-only store over any byte source and a write-once writer.
//!
//! Capabilities: [`ZipStore`] reads and lists (no partial reads: an entry is
//! inflated whole, then sliced) and never writes. It takes no lock to read:
//! the central directory is parsed once, and each `get` reads the entry's
//! bytes with one positioned read of the source and inflates them on the
//! caller's thread, so reads of different entries run in parallel; [`ZipStoreWriter`] writes
//! each key once (a second `put` of one key is refused) and never deletes or
//! reads. Entries are written uncompressed (`Stored`), as netCDF-C does.
//!
//! Zipping a directory store gives a zip store and unzipping a zip store
//! gives a directory store. Two shapes of archive exist in the wild, and
//! both read:
//!
//! * the dataset's objects at the archive's top level (`.zgroup`,
//!   `v/.zarray`, ...), as zarr-python's `ZipStore` writes and as
//!   `cd x.zarr && zip -r ../x.zip .` makes;
//! * everything under one top-level directory (`x.file/.zgroup`, ...), as
//!   netCDF-C's zip map writes (it names that directory after the file) and
//!   as `zip -r x.zip x.file` makes.

mod read;
mod staged;
mod write;

pub use read::ZipStore;
pub use staged::StagedZipStore;
pub use write::ZipStoreWriter;

/// Where a zip archive keeps the dataset's root.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum ZipRoot {
    /// Decide from the entries: the top level if any object lies there,
    /// else the single top-level directory that holds everything.
    #[default]
    Auto,
    /// The archive's top level.
    Top,
    /// The named top-level directory.
    Directory(String),
}
