//! Local files with positioned I/O.
//!
//! **The length rule.** Both [`FileSource`] and [`FileSink`] keep the file's
//! length in a cache so that reads cost no `stat`: it is read at open, raised
//! by every write of the sink, and set by its `set_len`. `len()` always asks
//! the operating system (and refreshes the cache); a read reaching past the
//! cached length asks too before deciding how many bytes exist, so a file
//! grown after opening, by our own sink or anyone else, reads whole. A file
//! shrunk by someone else reads short, as `pread` reports, never as stale
//! bytes.

use super::{read_new, ByteError, ByteSink, ByteSource, Coalesce, Replacement};
use bytes::Bytes;
use std::fs::{File, OpenOptions};
use std::ops::Range;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// How a local file merges the ranges of a batch: a request is one
/// `pread`, cheap, so only small pieces (under 4 KiB, a page) at most a page
/// apart are read together, up to 4 MiB at once; larger pieces are read
/// straight into their buffers.
const FILE_COALESCE: Coalesce = Coalesce {
    gap: 4096,
    alone_from: 4096,
    max_span: 4 << 20,
};

/// A local file read with positioned reads (`pread`): no shared cursor, no
/// lock, and no `stat` per read (see the module's length rule).
#[derive(Debug)]
pub struct FileSource {
    file: File,
    path: PathBuf,
    len: AtomicU64,
}

impl FileSource {
    /// Opens `path` for reading.
    pub fn open(path: impl AsRef<Path>) -> Result<FileSource, ByteError> {
        let path = path.as_ref().to_path_buf();
        let file = File::open(&path)
            .map_err(|e| ByteError::io(&path.display().to_string(), "open", 0, e))?;
        let len = AtomicU64::new(file_len(&file, &path)?);
        Ok(FileSource { file, path, len })
    }

    /// Reads an already open `file` (an anonymous temporary file, say),
    /// named `name` in errors.
    pub fn from_file(file: File, name: impl Into<PathBuf>) -> Result<FileSource, ByteError> {
        let path = name.into();
        let len = AtomicU64::new(file_len(&file, &path)?);
        Ok(FileSource { file, path, len })
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

fn pread(file: &File, path: &Path, offset: u64, buf: &mut [u8]) -> Result<usize, ByteError> {
    let mut done = 0;
    while done < buf.len() {
        match file.read_at(&mut buf[done..], offset + done as u64) {
            Ok(0) => break,
            Ok(n) => done += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => {
                return Err(ByteError::io(
                    &path.display().to_string(),
                    "read",
                    offset + done as u64,
                    e,
                ))
            }
        }
    }
    Ok(done)
}

fn file_len(file: &File, path: &Path) -> Result<u64, ByteError> {
    file.metadata()
        .map(|m| m.len())
        .map_err(|e| ByteError::io(&path.display().to_string(), "stat", 0, e))
}

/// Asks the operating system for the length and stores it in `cache`.
fn refresh_len(file: &File, path: &Path, cache: &AtomicU64) -> Result<u64, ByteError> {
    let len = file_len(file, path)?;
    cache.store(len, Ordering::Relaxed);
    Ok(len)
}

/// The cached length, refreshed first when `end` reaches past it.
fn len_covering(file: &File, path: &Path, cache: &AtomicU64, end: u64) -> Result<u64, ByteError> {
    match cache.load(Ordering::Relaxed) {
        len if end <= len => Ok(len),
        _ => refresh_len(file, path, cache),
    }
}

/// Reading is the same for a file opened to read and one opened to write:
/// positioned reads, the cached length, the file's merge policy.
macro_rules! file_source {
    ($($ty:ty),*) => {$(
        impl ByteSource for $ty {
            fn len(&self) -> Result<u64, ByteError> {
                refresh_len(&self.file, &self.path, &self.len)
            }
            fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<usize, ByteError> {
                pread(&self.file, &self.path, offset, buf)
            }
            fn name(&self) -> String {
                self.path.display().to_string()
            }
            fn read_range(&self, range: Range<u64>) -> Result<Bytes, ByteError> {
                let len = len_covering(&self.file, &self.path, &self.len, range.end)?;
                read_new(self, range, len)
            }
            fn coalesce(&self) -> Coalesce {
                FILE_COALESCE
            }
        }
    )*};
}

file_source!(FileSource, FileSink);

/// A local file opened for reading and writing with positioned I/O (its
/// length is cached as the module's length rule says).
#[derive(Debug)]
pub struct FileSink {
    file: File,
    path: PathBuf,
    len: AtomicU64,
}

impl FileSink {
    /// Creates `path`, emptying an existing file. An empty one (the
    /// temporary a safe output made) is not truncated again: on ext4 a
    /// truncation to nothing makes closing the file start writing all of
    /// it back (`auto_da_alloc`), in the way of the write-back started as
    /// the file grows ([`WriteBehind`](super::WriteBehind)).
    pub fn create(path: impl AsRef<Path>) -> Result<FileSink, ByteError> {
        let sink = Self::with_options(
            path,
            OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false),
        )?;
        if sink.len.load(Ordering::Relaxed) > 0 {
            sink.set_len(0)?;
        }
        Ok(sink)
    }

    /// Creates `path`, failing when it exists.
    pub fn create_new(path: impl AsRef<Path>) -> Result<FileSink, ByteError> {
        Self::with_options(
            path,
            OpenOptions::new().read(true).write(true).create_new(true),
        )
    }

    /// Opens an existing file for reading and writing.
    pub fn open(path: impl AsRef<Path>) -> Result<FileSink, ByteError> {
        Self::with_options(path, OpenOptions::new().read(true).write(true))
    }

    fn with_options(path: impl AsRef<Path>, opts: &OpenOptions) -> Result<FileSink, ByteError> {
        let path = path.as_ref().to_path_buf();
        let file = opts
            .open(&path)
            .map_err(|e| ByteError::io(&path.display().to_string(), "open", 0, e))?;
        let len = AtomicU64::new(file_len(&file, &path)?);
        Ok(FileSink { file, path, len })
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl ByteSink for FileSink {
    fn write_at(&self, offset: u64, data: &[u8]) -> Result<(), ByteError> {
        self.file
            .write_all_at(data, offset)
            .map_err(|e| ByteError::io(&self.name(), "write", offset, e))?;
        let end = offset.saturating_add(data.len() as u64);
        self.len.fetch_max(end, Ordering::Relaxed);
        Ok(())
    }
    fn set_len(&self, len: u64) -> Result<(), ByteError> {
        self.file
            .set_len(len)
            .map_err(|e| ByteError::io(&self.name(), "set_len", len, e))?;
        self.len.store(len, Ordering::Relaxed);
        Ok(())
    }
    fn flush(&self) -> Result<(), ByteError> {
        Ok(())
    }
    fn sync(&self) -> Result<(), ByteError> {
        self.file
            .sync_data()
            .map_err(|e| ByteError::io(&self.name(), "sync", 0, e))
    }
    #[cfg(target_os = "linux")]
    fn start_sync(&self, offset: u64, len: u64) -> Result<(), ByteError> {
        use std::os::fd::AsRawFd;
        let (Ok(start), Ok(n)) = (i64::try_from(offset), i64::try_from(len)) else {
            return Ok(()); // a hint: ranges past i64 are left to sync
        };
        // SAFETY: the descriptor is open for as long as `self.file` lives;
        // sync_file_range reads no memory of ours. Its result is not
        // checked: it only starts write-back, a file system without it
        // loses nothing, and a write-back error is what `sync` reports.
        unsafe {
            libc::sync_file_range(self.file.as_raw_fd(), start, n, libc::SYNC_FILE_RANGE_WRITE);
        }
        Ok(())
    }
    fn replacement(&self) -> Result<Box<dyn Replacement>, ByteError> {
        let mut temp = self.path.clone().into_os_string();
        temp.push(format!(".nctk-redef-{}", std::process::id()));
        let temp = PathBuf::from(temp);
        Ok(Box::new(FileReplacement {
            staged: Some(FileSink::create(&temp)?),
            temp,
            target: self.path.clone(),
        }))
    }
}

/// A file's replacement: a sibling temporary (`<name>.nctk-redef-<pid>`)
/// renamed over the file on commit, removed when dropped uncommitted.
#[derive(Debug)]
struct FileReplacement {
    /// `None` once committed.
    staged: Option<FileSink>,
    temp: PathBuf,
    target: PathBuf,
}

impl Replacement for FileReplacement {
    fn sink(&self) -> &dyn ByteSink {
        self.staged
            .as_ref()
            .expect("an uncommitted replacement has its sink")
    }

    fn commit(
        mut self: Box<Self>,
        _original: Arc<dyn ByteSink>,
    ) -> Result<Arc<dyn ByteSink>, ByteError> {
        if let Some(staged) = self.staged.take() {
            staged.sync()?;
        }
        if let Err(e) = std::fs::rename(&self.temp, &self.target) {
            let _ = std::fs::remove_file(&self.temp);
            return Err(ByteError::io(
                &self.target.display().to_string(),
                "rename",
                0,
                e,
            ));
        }
        Ok(Arc::new(FileSink::open(&self.target)?))
    }
}

impl Drop for FileReplacement {
    fn drop(&mut self) {
        if self.staged.take().is_some() {
            let _ = std::fs::remove_file(&self.temp);
        }
    }
}
