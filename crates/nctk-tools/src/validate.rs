//! `nctk validate`: the strict checker of classic and block-compressed
//! classic files.

use std::io::Write;
use std::path::Path;

use nctk::Severity;

/// Checks the classic or block-compressed file at `path`, writes one line
/// per finding (`path: offset N: error|warning: message`), then what was
/// checked (`path: checked: ...`, for a block-compressed file how many
/// blocks), and returns whether the file has no errors (warnings are what
/// netCDF-C tolerates). A store (a directory or a URL) is refused: only
/// files are checked.
pub fn run_validate(path: &str, mut out: impl Write) -> std::io::Result<bool> {
    if path.contains("://") || path.contains("#mode=") || Path::new(path).is_dir() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!(
                "{path}: not a classic netCDF file; validate checks classic \
                 (CDF-1, CDF-2, CDF-5) and block-compressed classic files only, \
                 not NCZarr/Zarr stores"
            ),
        ));
    }
    let report = nctk::validate_report(Path::new(path));
    let findings = &report.findings;
    for f in findings {
        let severity = match f.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        writeln!(
            out,
            "{path}: offset {}: {severity}: {}",
            f.offset, f.message
        )?;
    }
    writeln!(out, "{path}: checked: {}", report.checked)?;
    let ok = !findings.iter().any(|f| f.severity == Severity::Error);
    if findings.is_empty() {
        writeln!(out, "{path}: conforms")?;
    }
    Ok(ok)
}
