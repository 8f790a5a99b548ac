//! `-x`: NcML output.

use std::io::Write;

use nctk_model::VarId;

use super::{DumpError, Printer};

/// Prints the dataset as NcML (ncdump's `do_ncdumpx`).
pub(crate) fn dump_ncml<W: Write>(
    _p: &mut Printer<'_, W>,
    _path: &str,
    _vars: &Option<Vec<VarId>>,
) -> Result<(), DumpError> {
    Ok(())
}
