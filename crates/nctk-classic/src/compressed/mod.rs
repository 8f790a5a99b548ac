//! Block-compressed classic files: the archival format of netCDF's
//! classic-compression proposal (`docs/formats/compressed-classic.md`).
//!
//! A classic file's header is stored as it is; each variable's data (all
//! records of a record variable, de-interleaved) is cut into equal blocks
//! in row-major order, each block compressed and indexed with its offset,
//! length and CRC-32. The file is read-only.
//!
//! * writing: [`compress`] from any [`ClassicReader`](crate::ClassicReader)
//!   into a [`ByteSink`](nctk_store::bytes::ByteSink), blocks compressed in
//!   parallel and written in order;
//! * reading: the stored file's [`Index`], under [`CompressedSource`], a
//!   byte source that presents the uncompressed classic file to the
//!   unchanged classic reader;
//! * checking: [`validate`] (every block's checksum and decoded length);
//! * the on-disk structures ([`format`](mod@format)) and codecs ([`BlockCodec`]).

mod cache;
mod codec;
mod error;
pub mod format;
mod index;
mod refs;
mod source;
mod validate;
mod write;

pub use codec::{BlockCodec, CodecId};
pub use error::{CompressedError, Result};
pub use index::{Index, EAGER_TABLE_BYTES};
pub use source::{CompressedSource, DEFAULT_CACHE_BYTES};
pub use validate::{validate, validate_report, Checked, Validation};
pub use write::{block_shape, compress, CompressOptions, CompressSummary};
