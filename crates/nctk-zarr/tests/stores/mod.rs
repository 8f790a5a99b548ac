//! Stores on disk for the tests and benchmarks: the crate itself never
//! names a path (the facade's door does), so the tests open their stores here.
#![allow(dead_code)] // each test file uses some of these

use std::path::Path;
use std::sync::Arc;

use nctk_model::Schema;
use nctk_store::bytes::FileSink;
use nctk_store::kv::{DirectoryStore, ReadListStore, StagedZipStore, StoreError, ZipStore};
use nctk_zarr::{WriteError, WriteOptions, ZarrError, ZarrOptions, ZarrReader, ZarrWriter};

/// Reads the directory or zip store at `path`.
pub fn open_path(path: impl AsRef<Path>, opts: ZarrOptions) -> Result<ZarrReader, ZarrError> {
    let path = path.as_ref();
    let store: Arc<dyn ReadListStore> = if path.is_dir() {
        Arc::new(DirectoryStore::open(path)?)
    } else {
        Arc::new(ZipStore::open_file(path)?)
    };
    ZarrReader::open(store, opts)
}

/// Writes a directory store at `path` (created if missing).
pub fn create_dir(
    path: impl AsRef<Path>,
    schema: &Schema,
    opts: &WriteOptions,
) -> Result<ZarrWriter, WriteError> {
    let store = DirectoryStore::create(path.as_ref())?;
    ZarrWriter::create(Arc::new(store), schema, opts)
}

/// Writes a zip store at `path`, staged in memory, laid out as the layout
/// asks ([`nctk_zarr::WriteLayout::zip_dir`]).
pub fn create_zip(
    path: impl AsRef<Path>,
    schema: &Schema,
    opts: &WriteOptions,
) -> Result<ZarrWriter, WriteError> {
    let path = path.as_ref();
    let sink = FileSink::create(path).map_err(|e| StoreError::Io {
        key: path.display().to_string(),
        op: "create",
        source: std::io::Error::other(e),
    })?;
    let dir = path
        .file_stem()
        .and_then(|s| opts.layout.zip_dir(&s.to_string_lossy()));
    let store = StagedZipStore::in_memory(Arc::new(sink), dir.as_deref());
    ZarrWriter::create(Arc::new(store), schema, opts)
}
