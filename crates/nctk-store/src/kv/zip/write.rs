//! [`ZipStoreWriter`]: the write-once side.

use std::collections::HashSet;
use std::io::{Seek, Write};
use std::sync::Mutex;

use bytes::Bytes;
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipWriter};

use crate::kv::{StoreError, StoreKey, WritableStore};

/// A write-once zip store: each key is written once, uncompressed; nothing
/// is read back or deleted. Call [`finish`](ZipStoreWriter::finish) to
/// write the central directory.
pub struct ZipStoreWriter<W: Write + Seek + Send> {
    name: String,
    dir: Option<String>,
    inner: Mutex<WriterState<W>>,
}

struct WriterState<W: Write + Seek> {
    zip: Option<ZipWriter<W>>,
    written: HashSet<StoreKey>,
}

impl<W: Write + Seek + Send> ZipStoreWriter<W> {
    /// A writer putting the dataset at the archive's top level when `dir`
    /// is `None` (zarr-python's layout), else under the top-level directory
    /// `dir` (netCDF-C's layout). `name` names the archive in errors.
    pub fn new(sink: W, name: impl Into<String>, dir: Option<&str>) -> Result<Self, StoreError> {
        let name = name.into();
        let mut zip = ZipWriter::new(sink);
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
        })
    }

    /// Writes the central directory and returns the sink.
    pub fn finish(self) -> Result<W, StoreError> {
        let mut state = self.inner.into_inner().unwrap_or_else(|e| e.into_inner());
        let zip = state.zip.take().ok_or_else(|| StoreError::Zip {
            key: self.name.clone(),
            reason: "the archive failed earlier".into(),
        })?;
        zip.finish().map_err(|e| StoreError::zip(self.name, e))
    }
}

impl<W: Write + Seek + Send> WritableStore for ZipStoreWriter<W> {
    fn put(&self, key: &StoreKey, value: Bytes) -> Result<(), StoreError> {
        let mut state = self.inner.lock().unwrap_or_else(|e| e.into_inner());
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
