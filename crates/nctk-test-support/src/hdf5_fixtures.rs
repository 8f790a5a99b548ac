//! The HDF5 / netCDF-4 fixtures: files written by h5py, netCDF4-python,
//! h5netcdf and xarray, each beside the truth its writing library reads
//! back (`crates/nctk-hdf5/tests/fixtures/make_fixtures.py` documents
//! both), generated once per test process into a temporary directory.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::{peer, require};

/// The generator, run by `python3`.
const SCRIPT: &str = include_str!("../../nctk-hdf5/tests/fixtures/make_fixtures.py");

/// The Python modules the generator imports.
pub const MODULES: &[&str] = &[
    "h5py",
    "hdf5plugin",
    "netCDF4",
    "h5netcdf",
    "xarray",
    "numpy",
];

/// The generated fixtures.
#[derive(Debug)]
pub struct Hdf5Fixtures {
    /// The directory holding them.
    pub dir: PathBuf,
    /// Every fixture, sorted by name.
    pub fixtures: Vec<Fixture>,
    /// hdf5plugin's plugin directory: `HDF5_PLUGIN_PATH` for a netCDF-C
    /// peer reading the fixtures written with hdf5plugin's filters.
    pub plugin_path: PathBuf,
}

/// One fixture: a file and the truth beside it.
#[derive(Debug, Clone)]
pub struct Fixture {
    /// The fixture's name (the file name without its extension).
    pub name: String,
    /// The HDF5 file.
    pub file: PathBuf,
    /// The JSON truth: what the writing library reads back.
    pub truth: PathBuf,
}

/// The fixtures, generated on the first call in this process; `None` after
/// [`require::missing`] when `python3` or one of [`MODULES`] is absent. A
/// generator that fails panics with its stderr.
#[track_caller]
pub fn hdf5_fixtures() -> Option<&'static Hdf5Fixtures> {
    if !require::python(MODULES) {
        return None;
    }
    static FIXTURES: OnceLock<Hdf5Fixtures> = OnceLock::new();
    Some(FIXTURES.get_or_init(|| {
        let tmp = std::env::temp_dir();
        remove_stale(&tmp);
        let dir = tmp.join(format!("{PREFIX}{}", std::process::id()));
        generate(&dir).unwrap_or_else(|e| panic!("make_fixtures.py into {}: {e}", dir.display()))
    }))
}

/// The name of a process's fixture directory, before its process id.
const PREFIX: &str = "nctk-hdf5-fixtures-";

/// Removes the fixture directories of test processes that have ended (on
/// Linux, where `/proc` says which are alive).
fn remove_stale(tmp: &Path) {
    if !cfg!(target_os = "linux") {
        return;
    }
    let Ok(entries) = std::fs::read_dir(tmp) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(pid) = name.strip_prefix(PREFIX) else {
            continue;
        };
        if pid.parse::<u32>().is_ok() && !Path::new("/proc").join(pid).exists() {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// Runs the generator into `dir` (emptied first) and lists what it wrote.
fn generate(dir: &Path) -> Result<Hdf5Fixtures, Box<dyn std::error::Error>> {
    if dir.exists() {
        std::fs::remove_dir_all(dir)?;
    }
    peer::python(SCRIPT, [dir])?;
    let plugin_path = PathBuf::from(std::fs::read_to_string(dir.join("HDF5_PLUGIN_PATH"))?);
    let mut fixtures = vec![];
    for entry in std::fs::read_dir(dir)? {
        let file = entry?.path();
        let is_data = file.extension().is_some_and(|e| e == "h5" || e == "nc");
        if !is_data {
            continue;
        }
        let truth = file.with_extension("json");
        if !truth.is_file() {
            return Err(format!("{} has no truth beside it", file.display()).into());
        }
        let name = file
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        fixtures.push(Fixture { name, file, truth });
    }
    fixtures.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(Hdf5Fixtures {
        dir: dir.to_path_buf(),
        fixtures,
        plugin_path,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The generator writes files whose first bytes are the HDF5
    /// signature (as the HDF5 format specification defines it), each with
    /// its truth, covering every writer it names.
    #[test]
    fn fixtures_are_hdf5_files_with_truths() {
        let Some(fx) = hdf5_fixtures() else { return };
        assert!(fx.fixtures.len() >= 10, "{fx:?}");
        for f in &fx.fixtures {
            let head = std::fs::read(&f.file).unwrap();
            assert_eq!(&head[..8], b"\x89HDF\r\n\x1a\n", "{}", f.file.display());
            let truth = std::fs::read_to_string(&f.truth).unwrap();
            assert!(truth.contains("\"variables\""), "{}", f.truth.display());
        }
        for writer in ["h5py", "netCDF4", "h5netcdf", "xarray"] {
            assert!(
                fx.fixtures.iter().any(|f| std::fs::read_to_string(&f.truth)
                    .unwrap()
                    .contains(&format!("\"writer\": \"{writer}\""))),
                "no fixture written by {writer}"
            );
        }
        assert!(fx.plugin_path.is_dir(), "{}", fx.plugin_path.display());
    }
}
