use super::{ByteError, ByteSink, ByteSource, Coalesce};
use bytes::Bytes;
use std::sync::RwLock;

/// Read-only bytes in memory.
#[derive(Debug, Clone, Default)]
pub struct MemSource {
    data: Bytes,
    name: Option<String>,
}

impl MemSource {
    /// A source over `data`.
    pub fn new(data: impl Into<Bytes>) -> MemSource {
        MemSource {
            data: data.into(),
            name: None,
        }
    }

    /// The same source, named `name` in errors instead of `<memory>`.
    pub fn with_name(self, name: impl Into<String>) -> MemSource {
        MemSource {
            name: Some(name.into()),
            ..self
        }
    }

    /// The bytes.
    pub fn bytes(&self) -> &Bytes {
        &self.data
    }
}

fn copy_out(data: &[u8], offset: u64, buf: &mut [u8]) -> usize {
    let Ok(start) = usize::try_from(offset) else {
        return 0;
    };
    if start >= data.len() {
        return 0;
    }
    let n = buf.len().min(data.len() - start);
    buf[..n].copy_from_slice(&data[start..start + n]);
    n
}

impl ByteSource for MemSource {
    fn len(&self) -> Result<u64, ByteError> {
        Ok(self.data.len() as u64)
    }
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<usize, ByteError> {
        Ok(copy_out(&self.data, offset, buf))
    }
    fn name(&self) -> String {
        self.name.clone().unwrap_or_else(|| "<memory>".to_string())
    }
    fn read_range(&self, range: std::ops::Range<u64>) -> Result<Bytes, ByteError> {
        let len = self.data.len() as u64;
        let lo = range.start.min(len);
        let hi = range.end.clamp(lo, len);
        Ok(self.data.slice(lo as usize..hi as usize))
    }
    fn coalesce(&self) -> Coalesce {
        Coalesce::NEVER
    }
}

/// A growable, writable blob in memory.
#[derive(Debug, Default)]
pub struct MemSink {
    data: RwLock<Vec<u8>>,
}

impl MemSink {
    /// An empty blob.
    pub fn new() -> MemSink {
        MemSink::default()
    }

    /// A blob holding `data`.
    pub fn from_vec(data: Vec<u8>) -> MemSink {
        MemSink {
            data: RwLock::new(data),
        }
    }

    /// A copy of the current contents.
    pub fn to_vec(&self) -> Vec<u8> {
        self.data.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// The contents, consuming the sink.
    pub fn into_vec(self) -> Vec<u8> {
        self.data.into_inner().unwrap_or_else(|e| e.into_inner())
    }
}

impl ByteSource for MemSink {
    fn len(&self) -> Result<u64, ByteError> {
        Ok(self.data.read().unwrap_or_else(|e| e.into_inner()).len() as u64)
    }
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<usize, ByteError> {
        Ok(copy_out(
            &self.data.read().unwrap_or_else(|e| e.into_inner()),
            offset,
            buf,
        ))
    }
    fn name(&self) -> String {
        "<memory>".to_string()
    }
    fn coalesce(&self) -> Coalesce {
        Coalesce::NEVER
    }
}

impl ByteSink for MemSink {
    fn write_at(&self, offset: u64, data: &[u8]) -> Result<(), ByteError> {
        let too_large = || ByteError::TooLarge {
            path: self.name(),
            offset,
            len: data.len() as u64,
        };
        let start = usize::try_from(offset).map_err(|_| too_large())?;
        let end = start.checked_add(data.len()).ok_or_else(too_large)?;
        let mut v = self.data.write().unwrap_or_else(|e| e.into_inner());
        if v.len() < end {
            v.resize(end, 0);
        }
        v[start..end].copy_from_slice(data);
        Ok(())
    }
    fn set_len(&self, len: u64) -> Result<(), ByteError> {
        let n = usize::try_from(len).map_err(|_| ByteError::TooLarge {
            path: self.name(),
            offset: 0,
            len,
        })?;
        self.data
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .resize(n, 0);
        Ok(())
    }
    fn flush(&self) -> Result<(), ByteError> {
        Ok(())
    }
}
