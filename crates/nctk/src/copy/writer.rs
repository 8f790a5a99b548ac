//! The output side: the [`DatasetWriter`] seam and [`create_writer`], its
//! factory: classic files through [`ClassicWriter`], NCZarr/Zarr stores
//! through [`crate::StoreWriter`] (storage decided by `storage.rs`).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use nctk_classic::{ClassicWriter, FillMode, Version};
use nctk_model::{Schema, Selection, SourceError, Values, VarId};
use nctk_store::bytes::MemSink;

use super::storage::store_var_options;
use super::CopyError;
use crate::{Container, StoreLayout, StoreOptions};

/// A dataset being written by the copier: its definitions were fixed when it
/// was created (see [`create_writer`]); data arrives as slabs.
pub trait DatasetWriter: Send {
    /// Writes `values` (in the variable's own type) to `selection` of `var`,
    /// a variable of the schema the writer was created with. Writing past the
    /// last record of a record variable adds records.
    fn write(
        &mut self,
        var: VarId,
        selection: &Selection,
        values: &Values,
    ) -> Result<(), SourceError>;

    /// Completes the dataset (record count, padding, flush). A dataset that
    /// is dropped without `finish` is incomplete.
    fn finish(self: Box<Self>) -> Result<(), SourceError>;

    /// The chunk lengths `var` is stored in, when the output is chunked:
    /// the copier then cuts slabs along chunk boundaries.
    fn chunk_shape(&self, var: VarId) -> Option<Vec<u64>> {
        let _ = var;
        None
    }
}

/// How the output is written, beyond its format and definitions.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WriterOptions {
    /// Pre-fill variables with fill values (`NC_FILL`); nccopy writes
    /// without fill, as every value is copied anyway.
    pub fill: bool,
    /// Build the whole output in memory and write it out on
    /// [`finish`](DatasetWriter::finish) (`nccopy -w`).
    pub in_memory: bool,
    /// netCDF-4 only: deflate level.
    pub deflate: Option<u32>,
    /// netCDF-4 only: shuffle.
    pub shuffle: bool,
    /// netCDF-4 only: chunk specifications as given to `-c`.
    pub chunkspecs: Vec<String>,
    /// netCDF-4 only: filter specifications as given to `-F`.
    pub filters: Vec<String>,
    /// netCDF-4 only: `-M`, the smallest chunk in bytes (default 8192).
    pub min_chunk_bytes: Option<usize>,
    /// Stores only: the metadata layout (default: the newest NCZarr).
    pub layout: Option<StoreLayout>,
    /// Stores only: also write consolidated `.zmetadata`.
    pub consolidated: bool,
    /// Stores only: bytes of chunks written in part held in memory
    /// (default: the store writer's, 64 MiB; at least one chunk).
    pub cache_bytes: Option<usize>,
    /// Stores only: each variable's storage, as given (`nctk gen` takes it
    /// from the CDL); `None` decides it from the options above.
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
/// storage follows `opts` and the storage facts `schema` carries (see the
/// `-c`/`-d`/`-s`/`-F` rules in `docs/copy.md`). A `-c` or `-F`
/// specification naming nothing in `schema` is ignored.
pub fn create_writer(
    path: &Path,
    container: Container,
    schema: &Schema,
    opts: &WriterOptions,
) -> Result<Box<dyn DatasetWriter>, CopyError> {
    check_writable(path, container)?;
    let version = match container {
        Container::Classic(format) => {
            Version::try_from(format).map_err(|format| CopyError::Unsupported {
                path: path.display().to_string(),
                format: format.name(),
                reason: "not a classic format".into(),
            })?
        }
        _ => return create_store_output(path, schema, opts),
    };
    ClassicOutput::create(path, version, schema, opts)
        .map(|w| Box::new(w) as Box<dyn DatasetWriter>)
}

/// Checks that [`create_writer`] can write `container`.
pub(crate) fn check_writable(path: &Path, container: Container) -> Result<(), CopyError> {
    match container {
        Container::Hdf5 => Err(CopyError::Unsupported {
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
) -> Result<Box<dyn DatasetWriter>, CopyError> {
    let defaults = StoreOptions::default();
    let store_opts = StoreOptions {
        layout: opts.layout.unwrap_or(defaults.layout),
        vars: match &opts.vars {
            Some(vars) => vars.clone(),
            None => store_var_options(schema, opts)?,
        },
        cache_bytes: opts.cache_bytes.unwrap_or(defaults.cache_bytes),
        consolidated: opts.consolidated,
        write_empty_chunks: opts.write_empty_chunks,
    };
    let target = path.to_string_lossy();
    let writer =
        crate::create_store(&target, schema, store_opts).map_err(|e| CopyError::Output {
            path: target.to_string(),
            source: Box::new(e),
        })?;
    Ok(Box::new(writer))
}

/// A classic file being written by [`ClassicWriter`].
struct ClassicOutput {
    writer: ClassicWriter,
    /// With `-w`: the in-memory image and where it goes on finish.
    memory: Option<(Arc<MemSink>, PathBuf)>,
}

impl ClassicOutput {
    fn create(
        path: &Path,
        version: Version,
        schema: &Schema,
        opts: &WriterOptions,
    ) -> Result<ClassicOutput, CopyError> {
        let fill = if opts.fill {
            FillMode::Fill
        } else {
            FillMode::NoFill
        };
        let err = |e: nctk_classic::ClassicError| CopyError::Output {
            path: path.display().to_string(),
            source: Box::new(e),
        };
        if opts.in_memory {
            let sink = Arc::new(MemSink::new());
            let writer = ClassicWriter::create_in_with_schema(sink.clone(), schema, version, fill)
                .map_err(err)?;
            return Ok(ClassicOutput {
                writer,
                memory: Some((sink, path.to_path_buf())),
            });
        }
        let writer = ClassicWriter::create_with_schema(path, schema, version, fill).map_err(err)?;
        Ok(ClassicOutput {
            writer,
            memory: None,
        })
    }
}

impl DatasetWriter for ClassicOutput {
    fn write(
        &mut self,
        var: VarId,
        selection: &Selection,
        values: &Values,
    ) -> Result<(), SourceError> {
        let w = &mut self.writer;
        // Fixed-width values go straight from their slice; others (strings)
        // through the writer's checked path, which refuses what CDF cannot hold.
        nctk_model::with_fixed_values!(values, v => w.write_from(var, selection, v),
            _ => w.write(var, selection, values))?;
        Ok(())
    }

    fn finish(self: Box<Self>) -> Result<(), SourceError> {
        let ClassicOutput { writer, memory } = *self;
        writer.close()?;
        if let Some((sink, path)) = memory {
            std::fs::write(&path, sink.to_vec())
                .map_err(|e| format!("{}: write: {e}", path.display()))?;
        }
        Ok(())
    }
}
