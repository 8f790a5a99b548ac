//! Copying datasets between formats, like netCDF-C's `nccopy`: [`copy`]
//! (from a path) and [`copy_source`] (from any [`DataSource`]).
//!
//! The copy streams: variable by variable and, within a variable, by slabs
//! of at most [`CopyOptions::buffer_size`] bytes ([`slab`]); record
//! variables of classic files are copied record by record across all of
//! them, which keeps reads and writes sequential. The output is written
//! under a temporary name and renamed into place when complete
//! ([`nctk::create_with`]).
//!
//! Outputs are made by [`nctk::create_with`] behind the
//! [`nctk::model::DataSink`] seam: classic formats (CDF-1, CDF-2, CDF-5) and NCZarr
//! / Zarr stores (directory or zip, named by a netCDF-C URL or a `.zarr` /
//! `.zip` path); each store variable's storage is decided here, as nccopy
//! decides it (`storage.rs`).
//! A store output is copied chunk by chunk: slabs are cut along its chunks
//! ([`slab::ChunkedSlabs`]), so each chunk is written whole, once, and
//! encoded on another core while the next is read. When a variable's input
//! chunks are exactly what the output stores (a netCDF-4 input's deflate
//! and shuffle chunks into an NCZarr store, same type and chunk shape, no
//! `-d`/`-s`/`-F`), their stored bytes move without decoding
//! (`passthrough.rs`; [`CopySummary::stored_chunks`] counts them).
//!
//! ```no_run
//! use nctk_tools::copy::{copy, CopyOptions, NoProgress};
//! use nctk::Format;
//! let opts = CopyOptions { kind: Some(Format::Offset64), ..CopyOptions::default() };
//! copy("in.nc", "out.nc", &opts, &mut NoProgress)?;
//! # Ok::<(), nctk_tools::copy::CopyError>(())
//! ```

mod chunkspec;
pub mod command;
pub mod compressed;
mod error;
mod filterspec;
mod hdf5_storage;
mod input;
mod options;
mod passthrough;
mod plan;
mod progress;
mod read_ahead;
pub mod slab;
mod storage;

use std::path::Path;

use nctk_model::{DataSource, Layout, Schema, Selection, Values};

pub use chunkspec::{ChunkSpec, VarLayout};
pub use error::{BadFilter, CopyError};
pub use filterspec::{Filter, FilterOption};
pub use options::{
    parse_deflate_level, parse_kind, parse_size, parse_size_named, split_list, CopyOptions,
    GroupList, VarList, AUTO_CHUNK_CACHE_SIZE, DEFAULT_BUFFER_SIZE,
};
pub use plan::{build as build_plan, Plan, VarCopy};
pub use progress::{NoProgress, Progress};
pub use storage::DEFAULT_MIN_CHUNK_BYTES;

use input::Input;
use plan::elem_size;
use slab::{ChunkedSlabs, Slabs};

use nctk::{
    ClassicOptions, Container, CreateOptions, DatasetMut, Format, NcStreamOptions, StoreOptions,
};

/// What a finished copy did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CopySummary {
    /// The output's kind.
    pub kind: Format,
    /// Variables whose data was copied.
    pub variables: usize,
    /// Bytes of data copied.
    pub bytes: u64,
    /// When the input's data stops before the end its definitions imply (a
    /// truncated classic file), the byte offset where it stops: the values
    /// past it were copied as fill values.
    pub input_data_ends_at: Option<u64>,
    /// Chunks moved as they were stored, without decoding and encoding
    /// them again (a netCDF-4 input's chunks that are exactly what an
    /// NCZarr output stores).
    pub stored_chunks: u64,
}

/// Copies the dataset at `input` (a path or a netCDF-C URL) to `output`.
pub fn copy(
    input: impl AsRef<Path>,
    output: impl AsRef<Path>,
    opts: &CopyOptions,
    progress: &mut dyn Progress,
) -> Result<CopySummary, CopyError> {
    let (input, output) = (input.as_ref(), output.as_ref());
    if input == output || same_file(&nctk::local_path(input), &nctk::local_path(output)) {
        return Err(CopyError::SameFile);
    }
    let source = Input::open(input, opts.read_in_memory)?;
    if let Some(options) = &opts.compress {
        compressed::check_options(opts, output)?;
        if let Some(dataset) = compressed::direct_input(&source, opts) {
            return compressed::copy_direct(&source, dataset, output, (opts, options), progress);
        }
    }
    run(
        &source,
        &input.display().to_string(),
        output,
        opts,
        progress,
    )
}

/// Copies an open data source to `output`. `opts.read_in_memory` has no
/// effect here.
pub fn copy_source(
    source: &dyn DataSource,
    output: impl AsRef<Path>,
    opts: &CopyOptions,
    progress: &mut dyn Progress,
) -> Result<CopySummary, CopyError> {
    run(
        &Input::Borrowed(source),
        "<source>",
        output.as_ref(),
        opts,
        progress,
    )
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// The first classic kind the input's definitions fit, else CDF-1, which
/// the plan refuses with nccopy's message (user types, groups, strings).
fn first_classic_fit(input: &Input<'_>, classic_text: Option<&Schema>) -> Format {
    nctk::classic_format_for(classic_text.unwrap_or(input.schema())).unwrap_or(Format::Classic)
}

/// The output format nccopy would choose, and the container nctk writes it in.
/// `classic_text` is the input's definitions with text attributes as a
/// classic file holds them ([`Input::classic_text_schema`]), if they differ.
fn output_format(
    input: &Input<'_>,
    classic_text: Option<&Schema>,
    output: &Path,
    opts: &CopyOptions,
) -> Result<(Format, Container), CopyError> {
    let in_kind = input.kind();
    let kind = match opts.kind {
        Some(k) => k,
        // -k compressed: the input's classic kind, else the first the
        // definitions fit (as for an ncstream, below).
        None if opts.compress.is_some() && in_kind.is_cdf() => in_kind,
        None if opts.compress.is_some() => first_classic_fit(input, classic_text),
        // nccopy: -F switches to netCDF-4; -d, -s, -c turn a classic input
        // into netCDF-4 classic model output when no kind is given.
        None if opts.wants_filters() => Format::Netcdf4,
        // An ncstream carries netCDF-Java's enhanced data model.
        None if Container::for_output(output, in_kind) == Container::NcStream => Format::Netcdf4,
        None if in_kind.is_cdf() && opts.wants_netcdf4_features() => Format::Netcdf4Classic,
        None if is_store(output) && in_kind.is_cdf() => Format::Netcdf4,
        // An ncstream's netCDF-4 is a data model, not an HDF5 file nctk
        // could write: a file output gets the first classic kind the
        // definitions fit.
        None if input.is_stream() && Container::for_output(output, in_kind) == Container::Hdf5 => {
            first_classic_fit(input, classic_text)
        }
        None => in_kind,
    };
    let container = Container::for_output(output, kind);
    if kind.is_cdf() && is_store(output) {
        return Err(CopyError::Option(format!(
            "{}: a {} file cannot be written as an NCZarr/Zarr store (a URL, .zarr or .zip)",
            output.display(),
            kind.name()
        )));
    }
    Ok((kind, container))
}

/// True when `output` names an NCZarr / Zarr store (what a netCDF-4
/// dataset written there would be).
fn is_store(output: &Path) -> bool {
    Container::for_output(output, Format::Netcdf4) == Container::Zarr
}

fn run(
    input: &Input<'_>,
    in_name: &str,
    output: &Path,
    opts: &CopyOptions,
    progress: &mut dyn Progress,
) -> Result<CopySummary, CopyError> {
    let schema = input.schema();
    for spec in opts.chunkspecs.iter().chain(&opts.shards) {
        ChunkSpec::parse(spec, schema)?;
    }
    for spec in &opts.filters {
        FilterOption::parse(spec)?;
    }
    if opts.compress.is_some() {
        compressed::check_options(opts, output)?;
    }
    if opts.groups.is_some() && input.kind() != Format::Netcdf4 {
        return Err(CopyError::Option(
            "Group list (-g ...) only permitted for netCDF-4 file".into(),
        ));
    }
    let classic_text = input.classic_text_schema();
    let (kind, container) = output_format(input, classic_text.as_ref(), output, opts)?;
    container.check_output(output)?;
    // netCDF-Java writes a stream's text attributes as char text to the
    // files it writes (netCDF-3 and netCDF-4 alike); so do classic files
    // and stores here.
    let defs = match &classic_text {
        Some(s) if matches!(container, Container::Classic(_) | Container::Zarr) => s,
        _ => schema,
    };
    let mut plan = plan::build(defs, kind, opts)?;
    if container == Container::Zarr {
        if let Some(what) = crate::enhanced::first_user_type(&plan.schema) {
            return Err(CopyError::DoesNotFit {
                format: "NCZarr/Zarr",
                what,
                reason: format!(
                    "netCDF-C 4.9's NCZarr stores no user-defined types (nccopy: {})",
                    crate::enhanced::NOT_NETCDF4
                ),
            });
        }
    }
    // Each variable's storage, decided as nccopy decides it, goes to the
    // writer in the output schema. nccopy keeps chunking, filters and byte
    // order only from netCDF-4 inputs (a classic file's are not choices),
    // and a classic output (or a stream) holds none of them: it gets none.
    let holds_storage = !kind.is_cdf() && container != Container::NcStream;
    let ids: Vec<_> = plan.schema.var_ids().collect();
    if input.kind().is_cdf() || !holds_storage {
        for &v in &ids {
            plan.schema.var_mut(v).storage = Default::default();
        }
    }
    if container == Container::Hdf5 {
        let decided = hdf5_storage::decide(&plan.schema, opts, input.kind().is_cdf())?;
        for (&v, storage) in ids.iter().zip(decided) {
            plan.schema.var_mut(v).storage = storage;
        }
    } else if holds_storage {
        let decided = storage::decide(&plan.schema, opts)?;
        for (&v, storage) in ids.iter().zip(decided) {
            plan.schema.var_mut(v).storage = storage;
        }
    }

    let wopts = CreateOptions::new().fill(opts.fill);
    let wopts = match container {
        Container::Zarr => wopts.store(StoreOptions {
            write_empty_chunks: opts.write_empty_chunks,
            // Chunks are written whole in aligned slabs; those written in
            // part (larger than the buffer) wait in at most this much memory.
            cache_bytes: Some(opts.chunk_cache_bytes()),
            ..StoreOptions::default()
        }),
        Container::NcStream => wopts.ncstream(NcStreamOptions {
            deflate: opts.deflate,
        }),
        Container::Classic(_) => wopts.classic(ClassicOptions {
            in_memory: opts.write_in_memory,
            compress: opts.compress,
        }),
        _ => wopts,
    };
    let err = |e: nctk::Error| e.into_output(output);
    let mut def = nctk::create_with(output, kind, wopts).map_err(err)?;
    def.define_all(&plan.schema).map_err(err)?;
    let mut out = def.end_define().map_err(err)?;
    let total = plan.total_bytes(schema);
    progress.start(total);
    let result = copy_data(input, &plan, &mut out, opts, (in_name, output), progress);
    progress.finish();
    let stored_chunks = result?;
    out.close().map_err(err)?;
    Ok(CopySummary {
        kind,
        variables: plan.vars.len(),
        bytes: total,
        input_data_ends_at: input.source().data_ends_at(),
        stored_chunks,
    })
}

/// Elements per slab for an output chunked as `chunks`: `max_elems`, or one
/// whole chunk when the input is chunked the same way, so that each input
/// chunk is read (and decoded) once and each output chunk is written whole
/// from it, with no chunk held in part.
fn slab_elems(input: &Layout, shape: &[u64], chunks: &[u64], max_elems: u64) -> u64 {
    match input {
        Layout::Chunked(c) if c == chunks => {
            let chunk: u64 = shape
                .iter()
                .zip(c)
                .map(|(&n, &c)| c.min(n).max(1))
                .product();
            max_elems.max(chunk)
        }
        _ => max_elems,
    }
}

/// Moves the data: fixed-size variables one after the other (their chunks
/// as stored where `passthrough.rs` applies), then every record of every
/// record variable, record by record. The number of chunks moved as stored.
fn copy_data(
    input: &Input<'_>,
    plan: &Plan,
    writer: &mut DatasetMut,
    opts: &CopyOptions,
    (in_name, out_name): (&str, &Path),
    progress: &mut dyn Progress,
) -> Result<u64, CopyError> {
    let (buffer_size, cache_bytes) = (opts.buffer_size, opts.chunk_cache_bytes());
    let schema = input.schema();
    let mut stored_chunks = 0;
    let mut buf = Values::empty(nctk_model::DataType::Byte);
    let mut copy_slabs = |v: &VarCopy,
                          slabs: &mut (dyn Iterator<Item = Selection> + Send),
                          slab_elems: u64,
                          writer: &mut DatasetMut,
                          progress: &mut dyn Progress| {
        let size = elem_size(schema.var(v.input).dtype);
        let read = |sel: &Selection, buf: &mut Values| {
            input
                .read(v.input, sel, buf)
                .map_err(|source| CopyError::Read {
                    path: in_name.to_string(),
                    var: v.name.clone(),
                    source,
                })
        };
        let mut write = |sel: &Selection, buf: &Values| {
            writer
                .write(v.output, sel, buf)
                .map_err(|e| e.into_output(out_name))?;
            progress.advance(&v.name, sel.num_elements().unwrap_or(0) * size);
            Ok(())
        };
        read_ahead::for_each_slab(
            slabs,
            slab_elems.saturating_mul(size),
            &mut buf,
            &read,
            &mut write,
        )
    };
    let max_elems =
        |v: &VarCopy| (buffer_size as u64 / elem_size(schema.var(v.input).dtype)).max(1);
    for v in plan.vars.iter().filter(|v| !v.by_record) {
        if let Some(chunks) = passthrough::stored_chunk_shape(input.source(), writer, v, opts) {
            let size = elem_size(schema.var(v.input).dtype);
            let moved = passthrough::copy_var(
                input.source(),
                writer,
                v,
                &chunks,
                buffer_size as u64,
                (in_name, out_name),
                &mut |sel| progress.advance(&v.name, sel.num_elements().unwrap_or(0) * size),
            )?;
            stored_chunks += moved.stored;
            continue;
        }
        let (mut slabs, elems): (Box<dyn Iterator<Item = Selection> + Send>, u64) =
            match writer.chunk_shape(v.output) {
                Some(c) if c.len() == v.shape.len() && !c.is_empty() => {
                    let cache = cache_bytes as u64 / elem_size(schema.var(v.input).dtype);
                    let elems = slab_elems(
                        &schema.var(v.input).storage.layout,
                        &v.shape,
                        &c,
                        max_elems(v),
                    );
                    (
                        Box::new(ChunkedSlabs::new(&v.shape, &c, elems, cache)),
                        elems,
                    )
                }
                _ => (Box::new(Slabs::new(&v.shape, max_elems(v))), max_elems(v)),
            };
        copy_slabs(v, &mut slabs, elems, writer, progress)?;
    }
    let records: Vec<(&VarCopy, Vec<u64>)> = plan
        .vars
        .iter()
        .filter(|v| v.by_record)
        .map(|v| {
            let mut one = v.shape.clone();
            one[0] = 1;
            (v, one)
        })
        .collect();
    for r in 0..plan.records {
        for (v, one) in &records {
            let mut slabs = Slabs::new(one, max_elems(v)).map(|mut sel| {
                sel.start[0] = r;
                sel
            });
            copy_slabs(v, &mut slabs, max_elems(v), writer, progress)?;
        }
    }
    Ok(stored_chunks)
}
