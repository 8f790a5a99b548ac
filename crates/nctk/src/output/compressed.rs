//! The block-compressed arm of the output side
//! (`docs/formats/compressed-classic.md`): a compressed file is made from an
//! uncompressed classic one by the format crate's [`compress`].
//!
//! * Through the define/put API ([`crate::create_with`] with
//!   [`ClassicOptions::compress`](super::ClassicOptions::compress)): a
//!   [`ClassicWriter`] writes the uncompressed file into a second temporary
//!   beside the output (registered as every temporary is, so a signal
//!   handler removes it; or in memory with `in_memory`), and `finish`
//!   compresses it into the output's temporary; the uncompressed one is
//!   removed whatever happens.
//! * Directly ([`compress_classic`]): a classic input is compressed as it
//!   is, with no uncompressed temporary.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use nctk_classic::compressed::{compress, CompressOptions, CompressSummary};
use nctk_classic::{ClassicReader, ClassicWriter, FillMode, Version};
use nctk_model::{DataSink, Schema, Selection, SinkError, SourceError, Values, VarId};
use nctk_store::bytes::{ByteSource, MemSink};

use super::{OutputError, SafeOutput};
use crate::door;
use crate::{Dataset, Error};

/// Where the uncompressed classic file is built before compression.
enum Uncompressed {
    /// A temporary file beside the output, removed when dropped.
    File(SafeOutput),
    /// Memory (`in_memory`).
    Memory(Arc<MemSink>),
}

impl Uncompressed {
    /// The uncompressed file's bytes, for reading once it is closed.
    fn source(&self) -> Result<Arc<dyn ByteSource>, SourceError> {
        Ok(match self {
            Uncompressed::File(safe) => door::read_file(safe.temp_path())?,
            Uncompressed::Memory(image) => image.clone(),
        })
    }
}

/// A [`DataSink`] that writes a block-compressed classic file: an
/// uncompressed classic file written as any is, compressed into `path`
/// (the output's temporary) on [`finish`](DataSink::finish).
pub(crate) struct CompressedWriter {
    writer: ClassicWriter,
    uncompressed: Uncompressed,
    path: PathBuf,
    options: CompressOptions,
}

/// Refuses a block-compressed output that is not a single local file: a
/// store, a URL, an ncstream or standard output.
pub fn check_target(output: &Path) -> Result<(), OutputError> {
    let reason = if crate::create_zarr::is_store_target(output) || door::looks_like_url(output) {
        "it names a store or a URL; a block-compressed classic file is a single local file \
         (name a path such as out.ncb)"
    } else if super::is_ncstream_target(output) {
        "it names an ncstream (.ncs or -, standard output); name a file path"
    } else {
        return Ok(());
    };
    Err(OutputError::Unsupported {
        path: output.display().to_string(),
        format: "block-compressed classic",
        reason: reason.into(),
    })
}

/// A writer of `schema` as a `version` classic file compressed with
/// `options` into `path` (the output's temporary; `target` the output's
/// name, beside which the uncompressed file is built unless `in_memory`).
pub(crate) fn create(
    path: &Path,
    target: &Path,
    version: Version,
    schema: &Schema,
    (fill, in_memory): (FillMode, bool),
    options: CompressOptions,
) -> Result<CompressedWriter, OutputError> {
    let err = |e: nctk_classic::ClassicError| OutputError::Output {
        path: target.display().to_string(),
        source: e.into(),
    };
    let (sink, uncompressed): (Arc<dyn nctk_store::bytes::ByteSink>, _) = if in_memory {
        let image = Arc::new(MemSink::new());
        (image.clone(), Uncompressed::Memory(image))
    } else {
        let safe = SafeOutput::new(target)?;
        let sink = door::open_file(safe.temp_path()).map_err(|e| err(e.into()))?;
        (sink, Uncompressed::File(safe))
    };
    let writer = ClassicWriter::create_in_with_schema(sink, schema, version, fill).map_err(err)?;
    Ok(CompressedWriter {
        writer,
        uncompressed,
        path: path.to_path_buf(),
        options,
    })
}

impl Uncompressed {
    /// `error`, told of the output rather than the uncompressed temporary.
    fn blame(&self, error: SinkError) -> SinkError {
        match self {
            Uncompressed::File(safe) => safe.blame(None, error).into(),
            Uncompressed::Memory(_) => error,
        }
    }
}

impl CompressedWriter {
    /// netCDF's `nc_sync` on the uncompressed file.
    pub(crate) fn sync(&mut self) -> Result<(), SinkError> {
        let result = self.writer.sync();
        result.map_err(|e| self.uncompressed.blame(e.into()))
    }
}

impl DataSink for CompressedWriter {
    fn schema(&self) -> &Schema {
        self.writer.schema()
    }

    fn define(&mut self, schema: &Schema) -> Result<(), SinkError> {
        let result = DataSink::define(&mut self.writer, schema);
        result.map_err(|e| self.uncompressed.blame(e))
    }

    fn write(
        &mut self,
        var: VarId,
        selection: &Selection,
        values: &Values,
    ) -> Result<(), SinkError> {
        let result = DataSink::write(&mut self.writer, var, selection, values);
        result.map_err(|e| self.uncompressed.blame(e))
    }

    fn write_native(
        &mut self,
        var: VarId,
        selection: &Selection,
        values: nctk_model::NativeRef<'_>,
    ) -> Result<(), SinkError> {
        let result = DataSink::write_native(&mut self.writer, var, selection, values);
        result.map_err(|e| self.uncompressed.blame(e))
    }

    /// Closes the uncompressed file and compresses it into the output's
    /// temporary; the uncompressed file is removed in every case.
    fn finish(self: Box<Self>) -> Result<(), SinkError> {
        let CompressedWriter {
            writer,
            uncompressed,
            path,
            options,
        } = *self;
        let compressed = writer
            .close()
            .map_err(SourceError::from)
            .and_then(|()| uncompressed.source())
            .and_then(|source| Ok(ClassicReader::from_source(source)?))
            .and_then(|reader| compress_into(&reader, &path, &options));
        compressed.map(drop).map_err(|e| uncompressed.blame(e))
    }

    /// Nothing of the compressed file was written: the uncompressed one
    /// is dropped (removed).
    fn abort(self: Box<Self>) -> Result<(), SinkError> {
        self.writer.abort()?;
        Ok(())
    }
}

/// Compresses the classic file `reader` reads into a new file at `path`.
fn compress_into(
    reader: &ClassicReader,
    path: &Path,
    options: &CompressOptions,
) -> Result<CompressSummary, SourceError> {
    let sink = door::open_file(path)?;
    Ok(compress(reader, sink.as_ref(), options)?)
}

/// Writes the classic (CDF-1, CDF-2 or CDF-5) file `input` (a path or a
/// netCDF-C URL, `#mode=bytes` included; or a block-compressed file,
/// compressed again) as a block-compressed file at
/// `output`, as it is: its header and data unchanged, with no uncompressed
/// copy. The output is built under a temporary name and renamed into
/// place when complete, as every output (a failure or a signal leaves
/// nothing under its name). Other formats are refused: copy them with
/// [`crate::create_with`] and [`ClassicOptions::compress`](super::ClassicOptions::compress).
pub fn compress_classic(
    input: impl AsRef<Path>,
    output: impl AsRef<Path>,
    options: &CompressOptions,
) -> Result<CompressSummary, Error> {
    let output = output.as_ref();
    check_target(output)?;
    compress_classic_dataset(&crate::open(input)?, output, options)
}

/// As [`compress_classic`], for a dataset already open (read through the
/// byte source it was opened from: the input is not opened again).
pub fn compress_classic_dataset(
    input: &Dataset,
    output: impl AsRef<Path>,
    options: &CompressOptions,
) -> Result<CompressSummary, Error> {
    let output = output.as_ref();
    check_target(output)?;
    let Some(source) = input.classic_bytes() else {
        return Err(Error::Unsupported {
            path: input.name().to_string(),
            reason: "not a classic netCDF file (CDF-1, CDF-2 or CDF-5); copy it to a \
                     block-compressed file with create_with and ClassicOptions::compress"
                .into(),
        });
    };
    let reader = ClassicReader::from_source(source.clone()).map_err(|e| Error::Source {
        path: input.name().to_string(),
        source: e.into(),
    })?;
    let safe = SafeOutput::new(output)?;
    let summary =
        compress_into(&reader, safe.temp_path(), options).map_err(|e| safe.blame(None, e))?;
    safe.commit()?;
    Ok(summary)
}
