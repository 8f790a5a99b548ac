//! Zarr v2 and NCZarr for nctk.
//!
//! # Which API to use
//!
//! * To read a dataset: put its store in an `Arc` and call
//!   [`ZarrReader::open`]; the reader is an [`nctk_model::DataSource`]
//!   (`schema()`, `read(var, &selection)`).
//! * To write one: [`ZarrWriter::create`] over any store that reads and
//!   writes.
//! * Paths and netCDF-C URLs (`file:///x.zarr#mode=zarr,file`,
//!   `s3://bucket/key`) are not this crate's: the facade (`nctk`) turns
//!   them into a store and [`ZarrOptions`].
//! * The metadata types ([`meta`]) and NCZarr's layouts ([`nczarr`]) are
//!   public for tools that inspect stores.
//!
//! Every layout netCDF-C has written reads (see [`nczarr`]), as do pure Zarr
//! stores from zarr-python and xarray (`order` C and F, both dimension
//! separators, missing chunks as fill, every numeric dtype plus `f2`, `b1`,
//! `S<n>` and `U<n>`).

mod attrs;
pub mod cell;
mod error;
pub mod json;
mod layout;
pub mod meta;
pub mod nczarr;
mod reader;
mod refs;
mod schema;
mod selection;
mod shard;
mod storage;
pub mod v3;
mod vlen;
pub mod write;

pub use attrs::{
    infer as infer_attribute, is_hidden as is_hidden_attribute, to_values as attribute_values,
};
pub use error::ZarrError;
pub use reader::ZarrReader;
pub use schema::ZarrOptions;
pub use write::{WriteError, WriteLayout, WriteOptions, ZarrWriter};
