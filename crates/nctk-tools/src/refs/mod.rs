//! `nctk refs`: netCDF files as virtual Zarr, kerchunk's reference JSON
//! (version 1) pointing at the files' own bytes, or the same references
//! as an Icechunk repository. Where each chunk is comes from the readers
//! ([`nctk::Variable::chunk_refs`]); several inputs become one dataset
//! along a dimension ([`Collection`]); the references are written as
//! kerchunk's JSON ([`kerchunk_json`]), its Parquet form (the module
//! `parquet`) or as virtual chunks of an Icechunk repository (the module
//! `icechunk`).

mod combine;
mod cut;
mod icechunk;
mod kerchunk;
mod parquet;
mod progress;

use std::path::Path;

use nctk::model::DataType;
use nctk::{Dataset, Error, OutputError};
use rayon::prelude::*;

pub use combine::Collection;
pub use kerchunk::kerchunk_json;
pub use parquet::DEFAULT_RECORD_SIZE;
pub use progress::RefsProgress;

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
}

/// The form of the references written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefsFormat {
    /// kerchunk's reference JSON (version 1), one file.
    Json,
    /// kerchunk's Parquet form, a directory fsspec's
    /// `LazyReferenceMapper` reads (for millions of references).
    Parquet,
    /// An Icechunk repository (a directory) whose branch `main` holds the
    /// references as virtual chunks of Zarr v3 arrays.
    Icechunk,
}

impl RefsFormat {
    /// The form an output's name asks for: Parquet for a name ending in
    /// `.parq` or `.parquet`, Icechunk for `.icechunk`, else JSON.
    pub fn for_output(output: &Path) -> RefsFormat {
        match output.extension().and_then(|e| e.to_str()) {
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
/// opened concurrently) as one dataset to `output`, under a temporary
/// name renamed into place when complete. The references point at the
/// inputs as given ([`reference_url`]).
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

/// Threads that open remote inputs and read their chunk indexes: each
/// mostly waits on a round trip (a few per input: a HEAD, then the blocks
/// of the file its headers and index nodes lie in, one after another), so
/// many more threads than cores overlap the round trips of many inputs.
const REMOTE_THREADS: usize = 16;

/// Whether `input` is read over the network (a URL but `file://`).
fn is_remote(input: &str) -> bool {
    input.contains("://") && !input.starts_with("file://")
}

/// A pool of [`REMOTE_THREADS`] threads when any input is remote (`None`,
/// rayon's global pool, when all are local or the pool cannot be made).
fn remote_pool<S: AsRef<str>>(inputs: &[S]) -> Option<rayon::ThreadPool> {
    if !inputs.iter().any(|i| is_remote(i.as_ref())) {
        return None;
    }
    rayon::ThreadPoolBuilder::new()
        .num_threads(REMOTE_THREADS.max(rayon::current_num_threads()))
        .thread_name(|i| format!("nctk-refs-{i}"))
        .build()
        .ok()
}

/// Every input opened at once (on `pool`, else rayon's global pool), each
/// reported to `progress` as it opens.
fn open_all<S: AsRef<str> + Sync>(
    inputs: &[S],
    pool: Option<&rayon::ThreadPool>,
    progress: &mut dyn RefsProgress,
) -> Result<Vec<Dataset>, Error> {
    let (opened, reports) = std::sync::mpsc::channel();
    std::thread::scope(|scope| {
        let opening = scope.spawn(move || {
            let open = || {
                inputs
                    .par_iter()
                    .enumerate()
                    .map(|(i, input)| {
                        let ds = nctk::open(input.as_ref());
                        // The receiver outlives the sender: a send cannot fail.
                        let _ = opened.send(i);
                        ds
                    })
                    .collect::<Result<Vec<Dataset>, Error>>()
            };
            match pool {
                Some(pool) => pool.install(open),
                None => open(),
            }
        });
        for i in reports {
            progress.advance(inputs[i].as_ref());
        }
        opening
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })
}

/// The work of [`refs_with_progress`].
fn write_refs<S: AsRef<str> + Sync>(
    inputs: &[S],
    output: &Path,
    options: &RefsOptions,
    progress: &mut dyn RefsProgress,
) -> Result<RefsSummary, RefsError> {
    let pool = remote_pool(inputs);
    let datasets = open_all(inputs, pool.as_ref(), progress)?;
    let urls: Vec<String> = inputs.iter().map(|s| reference_url(s.as_ref())).collect();
    let collection = Collection::new(
        &datasets,
        &urls,
        options.concat_dim.as_deref(),
        options.chunk_bytes,
    )?
    .on_pool(pool.as_ref());
    progress.set_total((inputs.len() + collection.first().schema().var_ids().count()) as u64);
    let format = options
        .format
        .unwrap_or_else(|| RefsFormat::for_output(output));
    match format {
        RefsFormat::Json => {
            let (doc, summary) = kerchunk_json(&collection, progress)?;
            nctk::write_file_safely(output, |w| {
                serde_json::to_writer(&mut *w, &doc).map_err(std::io::Error::from)
            })?;
            return Ok(summary);
        }
        RefsFormat::Icechunk => {
            let (doc, summary) = kerchunk_json(&collection, progress)?;
            let refs = doc["refs"]
                .as_object()
                .expect("a reference document holds refs");
            let masked = kerchunk::arrays_with_fill_value(&collection);
            nctk::write_dir_safely(output, |dir| icechunk::write_repository(refs, &masked, dir))?;
            return Ok(summary);
        }
        RefsFormat::Parquet => {}
    }
    let record_size = options.record_size.unwrap_or(DEFAULT_RECORD_SIZE).max(1);
    let mut summary = RefsSummary {
        variables: 0,
        chunks: 0,
    };
    let mut refs_error = None;
    let written = nctk::write_dir_safely(output, |dir| {
        match parquet::write_parquet(&collection, dir, record_size, progress)? {
            Ok(made) => summary = made,
            Err(e) => {
                refs_error = Some(e);
                return Err(std::io::Error::other("no references"));
            }
        }
        Ok(())
    });
    if let Some(e) = refs_error {
        return Err(e);
    }
    written?;
    Ok(summary)
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
    use super::{is_remote, reference_url};

    #[test]
    fn urls_lose_their_mode_fragment_and_paths_stay_as_given() {
        assert_eq!(
            reference_url("http://127.0.0.1:9000/b/k.nc#mode=bytes,s3"),
            "http://127.0.0.1:9000/b/k.nc"
        );
        assert_eq!(reference_url("s3://b/k.nc"), "s3://b/k.nc");
        assert_eq!(reference_url("/data/a#1.nc"), "/data/a#1.nc");
    }

    #[test]
    fn urls_but_file_urls_are_remote() {
        assert!(is_remote("s3://b/k.nc"));
        assert!(is_remote("http://127.0.0.1:9000/b/k.nc#mode=bytes,s3"));
        assert!(!is_remote("file:///data/a.nc"));
        assert!(!is_remote("/data/a.nc"));
    }
}
