//! `nctk gen` on CDL with user-defined types, against netCDF-C 4.9.0's
//! `ncgen` run here on the same corpus files: NCZarr stores and CDF-5
//! files refuse them with ncgen's "Attempting netcdf-4 operation on
//! netcdf-3 file"; the classic kinds with "-k or _Format conflicts with
//! enhanced CDL input" (where ncgen prints that and exits 0 without
//! writing, nctk fails), or with the error ncgen's lexer or parser meets
//! first; nothing is left behind.

mod enhanced_support;

use std::path::Path;
use std::process::Command;

use enhanced_support::{cdls_with_types, ncgen_nc4};
use nctk_test_support::require;
use nctk_tools::gen::{gen, GenArgs};

/// ncgen's stderr for `-k kind -o output cdl` (its exit status aside).
fn ncgen_stderr(kind: &str, output: &str, cdl: &Path) -> String {
    let out = Command::new("ncgen")
        .args(["-k", kind, "-o", output])
        .arg(cdl)
        .output()
        .expect("ncgen runs");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn user_types_are_refused_where_ncgen_refuses_them() {
    let Some(root) = require::corpus() else {
        return;
    };
    if !require::tools(&["ncgen"]) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let cdls = cdls_with_types(&root);
    let mut checked = 0;
    for cdl in &cdls {
        let text = std::fs::read(cdl).unwrap();
        // Only CDLs ncgen writes as netCDF-4: the others fail for other reasons.
        if !ncgen_nc4(cdl, &tmp.path().join("x.nc")) {
            continue;
        }
        for (kind, target) in [
            (
                "nc4",
                format!("file://{}/s.zarr#mode=nczarr,file", tmp.path().display()),
            ),
            ("nc5", tmp.path().join("s5.nc").display().to_string()),
            ("nc3", tmp.path().join("s3.nc").display().to_string()),
            ("nc6", tmp.path().join("s6.nc").display().to_string()),
        ] {
            let theirs = ncgen_stderr(kind, &target, cdl);
            // A type keyword the kind lacks (`ubyte` for nc3) is a syntax
            // error for ncgen and for nctk alike ("unexpected ...").
            let message = [
                "Illegal integer constant for classic format",
                "-k or _Format conflicts with enhanced CDL input",
                "NetCDF: Attempting netcdf-4 operation on netcdf-3 file",
            ]
            .into_iter()
            .find(|m| theirs.contains(m))
            .or_else(|| theirs.contains("syntax error").then_some("unexpected"))
            .unwrap_or_else(|| panic!("{}: ncgen -k {kind}: {theirs}", cdl.display()));
            let _ = std::fs::remove_dir_all(tmp.path().join("s.zarr"));
            let _ = std::fs::remove_file(tmp.path().join(format!("s{}.nc", &kind[2..])));
            let args = GenArgs {
                kind: Some(kind.into()),
                output: Some(target.clone().into()),
                ..GenArgs::default()
            };
            let ours = gen(&args, &text, tmp.path());
            let err = match ours {
                Ok(_) => panic!("{}: nctk gen -k {kind} accepted user types", cdl.display()),
                Err(e) => e.to_string(),
            };
            assert!(err.contains(message), "{}: -k {kind}: {err}", cdl.display());
            let left: Vec<_> = std::fs::read_dir(tmp.path())
                .unwrap()
                .filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n != "x.nc")
                .collect();
            assert!(
                left.is_empty(),
                "{}: -k {kind} left {left:?}",
                cdl.display()
            );
            checked += 1;
        }
    }
    assert!(checked >= 60, "only {checked} refusals compared");
}
