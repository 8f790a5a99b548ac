//! [`Netcdf4Writer`]: netCDF-4 files (HDF5) made as netCDF-C makes them,
//! behind the model's [`DataSink`]: the whole netCDF-4 data model (groups,
//! dimensions, every atomic type, strings, user-defined types as committed
//! datatypes, the classic model's marker) with contiguous, compact and
//! chunked storage; what it does not write yet (filters other than
//! deflate, shuffle and fletcher32) is refused with an error naming the
//! variable.

mod attrs;
mod data;
mod plan;
mod strings;
mod types;

use std::sync::Arc;

use nctk_model::bytes::values_as_bytes;
use nctk_model::{
    same_definitions, ChunkCodec, DataSink, Schema, Selection, SinkError, Values, VarId,
};
use nctk_store::bytes::ByteSink;

use crate::write::{Hdf5Writer, WriteError, WriteResult};
use plan::VarPlan;

/// A netCDF-4 file being written over a [`ByteSink`] (which should be
/// empty): definitions first ([`DataSink::define`]), then slabs, then
/// [`DataSink::finish`], which writes the metadata.
pub struct Netcdf4Writer {
    sink: Arc<dyn ByteSink>,
    writer: Option<Hdf5Writer>,
    schema: Schema,
    plans: Vec<VarPlan>,
    chunks: data::Chunks,
    classic: bool,
}

impl Netcdf4Writer {
    /// A writer of a new file over `sink`.
    pub fn new(sink: Arc<dyn ByteSink>) -> Netcdf4Writer {
        Netcdf4Writer {
            writer: Some(Hdf5Writer::new(sink.clone())),
            sink,
            schema: Schema::new(),
            plans: Vec::new(),
            chunks: data::Chunks::default(),
            classic: false,
        }
    }

    /// A writer of a new netCDF-4 classic model file over `sink`: a
    /// netCDF-4 file marked with netCDF-C's `_nc3_strict` attribute (the
    /// schema given should keep to the classic model).
    pub fn classic_model(sink: Arc<dyn ByteSink>) -> Netcdf4Writer {
        Netcdf4Writer {
            classic: true,
            ..Netcdf4Writer::new(sink)
        }
    }

    fn writer(&mut self) -> &mut Hdf5Writer {
        self.writer.as_mut().expect("the writer lives until finish")
    }

    fn define_schema(&mut self, schema: &Schema) -> WriteResult<()> {
        if !self.plans.is_empty() || self.schema.num_vars() > 0 || self.schema.num_dims() > 0 {
            if same_definitions(&self.schema, schema) {
                return Ok(());
            }
            return Err(attrs::not_yet("a redefinition"));
        }
        let classic = self.classic;
        let plans = plan::build(self.writer(), schema, classic)?;
        self.plans = plans;
        self.schema = schema.clone();
        Ok(())
    }

    fn write_values(&mut self, var: VarId, sel: &Selection, values: &Values) -> WriteResult<()> {
        let i = var.0 as usize;
        let plan = self
            .plans
            .get(i)
            .cloned()
            .ok_or_else(|| WriteError::Invalid(format!("no variable {}", var.0)))?;
        let v = self.schema.var(var);
        let name = v.name.clone();
        let bad = |reason: String| WriteError::Invalid(format!("variable {name:?}: {reason}"));
        let dtype = v.dtype;
        let dims = v.dims.clone();
        let scalar = dims.is_empty();
        let sel = if scalar {
            Selection::all(&[1])
        } else {
            sel.clone()
        };
        let mut shape = if scalar {
            vec![1]
        } else {
            self.schema.shape(var)
        };
        let growable = !scalar && self.schema.dim(dims[0]).unlimited;
        sel.check(&shape, growable)
            .map_err(|e| bad(e.to_string()))?;
        let n = sel
            .num_elements()
            .ok_or_else(|| bad("selection size overflows".into()))?;
        if n != values.len() as u64 {
            return Err(bad(format!(
                "selection holds {n} values but {} were given",
                values.len()
            )));
        }
        if n == 0 {
            return Ok(());
        }
        let converted;
        let values = if values.dtype() == dtype || !dtype.is_numeric() {
            values
        } else if values.dtype().is_numeric() {
            converted =
                nctk_model::convert::convert(values, dtype).map_err(|e| bad(e.to_string()))?;
            &converted
        } else {
            return Err(bad(format!(
                "cannot write {} values to a {dtype} variable",
                values.dtype()
            )));
        };
        let w = self.writer.as_mut().expect("the writer lives until finish");
        // Numbers stored in this machine's byte order are written from the
        // values' own memory; anything else through its stored form.
        let native = dtype.is_numeric()
            && values.dtype() == dtype
            && plan.big_endian == cfg!(target_endian = "big");
        let stored;
        let bytes = match values_as_bytes(values).filter(|_| native) {
            Some(b) => b,
            None => {
                let mut b = types::stored(w, &self.schema, dtype, values)
                    .map_err(|e| bad(e.to_string()))?;
                if plan.big_endian && dtype.is_numeric() {
                    b.chunks_mut(plan.element_size).for_each(<[u8]>::reverse);
                }
                stored = b;
                &stored[..]
            }
        };
        if growable {
            let end = sel.start[0] + (sel.count[0] - 1) * sel.stride[0] + 1;
            if end > shape[0] {
                shape[0] = end;
                self.schema.dim_mut(dims[0]).len = end;
            }
        }
        let w = self.writer.as_mut().expect("the writer lives until finish");
        data::write(w, &mut self.chunks, i, &plan, &shape, &sel, bytes)
    }

    /// Writes `bytes`, one chunk of `var` as stored elsewhere (encoded as
    /// its plan's `stored_codecs`), as the chunk `sel` covers; false when
    /// it cannot be (not such a variable, a misaligned selection, a chunk
    /// already written to).
    fn write_stored(&mut self, var: VarId, sel: &Selection, bytes: Vec<u8>) -> WriteResult<bool> {
        let i = var.0 as usize;
        let Some(plan) = self.plans.get(i) else {
            return Ok(false);
        };
        let (Some(chunk), Some(_)) = (&plan.chunk, &plan.stored_codecs) else {
            return Ok(false);
        };
        let v = self.schema.var(var);
        let shape = self.schema.shape(var);
        let growable = self.schema.dim(v.dims[0]).unlimited;
        let fits = sel.start.len() == chunk.len()
            && sel.stride.iter().all(|&s| s == 1)
            && (0..chunk.len()).all(|d| {
                let end = sel.start[d] + chunk[d];
                sel.start[d] % chunk[d] == 0
                    && (sel.count[d] == chunk[d]
                        || (end > shape[d] && sel.start[d] + sel.count[d] == shape[d]))
            });
        if !fits || !self.chunks.untouched(i, &sel.start) {
            return Ok(false);
        }
        if growable {
            let end = sel.start[0] + sel.count[0];
            if end > shape[0] {
                let d = v.dims[0];
                self.schema.dim_mut(d).len = end;
            }
        }
        let id = plan.id;
        self.chunks.mark_done(i, &sel.start);
        self.writer().write_stored_chunk(id, &sel.start, bytes, 0)?;
        Ok(true)
    }

    fn finish_file(mut self) -> WriteResult<()> {
        let mut w = self.writer.take().expect("the writer lives until finish");
        data::flush(&mut w, &mut self.chunks, &self.plans)?;
        for v in self.schema.var_ids() {
            if self.schema.is_record_var(v) {
                w.set_dims(self.plans[v.0 as usize].id, &self.schema.shape(v))?;
            }
        }
        w.finish()
    }
}

impl DataSink for Netcdf4Writer {
    fn schema(&self) -> &Schema {
        &self.schema
    }

    fn define(&mut self, schema: &Schema) -> Result<(), SinkError> {
        Ok(self.define_schema(schema)?)
    }

    fn write(
        &mut self,
        var: VarId,
        selection: &Selection,
        values: &Values,
    ) -> Result<(), SinkError> {
        Ok(self.write_values(var, selection, values)?)
    }

    fn chunk_shape(&self, var: VarId) -> Option<Vec<u64>> {
        self.plans.get(var.0 as usize)?.chunk.clone()
    }

    fn stored_chunk_codecs(&self, var: VarId) -> Option<Vec<ChunkCodec>> {
        self.plans.get(var.0 as usize)?.stored_codecs.clone()
    }

    fn write_stored_chunk(
        &mut self,
        var: VarId,
        selection: &Selection,
        bytes: Vec<u8>,
    ) -> Result<bool, SinkError> {
        Ok(self.write_stored(var, selection, bytes)?)
    }

    fn finish(self: Box<Self>) -> Result<(), SinkError> {
        Ok(self.finish_file()?)
    }

    /// Empties the file (once the chunks being written have landed): with
    /// no superblock it does not open as HDF5.
    fn abort(mut self: Box<Self>) -> Result<(), SinkError> {
        drop(self.writer.take());
        self.sink.set_len(0).map_err(|source| WriteError::Io {
            what: "abort".into(),
            source,
        })?;
        Ok(())
    }
}
