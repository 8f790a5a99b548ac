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
//! classic formats (CDF-1, CDF-2, CDF-5) today, NCZarr when its writer
//! exists.
//!
//! ```no_run
//! use nctk::copy::{copy, CopyOptions, NoProgress, OutputKind};
//! let opts = CopyOptions { kind: Some(OutputKind::Offset64), ..CopyOptions::default() };
//! copy("in.nc", "out.nc", &opts, &mut NoProgress)?;
//! # Ok::<(), nctk::copy::CopyError>(())
//! ```

mod chunkspec;
mod error;
mod input;
mod options;
mod plan;
mod progress;
mod safe_output;
pub mod slab;
mod writer;

use std::path::Path;

use nctk_model::{DataSource, Values};

pub use chunkspec::{ChunkSpec, VarLayout};
pub use error::CopyError;
pub use options::{
    parse_deflate_level, parse_size, split_list, CopyOptions, GroupList, OutputKind, VarList,
    DEFAULT_BUFFER_SIZE,
};
pub use plan::{build as build_plan, Plan, VarCopy};
pub use progress::{NoProgress, Progress};
pub use safe_output::SafeOutput;
pub use writer::{create_writer, DatasetWriter, WriterOptions};

use input::Input;
use plan::elem_size;
use slab::Slabs;

use crate::Format;

/// What a finished copy did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CopySummary {
    /// The output's kind.
    pub kind: OutputKind,
    /// Variables whose data was copied.
    pub variables: usize,
    /// Bytes of data copied.
    pub bytes: u64,
}

/// True when `target` names a store by netCDF-C URL rather than a file.
fn is_url(target: &Path) -> bool {
    target
        .to_str()
        .is_some_and(|s| s.contains("://") || s.contains("#mode="))
}

/// Copies the dataset at `input` (a path or a netCDF-C URL) to `output`.
pub fn copy(
    input: impl AsRef<Path>,
    output: impl AsRef<Path>,
    opts: &CopyOptions,
    progress: &mut dyn Progress,
) -> Result<CopySummary, CopyError> {
    let (input, output) = (input.as_ref(), output.as_ref());
    if input == output || same_file(input, output) {
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
        None if is_url(output) => OutputKind::Netcdf4,
        None => in_kind,
    };
    let format = match kind {
        OutputKind::Classic => Format::Classic,
        OutputKind::Offset64 => Format::Offset64,
        OutputKind::Cdf5 => Format::Cdf5,
        OutputKind::Netcdf4 | OutputKind::Netcdf4Classic if is_url(output) => Format::Zarr,
        OutputKind::Netcdf4 | OutputKind::Netcdf4Classic => Format::Hdf5,
    };
    if kind.is_classic() && is_url(output) {
        return Err(CopyError::Option(format!(
            "{}: a {} file cannot be written to a URL",
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
    if opts.groups.is_some() && input.kind() != OutputKind::Netcdf4 {
        return Err(CopyError::Option(
            "Group list (-g ...) only permitted for netCDF-4 file".into(),
        ));
    }
    let (kind, format) = output_format(input, output, opts)?;
    writer::check_writable(output, format)?;
    let plan = plan::build(schema, kind, opts, input.is_classic())?;

    let out_name = output.display().to_string();
    let safe = SafeOutput::new(output)?;
    let wopts = WriterOptions {
        fill: opts.fill,
        in_memory: opts.write_in_memory,
        deflate: opts.deflate,
        shuffle: opts.shuffle,
        chunkspecs: opts.chunkspecs.clone(),
        filters: opts.filters.clone(),
    };
    let mut writer =
        create_writer(safe.temp_path(), format, &plan.schema, &wopts).map_err(|e| match e {
            CopyError::Output { source, .. } => CopyError::Output {
                path: out_name.clone(),
                source,
            },
            e => e,
        })?;
    let total = plan.total_bytes(schema);
    progress.start(total);
    let result = copy_data(
        input,
        &plan,
        writer.as_mut(),
        opts.buffer_size,
        (in_name, &out_name),
        progress,
    );
    progress.finish();
    result?;
    writer.finish().map_err(|source| CopyError::Output {
        path: out_name.clone(),
        source,
    })?;
    safe.commit()?;
    Ok(CopySummary {
        kind,
        variables: plan.vars.len(),
        bytes: total,
    })
}

/// Moves the data: fixed-size variables one after the other, then every
/// record of every record variable, record by record.
fn copy_data(
    input: &Input<'_>,
    plan: &Plan,
    writer: &mut dyn DatasetWriter,
    buffer_size: usize,
    (in_name, out_name): (&str, &str),
    progress: &mut dyn Progress,
) -> Result<(), CopyError> {
    let schema = input.schema();
    let mut buf = Values::empty(nctk_model::DataType::Byte);
    let mut copy_slabs = |v: &VarCopy, slabs: Slabs, record: Option<u64>| {
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
        copy_slabs(v, Slabs::new(&v.shape, max_elems(v)), None)?;
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
            copy_slabs(v, Slabs::new(one, max_elems(v)), Some(r))?;
        }
    }
    Ok(())
}
