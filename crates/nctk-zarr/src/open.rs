//! Opening stores on local disk.

use std::path::Path;
use std::sync::Arc;

use nctk_store::kv::{DirectoryStore, ReadListStore, ZipStore};

use crate::url::{StoreLocation, ZarrTarget};
use crate::{ZarrError, ZarrOptions, ZarrReader};

/// The storage under a local store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StoreBackend {
    /// A directory tree (`mode=...,file`).
    Directory,
    /// A zip archive (`mode=...,zip`).
    Zip,
}

/// Opens the store at `path` with the given backend.
pub fn open_store(path: &Path, backend: StoreBackend) -> Result<Arc<dyn ReadListStore>, ZarrError> {
    Ok(match backend {
        StoreBackend::Directory => Arc::new(DirectoryStore::open(path)?),
        StoreBackend::Zip => Arc::new(ZipStore::open_file(path)?),
    })
}

/// Opens a local Zarr dataset: a directory, or a zip file.
pub fn open_path(path: impl AsRef<Path>, opts: ZarrOptions) -> Result<ZarrReader, ZarrError> {
    let path = path.as_ref();
    let backend = if path.is_dir() {
        StoreBackend::Directory
    } else {
        StoreBackend::Zip
    };
    ZarrReader::open(open_store(path, backend)?, opts)
}

impl ZarrTarget {
    /// Opens the dataset this target names. Cloud and HTTP storage give
    /// [`ZarrError::StorageNotAvailable`].
    pub fn open(&self) -> Result<ZarrReader, ZarrError> {
        let store = match &self.location {
            StoreLocation::Directory(p) => open_store(p, StoreBackend::Directory)?,
            StoreLocation::Zip(p) => open_store(p, StoreBackend::Zip)?,
            StoreLocation::S3(_) => {
                return Err(ZarrError::StorageNotAvailable {
                    url: self.url.clone(),
                    storage: "s3",
                })
            }
        };
        ZarrReader::open(store, self.options())
    }

    /// The reader options the mode flags ask for.
    pub fn options(&self) -> ZarrOptions {
        ZarrOptions {
            pure_zarr: self.pure_zarr,
            xarray: self.xarray,
            consolidated: self.consolidated,
        }
    }
}
