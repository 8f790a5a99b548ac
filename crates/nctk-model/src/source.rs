use crate::{
    ChunkCodec, ChunkRefs, ErrorKind, Format, NativeMut, Schema, Selection, SourceError, Values,
    VarId,
};

/// Facts about the file a dataset is stored in, as `ncdump -s` shows them
/// among the global attributes (`_NCProperties`, `_SuperblockVersion`,
/// `_IsNetcdf4`). Formats that have none (classic, Zarr) give the default.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FileFacts {
    /// The HDF5 superblock version (`_SuperblockVersion`).
    pub superblock_version: Option<u32>,
    /// The `_NCProperties` text netCDF-C stored, if any.
    pub nc_properties: Option<String>,
    /// `_IsNetcdf4`: true when the file carries netCDF-4's marks
    /// (as netCDF-C decides it: `_NCProperties` or netCDF-4 hidden attributes).
    pub is_netcdf4: bool,
}

/// Read access to a dataset, implemented by every format's reader.
///
/// This is the seam between formats and everything format-independent
/// (`nctk dump`, `nctk copy`, the facade's typed `get`). Implementations are
/// `Send + Sync`: several threads may read one source at once.
pub trait DataSource: Send + Sync {
    /// The dataset's structure. Unlimited dimensions carry their current length.
    fn schema(&self) -> &Schema;

    /// Reads the selected values of `var` in the variable's own type.
    /// Values never written read as the fill value.
    fn read(&self, var: VarId, selection: &Selection) -> Result<Values, SourceError>;

    /// Reads the selected values of `var` in the variable's own type into
    /// `out`, replacing what it held. When `out` already holds that type its
    /// allocation is reused (a copy loop reading slab after slab allocates
    /// once); readers that can decode straight into it do. The default reads
    /// with [`DataSource::read`].
    fn read_into(
        &self,
        var: VarId,
        selection: &Selection,
        out: &mut Values,
    ) -> Result<(), SourceError> {
        *out = self.read(var, selection)?;
        Ok(())
    }

    /// Reads the selected values of `var` straight into the caller's slice
    /// `out`, which must be of the variable's own type and hold exactly the
    /// selection's values (the facade's `Variable::get_into` when no
    /// conversion is needed). Readers that can decode into it do; the
    /// default reads with [`DataSource::read`] and copies.
    fn read_native(
        &self,
        var: VarId,
        selection: &Selection,
        out: NativeMut<'_>,
    ) -> Result<(), SourceError> {
        out.copy_from(&self.read(var, selection)?)?;
        Ok(())
    }

    /// The dataset's netCDF format (what `ncdump -k` prints and the
    /// `_Format` special attribute shows).
    fn format(&self) -> Format;

    /// When the stored data stops before the end the definitions imply (a
    /// truncated classic file), the byte offset where it stops: values past
    /// it read as fill. `None` for complete data and for formats where
    /// missing data is normal (chunked stores).
    fn data_ends_at(&self) -> Option<u64> {
        None
    }

    /// Facts about the file for `ncdump -s` (HDF5: superblock version,
    /// `_NCProperties`, `_IsNetcdf4`); the default has none.
    fn file_facts(&self) -> FileFacts {
        FileFacts::default()
    }

    /// The encoding of `var`'s stored chunks when the source can hand them
    /// out as stored ([`stored_chunks`](Self::stored_chunks)): the codec
    /// chain in the order applied when writing, elements little-endian,
    /// chunks of the lengths the schema's `VarStorage` layout gives.
    /// `None` (the default) when it cannot.
    fn stored_chunk_codecs(&self, var: VarId) -> Option<Vec<ChunkCodec>> {
        let _ = var;
        None
    }

    /// The stored bytes of the chunks of `var` at the chunk indices
    /// `chunks`, encoded as [`stored_chunk_codecs`](Self::stored_chunk_codecs)
    /// says, read in as few requests as the source can. `None` for a chunk
    /// that cannot be handed out as stored (never written, a filter
    /// skipped, stored otherwise): read its values instead. The default
    /// hands out none.
    fn stored_chunks(
        &self,
        var: VarId,
        chunks: &[Vec<u64>],
    ) -> Result<Vec<Option<Vec<u8>>>, SourceError> {
        let _ = var;
        Ok(vec![None; chunks.len()])
    }

    /// Where the stored bytes of each chunk of `var` are
    /// ([`ChunkRefs`]): offsets into the bytes this source reads, so that
    /// a Zarr reader can read the variable from them without this reader.
    /// An error naming the variable when its storage cannot be described
    /// so (a filter with no numcodecs codec, a chunk that skipped a
    /// filter, a type with no fixed-width Zarr dtype). The default: an
    /// `Unsupported` error.
    fn chunk_refs(&self, var: VarId) -> Result<ChunkRefs, SourceError> {
        let name = self.schema().var_path(var);
        Err(SourceError::new(
            ErrorKind::Unsupported,
            format!("variable {name:?}: this reader gives no references to stored chunks"),
        ))
    }
}
