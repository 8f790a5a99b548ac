//! The conformance corpus: where it is, and the files under it.

use std::path::{Path, PathBuf};

/// The environment variable that points the tests at the corpus.
pub const ENV: &str = "NCTK_CORPUS";

/// Where the corpus should be: `$NCTK_CORPUS`, else `shared/corpus` beside
/// the repository (`../shared/corpus` from its root). The directory may be
/// absent; [`crate::require::corpus`] checks.
pub fn location() -> PathBuf {
    std::env::var_os(ENV)
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"))
}

/// Every file under `dir`, recursively, sorted; directories for which
/// `descend` says false are listed themselves instead of entered (a Zarr
/// store as one entry, say). Unreadable directories are passed over, so a
/// missing `dir` gives an empty list.
pub fn files_under(dir: &Path, descend: impl Fn(&Path) -> bool) -> Vec<PathBuf> {
    let mut out = vec![];
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for p in entries.flatten().map(|e| e.path()) {
            if p.is_dir() && descend(&p) {
                stack.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The walk finds every file of a tree built here, and lists a
    /// directory it may not enter as one entry.
    #[test]
    fn files_under_lists_a_built_tree() {
        let root = std::env::temp_dir().join(format!("nctk-test-support-{}", std::process::id()));
        for f in ["a/b/c.nc", "a/d.cdl", "e.zarr/.zarray", "f"] {
            let p = root.join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, b"").unwrap();
        }
        let rel = |v: Vec<PathBuf>| -> Vec<String> {
            v.iter()
                .map(|p| {
                    p.strip_prefix(&root)
                        .unwrap()
                        .to_string_lossy()
                        .into_owned()
                })
                .collect()
        };
        let all = rel(files_under(&root, |_| true));
        let stores = rel(files_under(&root, |d| {
            d.extension().is_none_or(|e| e != "zarr")
        }));
        let missing = files_under(&root.join("missing"), |_| true);
        std::fs::remove_dir_all(&root).unwrap();
        assert_eq!(all, ["a/b/c.nc", "a/d.cdl", "e.zarr/.zarray", "f"]);
        assert_eq!(stores, ["a/b/c.nc", "a/d.cdl", "e.zarr", "f"]);
        assert!(missing.is_empty());
    }
}
