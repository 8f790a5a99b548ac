//! The output side's factory of [`DataSink`]s, [`create_writer`]: classic
//! files through [`ClassicWriter`], NCZarr/Zarr stores through
//! [`crate::StoreWriter`] (each variable's storage as
//! [`WriterOptions::vars`] gives it).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use nctk_classic::{ClassicWriter, FillMode, Version};
use nctk_model::{DataSink, Schema, Selection, SinkError, Values, VarId};
use nctk_store::bytes::MemSink;

use super::OutputError;
use crate::{Container, StoreLayout, StoreOptions};

/// How the output is written, beyond its format and definitions.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WriterOptions {
    /// Pre-fill variables with fill values (`NC_FILL`); nccopy writes
    /// without fill, as every value is copied anyway.
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
}

/// Creates the output at `path` in `container` with every definition of
/// `schema`, ready for data. `path` is where the bytes go (the copier passes
/// a temporary name next to the final one); for [`Container::Zarr`] it is a
/// store as [`crate::create_store`] takes it (a netCDF-C URL, or a path: a
/// zip when it ends in `.zip`, else a directory), and each variable's
/// storage follows [`WriterOptions::vars`].
pub fn create_writer(
    path: &Path,
    container: Container,
    schema: &Schema,
    opts: &WriterOptions,
) -> Result<Box<dyn DataSink>, OutputError> {
    check_writable(path, container)?;
    let version = match container {
        Container::Classic(format) => {
            Version::try_from(format).map_err(|format| OutputError::Unsupported {
                path: path.display().to_string(),
                format: format.name(),
                reason: "not a classic format".into(),
            })?
        }
        _ => return create_store_output(path, schema, opts),
    };
    create_classic(path, version, schema, opts)
}

/// Checks that [`create_writer`] can write `container`.
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
    schema: &Schema,
    opts: &WriterOptions,
) -> Result<Box<dyn DataSink>, OutputError> {
    let defaults = StoreOptions::default();
    let store_opts = StoreOptions {
        layout: opts.layout.unwrap_or(defaults.layout),
        vars: opts.vars.clone().unwrap_or(defaults.vars),
        cache_bytes: opts.cache_bytes.unwrap_or(defaults.cache_bytes),
        consolidated: opts.consolidated,
        write_empty_chunks: opts.write_empty_chunks,
    };
    let target = path.to_string_lossy();
    let writer =
        crate::create_store(&target, schema, store_opts).map_err(|e| OutputError::Output {
            path: target.to_string(),
            source: Box::new(e),
        })?;
    Ok(Box::new(writer))
}

/// A classic file written by [`ClassicWriter`] at `path`, or with `-w` in
/// memory first ([`InMemory`]).
fn create_classic(
    path: &Path,
    version: Version,
    schema: &Schema,
    opts: &WriterOptions,
) -> Result<Box<dyn DataSink>, OutputError> {
    let fill = if opts.fill {
        FillMode::Fill
    } else {
        FillMode::NoFill
    };
    let err = |e: nctk_classic::ClassicError| OutputError::Output {
        path: path.display().to_string(),
        source: Box::new(e),
    };
    if opts.in_memory {
        let image = Arc::new(MemSink::new());
        let writer = ClassicWriter::create_in_with_schema(image.clone(), schema, version, fill)
            .map_err(err)?;
        return Ok(Box::new(InMemory {
            writer,
            image,
            path: path.to_path_buf(),
        }));
    }
    let sink = crate::door::create_file(path).map_err(|e| err(e.into()))?;
    let writer = ClassicWriter::create_in_with_schema(sink, schema, version, fill).map_err(err)?;
    Ok(Box::new(writer))
}

/// A classic file built in memory and written to `path` on finish
/// (`nccopy -w`).
struct InMemory {
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
            .map_err(|e| format!("{}: write: {e}", path.display()))?;
        Ok(())
    }

    /// Nothing reached the file: the image is dropped.
    fn abort(self: Box<Self>) -> Result<(), SinkError> {
        self.writer.abort()?;
        Ok(())
    }
}
