use super::{ByteError, ByteSink, ByteSource};
use std::fs::{File, OpenOptions};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

/// A local file read with positioned reads (`pread`): no shared cursor, no lock.
#[derive(Debug)]
pub struct FileSource {
    file: File,
    path: PathBuf,
}

impl FileSource {
    /// Opens `path` for reading.
    pub fn open(path: impl AsRef<Path>) -> Result<FileSource, ByteError> {
        let path = path.as_ref().to_path_buf();
        let file = File::open(&path)
            .map_err(|e| ByteError::io(&path.display().to_string(), "open", 0, e))?;
        Ok(FileSource { file, path })
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

impl ByteSource for FileSource {
    fn len(&self) -> Result<u64, ByteError> {
        file_len(&self.file, &self.path)
    }
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<usize, ByteError> {
        pread(&self.file, &self.path, offset, buf)
    }
    fn name(&self) -> String {
        self.path.display().to_string()
    }
}

/// A local file opened for reading and writing with positioned I/O.
#[derive(Debug)]
pub struct FileSink {
    file: File,
    path: PathBuf,
}

impl FileSink {
    /// Creates `path`, truncating an existing file.
    pub fn create(path: impl AsRef<Path>) -> Result<FileSink, ByteError> {
        Self::with_options(
            path,
            OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(true),
        )
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
        Ok(FileSink { file, path })
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl ByteSource for FileSink {
    fn len(&self) -> Result<u64, ByteError> {
        file_len(&self.file, &self.path)
    }
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<usize, ByteError> {
        pread(&self.file, &self.path, offset, buf)
    }
    fn name(&self) -> String {
        self.path.display().to_string()
    }
}

impl ByteSink for FileSink {
    fn write_at(&self, offset: u64, data: &[u8]) -> Result<(), ByteError> {
        self.file
            .write_all_at(data, offset)
            .map_err(|e| ByteError::io(&self.name(), "write", offset, e))
    }
    fn set_len(&self, len: u64) -> Result<(), ByteError> {
        self.file
            .set_len(len)
            .map_err(|e| ByteError::io(&self.name(), "set_len", len, e))
    }
    fn flush(&self) -> Result<(), ByteError> {
        Ok(())
    }
    fn sync(&self) -> Result<(), ByteError> {
        self.file
            .sync_data()
            .map_err(|e| ByteError::io(&self.name(), "sync", 0, e))
    }
}
