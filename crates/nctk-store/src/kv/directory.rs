use std::fs;
use std::io::{ErrorKind, Read, Seek, SeekFrom, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use bytes::Bytes;

use super::{
    Capabilities, ListableStore, Listing, ReadableStore, StoreError, StoreKey, StorePrefix,
    WritableStore,
};

/// Name prefix of the temporary files `put` writes before renaming them;
/// listings skip such files.
const TEMP_PREFIX: &str = ".nctk-tmp-";

static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// How many reads [`DirectoryStore::get_many`](ReadableStore::get_many) keeps
/// in flight: enough to cover a network file system's latency, independent
/// of the core count (the threads wait on I/O, not on the CPU).
const GET_MANY_CONCURRENCY: usize = 16;

/// A store kept as a directory tree: key `a/b/c` is the file `<root>/a/b/c`.
///
/// Only files are objects; directories are implied. `put` writes a
/// temporary file next to the target and renames it into place, so readers
/// (and a process killed mid-write) never see half-written objects. Objects
/// are not flushed to disk one by one (`fsync`), as neither netCDF-C nor
/// zarr-python does: a copy's durability comes from its temporary-name and
/// rename protocol, and per-object syncs cost a third of an uncompressed
/// copy. `delete` removes directories left empty,
/// up to (not including) the root. This is netCDF-C's `file` storage
/// (`#mode=...,file`) and zarr-python's `DirectoryStore`.
#[derive(Debug, Clone)]
pub struct DirectoryStore {
    root: PathBuf,
}

impl DirectoryStore {
    /// A store rooted at `root`, which need not exist yet (it is created
    /// by the first `put`).
    pub fn new(root: impl Into<PathBuf>) -> DirectoryStore {
        DirectoryStore { root: root.into() }
    }

    /// A store rooted at `root`, creating the directory (and its parents)
    /// when missing.
    pub fn create(root: impl Into<PathBuf>) -> Result<DirectoryStore, StoreError> {
        let root = root.into();
        fs::create_dir_all(&root)
            .map_err(|e| StoreError::io(root.display().to_string(), "create", e))?;
        Ok(DirectoryStore { root })
    }

    /// A store rooted at an existing directory.
    pub fn open(root: impl Into<PathBuf>) -> Result<DirectoryStore, StoreError> {
        let root = root.into();
        let meta = fs::metadata(&root)
            .map_err(|e| StoreError::io(root.display().to_string(), "open", e))?;
        if !meta.is_dir() {
            return Err(StoreError::io(
                root.display().to_string(),
                "open",
                std::io::Error::other("not a directory"),
            ));
        }
        Ok(DirectoryStore { root })
    }

    /// The root directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    fn path_of<'a>(&self, segments: impl Iterator<Item = &'a str>) -> PathBuf {
        let mut p = self.root.clone();
        p.extend(segments);
        p
    }
}

/// True for errors meaning "there is no file here": not found, or a path
/// component is a file, or the path is a directory.
fn is_absent(e: &std::io::Error) -> bool {
    if e.kind() == ErrorKind::NotFound {
        return true;
    }
    // ENOTDIR (20) and EISDIR (21) on Unix: the key names a directory or
    // passes through a file; neither is a content-bearing object.
    #[cfg(unix)]
    if matches!(e.raw_os_error(), Some(20) | Some(21)) {
        return true;
    }
    false
}

impl ReadableStore for DirectoryStore {
    fn get(&self, key: &StoreKey) -> Result<Option<Bytes>, StoreError> {
        let path = self.path_of(key.segments());
        if path.is_dir() {
            return Ok(None);
        }
        match fs::read(&path) {
            Ok(v) => Ok(Some(Bytes::from(v))),
            Err(e) if is_absent(&e) => Ok(None),
            Err(e) => Err(StoreError::io(key.as_str(), "read", e)),
        }
    }

    fn get_range(&self, key: &StoreKey, range: Range<u64>) -> Result<Option<Bytes>, StoreError> {
        let path = self.path_of(key.segments());
        if path.is_dir() {
            return Ok(None);
        }
        let mut f = match fs::File::open(&path) {
            Ok(f) => f,
            Err(e) if is_absent(&e) => return Ok(None),
            Err(e) => return Err(StoreError::io(key.as_str(), "open", e)),
        };
        let len = f
            .metadata()
            .map_err(|e| StoreError::io(key.as_str(), "stat", e))?
            .len();
        if range.start > range.end || range.end > len {
            return Err(StoreError::RangeOutOfBounds {
                key: key.to_string(),
                start: range.start,
                end: range.end,
                len,
            });
        }
        let n = usize::try_from(range.end - range.start).map_err(|_| StoreError::TooLarge {
            key: key.to_string(),
            len: range.end - range.start,
        })?;
        // Read into spare capacity (not a zeroed buffer): the range was
        // checked against the file's length, so `n` bytes are there.
        let mut buf = Vec::with_capacity(n);
        f.seek(SeekFrom::Start(range.start))
            .and_then(|_| (&mut f).take(n as u64).read_to_end(&mut buf))
            .map_err(|e| StoreError::io(key.as_str(), "read", e))?;
        if buf.len() != n {
            return Err(StoreError::RangeOutOfBounds {
                key: key.to_string(),
                start: range.start,
                end: range.end,
                len: range.start + buf.len() as u64,
            });
        }
        Ok(Some(Bytes::from(buf)))
    }

    /// Reads the objects on up to 16 threads of its own (not rayon's, so the
    /// reads in flight are not capped at the core count).
    fn get_many(&self, keys: &[StoreKey]) -> Result<Vec<Option<Bytes>>, StoreError> {
        let workers = GET_MANY_CONCURRENCY.min(keys.len());
        if workers <= 1 {
            return keys.iter().map(|k| self.get(k)).collect();
        }
        let next = AtomicUsize::new(0);
        let mut results: Vec<(usize, Result<Option<Bytes>, StoreError>)> =
            std::thread::scope(|s| {
                let handles: Vec<_> = (0..workers)
                    .map(|_| {
                        s.spawn(|| {
                            let mut mine = Vec::new();
                            loop {
                                let i = next.fetch_add(1, Ordering::Relaxed);
                                let Some(k) = keys.get(i) else { break mine };
                                mine.push((i, self.get(k)));
                            }
                        })
                    })
                    .collect();
                handles
                    .into_iter()
                    .flat_map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                    .collect()
            });
        results.sort_by_key(|(i, _)| *i);
        results.into_iter().map(|(_, r)| r).collect()
    }

    fn size(&self, key: &StoreKey) -> Result<Option<u64>, StoreError> {
        match fs::metadata(self.path_of(key.segments())) {
            Ok(m) if m.is_file() => Ok(Some(m.len())),
            Ok(_) => Ok(None),
            Err(e) if is_absent(&e) => Ok(None),
            Err(e) => Err(StoreError::io(key.as_str(), "stat", e)),
        }
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities {
            partial_reads: true,
            listable: true,
            writable: true,
            write_once: false,
            fetch_ahead: false,
        }
    }
}

impl ListableStore for DirectoryStore {
    fn list_dir(&self, prefix: &StorePrefix) -> Result<Listing, StoreError> {
        let dir = self.path_of(prefix.segments());
        let entries = match fs::read_dir(&dir) {
            Ok(it) => it,
            Err(e) if is_absent(&e) => return Ok(Listing::default()),
            Err(e) => return Err(StoreError::io(prefix.to_string(), "list", e)),
        };
        let mut out = Listing::default();
        for entry in entries {
            let entry = entry.map_err(|e| StoreError::io(prefix.to_string(), "list", e))?;
            // Names that are not UTF-8 or not valid key segments can never
            // be asked for, so they are not part of the store.
            let Ok(name) = entry.file_name().into_string() else {
                continue;
            };
            if name.starts_with(TEMP_PREFIX) {
                continue;
            }
            let file_type = entry
                .file_type()
                .map_err(|e| StoreError::io(prefix.to_string(), "list", e))?;
            // Follow symbolic links to decide file versus directory.
            let is_dir = if file_type.is_symlink() {
                entry.path().is_dir()
            } else {
                file_type.is_dir()
            };
            if is_dir {
                if let Ok(p) = prefix.child(&name) {
                    out.prefixes.push(p);
                }
            } else if let Ok(k) = prefix.key(&name) {
                out.keys.push(k);
            }
        }
        out.normalize();
        Ok(out)
    }
}

impl WritableStore for DirectoryStore {
    fn put(&self, key: &StoreKey, value: Bytes) -> Result<(), StoreError> {
        let path = self.path_of(key.segments());
        let dir = path.parent().unwrap_or(&self.root).to_path_buf();
        fs::create_dir_all(&dir)
            .map_err(|e| StoreError::io(key.as_str(), "create directory", e))?;
        let tmp = dir.join(format!(
            "{TEMP_PREFIX}{}-{}",
            std::process::id(),
            TEMP_COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        let write = || -> std::io::Result<()> {
            let mut f = fs::File::create(&tmp)?;
            f.write_all(&value)?;
            drop(f);
            fs::rename(&tmp, &path)
        };
        if let Err(e) = write() {
            let _ = fs::remove_file(&tmp);
            return Err(StoreError::io(key.as_str(), "write", e));
        }
        Ok(())
    }

    fn delete(&self, key: &StoreKey) -> Result<(), StoreError> {
        let path = self.path_of(key.segments());
        match fs::remove_file(&path) {
            Ok(()) => {}
            Err(e) if is_absent(&e) => return Ok(()),
            Err(e) => return Err(StoreError::io(key.as_str(), "delete", e)),
        }
        // Prune directories left empty, stopping at the root or at the
        // first directory that still holds something.
        let mut dir = path.parent().map(Path::to_path_buf);
        while let Some(d) = dir {
            if d == self.root || !d.starts_with(&self.root) || fs::remove_dir(&d).is_err() {
                break;
            }
            dir = d.parent().map(Path::to_path_buf);
        }
        Ok(())
    }
}
