//! Zarr stores on disk for the facade's tests and benchmarks, made and
//! opened with the store and Zarr crates (directory and zip stores, laid
//! out as `nctk::create` lays them out).
#![allow(dead_code)] // each test file uses some of these

use std::path::Path;

use std::sync::Arc;

use nctk::model::Schema;
use nctk_store::bytes::FileSink;
use nctk_store::kv::{DirectoryStore, ReadListStore, StagedZipStore, ZipStore};
use nctk_zarr::write::ReadWriteStore;
use nctk_zarr::{WriteOptions, ZarrOptions, ZarrReader, ZarrWriter};

/// Reads the directory or zip store at `path` with `opts`.
pub fn open_path(
    path: impl AsRef<Path>,
    opts: ZarrOptions,
) -> Result<ZarrReader, Box<dyn std::error::Error + Send + Sync>> {
    let path = path.as_ref();
    let store: Arc<dyn ReadListStore> = if path.is_dir() {
        Arc::new(DirectoryStore::open(path)?)
    } else {
        Arc::new(ZipStore::open_file(path)?)
    };
    Ok(ZarrReader::open(store, opts)?)
}

fn create(
    path: &Path,
    zip: bool,
    schema: &Schema,
    opts: &WriteOptions,
) -> Result<ZarrWriter, Box<dyn std::error::Error + Send + Sync>> {
    let store: Arc<dyn ReadWriteStore> = if zip {
        // Staged beside the archive; NCZarr layouts put the dataset under
        // a directory named after the file, as netCDF-C does.
        let top_dir = path
            .file_stem()
            .and_then(|s| opts.layout.zip_dir(&s.to_string_lossy()));
        let mut scratch = path.as_os_str().to_owned();
        scratch.push(".partial");
        let sink = Arc::new(FileSink::create(path)?);
        Arc::new(StagedZipStore::in_directory(
            std::path::PathBuf::from(scratch),
            sink,
            top_dir.as_deref(),
        )?)
    } else {
        Arc::new(DirectoryStore::create(path)?)
    };
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
