//! [`ZipStore`]: the read side, lock-free after the central directory is parsed.

use std::collections::{BTreeMap, HashSet};
use std::io::{Read, Seek, SeekFrom};
use std::sync::Arc;

use bytes::Bytes;
use zip::{CompressionMethod, ZipArchive};

use super::ZipRoot;
use crate::bytes::ByteSource;
use crate::kv::{
    Capabilities, ListableStore, Listing, ReadableStore, StoreError, StoreKey, StorePrefix,
};

/// `Read + Seek` over a [`ByteSource`], for the zip parser.
#[derive(Clone)]
struct SourceCursor<S> {
    source: S,
    pos: u64,
}

impl<S: ByteSource> Read for SourceCursor<S> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self
            .source
            .read_at(self.pos, buf)
            .map_err(std::io::Error::other)?;
        self.pos += n as u64;
        Ok(n)
    }
}

impl<S: ByteSource> Seek for SourceCursor<S> {
    fn seek(&mut self, to: SeekFrom) -> std::io::Result<u64> {
        let len = self.source.len().map_err(std::io::Error::other)?;
        let target = match to {
            SeekFrom::Start(p) => Some(p),
            SeekFrom::End(d) => len.checked_add_signed(d),
            SeekFrom::Current(d) => self.pos.checked_add_signed(d),
        };
        let Some(target) = target else {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "seek before the start of the archive",
            ));
        };
        self.pos = target;
        Ok(target)
    }
}

/// A read-only store over a zip archive held by any [`ByteSource`] (a
/// file, memory, later an object in the cloud).
pub struct ZipStore<S: ByteSource> {
    name: String,
    source: Arc<S>,
    /// The parsed central directory. Each read works on a clone (cheap: the
    /// entries are shared) with a cursor of its own.
    archive: ZipArchive<SourceCursor<Arc<S>>>,
    /// Key -> index of the entry in the archive.
    index: BTreeMap<StoreKey, usize>,
}

impl<S: ByteSource> std::fmt::Debug for ZipStore<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ZipStore")
            .field("name", &self.name)
            .field("entries", &self.index.len())
            .finish()
    }
}

impl ZipStore<crate::bytes::FileSource> {
    /// Opens the zip file at `path`.
    pub fn open_file(path: impl AsRef<std::path::Path>) -> Result<Self, StoreError> {
        let path = path.as_ref();
        let src = crate::bytes::FileSource::open(path).map_err(|e| {
            StoreError::io(path.display().to_string(), "open", std::io::Error::other(e))
        })?;
        ZipStore::new(src, ZipRoot::Auto)
    }
}

impl ZipStore<crate::bytes::MemSource> {
    /// Opens a zip archive held in memory.
    pub fn from_bytes(data: impl Into<Bytes>) -> Result<Self, StoreError> {
        ZipStore::new(crate::bytes::MemSource::new(data), ZipRoot::Auto)
    }
}

impl<S: ByteSource> ZipStore<S> {
    /// Reads the archive's central directory from `source`. Entries whose
    /// names are not valid keys (absolute paths, `..`, ...) can never be
    /// asked for and are left out.
    pub fn new(source: S, root: ZipRoot) -> Result<Self, StoreError> {
        let name = source.name();
        let zerr = |e: zip::result::ZipError| StoreError::zip(name.clone(), e);
        let source = Arc::new(source);
        let archive = ZipArchive::new(SourceCursor {
            source: source.clone(),
            pos: 0,
        })
        .map_err(zerr)?;
        let names: Vec<(usize, String)> = (0..archive.len())
            .filter_map(|i| archive.name_for_index(i).map(|n| (i, n.to_string())))
            .filter(|(_, n)| !n.ends_with('/'))
            .collect();
        let dir = match root {
            ZipRoot::Top => None,
            ZipRoot::Directory(d) => Some(d),
            ZipRoot::Auto => {
                let firsts: HashSet<&str> = names
                    .iter()
                    .map(|(_, n)| n.split_once('/').map_or("", |(first, _)| first))
                    .collect();
                match firsts.len() {
                    1 if !firsts.contains("") => firsts.into_iter().next().map(str::to_string),
                    _ => None,
                }
            }
        };
        let mut index = BTreeMap::new();
        for (i, n) in names {
            let rel = match &dir {
                None => Some(n.as_str()),
                Some(d) => n.strip_prefix(d.as_str()).and_then(|r| r.strip_prefix('/')),
            };
            if let Some(Ok(key)) = rel.map(StoreKey::new) {
                index.insert(key, i);
            }
        }
        Ok(ZipStore {
            name,
            source,
            archive,
            index,
        })
    }

    fn error(&self, key: &StoreKey, reason: impl Into<String>) -> StoreError {
        StoreError::Zip {
            key: format!("{}:{key}", self.name),
            reason: reason.into(),
        }
    }

    /// Where the entry of `key` lies and how it is stored; `None` when the
    /// archive has no such entry.
    fn entry(&self, key: &StoreKey) -> Result<Option<Entry>, StoreError> {
        let Some(&i) = self.index.get(key) else {
            return Ok(None);
        };
        let mut archive = self.archive.clone();
        let raw = archive
            .by_index_raw(i)
            .map_err(|e| StoreError::zip(format!("{}:{key}", self.name), e))?;
        Ok(Some(Entry {
            data_start: raw.data_start(),
            compressed: raw.compressed_size(),
            size: raw.size(),
            method: raw.compression(),
            crc32: raw.crc32(),
            encrypted: raw.encrypted(),
        }))
    }

    /// The entry's contents: one positioned read, inflated here, checked
    /// against the declared size and CRC-32.
    fn read_entry(&self, key: &StoreKey, e: &Entry) -> Result<Bytes, StoreError> {
        if e.encrypted {
            return Err(self.error(key, "encrypted entries are not supported"));
        }
        let end = e
            .data_start
            .checked_add(e.compressed)
            .ok_or_else(|| self.error(key, "entry extends past the largest offset"))?;
        let raw = self.source.read_range(e.data_start..end).map_err(|err| {
            self.error(
                key,
                format!("reading the entry at offset {}: {err}", e.data_start),
            )
        })?;
        if (raw.len() as u64) < e.compressed {
            return Err(self.error(
                key,
                format!(
                    "archive ends at offset {} inside the entry of {} bytes starting at offset {}",
                    e.data_start + raw.len() as u64,
                    e.compressed,
                    e.data_start
                ),
            ));
        }
        let data = match e.method {
            CompressionMethod::Stored => raw,
            CompressionMethod::Deflated => {
                // Do not trust the declared size for the allocation; read at
                // most one byte more than declared to notice a lie.
                let mut out = Vec::with_capacity(e.size.min(1 << 20) as usize);
                flate2::read::DeflateDecoder::new(&raw[..])
                    .take(e.size.saturating_add(1))
                    .read_to_end(&mut out)
                    .map_err(|err| {
                        self.error(
                            key,
                            format!("inflating the entry at offset {}: {err}", e.data_start),
                        )
                    })?;
                Bytes::from(out)
            }
            other => {
                return Err(self.error(key, format!("compression method {other} is not supported")))
            }
        };
        if data.len() as u64 != e.size {
            return Err(self.error(
                key,
                format!("entry declares {} bytes but holds {}", e.size, data.len()),
            ));
        }
        let mut crc = flate2::Crc::new();
        crc.update(&data);
        if crc.sum() != e.crc32 {
            return Err(self.error(
                key,
                format!(
                    "CRC-32 {:08x} of the entry at offset {} differs from the declared {:08x}",
                    crc.sum(),
                    e.data_start,
                    e.crc32
                ),
            ));
        }
        Ok(data)
    }

    /// Every key in the archive, sorted.
    pub fn keys(&self) -> impl Iterator<Item = &StoreKey> {
        self.index.keys()
    }
}

/// One entry's place and storage, from the archive's directory.
struct Entry {
    data_start: u64,
    compressed: u64,
    size: u64,
    method: CompressionMethod,
    crc32: u32,
    encrypted: bool,
}

impl<S: ByteSource> ReadableStore for ZipStore<S> {
    fn get(&self, key: &StoreKey) -> Result<Option<Bytes>, StoreError> {
        match self.entry(key)? {
            Some(e) => self.read_entry(key, &e).map(Some),
            None => Ok(None),
        }
    }

    fn size(&self, key: &StoreKey) -> Result<Option<u64>, StoreError> {
        Ok(self.entry(key)?.map(|e| e.size))
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities {
            partial_reads: false,
            listable: true,
            writable: false,
            write_once: false,
            fetch_ahead: false,
        }
    }
}

impl<S: ByteSource> ListableStore for ZipStore<S> {
    fn list_dir(&self, prefix: &StorePrefix) -> Result<Listing, StoreError> {
        let skip = if prefix.is_root() {
            0
        } else {
            prefix.as_str().len() + 1
        };
        let mut out = Listing::default();
        for key in self.index.keys().filter(|k| k.is_under(prefix)) {
            match key.as_str()[skip..].split_once('/') {
                None => out.keys.push(key.clone()),
                Some((first, _)) => out.prefixes.push(prefix.child(first)?),
            }
        }
        out.normalize();
        Ok(out)
    }
}
