//! Byte codecs for netCDF / Zarr chunks, compatible with Python's numcodecs
//! and with netCDF-C's HDF5 filter conventions.
//!
//! # Which API to use
//!
//! * A Zarr v2 array: build a [`Pipeline`] from the `.zarray`'s `compressor`
//!   and `filters` with [`Pipeline::from_zarr_json`], then per chunk call
//!   [`Pipeline::decode_into`] with a buffer of exactly the chunk's size
//!   (or [`Pipeline::encode`]).
//! * One codec: [`Codec::from_json`] (or [`Codec::from_json_with`] and a
//!   [`CodecContext`] holding the array's element size and dtype), then
//!   [`Codec::encode`], [`Codec::decode_into`], [`Codec::decode`].
//! * netCDF-4 / NCZarr `_Filter` text: [`parse_filter_attr`] and
//!   [`Codec::from_hdf5`]; back with [`Codec::to_hdf5`] and [`format_filter_attr`].
//!
//! ```
//! use nctk_codec::{Codec, CodecContext};
//! use serde_json::json;
//!
//! let ctx = CodecContext::from_dtype("<f4");
//! let codec = Codec::from_json_with(
//!     &json!({"id": "blosc", "cname": "zstd", "clevel": 3, "shuffle": 2}),
//!     &ctx,
//! )?;
//! let data: Vec<u8> = (0..4096u32).flat_map(|i| (i as f32).to_le_bytes()).collect();
//! let packed = codec.encode(&data)?;
//! let mut back = vec![0u8; data.len()];
//! codec.decode_into(&packed, &mut back)?;
//! assert_eq!(back, data);
//! assert_eq!(codec.to_json()["cname"], "zstd");
//! # Ok::<(), nctk_codec::CodecError>(())
//! ```
//!
//! # Guarantees
//!
//! * Decoding produces exactly the caller's declared size or fails; no
//!   decoder allocates more than that size (plus small fixed scratch) from
//!   what a stream claims. Blosc headers are checked against the expected
//!   size before anything is allocated.
//! * No input makes a decoder panic; errors are [`CodecError`] values naming
//!   the codec, the sizes and, where known, the offset in the stream.
//! * The codec set is closed ([`Codec`] is an enum). Unknown ids give
//!   [`CodecError::UnknownCodec`], so a reader can open a dataset and fail
//!   only when the affected variable is read.
//! * Codecs are immutable, `Send + Sync`, and keep no state between calls:
//!   decode chunks in parallel freely.
//!
//! Supported: zlib, gzip, bz2, zstd, lz4 (numcodecs framing), blosc (Blosc1,
//! written in Rust: blosclz, lz4, lz4hc, zlib, zstd; no/byte/bit shuffle),
//! shuffle, fletcher32, delta, fixedscaleoffset, bitround, quantize; HDF5's
//! szip (decode only, with the crate's own AEC decoder).
//! See `docs/codecs.md` for the full support table.

mod aec;
pub mod blosc;
mod bounded;
pub mod buffer;
mod bz2;
mod checksum_trailer;
mod codec;
mod crc32c_codec;
mod deflate;
pub mod dtype;
mod error;
pub mod filters;
pub mod fletcher32;
pub mod half;
mod hdf5;
mod json;
mod lz4;
mod pipeline;
pub mod queue;
pub mod shuffle;
mod szip;
pub mod v3;
mod zstd_codec;

pub use codec::{Codec, CodecContext};
pub use error::{CodecError, Result};
pub use hdf5::{
    format_filter_attr, parse_filter_attr, FilterSpec, H5Z_FILTER_BLOSC, H5Z_FILTER_BZIP2,
    H5Z_FILTER_DEFLATE, H5Z_FILTER_FLETCHER32, H5Z_FILTER_LZ4, H5Z_FILTER_SHUFFLE, H5Z_FILTER_SZIP,
    H5Z_FILTER_ZSTD,
};
pub use pipeline::Pipeline;
pub use szip::Szip;
