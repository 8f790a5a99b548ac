//! HDF5 files as netCDF-4 uses them, read over a
//! [`ByteSource`](nctk_store::bytes::ByteSource) with no C library: local
//! files, memory and `#mode=bytes` URLs alike.
//!
//! Every address, size, count and heap offset read from a file is checked
//! against the file's length before it is used ([`io::FileCtx`]); bad input
//! is an [`Hdf5Error`] naming the file, the offset and the reason.

pub mod btree;
pub mod checksum;
pub mod chunk_index;
mod error;
pub mod filter;
pub mod io;
pub mod layout;
pub mod read;

pub use error::{Hdf5Error, Result};
pub use filter::{Filter, FilterPipeline};
pub use layout::{ChunkIndexKind, Layout};
pub use read::DatasetReader;
