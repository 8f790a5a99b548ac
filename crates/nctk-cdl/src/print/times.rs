//! `-t` / `-i`: CF time values as date-time strings.

use std::io::Write;

use nctk_model::{Schema, Values, VarId};

use super::Printer;

/// How to turn a time variable's numbers into dates.
#[derive(Debug, Clone)]
pub(crate) struct TimeInfo {}

impl TimeInfo {
    /// The time facts of `v` when it qualifies as a time variable.
    pub(crate) fn for_var(_schema: &Schema, _v: VarId) -> Option<TimeInfo> {
        None
    }

    /// Appends the date-time string of `x`.
    pub(crate) fn push_iso(&self, _out: &mut Vec<u8>, _x: f64, _sep: u8) {}
}

impl<W: Write> Printer<'_, W> {
    /// `-t`: the values of a time attribute as a trailing comment.
    pub(crate) fn print_att_times(&mut self, _v: VarId, _values: &Values) {}
}
