//! Writing HDF5 files as netCDF-4 makes them, with no C library: the
//! encoders of each structure (next to the reader's parsers, which their
//! tests read them back with) and [`Hdf5Writer`], which lays out a file
//! over a [`ByteSink`](nctk_store::bytes::ByteSink).
//!
//! The versions written are those HDF5 1.10 writes for netCDF-C (library
//! version bounds earliest to 1.8, creation order tracked): superblock 2,
//! object header 2, compact new-style groups (link info, group info, link
//! messages), compact attributes (message version 3), layout message 3
//! with a version-1 B-tree chunk index.

pub mod attribute;
pub mod btree;
mod chunks;
pub mod dataspace;
pub mod datatype;
pub mod encode;
mod error;
mod file;
pub mod fill;
pub mod heap;
pub mod layout;
pub mod link;
pub mod object_header;
pub mod superblock;

pub use attribute::{AttrValue, AttributeSpec};
pub use chunks::DEFAULT_MEMORY;
pub use error::{WriteError, WriteResult};
pub use file::{DatasetSpec, Hdf5Writer, ObjectId, Storage, NULL_VLEN};

/// A file context over `bytes` for the encoders' tests, which read what
/// they encode back with the crate's parsers.
#[cfg(test)]
fn test_ctx(bytes: &[u8]) -> crate::io::FileCtx {
    use nctk_store::bytes::MemSource;
    crate::io::FileCtx::new(
        std::sync::Arc::new(MemSource::new(bytes.to_vec())),
        bytes.len() as u64,
        0,
        8,
        8,
    )
}
