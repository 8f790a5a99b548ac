//! Passive options of the writer: which metadata layout, and per-variable
//! storage settings (the netCDF-4 special attributes of CDL).

use nctk_model::{Endianness, Values, VarId};

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
}

impl WriteLayout {
    /// The top-level directory a zip archive called `<stem>.zip` keeps the
    /// dataset under: NCZarr layouts use one named after the file (as
    /// netCDF-C writes it), pure Zarr puts the dataset at the top level (as
    /// zarr-python); `None` too when `stem` is not usable as a key.
    pub fn zip_dir(&self, stem: &str) -> Option<String> {
        match self {
            WriteLayout::PureZarr { .. } => None,
            _ => nctk_store::kv::StoreKey::new(stem)
                .is_ok()
                .then(|| stem.to_string()),
        }
    }
}

/// Storage settings of one variable, as netCDF-4 CDL states them
/// (`_ChunkSizes`, `_DeflateLevel`, `_Shuffle`, `_Fletcher32`, `_Filter`,
/// `_Codecs`, `_Endianness`, `_NoFill`). Everything `None` / false means
/// netCDF-C's defaults.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct VarOptions {
    /// Chunk lengths, one per dimension (`_ChunkSizes`); `None`: netCDF-C's
    /// default chunking.
    pub chunk_sizes: Option<Vec<u64>>,
    /// zlib level 0..=9 (`_DeflateLevel`).
    pub deflate_level: Option<u32>,
    /// The shuffle filter (`_Shuffle`).
    pub shuffle: bool,
    /// The fletcher32 checksum (`_Fletcher32`).
    pub fletcher32: bool,
    /// HDF5 filters as `_Filter` text (`"307,9|1,5"`), mapped to numcodecs
    /// as netCDF-C maps them.
    pub filter: Option<String>,
    /// A numcodecs JSON list (`_Codecs`): written as given (the last codec
    /// is the compressor, the others the filters). Overrides the settings above.
    pub codecs: Option<String>,
    /// Byte order of the stored values (`_Endianness`); default little.
    pub endianness: Option<Endianness>,
    /// `_NoFill`: recorded only (chunks never written read as fill either way).
    pub no_fill: bool,
    /// Bytes per `string` element; longer strings are an error. Default:
    /// the width netCDF-C's `_nczarr_maxstrlen` / `_nczarr_default_maxstrlen`
    /// attributes set (longer strings are then cut, as netCDF-C cuts them),
    /// else 128 (see [`crate::strlen`]).
    pub max_strlen: Option<usize>,
    /// The fill value when the variable has no `_FillValue` attribute (one
    /// value of its type; a copy carries a Zarr input's `fill_value` here);
    /// `None`: netCDF's default fill.
    pub fill_value: Option<Values>,
}

/// Options of [`ZarrWriter`](super::ZarrWriter).
#[derive(Debug, Clone, PartialEq)]
pub struct WriteOptions {
    /// The metadata layout.
    pub layout: WriteLayout,
    /// Per-variable settings, by [`VarId`] index; missing entries are defaults.
    pub vars: Vec<VarOptions>,
    /// Bytes of decoded chunks held in memory before the least recently
    /// touched are encoded and stored (default 64 MiB; at least one chunk
    /// is always held).
    pub cache_bytes: usize,
    /// Also write the consolidated `.zmetadata` (URL mode `consolidated`),
    /// which zarr-python and xarray read in one request.
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
            vars: Vec::new(),
            cache_bytes: 64 << 20,
            consolidated: false,
            write_empty_chunks: false,
        }
    }
}

impl WriteOptions {
    /// The settings of `var` (defaults when none were given).
    pub fn var(&self, var: VarId) -> VarOptions {
        self.vars.get(var.0 as usize).cloned().unwrap_or_default()
    }
}
