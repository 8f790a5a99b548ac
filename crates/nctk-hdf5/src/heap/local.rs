//! The local heap (`HEAP`): the names of an old-style group's links.

use crate::error::Result;
use crate::io::FileCtx;

const WHAT: &str = "local heap";

/// A local heap's data segment.
#[derive(Debug, Clone)]
pub struct LocalHeap {
    /// Relative address of the data segment.
    pub data_addr: u64,
    /// The data segment.
    pub data: Vec<u8>,
}

impl LocalHeap {
    /// Reads the local heap whose header is at relative address `addr`.
    pub fn read(ctx: &FileCtx, addr: u64) -> Result<LocalHeap> {
        let len = 8 + 2 * u64::from(ctx.sizeof_size()) + u64::from(ctx.sizeof_addr());
        let buf = ctx.read(addr, len, WHAT)?;
        let mut cur = ctx.cursor(&buf, addr, WHAT);
        cur.signature(b"HEAP")?;
        let version = cur.u8()?;
        if version != 0 {
            return Err(cur.corrupt(format!("version {version}")));
        }
        cur.skip(3)?;
        let size = cur.length()?;
        cur.length()?; // free list head
        let data_addr = cur
            .address()?
            .ok_or_else(|| cur.corrupt("data segment at the undefined address"))?;
        Ok(LocalHeap {
            data_addr,
            data: ctx.read(data_addr, size, "local heap data segment")?,
        })
    }

    /// The null-terminated string at `offset` in the data segment.
    pub fn string(&self, ctx: &FileCtx, offset: u64) -> Result<String> {
        let rest = usize::try_from(offset)
            .ok()
            .and_then(|o| self.data.get(o..))
            .ok_or_else(|| {
                ctx.corrupt(
                    "local heap data segment",
                    self.data_addr,
                    format!("offset {offset} past its {} bytes", self.data.len()),
                )
            })?;
        let end = rest.iter().position(|&b| b == 0).ok_or_else(|| {
            ctx.corrupt(
                "local heap data segment",
                self.data_addr.saturating_add(offset),
                "string without a terminating null",
            )
        })?;
        Ok(String::from_utf8_lossy(&rest[..end]).into_owned())
    }
}
