//! [`validate`]: the strict checkers through the door: the classic-format
//! checker for a classic file, the block-compressed checker (index,
//! checksums, decoded lengths) for a block-compressed one, by magic.

use std::path::Path;

use nctk_classic::compressed::format::MAGIC;
pub use nctk_classic::{Finding, Severity};

/// What [`validate_report`] found, and which checks ran.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValidationReport {
    /// Errors and warnings; empty when the file conforms.
    pub findings: Vec<Finding>,
    /// The checks that ran, in words (for a block-compressed file, how
    /// many blocks were checked).
    pub checked: String,
}

/// Checks the classic or block-compressed file at `path` strictly; an
/// empty list means it conforms. See [`validate_report`].
pub fn validate(path: &Path) -> Vec<Finding> {
    validate_report(path).findings
}

/// Checks the file at `path` by what its magic number says: a classic
/// file with PnetCDF `ncvalidator`'s rules, a block-compressed classic
/// file whole (superblock, the stored header with the classic rules,
/// directory, block tables, every block's CRC-32 and decoded length). A
/// file that cannot be opened is one error at offset 0 saying why.
pub fn validate_report(path: &Path) -> ValidationReport {
    let source = match crate::door::read_file(path) {
        Ok(source) => source,
        Err(e) => {
            return ValidationReport {
                findings: vec![Finding {
                    severity: Severity::Error,
                    offset: 0,
                    message: e.to_string(),
                }],
                checked: "nothing: the file did not open".into(),
            }
        }
    };
    let mut magic = [0u8; MAGIC.len()];
    let compressed = source
        .read_full(0, &mut magic)
        .is_ok_and(|n| magic[..n] == MAGIC);
    if compressed {
        let v = nctk_classic::compressed::validate_report(source.as_ref());
        ValidationReport {
            findings: v.findings,
            checked: format!("block-compressed classic file: {}", v.checked),
        }
    } else {
        ValidationReport {
            findings: nctk_classic::validate_source(source.as_ref()),
            checked: "classic file: header, variable layout and file length".into(),
        }
    }
}
