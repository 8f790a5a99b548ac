//! Copying datasets between formats, like netCDF-C's `nccopy`: [`copy`]
//! (from a path) and [`copy_source`] (from any [`DataSource`]).
//!
//! The copy streams: variable by variable and, within a variable, by slabs
//! of at most [`CopyOptions::buffer_size`] bytes ([`slab`]); record
//! variables of classic files are copied record by record across all of
//! them, which keeps reads and writes sequential. The output is written
//! under a temporary name and renamed into place when complete
//! ([`SafeOutput`]).
//!
//! Outputs are made by [`create_writer`] behind the [`DatasetWriter`] seam:
//! classic formats (CDF-1, CDF-2, CDF-5) and NCZarr / Zarr stores
//! (directory or zip, named by a netCDF-C URL or a `.zarr` / `.zip` path).
//! A store output is copied chunk by chunk: slabs are cut along its chunks
//! ([`slab::ChunkedSlabs`]), so each chunk is written whole, once, and
//! encoded on another core while the next is read.
//!
//! ```no_run
//! use nctk::copy::{copy, CopyOptions, NoProgress, OutputKind};
//! let opts = CopyOptions { kind: Some(OutputKind::Offset64), ..CopyOptions::default() };
//! copy("in.nc", "out.nc", &opts, &mut NoProgress)?;
//! # Ok::<(), nctk::copy::CopyError>(())
//! ```

mod chunkspec;
mod error;
mod filterspec;
mod input;
mod options;
mod plan;
mod progress;
mod safe_output;
pub mod slab;
mod storage;
mod writer;

use std::path::{Path, PathBuf};

use nctk_model::{DataSource, Layout, Selection, Values};

pub use chunkspec::{ChunkSpec, VarLayout};
pub use error::{BadFilter, CopyError};
pub use filterspec::{Filter, FilterOption};
pub use options::{
    parse_deflate_level, parse_size, split_list, CopyOptions, GroupList, OutputKind, VarList,
    AUTO_CHUNK_CACHE_SIZE, DEFAULT_BUFFER_SIZE,
};
pub use plan::{build as build_plan, Plan, VarCopy};
pub use progress::{NoProgress, Progress};
pub use safe_output::{remove_temporaries, SafeOutput};
pub use storage::DEFAULT_MIN_CHUNK_BYTES;
pub use writer::{create_writer, DatasetWriter, WriterOptions};

use input::Input;
use nctk_zarr::url::{StoreLocation, Target};
use plan::elem_size;
use slab::{ChunkedSlabs, Slabs};

use crate::{is_store_target, Format, StoreLayout};

/// What a finished copy did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CopySummary {
    /// The output's kind.
    pub kind: OutputKind,
    /// Variables whose data was copied.
    pub variables: usize,
    /// Bytes of data copied.
    pub bytes: u64,
    /// When the input's data stops before the end its definitions imply (a
    /// truncated classic file), the byte offset where it stops: the values
    /// past it were copied as fill values.
    pub input_data_ends_at: Option<u64>,
}

/// Copies the dataset at `input` (a path or a netCDF-C URL) to `output`.
pub fn copy(
    input: impl AsRef<Path>,
    output: impl AsRef<Path>,
    opts: &CopyOptions,
    progress: &mut dyn Progress,
) -> Result<CopySummary, CopyError> {
    let (input, output) = (input.as_ref(), output.as_ref());
    if input == output || same_file(&local_path(input), &local_path(output)) {
        return Err(CopyError::SameFile);
    }
    let source = Input::open(input, opts.read_in_memory)?;
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

/// The file or directory a path or netCDF-C URL names on disk.
fn local_path(target: &Path) -> PathBuf {
    let parsed = target.to_str().and_then(|t| nctk_zarr::url::parse(t).ok());
    match parsed.map(|u| u.target) {
        Some(Target::Path(p) | Target::File(p)) => p,
        Some(Target::Zarr(z)) => match z.location {
            StoreLocation::Directory(p) | StoreLocation::Zip(p) => p,
            StoreLocation::S3(_) => target.to_path_buf(),
        },
        _ => target.to_path_buf(),
    }
}

/// A store output: where it goes and how it is laid out.
struct StoreOutput {
    path: PathBuf,
    zip: bool,
    layout: Option<StoreLayout>,
    consolidated: bool,
}

impl StoreOutput {
    /// Reads a URL (`file:///abs/x.zarr#mode=nczarr,file`, `...,zip`, with
    /// `zarr`, `noxarray`, `nczarr490`, `consolidated`) or a `.zarr` /
    /// `.zip` path.
    fn parse(output: &Path) -> Result<StoreOutput, CopyError> {
        let text = output.to_string_lossy();
        let bad = |reason: String| CopyError::Unsupported {
            path: text.to_string(),
            format: "NCZarr",
            reason,
        };
        let parsed = nctk_zarr::url::parse(&text).map_err(|e| bad(e.to_string()))?;
        let is_zip = |p: &Path| p.extension().is_some_and(|e| e.eq_ignore_ascii_case("zip"));
        match parsed.target {
            Target::Path(p) | Target::File(p) => Ok(StoreOutput {
                zip: is_zip(&p),
                path: p,
                layout: None,
                consolidated: false,
            }),
            Target::Zarr(z) => {
                let layout = nctk_zarr::write::layout_for_modes(&z.modes);
                let consolidated = z.modes.iter().any(|m| m == "consolidated");
                match z.location {
                    StoreLocation::Directory(path) => Ok(StoreOutput {
                        path,
                        zip: false,
                        layout,
                        consolidated,
                    }),
                    StoreLocation::Zip(path) => Ok(StoreOutput {
                        path,
                        zip: true,
                        layout,
                        consolidated,
                    }),
                    StoreLocation::S3(_) => Err(bad("S3 storage is not available yet".into())),
                }
            }
            Target::Bytes(_) => Err(bad("mode=bytes is read-only".into())),
        }
    }
}

/// An output being written under a temporary name ([`SafeOutput`]):
/// made by [`create_output`], renamed into place by [`Output::finish`].
pub struct Output {
    // Dropped first: a writer may still write into the temporary as it is
    // dropped, which `safe` then removes.
    writer: Box<dyn DatasetWriter>,
    safe: SafeOutput,
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
    ) -> Result<(), CopyError> {
        self.writer
            .write(var, selection, values)
            .map_err(|e| self.safe.blame(Some(name), e))
    }

    /// Completes the output and renames it into place.
    pub fn finish(self) -> Result<(), CopyError> {
        let Output { writer, safe } = self;
        writer.finish().map_err(|e| safe.blame(None, e))?;
        safe.commit()
    }
}

/// Creates `output` (a path, or a netCDF-C URL for a store) in `format`
/// with every definition of `schema`, under a temporary name beside it (see
/// [`create_writer`] for `opts`; a store URL's modes choose the layout and
/// consolidation). Nothing is written, and an existing output is kept, when
/// the output names a directory that is not a Zarr/NCZarr store (or, for a
/// file, any directory). `nctk copy` and `nctk gen` open their output here.
pub fn create_output(
    output: &Path,
    format: Format,
    schema: &nctk_model::Schema,
    opts: &WriterOptions,
) -> Result<Output, CopyError> {
    writer::check_writable(output, format)?;
    let mut opts = opts.clone();
    let safe = if format == Format::Zarr {
        let store = StoreOutput::parse(output)?;
        opts.layout = store.layout.or(opts.layout);
        opts.consolidated |= store.consolidated;
        SafeOutput::for_store(&store.path, store.zip)?
    } else {
        SafeOutput::new(output)?
    };
    let writer = create_writer(safe.temp_path(), format, schema, &opts).map_err(|e| match e {
        CopyError::Output { source, .. } => safe.blame(None, source),
        e => e,
    })?;
    Ok(Output { writer, safe })
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// The output kind nccopy would choose, and the format nctk writes it in.
fn output_format(
    input: &Input<'_>,
    output: &Path,
    opts: &CopyOptions,
) -> Result<(OutputKind, Format), CopyError> {
    let in_kind = input.kind();
    let kind = match opts.kind {
        Some(k) => k,
        // nccopy: -F switches to netCDF-4; -d, -s, -c turn a classic input
        // into netCDF-4 classic model output when no kind is given.
        None if opts.wants_filters() => OutputKind::Netcdf4,
        None if in_kind.is_classic() && opts.wants_netcdf4_features() => OutputKind::Netcdf4Classic,
        None if is_store_target(output) && in_kind.is_classic() => OutputKind::Netcdf4,
        None => in_kind,
    };
    let store = is_store_target(output);
    let format = match kind {
        OutputKind::Classic => Format::Classic,
        OutputKind::Offset64 => Format::Offset64,
        OutputKind::Cdf5 => Format::Cdf5,
        OutputKind::Netcdf4 | OutputKind::Netcdf4Classic if store => Format::Zarr,
        OutputKind::Netcdf4 | OutputKind::Netcdf4Classic => Format::Hdf5,
    };
    if kind.is_classic() && store {
        return Err(CopyError::Option(format!(
            "{}: a {} file cannot be written as an NCZarr/Zarr store (a URL, .zarr or .zip)",
            output.display(),
            kind.name()
        )));
    }
    Ok((kind, format))
}

fn run(
    input: &Input<'_>,
    in_name: &str,
    output: &Path,
    opts: &CopyOptions,
    progress: &mut dyn Progress,
) -> Result<CopySummary, CopyError> {
    let schema = input.schema();
    for spec in &opts.chunkspecs {
        ChunkSpec::parse(spec, schema)?;
    }
    for spec in &opts.filters {
        FilterOption::parse(spec)?;
    }
    if opts.groups.is_some() && input.kind() != OutputKind::Netcdf4 {
        return Err(CopyError::Option(
            "Group list (-g ...) only permitted for netCDF-4 file".into(),
        ));
    }
    let (kind, format) = output_format(input, output, opts)?;
    writer::check_writable(output, format)?;
    let mut plan = plan::build(schema, kind, opts)?;
    if input.kind().is_classic() {
        // nccopy keeps chunking, filters and byte order only from
        // netCDF-4 inputs; a classic file's are not choices.
        for v in plan.schema.var_ids().collect::<Vec<_>>() {
            plan.schema.var_mut(v).storage = Default::default();
        }
    }

    let wopts = WriterOptions {
        fill: opts.fill,
        in_memory: opts.write_in_memory,
        deflate: opts.deflate,
        shuffle: opts.shuffle,
        chunkspecs: opts.chunkspecs.clone(),
        filters: opts.filters.clone(),
        min_chunk_bytes: opts.min_chunk_bytes,
        write_empty_chunks: opts.write_empty_chunks,
        // Chunks are written whole in aligned slabs; those written in part
        // (larger than the buffer) wait in at most this much memory.
        cache_bytes: Some(opts.chunk_cache_bytes()),
        ..WriterOptions::default()
    };
    let mut out = create_output(output, format, &plan.schema, &wopts)?;
    let out_name = out.safe.target().display().to_string();
    let total = plan.total_bytes(schema);
    progress.start(total);
    let result = copy_data(
        input,
        &plan,
        out.writer.as_mut(),
        (opts.buffer_size, opts.chunk_cache_bytes()),
        (in_name, &out_name),
        progress,
    );
    progress.finish();
    result.map_err(|e| match e {
        CopyError::Write { var, source, .. } => out.safe.blame(Some(&var), source),
        e => e,
    })?;
    out.finish()?;
    Ok(CopySummary {
        kind,
        variables: plan.vars.len(),
        bytes: total,
        input_data_ends_at: input.source().data_ends_at(),
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

/// Moves the data: fixed-size variables one after the other, then every
/// record of every record variable, record by record.
fn copy_data(
    input: &Input<'_>,
    plan: &Plan,
    writer: &mut dyn DatasetWriter,
    (buffer_size, cache_bytes): (usize, usize),
    (in_name, out_name): (&str, &str),
    progress: &mut dyn Progress,
) -> Result<(), CopyError> {
    let schema = input.schema();
    let mut buf = Values::empty(nctk_model::DataType::Byte);
    let mut copy_slabs = |v: &VarCopy,
                          slabs: &mut dyn Iterator<Item = Selection>,
                          record: Option<u64>,
                          writer: &mut dyn DatasetWriter| {
        let dtype = schema.var(v.input).dtype;
        let size = elem_size(dtype);
        for mut sel in slabs {
            if let Some(r) = record {
                sel.start[0] = r;
            }
            input
                .read(v.input, dtype, &sel, &mut buf)
                .map_err(|source| CopyError::Read {
                    path: in_name.to_string(),
                    var: v.name.clone(),
                    source,
                })?;
            writer
                .write(v.output, &sel, &buf)
                .map_err(|source| CopyError::Write {
                    path: out_name.to_string(),
                    var: v.name.clone(),
                    source,
                })?;
            progress.advance(&v.name, sel.num_elements().unwrap_or(0) * size);
        }
        Ok::<(), CopyError>(())
    };
    let max_elems =
        |v: &VarCopy| (buffer_size as u64 / elem_size(schema.var(v.input).dtype)).max(1);
    for v in plan.vars.iter().filter(|v| !v.by_record) {
        let mut slabs: Box<dyn Iterator<Item = Selection>> = match writer.chunk_shape(v.output) {
            Some(c) if c.len() == v.shape.len() && !c.is_empty() => {
                let cache = cache_bytes as u64 / elem_size(schema.var(v.input).dtype);
                Box::new(ChunkedSlabs::new(
                    &v.shape,
                    &c,
                    slab_elems(
                        &schema.var(v.input).storage.layout,
                        &v.shape,
                        &c,
                        max_elems(v),
                    ),
                    cache,
                ))
            }
            _ => Box::new(Slabs::new(&v.shape, max_elems(v))),
        };
        copy_slabs(v, &mut slabs, None, writer)?;
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
            copy_slabs(v, &mut Slabs::new(one, max_elems(v)), Some(r), writer)?;
        }
    }
    Ok(())
}
