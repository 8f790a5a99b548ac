//! Which type names are keywords, for the netCDF-4 kinds, against netCDF-C
//! 4.9.0's `ncgen` (required as a `nctk_test_support::require` rule): the parser and the format
//! check together must accept exactly the CDL ncgen accepts. (The classic
//! kinds are compared file for file in `nctk-cli/tests/gen_ncgen.rs`; nctk
//! writes no netCDF-4 files, so here only acceptance is compared.)

use std::path::PathBuf;
use std::process::Command;

use nctk_cdl::parse::{check_format, parse_with, ParseOptions};
use nctk_model::Format;
use nctk_test_support::require;

/// A scratch directory of its own for this test process and test.
fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("nctk-ncgen-rules-{}-{test}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Whether `ncgen -k KIND` writes a file from `cdl`.
fn ncgen_accepts(dir: &std::path::Path, kind: &str, cdl: &str) -> bool {
    let src = dir.join("in.cdl");
    std::fs::write(&src, cdl).unwrap();
    Command::new("ncgen")
        .args(["-k", kind, "-o"])
        .arg(dir.join("out.nc"))
        .arg(&src)
        .output()
        .unwrap()
        .status
        .success()
}

/// Whether nctk parses `cdl` for `kind` and finds that the kind can hold it.
fn nctk_accepts(kind: Format, cdl: &str) -> Result<(), String> {
    let options = ParseOptions {
        kind: Some(kind),
        ..ParseOptions::default()
    };
    let ds = parse_with(cdl, &options).map_err(|e| e.to_string())?;
    check_format(&ds, kind).map_err(|e| e.to_string())
}

#[test]
fn netcdf4_keywords_follow_ncgen() {
    if !require::tools(&["ncgen"]) {
        return;
    }
    let dir = scratch("keywords");
    let words = [
        "string", "STRING", "int64", "INT64", "ubyte", "ushort", "uint", "uint64", "ulong",
        "uinteger", "byte", "BYTE", "int", "double", "data", "group", "types", "inf",
    ];
    let mut problems = Vec::new();
    let (mut accepted, mut refused) = (0, 0);
    for (flag, kind) in [("nc4", Format::Netcdf4), ("nc7", Format::Netcdf4Classic)] {
        for w in words {
            for cdl in [
                format!("netcdf x {{ dimensions: {w} = 3 ; variables: int v({w}) ; }}"),
                format!("netcdf x {{ variables: int {w} ; }}"),
                format!("netcdf x {{ variables: int v ; v:{w} = 1 ; }}"),
                format!("netcdf x {{ :{w} = 1 ; }}"),
                format!("netcdf x {{ variables: int {w} ; {w}:a = 1 ; }}"),
                format!("netcdf x {{ variables: {w} v ; }}"),
                format!("netcdf x {{ variables: int v ; {w} v:a = 5 ; }}"),
                format!("netcdf x {{ {w} :a = 5 ; }}"),
            ] {
                let theirs = ncgen_accepts(&dir, flag, &cdl);
                let ours = nctk_accepts(kind, &cdl);
                match (theirs, &ours) {
                    (true, Ok(())) => accepted += 1,
                    (false, Err(_)) => refused += 1,
                    _ => problems.push(format!("-k {flag}: {cdl}: ncgen {theirs}, nctk {ours:?}")),
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(
        accepted > 50 && refused > 50,
        "{accepted} accepted, {refused} refused"
    );
}

/// Without `-k`, ncgen reads every netCDF-4 type name as a name, whatever
/// `_Format` asks for; the kind `_Format` names is still the output's.
#[test]
fn format_attribute_does_not_decide_keywords() {
    if !require::tools(&["ncgen"]) {
        return;
    }
    let dir = scratch("format");
    let src = dir.join("in.cdl");
    let mut problems = Vec::new();
    for format in ["netCDF-4", "netCDF-4 classic model", "cdf5", "classic"] {
        for name in ["string", "int64", "ubyte"] {
            let cdl = format!(
                "netcdf x {{ dimensions: {name} = 3 ; variables: int v({name}) ; :_Format = \"{format}\" ; }}"
            );
            std::fs::write(&src, &cdl).unwrap();
            let theirs = Command::new("ncgen")
                .arg("-o")
                .arg(dir.join("out.nc"))
                .arg(&src)
                .output()
                .unwrap()
                .status
                .success();
            // As `nctk gen` without `-k`: the kind from `_Format`, the
            // keywords of no `-k`.
            let ours = parse_with(&cdl, &ParseOptions::default()).and_then(|ds| {
                let kind = ds.inferred_kind();
                let options = ParseOptions {
                    kind: Some(kind),
                    keywords: Some(Format::Classic),
                    ..ParseOptions::default()
                };
                check_format(&parse_with(&cdl, &options)?, kind)
            });
            if theirs != ours.is_ok() {
                problems.push(format!("{cdl}: ncgen {theirs}, nctk {ours:?}"));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
