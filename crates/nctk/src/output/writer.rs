//! The output side's factory of sinks, [`create_writer`]: classic files
//! through [`ClassicWriter`], NCZarr/Zarr stores through
//! [`crate::StoreWriter`] (each variable's storage as
//! [`CreateOptions::vars`] gives it).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use nctk_classic::compressed::CompressOptions;
use nctk_classic::{ClassicWriter, FillMode, Version};
use nctk_model::{ChunkCodec, DataSink, HasErrorKind, Schema, Selection, SinkError, Values, VarId};
use nctk_store::bytes::MemSink;
use nctk_zarr::write::ReadWriteStore;

use super::OutputError;
use crate::{Container, StoreLayout, StoreOptions};

/// How a dataset is written, beyond its format and definitions
/// ([`crate::create_with`]). The default is netCDF-C's: fill mode, the
/// newest NCZarr layout, the store writer's chunking and cache.
#[derive(Debug, Clone, PartialEq)]
pub struct CreateOptions {
    /// Pre-fill variables with fill values (`NC_FILL`, the default);
    /// nccopy writes without fill, as every value is copied anyway.
    pub fill: bool,
    /// Build the whole output in memory and write it out on
    /// [`finish`](DataSink::finish) (`nccopy -w`).
    pub in_memory: bool,
    /// Stores only: the metadata layout (default: the newest NCZarr).
    pub layout: Option<StoreLayout>,
    /// Stores only: also write consolidated `.zmetadata`.
    pub consolidated: bool,
    /// Stores only: bytes of chunks written in part held in memory
    /// (default: the store writer's, 64 MiB; at least one chunk).
    pub cache_bytes: Option<usize>,
    /// Stores only: each variable's storage, as given (`nctk gen` takes it
    /// from the CDL, `nctk copy` decides it as nccopy does); `None` leaves
    /// it to the store writer's defaults.
    pub vars: Option<Vec<crate::StoreVarOptions>>,
    /// Stores only: store chunks holding only the fill value too (by
    /// default they are left out, as zarr-python leaves them out).
    pub write_empty_chunks: bool,
    /// ncstream only: deflate data messages at this zlib level (`None` or
    /// 0: not compressed).
    pub deflate: Option<u32>,
    /// Classic formats only: write a block-compressed classic file
    /// (`docs/formats/compressed-classic.md`) with these codec, level,
    /// shuffle and block size; `None`, an ordinary classic file.
    pub compress: Option<CompressOptions>,
}

impl Default for CreateOptions {
    fn default() -> Self {
        CreateOptions {
            fill: true,
            in_memory: false,
            layout: None,
            consolidated: false,
            cache_bytes: None,
            vars: None,
            write_empty_chunks: false,
            deflate: None,
            compress: None,
        }
    }
}

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
    /// A classic file built in memory (`nccopy -w`).
    Memory(InMemory),
    /// An NCZarr / Zarr store.
    Store(crate::StoreWriter),
    /// An ncstream, to a file or standard output.
    NcStream(super::ncstream::StreamWriter),
    /// A block-compressed classic file.
    Compressed(super::compressed::CompressedWriter),
}

impl Sink {
    fn sink(&self) -> &dyn DataSink {
        match self {
            Sink::Classic(w) => w,
            Sink::Memory(w) => w,
            Sink::Store(w) => w,
            Sink::NcStream(w) => w,
            Sink::Compressed(w) => w,
        }
    }

    fn sink_mut(&mut self) -> &mut dyn DataSink {
        match self {
            Sink::Classic(w) => w,
            Sink::Memory(w) => w,
            Sink::Store(w) => w,
            Sink::NcStream(w) => w,
            Sink::Compressed(w) => w,
        }
    }

    fn boxed(self) -> Box<dyn DataSink> {
        match self {
            Sink::Classic(w) => Box::new(w),
            Sink::Memory(w) => Box::new(w),
            Sink::Store(w) => Box::new(w),
            Sink::NcStream(w) => Box::new(w),
            Sink::Compressed(w) => Box::new(w),
        }
    }

    /// netCDF's `nc_sync`: a classic file gets its record count and is
    /// flushed; a store's complete chunks are already stored and the rest
    /// wait for [`DataSink::finish`]; an in-memory file waits for it too.
    pub(crate) fn sync(&mut self) -> Result<(), SinkError> {
        match self {
            Sink::Classic(w) => w.sync()?,
            Sink::Compressed(w) => w.sync()?,
            _ => {}
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
/// `schema`, ready for data. `path` is where the bytes go (the copier passes
/// a temporary name next to the final one, `target`, which an ncstream's
/// header names); for [`Container::Zarr`] it is a store's directory or
/// (`zip`) zip file, and each variable's storage follows
/// [`CreateOptions::vars`].
pub(crate) fn create_writer(
    path: &Path,
    target: &Path,
    zip: bool,
    container: Container,
    schema: &Schema,
    opts: &CreateOptions,
) -> Result<Sink, OutputError> {
    check_writable(path, container)?;
    match classic_version(container) {
        Some(version) => create_classic(path, target, version, schema, opts),
        None if container == Container::NcStream => {
            super::ncstream::create_file_stream(path, target, schema, opts).map(Sink::NcStream)
        }
        None => create_store_output(path, zip, schema, opts),
    }
}

/// Checks that [`crate::create_with`] can write `container` (before any other
/// work, as nccopy refuses the output first).
pub fn check_writable(path: &Path, container: Container) -> Result<(), OutputError> {
    match container {
        Container::Hdf5 => Err(OutputError::Unsupported {
            path: path.display().to_string(),
            format: "netCDF-4",
            reason: "nctk does not write HDF5; name the output as an NCZarr store \
                     (a URL such as file:///abs/out.zarr#mode=nczarr,file, or a path \
                     ending in .zarr or .zip), or give -k classic, 64-bit offset or cdf5"
                .into(),
        }),
        _ => Ok(()),
    }
}

fn create_store_output(
    path: &Path,
    zip: bool,
    schema: &Schema,
    opts: &CreateOptions,
) -> Result<Sink, OutputError> {
    let layout = opts.layout.unwrap_or(StoreOptions::default().layout);
    let store = crate::door::create_store(path, zip, layout).map_err(|e| OutputError::Output {
        path: path.display().to_string(),
        source: e.into(),
    })?;
    store_sink(store, path, schema, opts)
}

/// A store writer of `schema` into `store` (named `path` in errors), each
/// variable's storage as `opts` gives it.
pub(crate) fn store_sink(
    store: Arc<dyn ReadWriteStore>,
    path: &Path,
    schema: &Schema,
    opts: &CreateOptions,
) -> Result<Sink, OutputError> {
    let defaults = StoreOptions::default();
    let store_opts = StoreOptions {
        layout: opts.layout.unwrap_or(defaults.layout),
        vars: opts.vars.clone().unwrap_or(defaults.vars),
        cache_bytes: opts.cache_bytes.unwrap_or(defaults.cache_bytes),
        consolidated: opts.consolidated,
        write_empty_chunks: opts.write_empty_chunks,
    };
    let err = |source| OutputError::Output {
        path: path.display().to_string(),
        source,
    };
    let writer =
        crate::StoreWriter::create(store, schema, &store_opts).map_err(|e| err(e.into()))?;
    Ok(Sink::Store(writer))
}

/// A classic file written by [`ClassicWriter`] at `path`, or with `-w` in
/// memory first ([`InMemory`]); block-compressed when `opts` asks
/// ([`super::compressed`]; `target` is the output's name).
fn create_classic(
    path: &Path,
    target: &Path,
    version: Version,
    schema: &Schema,
    opts: &CreateOptions,
) -> Result<Sink, OutputError> {
    let fill = if opts.fill {
        FillMode::Fill
    } else {
        FillMode::NoFill
    };
    let err = |e: nctk_classic::ClassicError| OutputError::Output {
        path: path.display().to_string(),
        source: e.into(),
    };
    if let Some(options) = opts.compress {
        let modes = (fill, opts.in_memory);
        return super::compressed::create(path, target, version, schema, modes, options)
            .map(Sink::Compressed);
    }
    if opts.in_memory {
        let image = Arc::new(MemSink::new());
        let writer = ClassicWriter::create_in_with_schema(image.clone(), schema, version, fill)
            .map_err(err)?;
        return Ok(Sink::Memory(InMemory {
            writer,
            image,
            path: path.to_path_buf(),
        }));
    }
    let sink = crate::door::create_file(path).map_err(|e| err(e.into()))?;
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
        crate::door::create_file(&path)
            .and_then(|file| write(file.as_ref()))
            .map_err(|e| SinkError::new(e.kind(), format!("{}: write: {e}", path.display())))?;
        Ok(())
    }

    /// Nothing reached the file: the image is dropped.
    fn abort(self: Box<Self>) -> Result<(), SinkError> {
        self.writer.abort()?;
        Ok(())
    }
}
