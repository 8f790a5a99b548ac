//! The Zarr v3 fixtures (`tests/v3_fixtures.py`: stores written by
//! zarr-python, xarray and tensorstore) and their truth (`tests/v3_dump.py`:
//! what zarr-python reads from them), each made once per test process into
//! a directory of this test binary under Cargo's target tmpdir.
//!
//! Shared by the v3 tests of `nctk-zarr` and by `nctk-cli`'s `dump_v3`
//! (which includes this file by path).
#![allow(dead_code)] // each test binary uses some of these

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use nctk_test_support::{peer, require};
use serde_json::Value;

/// The Python modules the generator and the dump import.
pub const MODULES: &[&str] = &["zarr", "numpy", "numcodecs", "xarray", "tensorstore"];

/// This crate's tests directory (the scripts' home).
fn scripts() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../nctk-zarr/tests")
}

/// The directory of the generated stores (`<name>.zarr` each), made on the
/// first call; `None` after [`require::missing`] when a Python peer is
/// absent. A failing generator panics with its stderr.
#[track_caller]
pub fn stores() -> Option<&'static Path> {
    if !require::python(MODULES) {
        return None;
    }
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    Some(DIR.get_or_init(|| {
        let exe = std::env::current_exe().unwrap();
        let name = exe.file_stem().unwrap().to_string_lossy().into_owned();
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("v3-fixtures-{name}"));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        peer::output(
            Command::new("python3")
                .arg(scripts().join("v3_fixtures.py"))
                .arg(&dir),
        )
        .unwrap_or_else(|e| panic!("v3_fixtures.py into {}: {e}", dir.display()));
        dir
    }))
}

/// What zarr-python reads from the generated stores.
#[derive(Debug)]
pub struct Truth {
    /// One object per array (see `v3_dump.py`).
    pub arrays: Vec<Value>,
    /// One object per group: `store`, `group` (its path), `attributes`.
    pub groups: Vec<Value>,
}

impl Truth {
    /// The arrays of `store` (`x.zarr`).
    pub fn arrays_of<'a>(&'a self, store: &'a str) -> impl Iterator<Item = &'a Value> + 'a {
        self.arrays.iter().filter(move |a| a["store"] == store)
    }

    /// The groups of `store`.
    pub fn groups_of<'a>(&'a self, store: &'a str) -> impl Iterator<Item = &'a Value> + 'a {
        self.groups.iter().filter(move |g| g["store"] == store)
    }

    /// Every store name, sorted, once each.
    pub fn store_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .groups
            .iter()
            .map(|g| g["store"].as_str().unwrap().to_string())
            .collect();
        names.dedup();
        names
    }
}

/// The stores and their truth, made on the first call (see [`stores`]).
#[track_caller]
pub fn truth() -> Option<(&'static Path, &'static Truth)> {
    let dir = stores()?;
    static TRUTH: OnceLock<Truth> = OnceLock::new();
    let truth = TRUTH.get_or_init(|| {
        let out = peer::output(
            Command::new("python3")
                .arg(scripts().join("v3_dump.py"))
                .arg(dir),
        )
        .unwrap_or_else(|e| panic!("v3_dump.py {}: {e}", dir.display()));
        let (mut arrays, mut groups) = (vec![], vec![]);
        for line in out.lines() {
            let j: Value = serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("v3_dump.py printed {line:?}: {e}"));
            if j.get("group").is_some() {
                groups.push(j);
            } else {
                arrays.push(j);
            }
        }
        Truth { arrays, groups }
    });
    Some((dir, truth))
}

/// Copies the directory tree `from` to `to` (created).
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let p = entry.path();
        let q = to.join(entry.file_name());
        if p.is_dir() {
            copy_tree(&p, &q);
        } else {
            std::fs::copy(&p, &q).unwrap();
        }
    }
}
