//! Block-compressed classic files (`docs/formats/compressed-classic.md`):
//! read as the classic file they stand for through a
//! [`CompressedSource`], written by the output side's compressed writer.

use std::path::Path;
use std::sync::Arc;

use nctk_classic::compressed::{format::MAGIC, CompressedSource};
use nctk_model::{ChunkRefs, VarId};
use nctk_store::bytes::ByteSource;

use super::classic::open_classic;
use super::{open_error, FormatEntry};
use crate::dataset::RefsOrigin;
use crate::output::OutputError;
use crate::{Container, Dataset, Error};

/// The block-compressed classic entry.
pub(super) struct Compressed;

impl FormatEntry for Compressed {
    fn name(&self) -> &'static str {
        "block-compressed classic"
    }

    fn holds(&self, container: Container) -> bool {
        container == Container::Compressed
    }

    fn recognise(&self, bytes: &[u8]) -> Option<Container> {
        bytes.starts_with(&MAGIC).then_some(Container::Compressed)
    }

    fn open(&self, source: Arc<dyn ByteSource>, name: &str) -> Result<Dataset, Error> {
        let decoded = Arc::new(CompressedSource::open(source).map_err(|e| open_error(name, e))?);
        open_classic(decoded.clone(), name).map(|d| d.with_compressed(decoded))
    }

    /// Each block of a variable one chunk, when its blocks are a chunk
    /// grid's chunks.
    fn chunk_refs(&self, dataset: &Dataset, var: VarId) -> Result<ChunkRefs, Error> {
        let Some(RefsOrigin::Compressed(file)) = dataset.refs_origin() else {
            return Err(Error::Unsupported {
                path: dataset.name().to_string(),
                reason: "references: the block-compressed file's index is not at hand".into(),
            });
        };
        file.chunk_refs(var.0 as usize, &dataset.schema().shape(var))
            .map_err(|e| open_error(dataset.name(), e))
    }

    /// A single local file (written by the classic entry, as a classic
    /// format with compression options).
    fn check_writable(&self, path: &Path) -> Result<(), OutputError> {
        crate::output::check_compressed_target(path)
    }
}
