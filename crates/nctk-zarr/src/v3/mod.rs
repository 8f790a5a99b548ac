//! Zarr v3: the `zarr.json` metadata ([`meta`]).
pub mod meta;
