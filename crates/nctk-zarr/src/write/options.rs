//! Passive options of the writer: which metadata layout, the cache, what
//! else is stored. Each variable's storage (chunks, codecs, byte order,
//! string width, fill) is the schema's [`nctk_model::VarStorage`].

/// Which metadata layout to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WriteLayout {
    /// NCZarr as netCDF-C 4.9.3 and later write it (the default): every
    /// NCZarr key in `.zattrs` (`_nczarr_superblock`, `_nczarr_group`,
    /// `_nczarr_array`, `_nczarr_attr`), plus xarray's `_ARRAY_DIMENSIONS`.
    #[default]
    NcZarr,
    /// NCZarr as netCDF-C 4.9.0 writes it: `_NCZARR_SUPERBLOCK` and
    /// `_NCZARR_GROUP` in `.zgroup`, `_NCZARR_ARRAY` in `.zarray`,
    /// `_NCZARR_ATTR` in `.zattrs`; char arrays as `<U1` (one byte per
    /// element). URL mode flag `v2compat`. netCDF-C 4.9.0 has no unlimited
    /// dimensions: they are written as fixed at their current length.
    NcZarr490,
    /// Pure Zarr v2 (URL mode `zarr`): no NCZarr keys; dimension names as
    /// xarray's `_ARRAY_DIMENSIONS` unless `xarray` is false (`noxarray`).
    PureZarr {
        /// Write `_ARRAY_DIMENSIONS`.
        xarray: bool,
    },
    /// Zarr v3 (URL mode `v3`): a `zarr.json` per group and array,
    /// dimension names as `dimension_names`, chunk keys `c/0/1`, strings as
    /// zarr-python's `string` data type, char as `uint8`, the consolidated
    /// metadata inline in the root `zarr.json`.
    ZarrV3 {
        /// Add the annotations of netCDF-C's draft NCZarr v3 appendix
        /// (`_nczarr_superblock`, `_nczarr_group`, `_nczarr_array`,
        /// `_nczarr_attrs`), so groups, unlimited dimensions, char arrays
        /// and attribute types survive a round trip (`#mode=nczarr,v3`);
        /// false writes pure Zarr v3 (`#mode=zarr,v3`).
        nczarr: bool,
    },
}

impl WriteLayout {
    /// The top-level directory a zip archive called `<stem>.zip` keeps the
    /// dataset under: NCZarr layouts use one named after the file (as
    /// netCDF-C writes it), pure Zarr puts the dataset at the top level (as
    /// zarr-python); `None` too when `stem` is not usable as a key.
    pub fn zip_dir(&self, stem: &str) -> Option<String> {
        match self {
            WriteLayout::PureZarr { .. } | WriteLayout::ZarrV3 { nczarr: false } => None,
            _ => nctk_store::kv::StoreKey::new(stem)
                .is_ok()
                .then(|| stem.to_string()),
        }
    }

    /// True for the Zarr v3 layouts.
    pub fn is_v3(&self) -> bool {
        matches!(self, WriteLayout::ZarrV3 { .. })
    }
}

/// Options of [`ZarrWriter`](super::ZarrWriter).
#[derive(Debug, Clone, PartialEq)]
pub struct WriteOptions {
    /// The metadata layout.
    pub layout: WriteLayout,
    /// Bytes of decoded chunks held in memory before the least recently
    /// touched are encoded and stored (default 64 MiB; at least one chunk
    /// is always held), counting the chunks being encoded. For a sharded
    /// Zarr v3 array the chunks are its inner chunks, and memory is this
    /// plus the encoded bytes of the shards being assembled (a shard is
    /// stored as soon as all its inner chunks are encoded: one or two
    /// shards for writes in order). Each such shard reserves room for its
    /// inner chunks' decoded size (at most 256 MiB) up front, so that it is
    /// never copied as it grows and its memory goes back to the system
    /// when stored; only the encoded bytes are ever written, and pages
    /// never written are not resident.
    pub cache_bytes: usize,
    /// Also write the consolidated `.zmetadata` (URL mode `consolidated`),
    /// which zarr-python and xarray read in one request. Zarr v3 stores
    /// always hold their consolidated metadata (in the root `zarr.json`).
    pub consolidated: bool,
    /// Store chunks that hold only the fill value too (default false: they
    /// are left out, and one already stored is removed, as zarr-python's
    /// `write_empty_chunks=False`; readers read a missing chunk as fill).
    pub write_empty_chunks: bool,
}

impl Default for WriteOptions {
    fn default() -> Self {
        WriteOptions {
            layout: WriteLayout::default(),
            cache_bytes: 64 << 20,
            consolidated: false,
            write_empty_chunks: false,
        }
    }
}
