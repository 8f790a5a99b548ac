//! The input side: any dataset, read through [`DataSource`].

use std::path::Path;

use nctk_model::{DataSource, Format, Schema, Selection, SourceError, Values, VarId};

use super::CopyError;
use crate::detect::{detect_file, Container};
use crate::Dataset;

/// An open input.
pub(crate) enum Input<'a> {
    /// A dataset this input opened.
    Owned(Dataset),
    /// A data source the caller holds.
    Borrowed(&'a dyn DataSource),
}

impl<'a> Input<'a> {
    /// Opens `path` as [`crate::open`] does; `in_memory` reads a classic
    /// file whole first (`nccopy -r`) and opens the bytes as
    /// [`crate::open_mem`] does.
    pub(crate) fn open(path: &Path, in_memory: bool) -> Result<Input<'a>, CopyError> {
        if in_memory && matches!(detect_file(path), Ok(Container::Classic(_))) {
            let bytes = std::fs::read(path).map_err(|e| CopyError::Io {
                path: path.display().to_string(),
                op: "read",
                source: e,
            })?;
            let name = path.display().to_string();
            return Ok(Input::Owned(crate::open::open_bytes(&name, bytes.into())?));
        }
        Ok(Input::Owned(crate::open(path)?))
    }

    /// The input as a data source.
    pub(crate) fn source(&self) -> &dyn DataSource {
        match self {
            Input::Owned(d) => d.source(),
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
