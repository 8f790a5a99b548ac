//! [`ZipStoreWriter`]: the write-once side.

use std::collections::HashSet;
use std::io::{Seek, SeekFrom, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipWriter};

use crate::kv::{StoreError, StoreKey, WritableStore};

/// A write-once zip store: each key is written once, uncompressed; nothing
/// is read back or deleted. Call [`finish`](ZipStoreWriter::finish) to
/// write the central directory; an archive dropped before that, or whose
/// write failed, gets none (it never reads as a complete archive).
pub struct ZipStoreWriter<W: Write + Seek + Send> {
    name: String,
    dir: Option<String>,
    inner: Mutex<WriterState<W>>,
    /// Set when the archive is given up: see [`Abandonable`].
    abandoned: Arc<AtomicBool>,
}

struct WriterState<W: Write + Seek> {
    zip: Option<ZipWriter<Abandonable<W>>>,
    written: HashSet<StoreKey>,
}

/// The archive's sink, which takes nothing more once the archive is
/// abandoned: the zip library finishes an archive it drops unfinished
/// (writing its central directory, and on stderr why that failed), which
/// must not happen to an archive whose write failed or was given up. From
/// then on writes and seeks move a position of its own, as over a file,
/// and reach nothing.
struct Abandonable<W> {
    inner: W,
    abandoned: Arc<AtomicBool>,
    /// Once abandoned: the position and length the zip library sees.
    shadow: Option<(u64, u64)>,
}

impl<W: Seek> Abandonable<W> {
    fn new(inner: W, abandoned: Arc<AtomicBool>) -> Self {
        Abandonable {
            inner,
            abandoned,
            shadow: None,
        }
    }

    /// The shadow position and length, once abandoned.
    fn shadow(&mut self) -> std::io::Result<Option<&mut (u64, u64)>> {
        if !self.abandoned.load(Ordering::Acquire) {
            return Ok(None);
        }
        if self.shadow.is_none() {
            let pos = self.inner.stream_position()?;
            let len = self.inner.seek(SeekFrom::End(0))?;
            self.shadow = Some((pos, len.max(pos)));
        }
        Ok(self.shadow.as_mut())
    }
}

impl<W: Write + Seek> Write for Abandonable<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self.shadow()? {
            Some((pos, len)) => {
                *pos += buf.len() as u64;
                *len = (*len).max(*pos);
                Ok(buf.len())
            }
            None => self.inner.write(buf),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self.shadow()? {
            Some(_) => Ok(()),
            None => self.inner.flush(),
        }
    }
}

impl<W: Seek> Seek for Abandonable<W> {
    fn seek(&mut self, to: SeekFrom) -> std::io::Result<u64> {
        let Some((pos, len)) = self.shadow()? else {
            return self.inner.seek(to);
        };
        let moved = match to {
            SeekFrom::Start(n) => Some(n),
            SeekFrom::Current(d) => pos.checked_add_signed(d),
            SeekFrom::End(d) => len.checked_add_signed(d),
        };
        *pos = moved.ok_or_else(|| {
            std::io::Error::new(std::io::ErrorKind::InvalidInput, "seek before the start")
        })?;
        Ok(*pos)
    }
}

impl<W: Write + Seek + Send> ZipStoreWriter<W> {
    /// A writer putting the dataset at the archive's top level when `dir`
    /// is `None` (zarr-python's layout), else under the top-level directory
    /// `dir` (netCDF-C's layout). `name` names the archive in errors.
    pub fn new(sink: W, name: impl Into<String>, dir: Option<&str>) -> Result<Self, StoreError> {
        let name = name.into();
        let abandoned = Arc::new(AtomicBool::new(false));
        let mut zip = ZipWriter::new(Abandonable::new(sink, abandoned.clone()));
        if let Some(d) = dir {
            StoreKey::new(d)?;
            zip.add_directory(d, SimpleFileOptions::default())
                .map_err(|e| StoreError::zip(name.clone(), e))?;
        }
        Ok(ZipStoreWriter {
            name,
            dir: dir.map(str::to_string),
            inner: Mutex::new(WriterState {
                zip: Some(zip),
                written: HashSet::new(),
            }),
            abandoned,
        })
    }

    /// Writes the central directory and returns the sink.
    pub fn finish(self) -> Result<W, StoreError> {
        let zip = self.state().zip.take().ok_or_else(|| StoreError::Zip {
            key: self.name.clone(),
            reason: "the archive failed earlier".into(),
        })?;
        let finished = zip.finish();
        if finished.is_err() {
            self.abandoned.store(true, Ordering::Release);
        }
        let sink = finished.map_err(|e| StoreError::zip(self.name.clone(), e))?;
        Ok(sink.inner)
    }

    fn state(&self) -> std::sync::MutexGuard<'_, WriterState<W>> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl<W: Write + Seek + Send> Drop for ZipStoreWriter<W> {
    /// Dropped unfinished: the archive is abandoned, not finished.
    fn drop(&mut self) {
        self.abandoned.store(true, Ordering::Release);
    }
}

impl<W: Write + Seek + Send> WritableStore for ZipStoreWriter<W> {
    fn put(&self, key: &StoreKey, value: Bytes) -> Result<(), StoreError> {
        let mut state = self.state();
        if state.written.contains(key) {
            return Err(StoreError::Unsupported {
                key: key.to_string(),
                op: "put",
                reason: "zip stores are write-once and this key was already written",
            });
        }
        let full = match &self.dir {
            Some(d) => format!("{d}/{key}"),
            None => key.to_string(),
        };
        let zerr = |e: std::io::Error| StoreError::ZipLibrary {
            key: format!("{}:{key}", self.name),
            source: e.into(),
        };
        let zip = state.zip.as_mut().ok_or_else(|| StoreError::Zip {
            key: format!("{}:{key}", self.name),
            reason: "the archive failed earlier".into(),
        })?;
        let options = SimpleFileOptions::default()
            .compression_method(CompressionMethod::Stored)
            .large_file(value.len() as u64 >= u32::MAX as u64);
        let result = zip
            .start_file(full, options)
            .map_err(|e| zerr(std::io::Error::other(e)))
            .and_then(|_| zip.write_all(&value).map_err(zerr));
        if result.is_err() {
            self.abandoned.store(true, Ordering::Release);
            state.zip = None;
        }
        result?;
        state.written.insert(key.clone());
        Ok(())
    }

    fn delete(&self, key: &StoreKey) -> Result<(), StoreError> {
        Err(StoreError::Unsupported {
            key: key.to_string(),
            op: "delete",
            reason: "zip stores are write-once",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    /// The end of central directory record's signature: a zip has one.
    const END: &[u8] = b"PK\x05\x06";

    fn has_end(bytes: &[u8]) -> bool {
        bytes.windows(END.len()).any(|w| w == END)
    }

    /// A file that refuses writes past `limit` bytes, as a full disk does.
    struct Full {
        file: Cursor<Vec<u8>>,
        limit: u64,
    }

    impl Write for Full {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            let room = self.limit.saturating_sub(self.file.position());
            if room == 0 {
                return Err(std::io::Error::from_raw_os_error(28));
            }
            let n = (buf.len() as u64).min(room) as usize;
            self.file.write(&buf[..n])
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    impl Seek for Full {
        fn seek(&mut self, to: SeekFrom) -> std::io::Result<u64> {
            self.file.seek(to)
        }
    }

    fn key(k: &str) -> StoreKey {
        StoreKey::new(k).unwrap()
    }

    #[test]
    fn finished_archives_end_and_abandoned_ones_do_not() {
        let mut file = Cursor::new(vec![]);
        let zip = ZipStoreWriter::new(&mut file, "a.zip", None).unwrap();
        zip.put(&key("x/.zarray"), Bytes::from_static(b"{}"))
            .unwrap();
        zip.finish().unwrap();
        assert!(has_end(file.get_ref()));
        let read = zip::ZipArchive::new(Cursor::new(file.into_inner())).unwrap();
        assert_eq!(read.len(), 1);

        // Dropped unfinished: no central directory.
        let mut file = Cursor::new(vec![]);
        let zip = ZipStoreWriter::new(&mut file, "b.zip", Some("b")).unwrap();
        zip.put(&key("x/.zarray"), Bytes::from_static(b"{}"))
            .unwrap();
        drop(zip);
        assert!(!file.get_ref().is_empty() && !has_end(file.get_ref()));
    }

    #[test]
    fn a_write_that_fails_abandons_the_archive() {
        let mut full = Full {
            file: Cursor::new(vec![]),
            limit: 200,
        };
        let zip = ZipStoreWriter::new(&mut full, "c.zip", None).unwrap();
        zip.put(&key("a"), Bytes::from_static(b"small")).unwrap();
        let err = zip
            .put(&key("b"), Bytes::from(vec![7u8; 1000]))
            .unwrap_err();
        assert!(err.to_string().contains("c.zip"), "{err}");
        let again = zip.put(&key("c"), Bytes::from_static(b"more")).unwrap_err();
        assert!(again.to_string().contains("failed earlier"), "{again}");
        assert!(zip.finish().is_err());
        assert!(!has_end(full.file.get_ref()));
    }
}
