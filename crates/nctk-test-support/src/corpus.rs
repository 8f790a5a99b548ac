//! The conformance corpus: where it is, and the files under it.

use std::path::{Path, PathBuf};

/// The environment variable that points the tests at the corpus.
pub const ENV: &str = "NCTK_CORPUS";

/// The environment variable that turns the slow sweeps' corpus samples
/// back into full sweeps: `NCTK_FULL_SWEEP=1` (any value but empty or
/// `0`). CI runs the samples; see docs/status.md.
pub const FULL_SWEEP_ENV: &str = "NCTK_FULL_SWEEP";

/// The suffixes of the classic files ncgen wrote from one CDL under
/// `generated/from-cdl`: `X.nc3.nc` (CDF-1), `X.nc5.nc` (CDF-5) and
/// `X.nc6.nc` (CDF-2), one model in three kinds.
const KIND_SUFFIXES: &[&str] = &[".nc3.nc", ".nc5.nc", ".nc6.nc"];

/// The suffixes of the stores ncgen wrote from one CDL under
/// `generated/from-cdl`: `X.nczarr` (NCZarr) and `X.zarr` (Zarr with
/// NCZarr's attributes), one model in two layouts.
const LAYOUT_SUFFIXES: &[&str] = &[".nczarr", ".zarr"];

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

/// True when [`FULL_SWEEP_ENV`] asks for the full corpus sweeps.
pub fn full_sweep() -> bool {
    std::env::var_os(FULL_SWEEP_ENV).is_some_and(|v| !v.is_empty() && v != "0")
}

/// Of each family of classic files ncgen wrote from one CDL in several
/// kinds (`X.nc3.nc`, `X.nc5.nc`, `X.nc6.nc`: the same model), the one
/// member whose turn it is: the first family (in `items`' order) keeps
/// its first member, the second its second, and so on round, so every
/// kind is still a source and every CDL's model is still there. Every
/// other item is kept, in order. Under [`full_sweep`] all are kept.
pub fn one_kind_per_cdl<T>(items: Vec<T>, path: impl Fn(&T) -> &Path) -> Vec<T> {
    if full_sweep() {
        items
    } else {
        one_of_each_family(items, path, KIND_SUFFIXES)
    }
}

/// [`one_kind_per_cdl`] for the stores ncgen wrote from one CDL in both
/// layouts (`X.nczarr`, `X.zarr`): one of each pair, the layouts in turn.
pub fn one_layout_per_cdl<T>(items: Vec<T>, path: impl Fn(&T) -> &Path) -> Vec<T> {
    if full_sweep() {
        items
    } else {
        one_of_each_family(items, path, LAYOUT_SUFFIXES)
    }
}

/// The sample of [`one_kind_per_cdl`] and [`one_layout_per_cdl`], whatever
/// the environment says: a family is the items whose paths are one stem
/// with each of `suffixes`.
fn one_of_each_family<T>(items: Vec<T>, path: impl Fn(&T) -> &Path, suffixes: &[&str]) -> Vec<T> {
    // Each family's members (indices into `items`), in order of first
    // appearance.
    let mut families: Vec<(&str, Vec<usize>)> = vec![];
    for (i, item) in items.iter().enumerate() {
        if let Some(s) = stem(path(item), suffixes) {
            match families.iter_mut().find(|(f, _)| *f == s) {
                Some((_, members)) => members.push(i),
                None => families.push((s, vec![i])),
            }
        }
    }
    let kept: std::collections::HashSet<usize> = families
        .iter()
        .enumerate()
        .map(|(n, (_, members))| members[n % members.len()])
        .collect();
    let dropped: std::collections::HashSet<usize> = families
        .iter()
        .flat_map(|(_, members)| members.iter().copied())
        .filter(|i| !kept.contains(i))
        .collect();
    items
        .into_iter()
        .enumerate()
        .filter(|(i, _)| !dropped.contains(i))
        .map(|(_, item)| item)
        .collect()
}

/// `path` without the one of `suffixes` it ends with.
fn stem<'a>(path: &'a Path, suffixes: &[&str]) -> Option<&'a str> {
    let p = path.to_str()?;
    suffixes.iter().find_map(|k| p.strip_suffix(k))
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

    /// One member of each family, the kinds taken in turn; files of no
    /// family (a family's other files included) are all kept.
    #[test]
    fn one_of_each_family_takes_the_kinds_and_layouts_in_turn() {
        let items: Vec<PathBuf> = [
            "g/a.nc3.nc",
            "g/a.nc3.nc.cdl.expected",
            "g/a.nc5.nc",
            "g/a.nc6.nc",
            "g/b.nc3.nc",
            "g/b.nc5.nc",
            "g/b.nc6.nc",
            "g/c.nc5.nc",
            "g/d.nc3.nc",
            "g/d.nc5.nc",
            "g/d.nc6.nc",
            "other/x.nc",
        ]
        .iter()
        .map(PathBuf::from)
        .collect();
        let kept = one_of_each_family(items, |p| p.as_path(), KIND_SUFFIXES);
        let kept: Vec<&str> = kept.iter().map(|p| p.to_str().unwrap()).collect();
        assert_eq!(
            kept,
            [
                "g/a.nc3.nc",
                "g/a.nc3.nc.cdl.expected",
                "g/b.nc5.nc",
                "g/c.nc5.nc",
                "g/d.nc3.nc",
                "other/x.nc"
            ]
        );
        let stores: Vec<PathBuf> = [
            "s/a.nczarr",
            "s/a.zarr",
            "s/b.nczarr",
            "s/b.zarr",
            "s/c.zarr",
        ]
        .iter()
        .map(PathBuf::from)
        .collect();
        let kept = one_of_each_family(stores, |p| p.as_path(), LAYOUT_SUFFIXES);
        assert_eq!(
            kept,
            ["s/a.nczarr", "s/b.zarr", "s/c.zarr"].map(PathBuf::from)
        );
    }
}
