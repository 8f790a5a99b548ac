//! HDF5 files as netCDF-4 uses them, read over a
//! [`ByteSource`](nctk_store::bytes::ByteSource) with no C library: local
//! files, memory and `#mode=bytes` URLs alike.
//!
//! Every address, size, count and heap offset read from a file is checked
//! against the file's length before it is used ([`io::FileCtx`]); bad input
//! is an [`Hdf5Error`] naming the file, the offset and the reason.
//!
//! The write side: [`write::Hdf5Writer`] lays out HDF5 files over a
//! [`ByteSink`](nctk_store::bytes::ByteSink) (the structures HDF5 1.10
//! writes for netCDF-C), and [`Netcdf4Writer`] writes the netCDF-4 mapping
//! behind the model's [`DataSink`](nctk_model::DataSink).

pub mod attribute;
pub mod btree;
pub mod checksum;
pub mod chunk_index;
pub mod dataspace;
pub mod datatype;
mod error;
mod file;
pub mod fill;
pub mod filter;
pub mod group;
pub mod heap;
pub mod io;
pub mod layout;
pub mod message;
pub mod meta;
pub mod nc4write;
pub mod netcdf4;
pub mod object_header;
pub mod read;
pub mod superblock;
pub mod write;

pub use attribute::Attribute;
pub use dataspace::{Dataspace, DataspaceKind};
pub use datatype::{CompoundMember, Datatype, ReferenceKind, StringPadding};
pub use error::{Hdf5Error, Result};
pub use file::{DatasetInfo, Hdf5File, NamedDatatype, ObjectKind};
pub use fill::FillValue;
pub use filter::{Filter, FilterPipeline};
pub use group::{Group, Link, LinkTarget};
pub use layout::{ChunkIndexKind, Layout};
pub use nc4write::Netcdf4Writer;
pub use read::DatasetReader;
pub use superblock::Superblock;
