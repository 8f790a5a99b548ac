//! The classic family (CDF-1, CDF-2, CDF-5): `nctk_classic`'s reader and
//! writer.

use std::path::Path;
use std::sync::Arc;

use nctk_classic::{ClassicReader, Version};
use nctk_store::bytes::ByteSource;

use super::{open_error, CreateRequest, FormatEntry};
use crate::output::{OutputError, Sink};
use crate::{Container, Dataset, Error};

/// The classic family's entry.
pub(super) struct Classic;

/// The classic dataset in the classic file `source` (`name` names it in
/// errors).
pub(super) fn open_classic(source: Arc<dyn ByteSource>, name: &str) -> Result<Dataset, Error> {
    ClassicReader::from_source(source.clone())
        .map(|r| Dataset::from_source(Box::new(r)).with_classic_bytes(source))
        .map_err(|e| open_error(name, e))
}

impl FormatEntry for Classic {
    fn name(&self) -> &'static str {
        "classic"
    }

    fn holds(&self, container: Container) -> bool {
        matches!(container, Container::Classic(_))
    }

    fn recognise(&self, bytes: &[u8]) -> Option<Container> {
        match bytes {
            [b'C', b'D', b'F', v, ..] => {
                Version::from_byte(*v).map(|v| Container::Classic(v.into()))
            }
            _ => None,
        }
    }

    fn open(&self, source: Arc<dyn ByteSource>, name: &str) -> Result<Dataset, Error> {
        open_classic(source, name)
    }

    fn chunk_refs(
        &self,
        dataset: &Dataset,
        var: nctk_model::VarId,
    ) -> Result<nctk_model::ChunkRefs, Error> {
        super::source_chunk_refs(dataset, var)
    }

    fn open_bytes(&self, bytes: bytes_crate::Bytes, name: &str) -> Result<Dataset, Error> {
        let source: Arc<dyn ByteSource> =
            Arc::new(nctk_store::bytes::MemSource::new(bytes.clone()).with_name(name));
        ClassicReader::from_bytes(bytes)
            .map(|r| Dataset::from_source(Box::new(r)).with_classic_bytes(source))
            .map_err(|e| open_error(name, e))
    }

    fn check_writable(&self, _path: &Path) -> Result<(), OutputError> {
        Ok(())
    }

    fn create(&self, request: &CreateRequest<'_>) -> Result<Sink, OutputError> {
        crate::output::create_classic(request)
    }
}
