//! The output side's factory of sinks, [`create_writer`]: classic files
//! through [`ClassicWriter`], NCZarr/Zarr stores through
//! [`crate::StoreWriter`] (each variable's storage as the schema's
//! [`nctk_model::VarStorage`] gives it).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use nctk_classic::{ClassicWriter, FillMode, Version};
use nctk_model::{
    ChunkCodec, DataSink, HasErrorKind, NativeRef, Schema, Selection, SinkError, Values, VarId,
};
use nctk_store::bytes::MemSink;
use nctk_zarr::write::ReadWriteStore;

use super::CreateOptions;
use super::OutputError;
use crate::create_zarr::ZarrWriteOptions;
use crate::formats::CreateRequest;
use crate::Container;
use nctk_model::Format;

/// The classic version `format` names, `None` for the other formats.
pub(crate) fn classic_version(container: Container) -> Option<Version> {
    match container {
        Container::Classic(format) => Version::try_from(format).ok(),
        _ => None,
    }
}

/// A writer of any format: a [`DataSink`] that can also be synced.
pub(crate) enum Sink {
    /// A classic file written in place (or in its temporary).
    Classic(ClassicWriter),
    /// A block-compressed classic file.
    Compressed(super::compressed::CompressedWriter),
    /// Any other format's writer (a store, an ncstream, a classic file
    /// built in memory), which has nothing to sync before it finishes.
    Other(Box<dyn DataSink>),
}

impl Sink {
    fn sink(&self) -> &dyn DataSink {
        match self {
            Sink::Classic(w) => w,
            Sink::Compressed(w) => w,
            Sink::Other(w) => w.as_ref(),
        }
    }

    fn sink_mut(&mut self) -> &mut dyn DataSink {
        match self {
            Sink::Classic(w) => w,
            Sink::Compressed(w) => w,
            Sink::Other(w) => w.as_mut(),
        }
    }

    fn boxed(self) -> Box<dyn DataSink> {
        match self {
            Sink::Classic(w) => Box::new(w),
            Sink::Compressed(w) => Box::new(w),
            Sink::Other(w) => w,
        }
    }

    /// netCDF's `nc_sync`: a classic file gets its record count and is
    /// flushed; a store's complete chunks are already stored and the rest
    /// wait for [`DataSink::finish`]; an in-memory file waits for it too.
    pub(crate) fn sync(&mut self) -> Result<(), SinkError> {
        match self {
            Sink::Classic(w) => w.sync()?,
            Sink::Compressed(w) => w.sync()?,
            Sink::Other(_) => {}
        }
        Ok(())
    }
}

impl DataSink for Sink {
    fn schema(&self) -> &Schema {
        self.sink().schema()
    }

    fn define(&mut self, schema: &Schema) -> Result<(), SinkError> {
        self.sink_mut().define(schema)
    }

    fn write(
        &mut self,
        var: VarId,
        selection: &Selection,
        values: &Values,
    ) -> Result<(), SinkError> {
        self.sink_mut().write(var, selection, values)
    }

    fn write_native(
        &mut self,
        var: VarId,
        selection: &Selection,
        values: NativeRef<'_>,
    ) -> Result<(), SinkError> {
        self.sink_mut().write_native(var, selection, values)
    }

    fn chunk_shape(&self, var: VarId) -> Option<Vec<u64>> {
        self.sink().chunk_shape(var)
    }

    fn stored_chunk_codecs(&self, var: VarId) -> Option<Vec<ChunkCodec>> {
        self.sink().stored_chunk_codecs(var)
    }

    fn write_stored_chunk(
        &mut self,
        var: VarId,
        selection: &Selection,
        bytes: Vec<u8>,
    ) -> Result<bool, SinkError> {
        self.sink_mut().write_stored_chunk(var, selection, bytes)
    }

    fn finish(self: Box<Self>) -> Result<(), SinkError> {
        self.boxed().finish()
    }

    fn abort(self: Box<Self>) -> Result<(), SinkError> {
        self.boxed().abort()
    }
}

/// Creates the output at `path` as `container` with every definition of
/// `schema`, ready for data, through the format table's entry for
/// `container`. `path` is where the bytes go (the copier passes a
/// temporary name next to the final one, `target`, which an ncstream's
/// header names); for [`Container::Zarr`] it is a store's directory or
/// (`zip`) zip file, and each variable's storage follows the schema's
/// [`nctk_model::VarStorage`].
pub(crate) fn create_writer(
    path: &Path,
    target: &Path,
    zip: bool,
    (container, format): (Container, Format),
    schema: &Schema,
    opts: &CreateOptions,
) -> Result<Sink, OutputError> {
    let request = CreateRequest {
        path,
        target,
        zip,
        container,
        format,
        schema,
        options: opts,
    };
    crate::formats::entry(container).create(&request)
}

/// Checks that [`crate::create_with`] can write `container` (before any other
/// work, as nccopy refuses the output first).
pub(crate) fn check_writable(path: &Path, container: Container) -> Result<(), OutputError> {
    crate::formats::entry(container).check_writable(path)
}

/// A new store at the request's path (a directory, or a zip file).
pub(crate) fn create_store_output(request: &CreateRequest<'_>) -> Result<Sink, OutputError> {
    let (path, opts) = (request.path, request.options);
    let layout = (opts.store_options().layout).unwrap_or(ZarrWriteOptions::default().layout);
    let store =
        crate::door::create_store(path, request.zip, layout).map_err(|e| OutputError::Output {
            path: path.display().to_string(),
            source: e.into(),
        })?;
    store_sink(store, path, request.schema, opts)
}

/// A store writer of `schema` into `store` (named `path` in errors), each
/// variable's storage as the schema gives it.
pub(crate) fn store_sink(
    store: Arc<dyn ReadWriteStore>,
    path: &Path,
    schema: &Schema,
    opts: &CreateOptions,
) -> Result<Sink, OutputError> {
    let (defaults, given) = (ZarrWriteOptions::default(), opts.store_options());
    let store_opts = ZarrWriteOptions {
        layout: given.layout.unwrap_or(defaults.layout),
        cache_bytes: given.cache_bytes.unwrap_or(defaults.cache_bytes),
        consolidated: given.consolidated,
        write_empty_chunks: given.write_empty_chunks,
    };
    let err = |source| OutputError::Output {
        path: path.display().to_string(),
        source,
    };
    let writer = if given.existing {
        crate::StoreWriter::open_existing(store, schema, &store_opts)
    } else {
        crate::StoreWriter::create(store, schema, &store_opts)
    };
    let writer = writer.map_err(|e| err(e.into()))?;
    Ok(Sink::Other(Box::new(writer)))
}

/// A netCDF-4 file (the classic model's when the request's format is
/// [`Format::Netcdf4Classic`]) written by [`nctk_hdf5::Netcdf4Writer`] at
/// the request's path; without fill ([`CreateOptions::fill`] false), every
/// variable is `_NoFill`, as netCDF-C's `nc_set_fill(NC_NOFILL)` makes it.
#[cfg(feature = "hdf5")]
pub(crate) fn create_hdf5(request: &CreateRequest<'_>) -> Result<Sink, OutputError> {
    let path = request.path;
    let err = |source: nctk_model::SourceError| OutputError::Output {
        path: path.display().to_string(),
        source,
    };
    let file = crate::door::open_file(path).map_err(|e| err(e.into()))?;
    let mut schema = request.schema.clone();
    if !request.options.fill {
        let vars: Vec<_> = schema.var_ids().collect();
        for v in vars {
            schema.var_mut(v).storage.no_fill = true;
        }
    }
    let mut writer = if request.format == Format::Netcdf4Classic {
        nctk_hdf5::Netcdf4Writer::classic_model(file)
    } else {
        nctk_hdf5::Netcdf4Writer::new(file)
    };
    writer.define(&schema).map_err(err)?;
    Ok(Sink::Other(Box::new(writer)))
}

/// A classic file written by [`ClassicWriter`] at the request's path, or
/// with `-w` in memory first ([`InMemory`]); block-compressed when its
/// options ask ([`super::compressed`]).
pub(crate) fn create_classic(request: &CreateRequest<'_>) -> Result<Sink, OutputError> {
    let (path, opts) = (request.path, request.options);
    let version = classic_version(request.container).unwrap_or(Version::Cdf1);
    let schema = request.schema;
    let classic = opts.classic_options();
    let fill = if opts.fill {
        FillMode::Fill
    } else {
        FillMode::NoFill
    };
    let err = |e: nctk_classic::ClassicError| OutputError::Output {
        path: path.display().to_string(),
        source: e.into(),
    };
    if let Some(options) = classic.compress {
        let modes = (fill, classic.in_memory);
        return super::compressed::create(path, request.target, version, schema, modes, options)
            .map(Sink::Compressed);
    }
    if classic.in_memory {
        let image = Arc::new(MemSink::new());
        let writer = ClassicWriter::create_in_with_schema(image.clone(), schema, version, fill)
            .map_err(err)?;
        return Ok(Sink::Other(Box::new(InMemory {
            writer,
            image,
            path: path.to_path_buf(),
        })));
    }
    let sink = crate::door::open_file(path).map_err(|e| err(e.into()))?;
    let writer = ClassicWriter::create_in_with_schema(sink, schema, version, fill).map_err(err)?;
    Ok(Sink::Classic(writer))
}

/// A classic file built in memory and written to `path` on finish
/// (`nccopy -w`).
pub(crate) struct InMemory {
    writer: ClassicWriter,
    image: Arc<MemSink>,
    path: PathBuf,
}

impl DataSink for InMemory {
    fn schema(&self) -> &Schema {
        self.writer.schema()
    }

    fn define(&mut self, schema: &Schema) -> Result<(), SinkError> {
        DataSink::define(&mut self.writer, schema)
    }

    fn write(
        &mut self,
        var: VarId,
        selection: &Selection,
        values: &Values,
    ) -> Result<(), SinkError> {
        DataSink::write(&mut self.writer, var, selection, values)
    }

    fn write_native(
        &mut self,
        var: VarId,
        selection: &Selection,
        values: NativeRef<'_>,
    ) -> Result<(), SinkError> {
        DataSink::write_native(&mut self.writer, var, selection, values)
    }

    fn finish(self: Box<Self>) -> Result<(), SinkError> {
        let InMemory {
            writer,
            image,
            path,
        } = *self;
        writer.close()?;
        let write = |file: &dyn nctk_store::bytes::ByteSink| {
            file.write_at(0, &image.to_vec())?;
            file.sync()
        };
        crate::door::open_file(&path)
            .and_then(|file| write(file.as_ref()))
            // The file's errors name it and the offset.
            .map_err(|e| SinkError::new(e.kind(), e.to_string()))?;
        Ok(())
    }

    /// Nothing reached the file: the image is dropped.
    fn abort(self: Box<Self>) -> Result<(), SinkError> {
        self.writer.abort()?;
        Ok(())
    }
}
