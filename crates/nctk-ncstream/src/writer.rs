//! [`NcStreamWriter`]: a [`DataSink`] writing a full ncstream
//! (`MAGIC_START`, a header, one data message per [`DataSink::write`],
//! `MAGIC_END`) to any [`Write`].
//!
//! * The header goes out with the first data message (or at `finish`):
//!   definitions given again before that replace the earlier ones; after
//!   it only the same definitions are accepted (a stream cannot take its
//!   header back). An unlimited dimension's length in the header is its
//!   length in the definitions; records written past it are carried by the
//!   data messages' sections.
//! * Each `write` is one data message holding exactly the slab given, so
//!   memory is bounded by the caller's slabs (the copier's are at most its
//!   buffer size); the sink is not chunked ([`DataSink::chunk_shape`] is
//!   `None`).
//! * `abort` writes an error message and no `MAGIC_END`, so no reader takes
//!   what was written for a complete stream (a file is also removed by the
//!   facade's output layer).

use std::io::Write;

use nctk_model::{same_definitions, DataSink, Schema, Selection, SinkError, Values, VarId};

use crate::error::{NcStreamError, Result};
use crate::message::{header_message, write_data_message, DataOptions, END, START};

/// A [`DataSink`] writing an ncstream to `W`.
pub struct NcStreamWriter<W: Write + Send> {
    out: W,
    /// The stream's name (a path or `-`), for errors and the header's location.
    name: String,
    options: DataOptions,
    schema: Schema,
    defined: bool,
    header_written: bool,
    /// Bytes written so far: the offset errors name.
    offset: u64,
}

impl<W: Write + Send> NcStreamWriter<W> {
    /// A writer to `out`, named `name` (a path, or `-` for stdout) in errors
    /// and as the header's `location`; `options` says how data messages are
    /// written. Nothing is written until the first data or `finish`.
    pub fn new(out: W, name: &str, options: DataOptions) -> Self {
        NcStreamWriter {
            out,
            name: name.to_string(),
            options,
            schema: Schema::new(),
            defined: false,
            header_written: false,
            offset: 0,
        }
    }

    /// The bytes written so far.
    pub fn bytes_written(&self) -> u64 {
        self.offset
    }

    fn put(&mut self, bytes: &[u8]) -> Result<()> {
        self.out
            .write_all(bytes)
            .map_err(|e| NcStreamError::write_failed(self.offset, e, &self.name))?;
        self.offset += bytes.len() as u64;
        Ok(())
    }

    fn flush(&mut self) -> Result<()> {
        let offset = self.offset;
        self.out
            .flush()
            .map_err(|e| NcStreamError::write_failed(offset, e, &self.name))
    }

    fn defined(&self) -> Result<&Schema> {
        if !self.defined {
            return Err(
                NcStreamError::unwritable("data", "nothing is defined yet").in_stream(&self.name)
            );
        }
        Ok(&self.schema)
    }

    /// `MAGIC_START` and the header, once.
    fn start(&mut self) -> Result<()> {
        if self.header_written {
            return Ok(());
        }
        let header =
            header_message(self.defined()?, &self.name).map_err(|e| e.in_stream(&self.name))?;
        self.put(&START)?;
        self.put(&header)?;
        self.header_written = true;
        Ok(())
    }

    fn write_slab(&mut self, var: VarId, selection: &Selection, values: &Values) -> Result<()> {
        let schema = self.defined()?;
        if var.0 as usize >= schema.num_vars() {
            return Err(NcStreamError::unwritable(
                format!("variable #{}", var.0),
                "no such variable",
            )
            .in_stream(&self.name));
        }
        let growable = schema.is_record_var(var);
        selection.check(&schema.shape(var), growable).map_err(|e| {
            NcStreamError::unwritable(
                format!("variable {:?}", schema.var_path(var)),
                e.to_string(),
            )
            .in_stream(&self.name)
        })?;
        self.start()?;
        let schema = &self.schema;
        let written =
            write_data_message(&mut self.out, schema, var, selection, values, &self.options)
                .map_err(|e| match e {
                    NcStreamError::Io { source, .. } => {
                        NcStreamError::write_failed(self.offset, source, &self.name)
                    }
                    e => e.in_stream(&self.name),
                })?;
        self.offset += written;
        if growable {
            self.grow_records(var, selection);
        }
        Ok(())
    }

    /// The unlimited dimension's length after `selection` of `var`.
    fn grow_records(&mut self, var: VarId, selection: &Selection) {
        let schema = &mut self.schema;
        let dim = schema.var(var).dims[0];
        let end = match selection.count[0] {
            0 => 0,
            n => selection.start[0] + (n - 1) * selection.stride[0] + 1,
        };
        let d = schema.dim_mut(dim);
        d.len = d.len.max(end);
    }
}

impl<W: Write + Send> DataSink for NcStreamWriter<W> {
    fn schema(&self) -> &Schema {
        &self.schema
    }

    fn define(&mut self, schema: &Schema) -> Result<(), SinkError> {
        if self.header_written {
            if same_definitions(&self.schema, schema) {
                return Ok(());
            }
            return Err(NcStreamError::unwritable(
                "the definitions",
                "the header is already written; a stream cannot be redefined after data",
            )
            .in_stream(&self.name)
            .into());
        }
        // Checked now, so a definition ncstream cannot carry fails at once.
        header_message(schema, &self.name).map_err(|e| e.in_stream(&self.name))?;
        self.schema = schema.clone();
        self.defined = true;
        Ok(())
    }

    fn write(
        &mut self,
        var: VarId,
        selection: &Selection,
        values: &Values,
    ) -> Result<(), SinkError> {
        Ok(self.write_slab(var, selection, values)?)
    }

    fn finish(mut self: Box<Self>) -> Result<(), SinkError> {
        self.start()?;
        self.put(&END)?;
        Ok(self.flush()?)
    }

    fn abort(mut self: Box<Self>) -> Result<(), SinkError> {
        if self.header_written {
            let message =
                crate::message::error_message("the writer stopped: the stream is incomplete");
            self.put(&message)?;
        }
        Ok(self.flush()?)
    }
}
