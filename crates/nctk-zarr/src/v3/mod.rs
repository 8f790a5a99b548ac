//! Zarr v3: the `zarr.json` metadata ([`meta`]) and the codec chain
//! (read by the schema builder).
pub(crate) mod codecs;
pub mod meta;
