//! Zarr stores on disk for the facade's tests and benchmarks, made and
//! opened through the door (`nctk::door`) as `nctk::open`/`nctk copy` do.
#![allow(dead_code)] // each test file uses some of these

use std::path::Path;

use nctk::door::{self, Opened};
use nctk::model::Schema;
use nctk_zarr::{WriteOptions, ZarrOptions, ZarrReader, ZarrWriter};

/// Reads the directory or zip store at `path` with `opts`.
pub fn open_path(
    path: impl AsRef<Path>,
    opts: ZarrOptions,
) -> Result<ZarrReader, Box<dyn std::error::Error + Send + Sync>> {
    let path = path.as_ref();
    match door::open_target(path)? {
        Opened::Store { store, .. } => Ok(ZarrReader::open(store, opts)?),
        other => Err(format!("{}: not a store: {other:?}", path.display()).into()),
    }
}

fn create(
    path: &Path,
    zip: bool,
    schema: &Schema,
    opts: &WriteOptions,
) -> Result<ZarrWriter, Box<dyn std::error::Error + Send + Sync>> {
    let store = door::create_store(path, zip, opts.layout)?;
    Ok(ZarrWriter::create(store, schema, opts)?)
}

/// Writes a directory store at `path` (created if missing).
pub fn create_dir(
    path: impl AsRef<Path>,
    schema: &Schema,
    opts: &WriteOptions,
) -> Result<ZarrWriter, Box<dyn std::error::Error + Send + Sync>> {
    create(path.as_ref(), false, schema, opts)
}

/// Writes a zip store at `path`, laid out as the layout asks.
pub fn create_zip(
    path: impl AsRef<Path>,
    schema: &Schema,
    opts: &WriteOptions,
) -> Result<ZarrWriter, Box<dyn std::error::Error + Send + Sync>> {
    create(path.as_ref(), true, schema, opts)
}
