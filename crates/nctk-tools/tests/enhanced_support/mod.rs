//! What the tests of the enhanced data model share: the corpus CDLs that
//! define user types, and netCDF-4 files made from CDL by ncgen.

#![allow(dead_code)] // each test crate uses its own share of these

use std::path::{Path, PathBuf};
use std::process::Command;

use nctk_test_support::corpus;

/// The corpus CDLs with a `types:` section, sorted.
pub fn cdls_with_types(root: &Path) -> Vec<PathBuf> {
    let mut cdls: Vec<_> = corpus::files_under(root, |_| true)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "cdl"))
        .filter(|p| {
            std::fs::read_to_string(p).is_ok_and(|t| t.lines().any(|l| l.trim() == "types:"))
        })
        .collect();
    cdls.sort();
    cdls
}

/// Runs `ncgen -k nc4 -o out cdl`; true when it succeeds.
pub fn ncgen_nc4(cdl: &Path, out: &Path) -> bool {
    Command::new("ncgen")
        .args(["-k", "nc4", "-o"])
        .arg(out)
        .arg(cdl)
        .status()
        .is_ok_and(|s| s.success())
}

/// The netCDF-4 file ncgen makes of the CDL text `cdl`, as `dir/name.nc`.
pub fn netcdf4(dir: &Path, name: &str, cdl: &str) -> PathBuf {
    let src = dir.join(format!("{name}.cdl"));
    std::fs::write(&src, cdl).unwrap();
    let nc = dir.join(format!("{name}.nc"));
    assert!(ncgen_nc4(&src, &nc), "ncgen -k nc4 refused {name}");
    nc
}
