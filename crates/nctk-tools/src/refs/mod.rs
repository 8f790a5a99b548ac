//! `nctk refs`: netCDF files as virtual Zarr, kerchunk's reference JSON
//! (version 1) pointing at the files' own bytes, or the same references
//! as an Icechunk repository. Where each chunk is comes from the readers
//! ([`nctk::Variable::chunk_refs`]); several inputs become one dataset
//! along a dimension ([`Collection`]); the references are written as
//! kerchunk's JSON ([`kerchunk_json`]), its Parquet form (the module
//! `parquet`) or as virtual chunks of an Icechunk repository (the module
//! `icechunk`). The inputs are read a window at a time (the module
//! `stream`): only the first input and one window are open at once, and
//! the Parquet and Icechunk outputs take each window's references as they
//! come.

mod combine;
mod cut;
mod icechunk;
mod icechunk_s3;
mod kerchunk;
mod parquet;
mod progress;
mod stream;

use std::path::Path;

use nctk::model::DataType;
use nctk::{Error, OutputError};

pub use combine::Collection;
pub use kerchunk::kerchunk_json;
pub use parquet::DEFAULT_RECORD_SIZE;
pub use progress::RefsProgress;
pub use stream::DEFAULT_WINDOW;

/// An error making references: the input's (opening it, a variable whose
/// storage has no reference form, inputs that do not line up) or the
/// output's.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RefsError {
    /// Opening or reading the input, or a variable the readers cannot
    /// describe as references (the message names the file and variable).
    #[error(transparent)]
    Input(#[from] Error),
    /// A variable whose type has no Zarr v2 dtype.
    #[error("{file}: variable {var:?}: references: type {dtype} has no Zarr dtype")]
    Type {
        /// The input.
        file: String,
        /// The variable's path.
        var: String,
        /// Its type.
        dtype: DataType,
    },
    /// Several inputs that cannot be combined into one dataset.
    #[error("{file}: {}cannot be combined with the other inputs: {reason}",
        var.as_ref().map(|v| format!("variable {v:?}: ")).unwrap_or_default())]
    Mismatch {
        /// The input that does not line up.
        file: String,
        /// The variable, when one is at fault.
        var: Option<String>,
        /// What does not line up.
        reason: String,
    },
    /// Groups below the root in the Parquet form, which fsspec's
    /// `LazyReferenceMapper` cannot list (it takes every key's directory
    /// for a variable).
    #[error("{file}: group {group:?}: kerchunk's Parquet references hold the root group's variables only (fsspec reads no subgroup from them); write JSON references instead")]
    Subgroup {
        /// The input.
        file: String,
        /// The first group below the root.
        group: String,
    },
    /// No input was given.
    #[error("references: no input")]
    NoInputs,
    /// Writing the output.
    #[error(transparent)]
    Output(#[from] OutputError),
}

impl nctk::HasErrorKind for RefsError {
    fn kind(&self) -> nctk::ErrorKind {
        match self {
            RefsError::Input(e) => e.kind(),
            RefsError::Type { .. } | RefsError::Subgroup { .. } => nctk::ErrorKind::Unsupported,
            RefsError::Mismatch { .. } | RefsError::NoInputs => nctk::ErrorKind::InvalidInput,
            RefsError::Output(e) => e.kind(),
        }
    }
}

/// What [`refs`] wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RefsSummary {
    /// Variables (Zarr arrays) referenced.
    pub variables: usize,
    /// Chunk references (inline chunks included).
    pub chunks: usize,
}

/// How [`refs`] combines its inputs.
#[derive(Debug, Clone, Default)]
pub struct RefsOptions {
    /// The dimension several inputs are combined along (kerchunk's
    /// `concat_dims`); by default the first input's unlimited dimension.
    pub concat_dim: Option<String>,
    /// Variables stored whole and raw (a classic file's fixed variable, an
    /// HDF5 contiguous dataset) larger than this many bytes are cut along
    /// their first dimension into chunks of at most this size; by
    /// default one chunk each.
    pub chunk_bytes: Option<u64>,
    /// The output's form; by default chosen by its name
    /// ([`RefsFormat::for_output`]).
    pub format: Option<RefsFormat>,
    /// Parquet output: chunks per file (by default
    /// [`DEFAULT_RECORD_SIZE`], as kerchunk's).
    pub record_size: Option<u64>,
    /// Inputs open at once (by default [`DEFAULT_WINDOW`]): the inputs
    /// are read this many at a time, then closed.
    pub window: Option<usize>,
}

/// The form of the references written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefsFormat {
    /// kerchunk's reference JSON (version 1), one file.
    Json,
    /// kerchunk's Parquet form, a directory fsspec's
    /// `LazyReferenceMapper` reads (for millions of references).
    Parquet,
    /// An Icechunk repository (a directory, or a prefix on S3) whose
    /// branch `main` holds the references as virtual chunks of Zarr v3
    /// arrays.
    Icechunk,
}

impl RefsFormat {
    /// The form an output's name asks for: Parquet for a name ending in
    /// `.parq` or `.parquet`, Icechunk for `.icechunk` (a URL's name
    /// before its `#` fragment), else JSON.
    pub fn for_output(output: &Path) -> RefsFormat {
        let name = output.to_string_lossy();
        let name = match name.split_once('#') {
            Some((url, _)) if url.contains("://") => url,
            _ => &name,
        };
        match Path::new(name).extension().and_then(|e| e.to_str()) {
            Some("parq" | "parquet") => RefsFormat::Parquet,
            Some("icechunk") => RefsFormat::Icechunk,
            _ => RefsFormat::Json,
        }
    }

    /// The form named `json`, `parquet` or `icechunk` (the CLI's
    /// `--format`, the Python `format=`).
    pub fn from_name(name: &str) -> Option<RefsFormat> {
        match name {
            "json" => Some(RefsFormat::Json),
            "parquet" => Some(RefsFormat::Parquet),
            "icechunk" => Some(RefsFormat::Icechunk),
            _ => None,
        }
    }
}

/// Writes the kerchunk references of `inputs` (paths or URLs nctk opens,
/// read [`RefsOptions::window`] at a time, each window opened
/// concurrently and closed before the next) as one dataset to `output`: a
/// local path, written under a temporary name renamed into place when
/// complete, or for an Icechunk repository also an S3 URL (a prefix that
/// must hold nothing; a failure deletes what it wrote). The references
/// point at the inputs as given ([`reference_url`]).
pub fn refs<S: AsRef<str> + Sync>(
    inputs: &[S],
    output: &Path,
    options: &RefsOptions,
) -> Result<RefsSummary, RefsError> {
    refs_with_progress(inputs, output, options, &mut crate::copy::NoProgress)
}

/// [`refs`], reporting each input opened and each variable referenced to
/// `progress`.
pub fn refs_with_progress<S: AsRef<str> + Sync>(
    inputs: &[S],
    output: &Path,
    options: &RefsOptions,
    progress: &mut dyn RefsProgress,
) -> Result<RefsSummary, RefsError> {
    progress.set_total(inputs.len() as u64);
    let made = write_refs(inputs, output, options, progress);
    progress.finish();
    made
}

/// The work of [`refs_with_progress`].
fn write_refs<S: AsRef<str> + Sync>(
    inputs: &[S],
    output: &Path,
    options: &RefsOptions,
    progress: &mut dyn RefsProgress,
) -> Result<RefsSummary, RefsError> {
    let format = options
        .format
        .unwrap_or_else(|| RefsFormat::for_output(output));
    let s3 = output_on_s3(output, format)?;
    let names: Vec<String> = inputs.iter().map(|s| s.as_ref().to_string()).collect();
    let first = names.first().ok_or(RefsError::NoInputs)?;
    let first = stream::open_all(&[first.as_str()], None, progress)?
        .pop()
        .ok_or(RefsError::NoInputs)?;
    let urls = names.iter().map(|name| reference_url(name)).collect();
    let collection = Collection::new(
        first,
        names,
        urls,
        options.concat_dim.as_deref(),
        options.chunk_bytes,
    )?;
    let window = options.window.unwrap_or(DEFAULT_WINDOW);
    match format {
        RefsFormat::Json => {
            let (doc, summary) = kerchunk_json(&collection, window, progress)?;
            nctk::write_file_safely(output, |w| {
                serde_json::to_writer(&mut *w, &doc).map_err(std::io::Error::from)
            })?;
            Ok(summary)
        }
        RefsFormat::Icechunk => match s3 {
            Some(target) => {
                let url = output.to_string_lossy();
                icechunk::write_repository_s3(&collection, &target, &url, window, progress)
            }
            None => nctk::write_dir_safely(output, |dir| {
                icechunk::write_repository(&collection, dir, output, window, progress)
            }),
        },
        RefsFormat::Parquet => {
            let record_size = options.record_size.unwrap_or(DEFAULT_RECORD_SIZE).max(1);
            nctk::write_dir_safely(output, |dir| {
                parquet::write_parquet(&collection, dir, output, record_size, window, progress)
            })
        }
    }
}

/// The S3 location of an Icechunk `output` named by an S3 URL (nctk's
/// rules: [`nctk::s3_target`]); `None` for a local path; any other URL is
/// refused (JSON and Parquet references are written to local paths only,
/// Icechunk repositories also to S3).
fn output_on_s3(
    output: &Path,
    format: RefsFormat,
) -> Result<Option<nctk_store_object::aws::S3Target>, RefsError> {
    let text = output.to_string_lossy();
    let refuse = |reason: &str| {
        RefsError::Output(OutputError::Unsupported {
            path: text.to_string(),
            format: "references",
            reason: reason.to_string(),
        })
    };
    if !text.contains("://") {
        return Ok(None);
    }
    if format != RefsFormat::Icechunk {
        return Err(refuse(
            "JSON and Parquet references are written to a local path; only an Icechunk \
             repository (--format icechunk) is written to S3",
        ));
    }
    match nctk::s3_target(&text)? {
        Some(target) => Ok(Some(target)),
        None => Err(refuse(
            "an Icechunk repository is written to a local directory or to S3 \
             (s3://bucket/prefix, or http(s)://host/bucket/prefix#mode=s3)",
        )),
    }
}

/// An error of the file system writing `output`.
fn write_error(output: &Path, source: std::io::Error) -> RefsError {
    RefsError::Output(OutputError::Io {
        path: output.display().to_string(),
        op: "write",
        source,
    })
}

/// What the references to `input`'s bytes name: the input as given, but
/// for a URL without netCDF-C's `#mode=...` fragment, which only nctk and
/// netCDF-C read (`https://host/bucket/key#mode=bytes,s3` is referenced
/// as `https://host/bucket/key`, which fsspec reads with range requests).
pub fn reference_url(input: &str) -> String {
    match input.split_once('#') {
        Some((url, _)) if url.contains("://") => url.to_string(),
        _ => input.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::reference_url;

    #[test]
    fn urls_lose_their_mode_fragment_and_paths_stay_as_given() {
        assert_eq!(
            reference_url("http://127.0.0.1:9000/b/k.nc#mode=bytes,s3"),
            "http://127.0.0.1:9000/b/k.nc"
        );
        assert_eq!(reference_url("s3://b/k.nc"), "s3://b/k.nc");
        assert_eq!(reference_url("/data/a#1.nc"), "/data/a#1.nc");
    }
}
