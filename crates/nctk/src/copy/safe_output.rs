//! Safe output: the copy is written under a temporary name in the output's
//! directory and renamed over the output only when complete, so a failed
//! copy leaves an existing output untouched and an interrupted one never
//! leaves a file under the output's name. A store is built in a temporary
//! directory (a zip inside one, under its final file name, which NCZarr
//! zips record); an existing output is moved aside, the new one renamed
//! into place, and the old one removed.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

use super::CopyError;

/// Marks temporary names: `.<name>.nctk-copy-<pid>-<n>.part`.
const MARK: &str = ".nctk-copy-";

/// A temporary output that becomes the real one on [`commit`](Self::commit)
/// and is removed when dropped uncommitted.
#[derive(Debug)]
pub struct SafeOutput {
    target: PathBuf,
    /// The reserved temporary: a file, or a directory for stores.
    temp: PathBuf,
    /// Where the output is written: `temp` itself, or a file inside it.
    staged: PathBuf,
    committed: bool,
}

fn io<'a>(path: &'a Path, op: &'static str) -> impl FnOnce(std::io::Error) -> CopyError + 'a {
    move |source| CopyError::Io {
        path: path.display().to_string(),
        op,
        source,
    }
}

/// What the temporary is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    File,
    DirectoryStore,
    ZipStore,
}

/// A new name `.<name>.nctk-copy-<pid>-<n>.<ext>` next to `target`.
fn sibling(target: &Path, ext: &str) -> Result<PathBuf, CopyError> {
    static COUNTER: AtomicU32 = AtomicU32::new(0);
    let dir = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let name = target
        .file_name()
        .ok_or_else(|| CopyError::Option(format!("{}: not a file name", target.display())))?
        .to_string_lossy();
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    Ok(dir.join(format!(".{name}{MARK}{}-{n}.{ext}", std::process::id())))
}

fn remove_any(path: &Path) -> std::io::Result<()> {
    if path.is_dir() {
        std::fs::remove_dir_all(path)
    } else {
        std::fs::remove_file(path)
    }
}

impl SafeOutput {
    /// Reserves a new temporary file next to `target`.
    pub fn new(target: &Path) -> Result<SafeOutput, CopyError> {
        SafeOutput::reserve(target, Kind::File)
    }

    /// Reserves a temporary directory next to `target`, a directory store
    /// or (`zip`) a zip store.
    pub fn for_store(target: &Path, zip: bool) -> Result<SafeOutput, CopyError> {
        let kind = if zip {
            Kind::ZipStore
        } else {
            Kind::DirectoryStore
        };
        SafeOutput::reserve(target, kind)
    }

    fn reserve(target: &Path, kind: Kind) -> Result<SafeOutput, CopyError> {
        loop {
            let temp = sibling(target, "part")?;
            let made = if kind == Kind::File {
                std::fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .open(&temp)
                    .map(drop)
            } else {
                std::fs::create_dir(&temp)
            };
            match made {
                Ok(()) => {
                    let staged = match (kind, target.file_name()) {
                        (Kind::ZipStore, Some(name)) => temp.join(name),
                        _ => temp.clone(),
                    };
                    return Ok(SafeOutput {
                        target: target.to_path_buf(),
                        temp,
                        staged,
                        committed: false,
                    });
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(io(&temp, "create")(e)),
            }
        }
    }

    /// Where the output is written until it is committed.
    pub fn temp_path(&self) -> &Path {
        &self.staged
    }

    /// The final name.
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Makes the temporary output durable and renames it to the target. A
    /// store replacing an existing output moves the old one aside first
    /// and back if the rename fails; the old one is then removed.
    pub fn commit(mut self) -> Result<(), CopyError> {
        // A file is synced here. A store's objects are not synced one by
        // one (as netCDF-C and zarr-python): each was renamed into place
        // complete, and the store as a whole appears only by the rename
        // below, so an interrupted copy never looks complete.
        let sync = std::fs::File::open(&self.staged).and_then(|f| f.sync_all());
        if self.staged.is_file() {
            sync.map_err(io(&self.staged, "sync"))?;
        }
        let replacing = self.staged != self.temp || self.staged.is_dir();
        let old = if replacing && std::fs::symlink_metadata(&self.target).is_ok() {
            let old = sibling(&self.target, "old")?;
            std::fs::rename(&self.target, &old).map_err(io(&self.target, "rename"))?;
            Some(old)
        } else {
            None
        };
        if let Err(e) = std::fs::rename(&self.staged, &self.target) {
            if let Some(old) = &old {
                let _ = std::fs::rename(old, &self.target);
            }
            return Err(io(&self.target, "rename")(e));
        }
        self.committed = true;
        if let Some(old) = old {
            let _ = remove_any(&old);
        }
        if self.staged != self.temp {
            let _ = std::fs::remove_dir(&self.temp);
        }
        // Make the rename itself durable (best effort; not every platform
        // can open a directory).
        if let Some(dir) = self.target.parent().filter(|p| !p.as_os_str().is_empty()) {
            let _ = std::fs::File::open(dir).and_then(|d| d.sync_all());
        }
        Ok(())
    }
}

impl Drop for SafeOutput {
    fn drop(&mut self) {
        if !self.committed {
            let _ = remove_any(&self.temp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commit_renames_and_drop_removes() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.nc");
        std::fs::write(&target, b"old").unwrap();
        let out = SafeOutput::new(&target).unwrap();
        std::fs::write(out.temp_path(), b"new").unwrap();
        drop(out);
        assert_eq!(std::fs::read(&target).unwrap(), b"old");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);

        let out = SafeOutput::new(&target).unwrap();
        std::fs::write(out.temp_path(), b"new").unwrap();
        out.commit().unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"new");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn stores_replace_what_was_there_or_leave_it() {
        let dir = tempfile::tempdir().unwrap();
        let names = || {
            let mut v: Vec<String> = std::fs::read_dir(dir.path())
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            v.sort();
            v
        };
        // A directory store over an old directory.
        let target = dir.path().join("out.zarr");
        std::fs::create_dir(&target).unwrap();
        std::fs::write(target.join("old"), b"old").unwrap();
        let out = SafeOutput::for_store(&target, false).unwrap();
        std::fs::write(out.temp_path().join("new"), b"new").unwrap();
        drop(out);
        assert!(target.join("old").exists());
        assert_eq!(names(), ["out.zarr"]);
        let out = SafeOutput::for_store(&target, false).unwrap();
        std::fs::write(out.temp_path().join("new"), b"new").unwrap();
        out.commit().unwrap();
        assert!(!target.join("old").exists() && target.join("new").exists());
        assert_eq!(names(), ["out.zarr"]);
        // A zip store keeps its file name while staged; replaces a file.
        let zip = dir.path().join("out.zip");
        std::fs::write(&zip, b"old zip").unwrap();
        let out = SafeOutput::for_store(&zip, true).unwrap();
        assert_eq!(out.temp_path().file_name().unwrap(), "out.zip");
        std::fs::write(out.temp_path(), b"new zip").unwrap();
        out.commit().unwrap();
        assert_eq!(std::fs::read(&zip).unwrap(), b"new zip");
        assert_eq!(names(), ["out.zarr", "out.zip"]);
    }
}
