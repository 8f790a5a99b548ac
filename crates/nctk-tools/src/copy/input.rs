//! The input side: any dataset, read through [`DataSource`].

use std::path::Path;

use nctk_model::{Attribute, DataSource, Format, Schema, Selection, SourceError, Values, VarId};

use super::CopyError;
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
    /// Opens `path` as [`nctk::open`] does; `in_memory` reads a single
    /// file whole first (`nccopy -r`, [`nctk::OpenOptions::in_memory`]).
    pub(crate) fn open(path: &Path, in_memory: bool) -> Result<Input<'a>, CopyError> {
        let dataset = nctk::open_with(path, nctk::OpenOptions::new().in_memory(in_memory))?;
        let stream = dataset.container().is_some_and(Container::is_stream);
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

    /// The input's definitions with text attributes as files hold them,
    /// when the input is an ncstream with single-valued `string`
    /// attributes: netCDF-Java's data model has no `char` attributes (a
    /// classic file's text attribute travels as a `String`), and
    /// netCDF-Java writes such an attribute to a netCDF-3 or netCDF-4 file
    /// as `char` text; so does this (an attribute of no
    /// strings becomes empty text). `None` otherwise (several strings stay
    /// strings, which no classic file holds).
    pub(crate) fn classic_text_schema(&self) -> Option<Schema> {
        fn as_text(attrs: &mut [Attribute]) -> bool {
            let mut changed = false;
            for a in attrs.iter_mut() {
                if let Values::String(v) = &a.value {
                    if v.len() <= 1 {
                        // (Text has no null: a null string is empty text.)
                        let first = v.first().and_then(Option::as_deref);
                        a.value = Values::text(first.unwrap_or_default());
                        changed = true;
                    }
                }
            }
            changed
        }
        if !self.is_stream() {
            return None;
        }
        let mut schema = self.schema().clone();
        let mut changed = false;
        for g in schema.group_ids().collect::<Vec<_>>() {
            changed |= as_text(&mut schema.group_mut(g).attributes);
        }
        for v in schema.var_ids().collect::<Vec<_>>() {
            changed |= as_text(&mut schema.var_mut(v).attributes);
        }
        changed.then_some(schema)
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
