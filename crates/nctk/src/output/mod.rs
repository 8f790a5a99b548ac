//! The output side: every output is made here, by [`create_output`]: a
//! classic file (CDF-1, CDF-2, CDF-5) or an NCZarr / Zarr store (directory
//! or zip, named by a netCDF-C URL or a `.zarr` / `.zip` path), written
//! behind the [`DataSink`] seam ([`create_writer`]) under a temporary
//! name and renamed into place when complete ([`SafeOutput`]); an output
//! dropped or aborted before that is aborted and removed. `nctk copy` and
//! `nctk gen` both write through it.

mod error;
mod safe_output;
mod writer;

use std::path::Path;

use nctk_model::{DataSink, Selection, Values};

pub use error::OutputError;
pub use safe_output::{remove_temporaries, SafeOutput};
pub use writer::{check_writable, create_writer, WriterOptions};

use crate::{door, Container};

/// An output being written under a temporary name ([`SafeOutput`]):
/// made by [`create_output`], renamed into place by [`Output::finish`];
/// dropped (or [`abort`](Output::abort)ed) before that, its writer is
/// aborted and the temporary removed.
pub struct Output {
    // Dropped first: an aborting writer may still write into the
    // temporary, which `safe` then removes.
    writer: AbortOnDrop,
    safe: SafeOutput,
}

/// A writer that is aborted ([`DataSink::abort`]) when dropped unfinished.
struct AbortOnDrop(Option<Box<dyn DataSink>>);

impl AbortOnDrop {
    fn sink(&mut self) -> &mut dyn DataSink {
        self.0
            .as_deref_mut()
            .expect("the writer is taken only by finish and abort, which consume the output")
    }

    fn take(mut self) -> Box<dyn DataSink> {
        self.0
            .take()
            .expect("the writer is taken only by finish and abort, which consume the output")
    }
}

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        if let Some(writer) = self.0.take() {
            // Dropped on an error path: the error being reported is the
            // cause; the temporary is removed whatever abort could undo.
            let _ = writer.abort();
        }
    }
}

impl Output {
    /// Writes `values` to `selection` of `var` (named `name` in errors).
    /// An error names the output, never its temporary name.
    pub fn write(
        &mut self,
        var: nctk_model::VarId,
        name: &str,
        selection: &Selection,
        values: &Values,
    ) -> Result<(), OutputError> {
        self.writer
            .sink()
            .write(var, selection, values)
            .map_err(|e| self.safe.blame(Some(name), e))
    }

    /// The writer, for callers that drive it themselves (the copier cuts
    /// its slabs along [`DataSink::chunk_shape`]); errors from it name
    /// the temporary until passed through [`Output::blame`].
    pub fn writer_mut(&mut self) -> &mut dyn DataSink {
        self.writer.sink()
    }

    /// The output's final name (a URL is named by its path).
    pub fn target(&self) -> &Path {
        self.safe.target()
    }

    /// An error from [`Output::writer_mut`] told of the output: see
    /// [`SafeOutput::blame`].
    pub fn blame(&self, var: Option<&str>, source: impl std::fmt::Display) -> OutputError {
        self.safe.blame(var, source)
    }

    /// Completes the output and renames it into place.
    pub fn finish(self) -> Result<(), OutputError> {
        let Output { writer, safe } = self;
        writer.take().finish().map_err(|e| safe.blame(None, e))?;
        safe.commit()
    }

    /// Gives the output up: the writer is aborted ([`DataSink::abort`])
    /// and the temporary removed; an existing output is kept as it was.
    /// An error tells what the writer could not undo (the temporary is
    /// removed all the same).
    pub fn abort(self) -> Result<(), OutputError> {
        let Output { writer, safe } = self;
        writer.take().abort().map_err(|e| safe.blame(None, e))
    }
}

/// Creates `output` (a path, or a netCDF-C URL for a store) as `container`
/// with every definition of `schema`, under a temporary name beside it (see
/// [`create_writer`] for `opts`; a store URL's modes choose the layout and
/// consolidation). Nothing is written, and an existing output is kept, when
/// the output names a directory that is not a Zarr/NCZarr store (or, for a
/// file, any directory). `nctk copy` and `nctk gen` open their output here.
pub fn create_output(
    output: &Path,
    container: Container,
    schema: &nctk_model::Schema,
    opts: &WriterOptions,
) -> Result<Output, OutputError> {
    writer::check_writable(output, container)?;
    let mut opts = opts.clone();
    let safe = if container == Container::Zarr {
        let store = door::store_target(&output.to_string_lossy()).map_err(|e| match e {
            crate::Error::Unsupported { path, reason } => OutputError::Unsupported {
                path,
                format: "NCZarr",
                reason,
            },
            e => OutputError::Output {
                path: output.display().to_string(),
                source: Box::new(e),
            },
        })?;
        opts.layout = store.layout.or(opts.layout);
        opts.consolidated |= store.consolidated;
        SafeOutput::for_store(&store.path, store.zip)?
    } else {
        SafeOutput::new(output)?
    };
    let writer =
        create_writer(safe.temp_path(), container, schema, &opts).map_err(|e| match e {
            OutputError::Output { source, .. } => safe.blame(None, source),
            e => e,
        })?;
    Ok(Output {
        writer: AbortOnDrop(Some(writer)),
        safe,
    })
}
