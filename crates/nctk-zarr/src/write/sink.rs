//! [`ZarrWriter`] as a [`DataSink`]: the format-independent writers (the
//! copier, the generator) drive stores through it.

use nctk_model::{ChunkCodec, DataSink, NativeRef, Schema, Selection, SinkError, Values, VarId};

use super::ZarrWriter;

impl DataSink for ZarrWriter {
    fn schema(&self) -> &Schema {
        ZarrWriter::schema(self)
    }

    /// The definitions the writer holds change nothing; a writer with no
    /// variables yet starts again with `schema`; a redefinition is refused.
    fn define(&mut self, schema: &Schema) -> Result<(), SinkError> {
        Ok(self.redefine(schema)?)
    }

    fn write(
        &mut self,
        var: VarId,
        selection: &Selection,
        values: &Values,
    ) -> Result<(), SinkError> {
        Ok(ZarrWriter::write(self, var, selection, values)?)
    }

    fn write_native(
        &mut self,
        var: VarId,
        selection: &Selection,
        values: NativeRef<'_>,
    ) -> Result<(), SinkError> {
        Ok(ZarrWriter::write_native(self, var, selection, values)?)
    }

    fn chunk_shape(&self, var: VarId) -> Option<Vec<u64>> {
        ZarrWriter::chunk_shape(self, var).map(<[u64]>::to_vec)
    }

    fn stored_chunk_codecs(&self, var: VarId) -> Option<Vec<ChunkCodec>> {
        ZarrWriter::stored_chunk_codecs(self, var)
    }

    fn write_stored_chunk(
        &mut self,
        var: VarId,
        selection: &Selection,
        bytes: Vec<u8>,
    ) -> Result<bool, SinkError> {
        Ok(ZarrWriter::write_stored_chunk(self, var, selection, bytes)?)
    }

    fn finish(self: Box<Self>) -> Result<(), SinkError> {
        Ok(ZarrWriter::finish(*self)?)
    }

    fn abort(self: Box<Self>) -> Result<(), SinkError> {
        Ok(ZarrWriter::abort(*self)?)
    }
}
