//! Safe output: the copy is written under a temporary name in the output's
//! directory and renamed over the output only when complete, so a failed
//! copy leaves an existing output untouched and an interrupted one never
//! leaves a file under the output's name. A store is built in a temporary
//! directory (a zip inside one, under its final file name, which NCZarr
//! zips record); an existing output is moved aside, the new one renamed
//! into place, and the old one removed. Only a file, or for a directory
//! store a Zarr/NCZarr store (or an empty directory), is ever replaced.
//!
//! Every live temporary is listed in a process-wide registry, so that a
//! signal handler can remove them all ([`remove_local_temporaries`]); one left
//! by a process that no longer runs (killed with SIGKILL) is removed by
//! the next output reserved beside it.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use nctk_model::SourceError;

use super::OutputError;
use crate::door::STORE_MARKERS;

/// Marks temporary names: `.<name>.nctk-tmp-<pid>-<n>.part` (`.old` for an
/// output moved aside while its replacement is renamed in).
const MARK: &str = ".nctk-tmp-";

/// The mark earlier versions used (for `nctk copy` only), still recognised.
const OLD_MARK: &str = ".nctk-copy-";

/// The temporaries of this process not yet committed or removed.
static LIVE: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn live() -> MutexGuard<'static, Vec<PathBuf>> {
    LIVE.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Removes every local temporary output of this process, for a handler of
/// SIGINT or SIGTERM that then exits. Writer threads may still be creating
/// files in a temporary directory, so removal is retried until the
/// temporary has stayed gone for a moment (or a few seconds have passed).
/// Outputs being renamed into place finish first.
pub(crate) fn remove_local_temporaries() {
    let live = live();
    for temp in live.iter() {
        for _ in 0..200 {
            let _ = remove_any(temp);
            std::thread::sleep(Duration::from_millis(10));
            if std::fs::symlink_metadata(temp).is_err() {
                break;
            }
        }
    }
}

/// A temporary output that becomes the real one on [`commit`](Self::commit)
/// and is removed when dropped uncommitted.
#[derive(Debug)]
pub struct SafeOutput {
    /// The output as named (errors name it).
    target: PathBuf,
    /// The path the output replaces: `target`, or the file or directory
    /// its symbolic links lead to (written through, as netCDF-C does).
    destination: PathBuf,
    /// The reserved temporary: a file, or a directory for stores.
    temp: PathBuf,
    /// Where the output is written: `temp` itself, or a file inside it.
    staged: PathBuf,
    committed: bool,
}

fn io<'a>(path: &'a Path, op: &'static str) -> impl FnOnce(std::io::Error) -> OutputError + 'a {
    move |source| OutputError::Io {
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

/// The directory `target` is in.
fn parent_dir(target: &Path) -> &Path {
    match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

fn file_name(target: &Path) -> Result<String, OutputError> {
    target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .ok_or_else(|| OutputError::NotAFileName(target.display().to_string()))
}

/// A new name `.<name>.nctk-tmp-<pid>-<n>.<ext>` next to `target`.
fn sibling(target: &Path, ext: &str) -> Result<PathBuf, OutputError> {
    static COUNTER: AtomicU32 = AtomicU32::new(0);
    let name = file_name(target)?;
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    Ok(parent_dir(target).join(format!(".{name}{MARK}{}-{n}.{ext}", std::process::id())))
}

/// The process id and extension in a temporary name made for `name`
/// (by [`sibling`], or with the old mark).
fn parse_sibling<'a>(name: &str, entry: &'a str) -> Option<(u32, &'a str)> {
    let rest = entry.strip_prefix('.')?.strip_prefix(name)?;
    let rest = rest
        .strip_prefix(MARK)
        .or_else(|| rest.strip_prefix(OLD_MARK))?;
    let (pid, rest) = rest.split_once('-')?;
    let (n, ext) = rest.split_once('.')?;
    n.parse::<u32>().ok()?;
    Some((pid.parse().ok()?, ext))
}

/// Whether process `pid` is running. Without `/proc` every process counts
/// as running, so nothing is removed.
fn is_running(pid: u32) -> bool {
    !Path::new("/proc/self").exists() || Path::new("/proc").join(pid.to_string()).exists()
}

/// Removes temporaries for `target` left by processes that no longer run;
/// an output left moved aside (`.old`) is moved back when nothing took its
/// place.
fn remove_stale(target: &Path) -> Result<(), OutputError> {
    let name = file_name(target)?;
    let dir = parent_dir(target);
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(());
    };
    for entry in entries.flatten() {
        let entry_name = entry.file_name().to_string_lossy().into_owned();
        let Some((pid, ext)) = parse_sibling(&name, &entry_name) else {
            continue;
        };
        if pid == std::process::id() || is_running(pid) {
            continue;
        }
        let path = entry.path();
        if ext == "old" && std::fs::symlink_metadata(target).is_err() {
            std::fs::rename(&path, target).map_err(io(target, "restore"))?;
        } else if ext == "part" || ext == "old" {
            remove_any(&path).map_err(io(&path, "remove stale temporary"))?;
        }
    }
    Ok(())
}

/// The path `target`'s symbolic links lead to (`target` itself when it is
/// not one); a link that leads nowhere yet leads to the path it names, as
/// a file created through it would be. At most 40 links are followed.
fn through_links(target: &Path) -> PathBuf {
    let mut path = target.to_path_buf();
    for _ in 0..40 {
        let Ok(link) = std::fs::read_link(&path) else {
            break;
        };
        path = parent_dir(&path).join(link);
    }
    path
}

/// Whether `dir` holds Zarr/NCZarr metadata at its top.
fn is_store_dir(dir: &Path) -> bool {
    STORE_MARKERS.iter().any(|m| dir.join(m).is_file())
}

/// Refuses to replace a directory that is not a store by a store, any
/// directory by a file, or a device, FIFO or socket by anything.
fn check_replaceable(target: &Path, destination: &Path, kind: Kind) -> Result<(), OutputError> {
    let refuse = |reason: &str| {
        Err(OutputError::Io {
            path: target.display().to_string(),
            op: "not replacing it",
            source: std::io::Error::new(std::io::ErrorKind::AlreadyExists, reason),
        })
    };
    let Ok(meta) = std::fs::metadata(destination) else {
        return Ok(());
    };
    if meta.is_file() {
        return Ok(());
    }
    if !meta.is_dir() {
        // A device or FIFO: renaming the finished temporary over it would
        // replace the node itself (as root, /dev/null with a file).
        return refuse(
            "it is a device, FIFO or socket, not a regular file, and nctk writes its output \
             under a temporary name beside it and renames it into place; name a file",
        );
    }
    let empty = std::fs::read_dir(destination).is_ok_and(|mut d| d.next().is_none());
    let reason = match kind {
        Kind::DirectoryStore if empty || is_store_dir(destination) => return Ok(()),
        Kind::DirectoryStore => {
            "it is a directory but not a Zarr/NCZarr store (no .zgroup, .zarray, .zattrs, \
             .zmetadata, .nczarr or zarr.json at its top); remove it or name another output"
        }
        Kind::File | Kind::ZipStore => {
            "it is a directory, and the output is a single file; remove it or name another output"
        }
    };
    refuse(reason)
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
    pub fn new(target: &Path) -> Result<SafeOutput, OutputError> {
        SafeOutput::reserve(target, Kind::File)
    }

    /// Reserves a temporary directory next to `target`, a directory store
    /// or (`zip`) a zip store.
    pub fn for_store(target: &Path, zip: bool) -> Result<SafeOutput, OutputError> {
        let kind = if zip {
            Kind::ZipStore
        } else {
            Kind::DirectoryStore
        };
        SafeOutput::reserve(target, kind)
    }

    /// The output written where it is (an existing file opened to
    /// append): no temporary, nothing to rename or remove; errors name it.
    pub fn in_place(target: &Path) -> SafeOutput {
        SafeOutput {
            target: target.to_path_buf(),
            destination: target.to_path_buf(),
            temp: target.to_path_buf(),
            staged: target.to_path_buf(),
            committed: true,
        }
    }

    fn reserve(target: &Path, kind: Kind) -> Result<SafeOutput, OutputError> {
        let destination = through_links(target);
        check_replaceable(target, &destination, kind)?;
        remove_stale(&destination)?;
        loop {
            let temp = sibling(&destination, "part")?;
            // Registered as it is made: a signal handler sees it or waits.
            let mut live = live();
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
                    live.push(temp.clone());
                    let staged = match (kind, target.file_name()) {
                        (Kind::ZipStore, Some(name)) => temp.join(name),
                        _ => temp.clone(),
                    };
                    return Ok(SafeOutput {
                        target: target.to_path_buf(),
                        destination,
                        temp,
                        staged,
                        committed: false,
                    });
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(io(target, "create")(e)),
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

    /// An error met while writing the temporary, told of the target: the
    /// temporary's name replaced by the target's, the target named once and
    /// `var`, when given, named unless the message already does.
    pub fn blame(&self, var: Option<&str>, source: SourceError) -> OutputError {
        let target = self.target.display().to_string();
        let told = source.to_string();
        let message = told
            .replace(&self.staged.display().to_string(), &target)
            .replace(&self.temp.display().to_string(), &target);
        let names_target = message.starts_with(&target);
        // The error keeps its structure (its kind, its sources); only a
        // message naming the temporary is retold.
        let source: SourceError = if message == told {
            source
        } else {
            Retold {
                message,
                original: source,
            }
            .into()
        };
        match var {
            Some(var) if !names_target => OutputError::Write {
                path: target,
                var: var.to_string(),
                source,
            },
            _ => OutputError::Output {
                path: target,
                source,
            },
        }
    }

    /// Makes the temporary output durable and renames it to the target. A
    /// store replacing an existing output moves the old one aside first
    /// and back if the rename fails; the old one is then removed.
    pub fn commit(mut self) -> Result<(), OutputError> {
        if self.committed {
            // Written in place: nothing to rename.
            return Ok(());
        }
        // A file is synced here. A store's objects are not synced one by
        // one (as netCDF-C and zarr-python): each was renamed into place
        // complete, and the store as a whole appears only by the rename
        // below, so an interrupted copy never looks complete.
        let sync = std::fs::File::open(&self.staged).and_then(|f| f.sync_all());
        if self.staged.is_file() {
            sync.map_err(io(&self.target, "sync"))?;
        }
        // A signal handler waits for the renames below.
        let mut live = live();
        let replacing = self.staged != self.temp || self.staged.is_dir();
        let old = if replacing && std::fs::symlink_metadata(&self.destination).is_ok() {
            let old = sibling(&self.destination, "old")?;
            std::fs::rename(&self.destination, &old).map_err(io(&self.target, "rename"))?;
            Some(old)
        } else {
            None
        };
        if let Err(e) = std::fs::rename(&self.staged, &self.destination) {
            if let Some(old) = &old {
                let _ = std::fs::rename(old, &self.destination);
            }
            return Err(io(&self.target, "rename")(e));
        }
        self.committed = true;
        live.retain(|t| *t != self.temp);
        if let Some(old) = old {
            let _ = remove_any(&old);
        }
        if self.staged != self.temp {
            let _ = std::fs::remove_dir(&self.temp);
        }
        // Make the rename itself durable (best effort; not every platform
        // can open a directory).
        if let Some(dir) = (self.destination.parent()).filter(|p| !p.as_os_str().is_empty()) {
            let _ = std::fs::File::open(dir).and_then(|d| d.sync_all());
        }
        Ok(())
    }
}

impl Drop for SafeOutput {
    fn drop(&mut self) {
        if !self.committed {
            let mut live = live();
            let _ = remove_any(&self.temp);
            live.retain(|t| *t != self.temp);
        }
    }
}

/// Writes a whole file at `target` under a temporary name beside it,
/// renamed over the target only when `write` has written it all (the
/// outputs of `nctk refs`); an error from `write` or from the file system
/// removes the temporary and names the target.
pub fn write_file_safely(
    target: &Path,
    write: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> Result<(), OutputError> {
    let safe = SafeOutput::new(target)?;
    let file = std::fs::OpenOptions::new()
        .write(true)
        .truncate(true)
        .open(safe.temp_path())
        .map_err(io(target, "create"))?;
    let mut out = std::io::BufWriter::new(file);
    write(&mut out)
        .and_then(|()| std::io::Write::flush(&mut out))
        .map_err(io(target, "write"))?;
    drop(out);
    safe.commit()
}

/// Builds a whole directory at `target` (a store, or an Icechunk
/// repository or kerchunk's Parquet references of `nctk refs`) in a
/// temporary directory beside it, renamed into place only when `write` has
/// filled it; as for a directory store, only a Zarr-like directory (or an
/// empty one) is ever replaced. An error from `write` (of the caller's
/// error type, into which the file system's errors here convert; it names
/// the target) removes the temporary; otherwise `write`'s result is
/// returned.
pub fn write_dir_safely<T, E: From<OutputError>>(
    target: &Path,
    write: impl FnOnce(&Path) -> Result<T, E>,
) -> Result<T, E> {
    let safe = SafeOutput::for_store(target, false)?;
    let made = write(safe.temp_path())?;
    safe.commit()?;
    Ok(made)
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
    fn temporary_names_are_recognised() {
        assert_eq!(
            parse_sibling("a.nc", ".a.nc.nctk-tmp-12-3.part"),
            Some((12, "part"))
        );
        assert_eq!(
            parse_sibling("a.nc", ".a.nc.nctk-copy-7-0.old"),
            Some((7, "old"))
        );
        assert_eq!(parse_sibling("a.nc", ".b.nc.nctk-tmp-12-3.part"), None);
        assert_eq!(parse_sibling("a.nc", ".a.nc.nctk-tmp-x-3.part"), None);
        let t = sibling(Path::new("d/a.nc"), "part").unwrap();
        let name = t.file_name().unwrap().to_string_lossy().into_owned();
        assert_eq!(
            parse_sibling("a.nc", &name),
            Some((std::process::id(), "part"))
        );
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
        // A directory store over an old directory: refused until the old
        // one is a store.
        let target = dir.path().join("out.zarr");
        std::fs::create_dir(&target).unwrap();
        std::fs::write(target.join("old"), b"old").unwrap();
        let refused = SafeOutput::for_store(&target, false).unwrap_err();
        assert!(refused.to_string().contains("not a Zarr/NCZarr store"));
        assert!(SafeOutput::new(&target).is_err());
        assert_eq!(names(), ["out.zarr"]);
        std::fs::write(target.join(".zgroup"), b"{}").unwrap();
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

/// An error whose message named a temporary, told again of the target;
/// the original error is its source, so its kind and causes stay readable.
#[derive(Debug)]
struct Retold {
    message: String,
    original: SourceError,
}

impl std::fmt::Display for Retold {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Retold {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.original)
    }
}

impl nctk_model::HasErrorKind for Retold {
    fn kind(&self) -> nctk_model::ErrorKind {
        self.original.kind()
    }
}
