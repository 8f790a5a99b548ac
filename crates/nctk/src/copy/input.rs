//! The input side: classic files through [`ClassicReader`]'s typed fast
//! path, anything else through [`DataSource`].

use std::path::Path;

use nctk_classic::ClassicReader;
use nctk_model::{DataSource, DataType, Schema, Selection, SourceError, Values, VarId};

use super::options::OutputKind;
use super::CopyError;
use crate::Dataset;

/// An open input.
pub(crate) enum Input<'a> {
    /// A classic file: reads go straight into the reused buffer.
    Classic(Box<ClassicReader>),
    /// Any other dataset.
    Other(Dataset),
    /// A data source the caller holds.
    Borrowed(&'a dyn DataSource),
}

fn open_err(path: &Path, e: nctk_classic::ClassicError) -> CopyError {
    CopyError::Open(crate::Error::Source {
        path: path.display().to_string(),
        source: Box::new(e),
    })
}

fn is_classic_file(path: &Path) -> bool {
    use std::io::Read;
    let mut magic = [0u8; 4];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut magic))
        .is_ok()
        && matches!(magic, [b'C', b'D', b'F', 1 | 2 | 5])
}

impl<'a> Input<'a> {
    /// Opens `path` (a classic file, or anything [`crate::open`] opens);
    /// `in_memory` reads a classic file whole first (`nccopy -r`).
    pub(crate) fn open(path: &Path, in_memory: bool) -> Result<Input<'a>, CopyError> {
        if path.is_file() && is_classic_file(path) {
            let reader = if in_memory {
                let bytes = std::fs::read(path).map_err(|e| CopyError::Io {
                    path: path.display().to_string(),
                    op: "read",
                    source: e,
                })?;
                ClassicReader::from_bytes(bytes)
            } else {
                ClassicReader::open(path)
            };
            return reader
                .map(|r| Input::Classic(Box::new(r)))
                .map_err(|e| open_err(path, e));
        }
        Ok(Input::Other(crate::open(path)?))
    }

    /// The input as a data source.
    pub(crate) fn source(&self) -> &dyn DataSource {
        match self {
            Input::Classic(r) => r.as_ref(),
            Input::Other(d) => d.source(),
            Input::Borrowed(s) => *s,
        }
    }

    /// The input's schema.
    pub(crate) fn schema(&self) -> &Schema {
        self.source().schema()
    }

    /// The input's kind (the default output kind).
    pub(crate) fn kind(&self) -> OutputKind {
        OutputKind::from_format_name(self.source().format_name()).unwrap_or(OutputKind::Netcdf4)
    }

    /// Reads `sel` of `var` into `buf`, reusing its allocation when it
    /// already holds the variable's type.
    pub(crate) fn read(
        &self,
        var: VarId,
        dtype: DataType,
        sel: &Selection,
        buf: &mut Values,
    ) -> Result<(), SourceError> {
        let Input::Classic(r) = self else {
            *buf = self.source().read(var, sel)?;
            return Ok(());
        };
        let n = sel.num_elements().unwrap_or(0) as usize;
        if buf.dtype() != dtype {
            *buf = Values::with_capacity(dtype, n);
        }
        macro_rules! typed {
            ($v:expr, $zero:expr) => {{
                $v.resize(n, $zero);
                r.read_into(var, sel, &mut $v[..])?;
            }};
        }
        match buf {
            Values::Byte(v) => typed!(v, 0),
            Values::Char(v) => typed!(v, 0),
            Values::Short(v) => typed!(v, 0),
            Values::Int(v) => typed!(v, 0),
            Values::Float(v) => typed!(v, 0.0),
            Values::Double(v) => typed!(v, 0.0),
            Values::UByte(v) => typed!(v, 0),
            Values::UShort(v) => typed!(v, 0),
            Values::UInt(v) => typed!(v, 0),
            Values::Int64(v) => typed!(v, 0),
            Values::UInt64(v) => typed!(v, 0),
            Values::String(_) => *buf = r.read_values(var, sel)?,
        }
        Ok(())
    }
}
