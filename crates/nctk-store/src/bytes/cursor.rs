//! [`SinkCursor`]: a [`ByteSink`] written as a stream (`Write + Seek`), for
//! writers made for files (the zip writer, the ncstream writer).

use std::io::{Seek, SeekFrom, Write};
use std::sync::Arc;

use super::ByteSink;

/// `Write + Seek` over a byte sink: each write goes to the sink at the
/// cursor's position, which it then advances.
pub struct SinkCursor {
    sink: Arc<dyn ByteSink>,
    pos: u64,
}

impl SinkCursor {
    /// A cursor at the start of `sink`.
    pub fn new(sink: Arc<dyn ByteSink>) -> SinkCursor {
        SinkCursor { sink, pos: 0 }
    }

    /// The sink written to.
    pub fn into_sink(self) -> Arc<dyn ByteSink> {
        self.sink
    }
}

impl Write for SinkCursor {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.sink
            .write_at(self.pos, buf)
            .map_err(std::io::Error::other)?;
        self.pos += buf.len() as u64;
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.sink.flush().map_err(std::io::Error::other)
    }
}

impl Seek for SinkCursor {
    fn seek(&mut self, to: SeekFrom) -> std::io::Result<u64> {
        let len = || self.sink.len().map_err(std::io::Error::other);
        let target = match to {
            SeekFrom::Start(p) => Some(p),
            SeekFrom::End(d) => len()?.checked_add_signed(d),
            SeekFrom::Current(d) => self.pos.checked_add_signed(d),
        };
        self.pos = target.ok_or_else(|| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "seek before the start of the sink",
            )
        })?;
        Ok(self.pos)
    }
}
