//! The input side: any dataset, read through [`DataSource`].

use std::path::Path;

use nctk_model::{DataSource, Format, Schema, Selection, SourceError, Values, VarId};

use super::CopyError;
use nctk::door::Opened;
use nctk::{Container, Dataset};

/// An open input.
pub(crate) enum Input<'a> {
    /// A dataset this input opened; `stream`: an ncstream (a `.ncs` file,
    /// a cdmremote server), whose `netCDF-4` names a data model, not a file.
    Owned { dataset: Dataset, stream: bool },
    /// A data source the caller holds.
    Borrowed(&'a dyn DataSource),
}

impl<'a> Input<'a> {
    /// Opens `path` as [`nctk::open`] does; `in_memory` reads a classic
    /// file whole first (`nccopy -r`) and opens the bytes as
    /// [`nctk::open_mem`] does.
    pub(crate) fn open(path: &Path, in_memory: bool) -> Result<Input<'a>, CopyError> {
        let name = path.display().to_string();
        let opened = nctk::door::open_target(path)?;
        if let (
            true,
            Opened::File {
                source,
                container: Container::Classic(_),
            },
        ) = (in_memory, &opened)
        {
            let bytes = source
                .len()
                .and_then(|len| source.read_range(0..len))
                .map_err(|e| {
                    CopyError::Open(nctk::Error::Open {
                        path: name.clone(),
                        reason: e.to_string(),
                    })
                })?;
            let dataset = nctk::open_bytes(&name, bytes)?;
            return Ok(Input::Owned {
                dataset,
                stream: false,
            });
        }
        let stream = matches!(
            opened,
            Opened::Remote(_)
                | Opened::File {
                    container: Container::NcStream,
                    ..
                }
        );
        let dataset = Dataset::open_in(opened, &name)?;
        Ok(Input::Owned { dataset, stream })
    }

    /// The input as a data source.
    pub(crate) fn source(&self) -> &dyn DataSource {
        match self {
            Input::Owned { dataset, .. } => dataset.source(),
            Input::Borrowed(s) => *s,
        }
    }

    /// The input's schema.
    pub(crate) fn schema(&self) -> &Schema {
        self.source().schema()
    }

    /// The input's format (the default output format).
    pub(crate) fn kind(&self) -> Format {
        self.source().format()
    }

    /// Whether the input is an ncstream (see [`Input::Owned`]).
    pub(crate) fn is_stream(&self) -> bool {
        matches!(self, Input::Owned { stream: true, .. })
    }

    /// Reads `sel` of `var` into `buf`, reusing its allocation when it
    /// already holds the variable's type.
    pub(crate) fn read(
        &self,
        var: VarId,
        sel: &Selection,
        buf: &mut Values,
    ) -> Result<(), SourceError> {
        self.source().read_into(var, sel, buf)
    }
}
