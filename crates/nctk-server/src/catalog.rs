//! Which dataset a request path names: a file or store under the served
//! directory, or a dataset configured by name (`--dataset NAME=URL`).
//!
//! A path is resolved under the directory only: `..` segments, absolute
//! paths, NUL bytes and symbolic links that lead outside it (the path is
//! canonicalized and must stay under the canonical directory) are not
//! found, so nothing outside the directory is ever opened.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

use crate::error::ServeError;

/// The datasets a server answers for.
#[derive(Debug, Clone)]
pub struct Catalog {
    /// The served directory, canonical.
    root: PathBuf,
    /// Datasets served by name: the name is the whole path after
    /// `/cdmremote/`, the target anything `nctk::open` opens.
    named: BTreeMap<String, String>,
}

impl Catalog {
    /// A catalog of the datasets under `root`.
    pub fn new(root: &Path) -> Result<Catalog, ServeError> {
        let root = root.canonicalize().map_err(|source| ServeError::Root {
            path: root.to_path_buf(),
            source,
        })?;
        if !root.is_dir() {
            return Err(ServeError::Root {
                path: root,
                source: std::io::Error::other("not a directory"),
            });
        }
        Ok(Catalog {
            root,
            named: BTreeMap::new(),
        })
    }

    /// Also serves `target` (a path or URL `nctk::open` takes) as `name`.
    pub fn with_named(mut self, name: &str, target: &str) -> Catalog {
        self.named
            .insert(name.trim_matches('/').to_string(), target.to_string());
        self
    }

    /// What `nctk::open` is to open for `relative` (the percent-decoded
    /// path after `/cdmremote/`), or `None` when it names nothing served.
    pub fn resolve(&self, relative: &str) -> Option<String> {
        if let Some(target) = self.named.get(relative) {
            return Some(target.clone());
        }
        let path = self.resolve_path(relative)?;
        path.to_str().map(str::to_string)
    }

    /// The canonical path of `relative` under the root, if it exists there.
    fn resolve_path(&self, relative: &str) -> Option<PathBuf> {
        if relative.is_empty() || relative.contains('\0') || relative.starts_with('/') {
            return None;
        }
        let mut joined = self.root.clone();
        for component in Path::new(relative).components() {
            match component {
                Component::Normal(part) => joined.push(part),
                Component::CurDir => {}
                Component::ParentDir | Component::RootDir | Component::Prefix(_) => return None,
            }
        }
        let canonical = joined.canonicalize().ok()?;
        canonical.starts_with(&self.root).then_some(canonical)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_stay_under_the_root() {
        let outer = tempfile::tempdir().unwrap();
        let root = outer.path().join("served");
        std::fs::create_dir_all(root.join("sub")).unwrap();
        std::fs::write(root.join("sub/a.nc"), b"x").unwrap();
        std::fs::write(outer.path().join("secret.nc"), b"x").unwrap();
        std::os::unix::fs::symlink(outer.path().join("secret.nc"), root.join("out.nc")).unwrap();
        std::os::unix::fs::symlink(root.join("sub/a.nc"), root.join("in.nc")).unwrap();
        let catalog = Catalog::new(&root)
            .unwrap()
            .with_named("remote/x", "s3://b/x.zarr");

        assert!(catalog.resolve("sub/a.nc").unwrap().ends_with("sub/a.nc"));
        assert!(catalog.resolve("./sub/a.nc").is_some());
        assert!(catalog.resolve("in.nc").unwrap().ends_with("sub/a.nc"));
        assert_eq!(
            catalog.resolve("remote/x").as_deref(),
            Some("s3://b/x.zarr")
        );
        for outside in [
            "../secret.nc",
            "sub/../../secret.nc",
            "out.nc",
            "/etc/passwd",
            "sub/missing.nc",
            "",
            "sub/a.nc\0",
        ] {
            assert_eq!(catalog.resolve(outside), None, "{outside:?}");
        }
        // `..` is refused even when it would land back inside.
        assert_eq!(catalog.resolve("sub/../sub/a.nc"), None);
    }
}
