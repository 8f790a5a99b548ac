//! NCZarr and Zarr stores: `nctk_zarr`'s reader and writer. A directory
//! or object store reaches the reader through the door
//! ([`open_store`]); a zip archive is recognised as a single file and read
//! through a [`ZipStore`] over its bytes (on disk, in memory or remote).

use std::path::Path;
use std::sync::Arc;

use nctk_model::{ChunkRef, ChunkRefs, VarId};
use nctk_store::bytes::ByteSource;
use nctk_store::kv::{ReadListStore, ZipRoot, ZipStore};
use nctk_zarr::{ZarrOptions, ZarrReader};

use super::{open_error, CreateRequest, FormatEntry};
use crate::dataset::RefsOrigin;
use crate::output::{OutputError, Sink};
use crate::{Container, Dataset, Error};

/// The Zarr / NCZarr entry.
pub(super) struct Zarr;

/// The zip archive's local file header signature.
const ZIP_MAGIC: [u8; 4] = *b"PK\x03\x04";

/// The dataset in `store`, read as `options` ask (`name` names it in errors).
pub(crate) fn open_store(
    store: Arc<dyn ReadListStore>,
    options: ZarrOptions,
    name: &str,
) -> Result<Dataset, Error> {
    ZarrReader::open(store, options)
        .map(|r| {
            Dataset::from_source(Box::new(r))
                .in_container(Container::Zarr)
                .named(name)
        })
        .map_err(|e| open_error(name, e))
}

impl FormatEntry for Zarr {
    fn name(&self) -> &'static str {
        "NCZarr"
    }

    fn holds(&self, container: Container) -> bool {
        container == Container::Zarr
    }

    fn recognise(&self, bytes: &[u8]) -> Option<Container> {
        bytes.starts_with(&ZIP_MAGIC).then_some(Container::Zarr)
    }

    fn open(&self, source: Arc<dyn ByteSource>, name: &str) -> Result<Dataset, Error> {
        let zip = ZipStore::new(source, ZipRoot::Auto).map_err(|e| open_error(name, e))?;
        open_store(Arc::new(zip), ZarrOptions::default(), name)
    }

    /// Each stored chunk as its object's absolute path (a directory
    /// store) or URL (an object store); a zip archive has none.
    fn chunk_refs(&self, dataset: &Dataset, var: VarId) -> Result<ChunkRefs, Error> {
        let Some(RefsOrigin::StoreRoot(root)) = dataset.refs_origin() else {
            return Err(Error::Unsupported {
                path: dataset.name().to_string(),
                reason: "references cannot point at a chunk inside a zip archive (or a store \
                         held in memory): a plain URL or path names no object inside it; unzip \
                         the store into a directory (or copy it to an object store) and make \
                         references to that"
                    .into(),
            });
        };
        let mut refs = super::source_chunk_refs(dataset, var)?;
        let root = root.trim_end_matches('/');
        for (_, r) in &mut refs.chunks {
            if let ChunkRef::Object { object, .. } = r {
                *object = format!("{root}/{object}");
            }
        }
        Ok(refs)
    }

    fn check_writable(&self, _path: &Path) -> Result<(), OutputError> {
        Ok(())
    }

    fn create(&self, request: &CreateRequest<'_>) -> Result<Sink, OutputError> {
        crate::output::create_store_output(request)
    }
}
