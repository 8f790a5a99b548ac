//! Datasets on cdmremote servers (THREDDS, `nctk serve`), opened by their
//! `cdmremote:` URL through the door (feature `cdmremote`); a byte source
//! never holds one.

use std::sync::Arc;

use nctk_model::Format;
use nctk_store::bytes::ByteSource;

use super::FormatEntry;
use crate::{Container, Dataset, Error};

/// The cdmremote entry.
pub(super) struct CdmRemote;

impl FormatEntry for CdmRemote {
    fn name(&self) -> &'static str {
        "cdmremote"
    }

    fn holds(&self, container: Container) -> bool {
        container == Container::CdmRemote
    }

    fn open(&self, _source: Arc<dyn ByteSource>, name: &str) -> Result<Dataset, Error> {
        Err(Error::Unsupported {
            path: name.to_string(),
            reason: "a cdmremote dataset is opened by its URL (cdmremote:http://host/path)".into(),
        })
    }

    /// netCDF-Java's enhanced data model, which netCDF-C calls netCDF-4.
    fn kind(&self, _source: Arc<dyn ByteSource>, _name: &str) -> Result<Format, Error> {
        Ok(Format::Netcdf4)
    }
}
