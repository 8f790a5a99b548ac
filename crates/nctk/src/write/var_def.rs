//! [`VarDef`]: the variable being defined, its attributes and its storage
//! (the model's [`VarStorage`](nctk_model::VarStorage), which the writer
//! takes from the schema).

use nctk_model::{Attribute, DataType, Endianness, Layout, VarId};

use super::holds::Feature;
use super::{AttrValue, DatasetDef};
use crate::Error;

/// A variable just defined: set its attributes and its storage.
///
/// Storage settings are netCDF-4's (`nc_def_var_chunking`,
/// `nc_def_var_deflate`, `nc_def_var_filter`, `nc_def_var_endian`,
/// `nc_def_var_fletcher32`, `nc_def_var_fill`): an NCZarr store holds them
/// all; a classic file and an ncstream hold none, and each setter refuses
/// at the call with [`Error::Unsupported`] naming the format and the
/// variable, as netCDF-C returns `NC_ENOTNC4`. A bad value (a chunk shape
/// of the wrong rank or with a zero, a deflate level over 9, codecs that
/// do not parse, a string width of 0) is an [`Error::Definition`]
/// (`ErrorKind::InvalidInput`) and changes nothing.
pub struct VarDef<'a> {
    def: &'a mut DatasetDef,
    id: VarId,
}

impl std::fmt::Debug for VarDef<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VarDef")
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

impl<'a> VarDef<'a> {
    pub(super) fn new(def: &'a mut DatasetDef, id: VarId) -> VarDef<'a> {
        VarDef { def, id }
    }
}

impl VarDef<'_> {
    /// The variable's id.
    pub fn id(&self) -> VarId {
        self.id
    }

    /// Sets an attribute of the variable; text becomes a `char` attribute.
    pub fn put_attribute(
        &mut self,
        name: &str,
        value: impl Into<AttrValue>,
    ) -> Result<&mut Self, Error> {
        let group = self.def.schema().var(self.id).group;
        self.def
            .put_attr(group, Some(self.id), name, value.into().0)?;
        Ok(self)
    }

    fn bad(&self, reason: String) -> Error {
        Error::Definition {
            path: self.def.target.display().to_string(),
            reason: format!(
                "variable {:?}: {reason}",
                self.def.schema().var_path(self.id)
            ),
        }
    }

    /// Stores the variable in chunks of these lengths, one per dimension
    /// (`_ChunkSizes`).
    pub fn set_chunking(&mut self, chunks: &[u64]) -> Result<&mut Self, Error> {
        let rank = self.def.schema().var(self.id).dims.len();
        if chunks.len() != rank {
            let why = format!("{} chunk lengths for {rank} dimensions", chunks.len());
            return Err(self.bad(why));
        }
        let layout = Layout::Chunked(chunks.to_vec());
        self.def
            .set_storage(self.id, Feature::Storage("chunking"), |s| s.layout = layout)?;
        Ok(self)
    }

    /// Stores the variable contiguous (`_Storage = "contiguous"`): in a
    /// store, one chunk holding the whole variable, as netCDF-C's NCZarr
    /// stores it.
    pub fn set_contiguous(&mut self) -> Result<&mut Self, Error> {
        self.def
            .set_storage(self.id, Feature::Storage("chunking"), |s| {
                s.layout = Layout::Contiguous
            })?;
        Ok(self)
    }

    /// Deflates the variable at zlib `level` (0..=9), with the shuffle
    /// filter before it when `shuffle` (`_DeflateLevel`, `_Shuffle`).
    pub fn set_compression(&mut self, level: u32, shuffle: bool) -> Result<&mut Self, Error> {
        self.def
            .set_storage(self.id, Feature::Storage("compression"), |s| {
                s.deflate_level = Some(level);
                s.shuffle = shuffle;
            })?;
        Ok(self)
    }

    /// Encodes the variable's chunks with this numcodecs JSON chain (a
    /// list of codecs, the last one the compressor, or one codec:
    /// `_Codecs`), which replaces the other filter settings.
    pub fn set_codecs(&mut self, codecs: &str) -> Result<&mut Self, Error> {
        let codecs = codecs.to_string();
        self.def
            .set_storage(self.id, Feature::Storage("codecs"), |s| {
                s.codecs = Some(codecs)
            })?;
        Ok(self)
    }

    /// Filters the variable's chunks with HDF5 filters given as `_Filter`
    /// text (`"307,9|32015,3"`: ids and parameters), mapped to codecs as
    /// netCDF-C maps them.
    pub fn set_filter(&mut self, filter: &str) -> Result<&mut Self, Error> {
        let filter = filter.to_string();
        self.def
            .set_storage(self.id, Feature::Storage("filters"), |s| {
                s.filters = Some(filter)
            })?;
        Ok(self)
    }

    /// Adds the fletcher32 checksum to each chunk (`_Fletcher32`).
    pub fn set_fletcher32(&mut self) -> Result<&mut Self, Error> {
        self.def
            .set_storage(self.id, Feature::Storage("a fletcher32 checksum"), |s| {
                s.fletcher32 = true
            })?;
        Ok(self)
    }

    /// Stores the variable's values in this byte order (`_Endianness`).
    pub fn set_endianness(&mut self, endianness: Endianness) -> Result<&mut Self, Error> {
        self.def
            .set_storage(self.id, Feature::Storage("a byte order"), |s| {
                s.endianness = Some(endianness)
            })?;
        Ok(self)
    }

    /// Stores each value of a `string` variable in `width` bytes (NCZarr's
    /// fixed-width strings); a longer string is then refused when written.
    pub fn set_string_width(&mut self, width: usize) -> Result<&mut Self, Error> {
        let dtype = self.def.schema().var(self.id).dtype;
        if dtype != DataType::String {
            return Err(self.bad(format!("a string width for a {dtype} variable")));
        }
        self.def
            .set_storage(self.id, Feature::Storage("a string width"), |s| {
                s.string_width = Some(width)
            })?;
        Ok(self)
    }

    /// Sets the variable's fill value (its `_FillValue` attribute, as
    /// netCDF-C's `nc_def_var_fill` does): one value of the variable's type.
    pub fn set_fill_value(&mut self, value: impl Into<AttrValue>) -> Result<&mut Self, Error> {
        let value = value.into().0;
        let mut trial = self.def.schema().clone();
        let group = trial.var(self.id).group;
        trial.set_attr(
            group,
            Some(self.id),
            Attribute::new("_FillValue", value.clone()),
        );
        trial.check_fill_value(self.id)?;
        self.def
            .put_attr(group, Some(self.id), "_FillValue", value)?;
        Ok(self)
    }

    /// Writes the variable without fill (`_NoFill`, netCDF-C's
    /// `nc_def_var_fill` with `NC_NOFILL`). A store records it (chunks
    /// never written are not stored and read as fill either way).
    pub fn set_no_fill(&mut self) -> Result<&mut Self, Error> {
        self.def
            .set_storage(self.id, Feature::NoFill, |s| s.no_fill = true)?;
        Ok(self)
    }
}
