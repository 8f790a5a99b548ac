//! [`StagedZipStore`]: a zip store that can be written like any other
//! store (re-puts and reads allowed) and becomes an archive once, on
//! [`WritableStore::close`].

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use bytes::Bytes;

use super::ZipStoreWriter;
use crate::bytes::{ByteSink, SinkCursor};
use crate::kv::{
    Capabilities, DirectoryStore, ListableStore, Listing, MemoryStore, ReadableStore, StoreError,
    StoreKey, StorePrefix, WritableStore,
};

/// A store every ability of which the staging area needs.
trait Staging: ReadableStore + ListableStore + WritableStore {}

impl<T: ReadableStore + ListableStore + WritableStore> Staging for T {}

/// A zip store being written: puts are staged (in a scratch directory, or
/// in memory) where they can be read back and replaced, and
/// [`close`](WritableStore::close) writes every staged object, in key
/// order, as an archive into the sink (then removes the scratch
/// directory). Dropped without `close`, nothing is written to the sink and
/// the scratch directory is removed.
pub struct StagedZipStore {
    staging: Box<dyn Staging>,
    scratch: Option<PathBuf>,
    sink: Mutex<Option<Arc<dyn ByteSink>>>,
    dir: Option<String>,
}

impl std::fmt::Debug for StagedZipStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StagedZipStore")
            .field("scratch", &self.scratch)
            .field("dir", &self.dir)
            .finish_non_exhaustive()
    }
}

impl StagedZipStore {
    /// Stages in the directory `scratch` (removed first if it exists, and
    /// removed again once the archive is written). `dir` is the archive's
    /// top-level directory, as [`ZipStoreWriter::new`] takes it.
    pub fn in_directory(
        scratch: impl Into<PathBuf>,
        sink: Arc<dyn ByteSink>,
        dir: Option<&str>,
    ) -> Result<StagedZipStore, StoreError> {
        let scratch = scratch.into();
        remove_tree(&scratch)?;
        Ok(StagedZipStore {
            staging: Box::new(DirectoryStore::create(&scratch)?),
            scratch: Some(scratch),
            sink: Mutex::new(Some(sink)),
            dir: dir.map(str::to_string),
        })
    }

    /// Stages in memory.
    pub fn in_memory(sink: Arc<dyn ByteSink>, dir: Option<&str>) -> StagedZipStore {
        StagedZipStore {
            staging: Box::new(MemoryStore::new()),
            scratch: None,
            sink: Mutex::new(Some(sink)),
            dir: dir.map(str::to_string),
        }
    }

    fn write_archive(&self, sink: Arc<dyn ByteSink>) -> Result<(), StoreError> {
        let name = sink.name();
        let mut keys = vec![];
        all_keys(self.staging.as_ref(), StorePrefix::root(), &mut keys)?;
        keys.sort();
        sink.set_len(0).map_err(|e| byte_err(&name, e))?;
        let zip = ZipStoreWriter::new(SinkCursor::new(sink), name.clone(), self.dir.as_deref())?;
        for key in &keys {
            let value = self.staging.get(key)?.ok_or_else(|| StoreError::Io {
                key: key.to_string(),
                op: "read staged object",
                source: std::io::Error::other("the staged object vanished"),
            })?;
            zip.put(key, value)?;
        }
        let cursor = zip.finish()?;
        cursor.into_sink().flush().map_err(|e| byte_err(&name, e))
    }
}

impl Drop for StagedZipStore {
    fn drop(&mut self) {
        if let Some(scratch) = &self.scratch {
            let _ = remove_tree(scratch);
        }
    }
}

fn byte_err(name: &str, e: crate::bytes::ByteError) -> StoreError {
    StoreError::io(name, "write", std::io::Error::other(e))
}

/// Removes the directory tree at `path`; a missing one is no error.
fn remove_tree(path: &std::path::Path) -> Result<(), StoreError> {
    match std::fs::remove_dir_all(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(StoreError::io(
            path.display().to_string(),
            "remove scratch directory",
            e,
        )),
        _ => Ok(()),
    }
}

/// Every key under `prefix`, depth first.
fn all_keys(
    store: &dyn Staging,
    prefix: StorePrefix,
    out: &mut Vec<StoreKey>,
) -> Result<(), StoreError> {
    let Listing { keys, prefixes } = store.list_dir(&prefix)?;
    out.extend(keys);
    for p in prefixes {
        all_keys(store, p, out)?;
    }
    Ok(())
}

impl ReadableStore for StagedZipStore {
    fn get(&self, key: &StoreKey) -> Result<Option<Bytes>, StoreError> {
        self.staging.get(key)
    }
    fn get_range(
        &self,
        key: &StoreKey,
        range: std::ops::Range<u64>,
    ) -> Result<Option<Bytes>, StoreError> {
        self.staging.get_range(key, range)
    }
    fn size(&self, key: &StoreKey) -> Result<Option<u64>, StoreError> {
        self.staging.size(key)
    }
    fn get_many(&self, keys: &[StoreKey]) -> Result<Vec<Option<Bytes>>, StoreError> {
        self.staging.get_many(keys)
    }
    fn capabilities(&self) -> Capabilities {
        self.staging.capabilities()
    }
}

impl ListableStore for StagedZipStore {
    fn list_dir(&self, prefix: &StorePrefix) -> Result<Listing, StoreError> {
        self.staging.list_dir(prefix)
    }
}

impl WritableStore for StagedZipStore {
    fn put(&self, key: &StoreKey, value: Bytes) -> Result<(), StoreError> {
        self.staging.put(key, value)
    }

    fn delete(&self, key: &StoreKey) -> Result<(), StoreError> {
        self.staging.delete(key)
    }

    /// Writes the archive into the sink, once; a second `close` does nothing.
    fn close(&self) -> Result<(), StoreError> {
        let sink = self.sink.lock().unwrap_or_else(|e| e.into_inner()).take();
        let Some(sink) = sink else {
            return Ok(());
        };
        self.write_archive(sink)?;
        match &self.scratch {
            Some(scratch) => remove_tree(scratch),
            None => Ok(()),
        }
    }
}
