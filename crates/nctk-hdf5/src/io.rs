//! Bounds-checked access to the file: [`FileCtx`] reads byte ranges
//! (addresses relative to the superblock's base address, checked against
//! the file's length before anything is allocated) and [`Cursor`] decodes
//! little-endian fields from a block with every read checked.

use std::sync::Arc;

use nctk_store::bytes::ByteSource;

use crate::error::{Hdf5Error, Result};

/// What every structure reader needs: the byte source, its length, the
/// base address and the sizes of offsets and lengths from the superblock.
#[derive(Clone)]
pub struct FileCtx {
    source: Arc<dyn ByteSource>,
    name: String,
    len: u64,
    base: u64,
    sizeof_addr: u8,
    sizeof_size: u8,
}

impl std::fmt::Debug for FileCtx {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FileCtx")
            .field("name", &self.name)
            .field("len", &self.len)
            .field("base", &self.base)
            .finish_non_exhaustive()
    }
}

impl FileCtx {
    /// A context over `source` whose length is `len`, with the superblock's
    /// base address and field sizes (each 2, 4 or 8; checked by the caller).
    pub fn new(
        source: Arc<dyn ByteSource>,
        len: u64,
        base: u64,
        sizeof_addr: u8,
        sizeof_size: u8,
    ) -> FileCtx {
        let name = source.name();
        FileCtx {
            source,
            name,
            len,
            base,
            sizeof_addr,
            sizeof_size,
        }
    }

    /// The byte source.
    pub fn source(&self) -> &Arc<dyn ByteSource> {
        &self.source
    }

    /// The file's name (path or URL), for errors.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The file's length in bytes.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the file is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Size of an address field in bytes.
    pub fn sizeof_addr(&self) -> u8 {
        self.sizeof_addr
    }

    /// Size of a length field in bytes.
    pub fn sizeof_size(&self) -> u8 {
        self.sizeof_size
    }

    /// The absolute file offset of `len` bytes at relative address `addr`,
    /// checked to lie inside the file.
    pub fn span(&self, addr: u64, len: u64, what: &str) -> Result<u64> {
        let start = self.base.checked_add(addr);
        match start.and_then(|s| s.checked_add(len)) {
            Some(end) if end <= self.len => Ok(start.unwrap_or(0)),
            _ => Err(self.out_of_bounds(
                what,
                addr,
                format!(
                    "{len} bytes at address {addr} (base {}) pass the end of the file ({} bytes)",
                    self.base, self.len
                ),
            )),
        }
    }

    /// Reads `len` bytes at relative address `addr` (checked against the
    /// file's length first, so a made-up size never allocates).
    pub fn read(&self, addr: u64, len: u64, what: &str) -> Result<Vec<u8>> {
        let start = self.span(addr, len, what)?;
        let mut buf = vec![0u8; len as usize];
        self.source
            .read_exact_at(start, &mut buf)
            .map_err(|source| Hdf5Error::Io {
                file: self.name.clone(),
                what: what.to_string(),
                source,
            })?;
        Ok(buf)
    }

    /// Reads at most `len` bytes at relative address `addr`, fewer where the
    /// file ends first (for structures whose length is known only after
    /// their prefix is decoded). Errors when `addr` itself is past the end.
    pub fn read_upto(&self, addr: u64, len: u64, what: &str) -> Result<Vec<u8>> {
        let start = self.span(addr, 0, what)?;
        let len = len.min(self.len - start);
        self.read(addr, len, what)
    }

    /// A cursor over `buf`, which was read at relative address `addr`.
    pub fn cursor<'a>(&'a self, buf: &'a [u8], addr: u64, what: &'a str) -> Cursor<'a> {
        Cursor {
            ctx: self,
            buf,
            pos: 0,
            addr,
            what,
        }
    }

    /// An [`Hdf5Error::OutOfBounds`] for `what` at relative address `addr`.
    pub fn out_of_bounds(&self, what: &str, addr: u64, reason: impl Into<String>) -> Hdf5Error {
        Hdf5Error::OutOfBounds {
            file: self.name.clone(),
            what: what.to_string(),
            offset: self.base.saturating_add(addr),
            reason: reason.into(),
        }
    }

    /// An [`Hdf5Error::Corrupt`] for `what` at relative address `addr`.
    pub fn corrupt(&self, what: &str, addr: u64, reason: impl Into<String>) -> Hdf5Error {
        Hdf5Error::Corrupt {
            file: self.name.clone(),
            what: what.to_string(),
            offset: self.base.saturating_add(addr),
            reason: reason.into(),
        }
    }

    /// An [`Hdf5Error::Unsupported`] for `what` at relative address `addr`.
    pub fn unsupported(&self, what: &str, addr: u64, reason: impl Into<String>) -> Hdf5Error {
        Hdf5Error::Unsupported {
            file: self.name.clone(),
            what: what.to_string(),
            offset: self.base.saturating_add(addr),
            reason: reason.into(),
        }
    }
}

/// Little-endian field decoding over one block read from the file; every
/// read is checked against the block's end and fails with an error naming
/// the structure and the file offset.
pub struct Cursor<'a> {
    ctx: &'a FileCtx,
    buf: &'a [u8],
    pos: usize,
    addr: u64,
    what: &'a str,
}

impl<'a> Cursor<'a> {
    /// Position in the block.
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// Moves to position `pos` in the block (checked).
    pub fn seek(&mut self, pos: usize) -> Result<()> {
        if pos > self.buf.len() {
            return Err(self.short(pos - self.pos.min(pos)));
        }
        self.pos = pos;
        Ok(())
    }

    /// The relative file address of the current position.
    pub fn addr(&self) -> u64 {
        self.addr.saturating_add(self.pos as u64)
    }

    /// Bytes left in the block.
    pub fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    /// The whole block.
    pub fn block(&self) -> &'a [u8] {
        self.buf
    }

    /// The next `n` bytes.
    pub fn bytes(&mut self, n: usize) -> Result<&'a [u8]> {
        if n > self.remaining() {
            return Err(self.short(n));
        }
        let out = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(out)
    }

    /// Skips `n` bytes.
    pub fn skip(&mut self, n: usize) -> Result<()> {
        self.bytes(n).map(|_| ())
    }

    /// Checks a four-byte signature (`b"OHDR"`, `b"TREE"`, ...).
    pub fn signature(&mut self, expected: &[u8; 4]) -> Result<()> {
        let at = self.addr();
        let found = self.bytes(4)?;
        if found != expected {
            return Err(self.ctx.corrupt(
                self.what,
                at,
                format!(
                    "signature {:?} expected, found {:?}",
                    String::from_utf8_lossy(expected),
                    String::from_utf8_lossy(found)
                ),
            ));
        }
        Ok(())
    }

    /// One byte.
    pub fn u8(&mut self) -> Result<u8> {
        Ok(self.bytes(1)?[0])
    }

    /// A little-endian `u16`.
    pub fn u16(&mut self) -> Result<u16> {
        Ok(self.uint(2)? as u16)
    }

    /// A little-endian `u32`.
    pub fn u32(&mut self) -> Result<u32> {
        Ok(self.uint(4)? as u32)
    }

    /// A little-endian `u64`.
    pub fn u64(&mut self) -> Result<u64> {
        self.uint(8)
    }

    /// A little-endian unsigned integer of `width` bytes (0 to 8).
    pub fn uint(&mut self, width: usize) -> Result<u64> {
        if width > 8 {
            let at = self.addr();
            return Err(self
                .ctx
                .corrupt(self.what, at, format!("integer field of {width} bytes")));
        }
        let b = self.bytes(width)?;
        Ok(b.iter()
            .rev()
            .fold(0u64, |acc, &x| (acc << 8) | u64::from(x)))
    }

    /// An address field; `None` for the undefined address (all bits set).
    pub fn address(&mut self) -> Result<Option<u64>> {
        let width = usize::from(self.ctx.sizeof_addr);
        let v = self.uint(width)?;
        let undefined = if width >= 8 {
            u64::MAX
        } else {
            (1u64 << (8 * width)) - 1
        };
        Ok((v != undefined).then_some(v))
    }

    /// A length field.
    pub fn length(&mut self) -> Result<u64> {
        self.uint(usize::from(self.ctx.sizeof_size))
    }

    /// An [`Hdf5Error::Corrupt`] at the current position.
    pub fn corrupt(&self, reason: impl Into<String>) -> Hdf5Error {
        self.ctx.corrupt(self.what, self.addr(), reason)
    }

    /// An [`Hdf5Error::Unsupported`] at the current position.
    pub fn unsupported(&self, reason: impl Into<String>) -> Hdf5Error {
        self.ctx.unsupported(self.what, self.addr(), reason)
    }

    fn short(&self, n: usize) -> Hdf5Error {
        self.ctx.out_of_bounds(
            self.what,
            self.addr(),
            format!("needs {n} bytes, {} left in the block", self.remaining()),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nctk_store::bytes::MemSource;

    fn ctx(bytes: &[u8]) -> FileCtx {
        let source: Arc<dyn ByteSource> = Arc::new(MemSource::new(bytes.to_vec()));
        FileCtx::new(source, bytes.len() as u64, 0, 8, 8)
    }

    #[test]
    fn reads_past_the_end_are_errors_before_allocating() {
        let c = ctx(&[0u8; 16]);
        assert!(c.read(8, 8, "x").is_ok());
        assert!(matches!(
            c.read(9, 8, "x"),
            Err(Hdf5Error::OutOfBounds { .. })
        ));
        assert!(matches!(
            c.read(u64::MAX - 2, u64::MAX, "x"),
            Err(Hdf5Error::OutOfBounds { .. })
        ));
    }

    #[test]
    fn cursor_decodes_little_endian_and_undefined_addresses() {
        let mut block = vec![0x34, 0x12];
        block.extend_from_slice(&[0xff; 8]);
        block.extend_from_slice(&7u64.to_le_bytes());
        let c = ctx(&block);
        let mut cur = c.cursor(&block, 0, "t");
        assert_eq!(cur.u16().unwrap(), 0x1234);
        assert_eq!(cur.address().unwrap(), None);
        assert_eq!(cur.address().unwrap(), Some(7));
        assert!(matches!(cur.u8(), Err(Hdf5Error::OutOfBounds { .. })));
    }
}
