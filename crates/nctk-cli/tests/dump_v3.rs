//! `nctk dump` of a Zarr v3 store written by zarr-python equals `nctk dump`
//! of its v2 twin (the same groups, arrays, attributes and values written
//! with `zarr_format=2`, dimensions as xarray's `_ARRAY_DIMENSIONS`,
//! strings as `|O` with the vlen-utf8 filter), from the second line on (the
//! first names the store). The twins are `twin_v3.zarr` and `twin_v2.zarr`
//! of `nctk-zarr`'s v3 fixtures (`crates/nctk-zarr/tests/v3_fixtures.py`).
//!
//! Without the Python peers the test is skipped with a visible note, or
//! fails under CI (`nctk_test_support::require`).

#[path = "../../nctk-zarr/tests/v3fix/mod.rs"]
mod v3fix;

use std::path::Path;
use std::process::Command;

/// `nctk dump <args> <store>`: stdout, or the failure with stderr.
fn nctk_dump(args: &[&str], store: &Path) -> Result<String, String> {
    let out = Command::new(env!("CARGO_BIN_EXE_nctk"))
        .arg("dump")
        .args(args)
        .arg(store)
        .output()
        .unwrap();
    if !out.status.success() {
        return Err(format!(
            "nctk dump {args:?} {} failed: {}",
            store.display(),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(String::from_utf8(out.stdout).unwrap())
}

/// The text from the second line on.
fn body(text: &str) -> &str {
    text.split_once('\n').map_or("", |(_, b)| b)
}

/// A dump without its dimension declarations (the `dimensions:` sections).
fn without_dimensions(text: &str) -> String {
    let mut out = vec![];
    let mut in_dims = false;
    for line in text.lines() {
        let t = line.trim();
        if t == "dimensions:" {
            in_dims = true;
            continue;
        }
        if in_dims && t.ends_with(" ;") && t.contains(" = ") {
            continue;
        }
        in_dims = false;
        out.push(line);
    }
    out.join("\n")
}

/// The differences between the dumps of `name_v3.zarr` and `name_v2.zarr`
/// (whole, header only, and two variables), from the second line on;
/// `normalise` is applied to both first.
fn compare_twins(name: &str, vars: &str, normalise: fn(&str) -> String) -> Vec<String> {
    let Some(dir) = v3fix::stores() else {
        return vec![];
    };
    let (v3, v2) = (
        dir.join(format!("{name}_v3.zarr")),
        dir.join(format!("{name}_v2.zarr")),
    );
    let mut failures = vec![];
    for args in [&[][..], &["-h"], &["-v", vars]] {
        match (nctk_dump(args, &v3), nctk_dump(args, &v2)) {
            (Ok(a), Ok(b)) if normalise(body(&a)) == normalise(body(&b)) => {}
            (Ok(a), Ok(b)) => failures.push(format!(
                "nctk dump {args:?} {name}: v3\n{a}\ndiffers from v2\n{b}"
            )),
            (a, b) => failures.extend(a.err().into_iter().chain(b.err())),
        }
    }
    failures
}

/// One group: numbers, strings, a scalar, attributes.
#[test]
fn dump_of_a_v3_store_equals_the_dump_of_its_v2_twin() {
    let failures = compare_twins("twin", "temp,names", str::to_string);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A subgroup whose arrays have dimensions of their own (named in
/// `dimension_names` / `_ARRAY_DIMENSIONS`). Where those dimensions are
/// declared differs by design: Zarr v2's `_ARRAY_DIMENSIONS` in the root
/// group, as netCDF-C reads them; Zarr v3's `dimension_names` in the
/// array's group, as xarray means them. Everything else is the same.
#[test]
fn dump_of_a_v3_store_with_groups_equals_the_dump_of_its_v2_twin() {
    let failures = compare_twins("twin_groups", "d,grp/names", without_dimensions);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
