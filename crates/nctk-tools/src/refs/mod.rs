//! `nctk refs`: netCDF files as virtual Zarr, kerchunk's reference JSON
//! (version 1) pointing at the files' own bytes, or the same references
//! as an Icechunk repository. Where each chunk is comes from the readers
//! ([`nctk::Variable::chunk_refs`]); several inputs become one dataset
//! along a dimension ([`Collection`]); the references are written as
//! kerchunk's JSON ([`kerchunk_json`]) or as virtual chunks of an
//! Icechunk repository (the module `icechunk`).

mod combine;
mod cut;
mod icechunk;
mod kerchunk;

use std::path::Path;

use nctk::model::DataType;
use nctk::{Dataset, Error, OutputError};
use rayon::prelude::*;

pub use combine::Collection;
pub use kerchunk::kerchunk_json;

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
            RefsError::Type { .. } => nctk::ErrorKind::Unsupported,
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
    let datasets = inputs
        .par_iter()
        .map(|input| nctk::open(input.as_ref()))
        .collect::<Result<Vec<Dataset>, Error>>()?;
    let urls: Vec<String> = inputs.iter().map(|s| reference_url(s.as_ref())).collect();
    let collection = Collection::new(
        &datasets,
        &urls,
        options.concat_dim.as_deref(),
        options.chunk_bytes,
    )?;
    let (doc, summary) = kerchunk_json(&collection)?;
    if is_icechunk(output) {
        let refs = doc["refs"]
            .as_object()
            .expect("a reference document holds refs");
        let masked = kerchunk::arrays_with_fill_value(&collection);
        nctk::write_dir_safely(output, |dir| icechunk::write_repository(refs, &masked, dir))?;
    } else {
        nctk::write_file_safely(output, |w| {
            serde_json::to_writer(&mut *w, &doc).map_err(std::io::Error::from)
        })?;
    }
    Ok(summary)
}

/// True when `output` names an Icechunk repository (`*.icechunk`).
fn is_icechunk(output: &Path) -> bool {
    output.extension().is_some_and(|e| e == "icechunk")
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
