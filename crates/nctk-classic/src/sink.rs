//! [`ClassicWriter`] as a [`DataSink`]: the format-independent writers (the
//! copier, the generator) drive classic files through it.

use nctk_model::{same_definitions, DataSink, Schema, Selection, SinkError, Values, VarId};

use crate::ClassicWriter;

impl DataSink for ClassicWriter {
    fn schema(&self) -> &Schema {
        ClassicWriter::schema(self)
    }

    /// Defines what `schema` adds (see [`ClassicWriter::define_schema`])
    /// and leaves define mode; after data, this is netCDF's redefinition
    /// (`nc_redef` ... `nc_enddef`), moving data as netCDF-C does.
    fn define(&mut self, schema: &Schema) -> Result<(), SinkError> {
        if same_definitions(ClassicWriter::schema(self), schema) && !self.in_define_mode() {
            return Ok(());
        }
        if !self.in_define_mode() {
            self.redefine()?;
        }
        self.define_schema(schema)?;
        self.end_define()?;
        Ok(())
    }

    /// Writes through the typed path ([`ClassicWriter::write_from`]): a
    /// slab in the variable's own type is byte-swapped in chunks, without
    /// a copy into big-endian [`Values`].
    fn write(
        &mut self,
        var: VarId,
        selection: &Selection,
        values: &Values,
    ) -> Result<(), SinkError> {
        // Fixed-width values go straight from their slice; others (strings)
        // through the writer's checked path, which refuses what CDF cannot hold.
        nctk_model::with_fixed_values!(values, v => self.write_from(var, selection, v),
            _ => ClassicWriter::write(self, var, selection, values))?;
        Ok(())
    }

    /// The caller's slice is written from as it is (byte-swapped in
    /// chunks when of the variable's type).
    fn write_native(
        &mut self,
        var: VarId,
        selection: &Selection,
        values: nctk_model::NativeRef<'_>,
    ) -> Result<(), SinkError> {
        nctk_model::with_native_ref!(values, v => self.write_from(var, selection, v))?;
        Ok(())
    }

    fn finish(self: Box<Self>) -> Result<(), SinkError> {
        self.close()?;
        Ok(())
    }

    fn abort(self: Box<Self>) -> Result<(), SinkError> {
        ClassicWriter::abort(*self)?;
        Ok(())
    }
}
