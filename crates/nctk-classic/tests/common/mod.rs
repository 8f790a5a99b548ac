//! Helpers shared by the integration tests: classic files of the corpus
//! and the Python peer (the corpus and the peer checks are in
//! `nctk_test_support`).
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use nctk_test_support::{corpus::files_under, peer};

/// Every file under `dir` (recursively) whose first bytes are `CDF`.
pub fn classic_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = files_under(dir, |_| true);
    out.retain(|p| {
        let mut magic = [0u8; 3];
        p.extension().is_some_and(|x| x == "nc")
            && std::fs::File::open(p)
                .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut magic))
                .is_ok()
            && &magic == b"CDF"
    });
    out
}

/// Compiles the C peer `tests/peer/NAME.c` against libnetcdf into `dir`;
/// `None` (after `nctk_test_support::require`) when `cc` or `nc-config` is
/// absent.
#[track_caller]
pub fn c_peer(name: &str, dir: &Path) -> Option<PathBuf> {
    if !nctk_test_support::require::tools(&["cc", "nc-config"]) {
        return None;
    }
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/peer/{name}.c"));
    let exe = peer::build_c_peer(&src, &dir.join(name));
    Some(exe.unwrap_or_else(|| panic!("compile {} against libnetcdf", src.display())))
}

/// The Python modules [`python_dump`] needs.
pub const PYTHON_DUMP_NEEDS: &[&str] = &["netCDF4", "numpy"];

/// Runs the netCDF4 dump script on `files`; returns its JSON.
pub fn python_dump(files: &[PathBuf]) -> serde_json::Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peer/dump_nc.py");
    let args = std::iter::once(script.as_os_str()).chain(files.iter().map(|f| f.as_os_str()));
    let out = peer::run("python3", args).unwrap_or_else(|e| panic!("{e}"));
    serde_json::from_str(&out).expect("json")
}

/// Lower-case hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
