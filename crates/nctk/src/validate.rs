//! [`validate`]: the strict classic-format checker, through the door.

use std::path::Path;

pub use nctk_classic::{Finding, Severity};

/// Checks the classic file at `path` strictly (PnetCDF `ncvalidator`'s
/// rules); an empty list means it conforms. A file that cannot be opened
/// is one error at offset 0 saying why.
pub fn validate(path: &Path) -> Vec<Finding> {
    match crate::door::read_file(path) {
        Ok(source) => nctk_classic::validate_source(source.as_ref()),
        Err(e) => vec![Finding {
            severity: Severity::Error,
            offset: 0,
            message: e.to_string(),
        }],
    }
}
