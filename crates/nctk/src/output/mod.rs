//! The output side: every output is made here: a classic file (CDF-1,
//! CDF-2, CDF-5) or an NCZarr / Zarr store (directory or zip, named by a
//! netCDF-C URL or a `.zarr` / `.zip` path) or an ncstream (a `.ncs`
//! path, or `-` for standard output), written behind the
//! [`DataSink`] seam under a temporary name and renamed into place when
//! complete (`SafeOutput`); an output dropped or aborted before that is
//! aborted and removed. A store on S3, which cannot be renamed, is written
//! in place and made visible last (`door::create_object_store`). The library's [`crate::create`] and through it
//! `nctk copy` and `nctk gen` write here; what is public is the error
//! type and the signal handlers' [`remove_temporaries`].

mod compressed;
mod error;
mod ncstream;
mod options;
mod safe_output;
mod writer;

use std::path::Path;

use nctk_model::{ChunkCodec, DataSink, Format, Schema, Selection, SourceError, Values, VarId};

pub use compressed::check_target as check_compressed_target;
pub use compressed::{compress_classic, compress_classic_dataset};
pub use error::OutputError;
pub(crate) use ncstream::create_file_stream;
pub use ncstream::is_ncstream_target;
pub use options::{ClassicOptions, CreateOptions, FormatOptions, NcStreamOptions, StoreOptions};
pub(crate) use safe_output::SafeOutput;
pub use safe_output::{write_dir_safely, write_file_safely};
pub(crate) use writer::check_writable;

/// Removes every temporary output of this process, for a handler of SIGINT
/// or SIGTERM that then exits: the local temporaries (files and
/// directories written under temporary names), and what unfinished writes
/// to object stores uploaded (their later puts refused, their uploads in
/// flight waited for, then every object deleted).
pub fn remove_temporaries() {
    safe_output::remove_local_temporaries();
    #[cfg(feature = "cloud")]
    crate::door::remove_unfinished();
}
#[cfg(feature = "hdf5")]
pub(crate) use writer::create_hdf5;
pub(crate) use writer::{
    classic_version, create_classic, create_store_output, create_writer, Sink,
};

use crate::{door, Container};

/// An output being written: under a temporary name ([`SafeOutput`]),
/// made by [`create_output`] and renamed into place by
/// [`Output::finish`] (dropped before that, its writer is aborted and the
/// temporary removed); or an existing file written in place
/// ([`Output::in_place`]), which a drop leaves as its writer leaves it.
pub(crate) struct Output {
    /// Taken by `finish`; aborted on drop before `safe` removes the
    /// temporary (an aborting writer may still write into it).
    sink: Option<Sink>,
    safe: SafeOutput,
    in_place: bool,
}

impl Drop for Output {
    fn drop(&mut self) {
        if let Some(sink) = self.sink.take() {
            if !self.in_place {
                // Dropped unfinished: the temporary is removed whatever
                // abort could undo.
                let _ = Box::new(sink).abort();
            }
        }
    }
}

impl Output {
    /// An existing output written where it is by `sink`.
    pub(crate) fn in_place(target: &Path, sink: Sink) -> Output {
        Output {
            sink: Some(sink),
            safe: SafeOutput::in_place(target),
            in_place: true,
        }
    }

    fn sink(&self) -> &Sink {
        self.sink
            .as_ref()
            .expect("the sink is taken only by finish, which consumes the output")
    }

    fn sink_mut(&mut self) -> &mut Sink {
        self.sink
            .as_mut()
            .expect("the sink is taken only by finish, which consumes the output")
    }

    /// The definitions written so far.
    pub(crate) fn schema(&self) -> &Schema {
        self.sink().schema()
    }

    /// The chunk lengths of `var` when the output is chunked.
    pub(crate) fn chunk_shape(&self, var: VarId) -> Option<Vec<u64>> {
        self.sink().chunk_shape(var)
    }

    /// The codec chain of `var`'s stored chunks, when the sink takes
    /// chunks as stored ([`DataSink::stored_chunk_codecs`]).
    pub(crate) fn stored_chunk_codecs(&self, var: VarId) -> Option<Vec<ChunkCodec>> {
        self.sink().stored_chunk_codecs(var)
    }

    /// Stores one chunk as its encoded bytes ([`DataSink::write_stored_chunk`]);
    /// `false` when the sink did not take it.
    pub(crate) fn write_stored_chunk(
        &mut self,
        var: VarId,
        name: &str,
        selection: &Selection,
        bytes: Vec<u8>,
    ) -> Result<bool, OutputError> {
        let result = self.sink_mut().write_stored_chunk(var, selection, bytes);
        result.map_err(|e| self.blame(Some(name), e))
    }

    /// Gives the sink its (new) definitions: [`DataSink::define`].
    pub(crate) fn define(&mut self, schema: &Schema) -> Result<(), OutputError> {
        let result = self.sink_mut().define(schema);
        result.map_err(|e| self.blame(None, e))
    }

    /// Writes `values` to `selection` of `var` (named `name` in errors).
    /// An error names the output, never its temporary name.
    pub(crate) fn write(
        &mut self,
        var: VarId,
        name: &str,
        selection: &Selection,
        values: &Values,
    ) -> Result<(), OutputError> {
        let result = self.sink_mut().write(var, selection, values);
        result.map_err(|e| self.blame(Some(name), e))
    }

    /// Writes a caller's slice of `var` (named `name` in errors) without
    /// copying it ([`DataSink::write_native`]).
    pub(crate) fn write_native(
        &mut self,
        var: VarId,
        name: &str,
        selection: &Selection,
        values: nctk_model::NativeRef<'_>,
    ) -> Result<(), OutputError> {
        let result = self.sink_mut().write_native(var, selection, values);
        result.map_err(|e| self.blame(Some(name), e))
    }

    /// netCDF's `nc_sync` ([`Sink::sync`]).
    pub(crate) fn sync(&mut self) -> Result<(), OutputError> {
        let result = self.sink_mut().sync();
        result.map_err(|e| self.blame(None, e))
    }

    /// The output's final name (a URL is named by its path).
    pub(crate) fn target(&self) -> &Path {
        self.safe.target()
    }

    /// An error told of the output: see [`SafeOutput::blame`].
    pub(crate) fn blame(&self, var: Option<&str>, source: SourceError) -> OutputError {
        self.safe.blame(var, source)
    }

    /// Completes the output and renames it into place.
    pub(crate) fn finish(mut self) -> Result<(), OutputError> {
        let sink = self.sink.take().map(Box::new);
        if let Some(sink) = sink {
            sink.finish().map_err(|e| self.safe.blame(None, e))?;
        }
        let safe = std::mem::replace(&mut self.safe, SafeOutput::in_place(Path::new("")));
        safe.commit()
    }
}

/// Where the store `output` (a path or a netCDF-C URL, S3 included) goes;
/// a URL nctk cannot write (`#mode=bytes`, ...) is refused naming why.
pub(crate) fn store_target(output: &Path) -> Result<door::StoreTarget, OutputError> {
    door::store_target(&output.to_string_lossy()).map_err(|e| match e {
        crate::Error::Unsupported { path, reason } => OutputError::Unsupported {
            path,
            format: "NCZarr",
            reason,
        },
        e => OutputError::Output {
            path: output.display().to_string(),
            source: e.into(),
        },
    })
}

/// Creates `output` (a path, or a netCDF-C URL for a store) as `container`
/// with every definition of `schema`, under a temporary name beside it (see
/// [`create_writer`] for `opts`; a store URL's modes choose the layout and
/// consolidation). Nothing is written, and an existing output is kept, when
/// the output names a directory that is not a Zarr/NCZarr store (or, for a
/// file, any directory).
pub(crate) fn create_output(
    output: &Path,
    container: Container,
    format: Format,
    schema: &Schema,
    opts: &CreateOptions,
) -> Result<Output, OutputError> {
    writer::check_writable(output, container)?;
    if container == Container::NcStream && ncstream::is_stdout(output) {
        let sink = ncstream::create_stdout_stream(schema, opts)?;
        return Ok(Output {
            sink: Some(sink),
            safe: SafeOutput::in_place(output),
            in_place: false,
        });
    }
    let mut opts = opts.clone();
    let (safe, zip) = if container == Container::Zarr {
        let store = store_target(output)?;
        let mut store_opts = opts.store_options();
        store_opts.layout = store.layout.or(store_opts.layout);
        store_opts.consolidated |= store.consolidated;
        let existing = store_opts.existing;
        opts = opts.store(store_opts);
        if existing {
            return open_existing_output(output, &store, schema, &opts);
        }
        #[cfg(feature = "cloud")]
        if let Some(object) = &store.object {
            return create_object_output(output, object, schema, &opts);
        }
        (SafeOutput::for_store(&store.path, store.zip)?, store.zip)
    } else {
        (SafeOutput::new(output)?, false)
    };
    let sink = create_writer(
        safe.temp_path(),
        output,
        zip,
        (container, format),
        schema,
        &opts,
    )
    .map_err(|e| match e {
        OutputError::Output { source, .. } => safe.blame(None, source),
        e => e,
    })?;
    Ok(Output {
        sink: Some(sink),
        safe,
        in_place: false,
    })
}

/// The store already at `store`, written in place
/// ([`StoreOptions::existing`]): a dropped output aborts its writer, which
/// leaves the store's metadata and the chunks already stored.
fn open_existing_output(
    output: &Path,
    store: &door::StoreTarget,
    schema: &Schema,
    opts: &CreateOptions,
) -> Result<Output, OutputError> {
    let kv = door::open_store_for_write(store).map_err(|e| e.into_output(output))?;
    let sink = writer::store_sink(kv, output, schema, opts)?;
    Ok(Output {
        sink: Some(sink),
        safe: SafeOutput::in_place(output),
        in_place: false,
    })
}

#[cfg(feature = "cloud")]
/// A store on an object store, which has no rename: written in place, made
/// visible by its writer's `finish` and deleted when dropped before that
/// ([`door::create_object_store`]).
fn create_object_output(
    output: &Path,
    object: &door::ObjectTarget,
    schema: &Schema,
    opts: &CreateOptions,
) -> Result<Output, OutputError> {
    let store = door::create_object_store(object).map_err(|e| e.into_output(output))?;
    let sink = writer::store_sink(store, output, schema, opts)?;
    Ok(Output {
        sink: Some(sink),
        safe: SafeOutput::in_place(output),
        in_place: false,
    })
}
