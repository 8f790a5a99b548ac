//! Shared messages (message flag bit 1): the body is a reference to a
//! message kept elsewhere, in another object header (a committed datatype)
//! or in the shared object header message heap.

use crate::datatype::Datatype;
use crate::error::Result;
use crate::io::FileCtx;
use crate::object_header::{kind, ObjectHeader};

/// Where a shared message is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SharedRef {
    /// In the object header at this relative address (a committed datatype).
    ObjectHeader(u64),
    /// In the shared message heap, under this 8-byte fractal heap ID.
    Heap([u8; 8]),
}

impl SharedRef {
    /// Decodes a shared message reference (versions 1 to 3) from `body`,
    /// read at relative address `addr`.
    pub fn parse(ctx: &FileCtx, body: &[u8], addr: u64) -> Result<SharedRef> {
        let mut cur = ctx.cursor(body, addr, "shared message");
        let version = cur.u8()?;
        let kind = cur.u8()?;
        let at_header = |cur: &mut crate::io::Cursor<'_>| {
            cur.address()?
                .map(SharedRef::ObjectHeader)
                .ok_or_else(|| cur.corrupt("shared message at the undefined address"))
        };
        match (version, kind) {
            (1, _) => {
                cur.skip(6)?;
                at_header(&mut cur)
            }
            (2, _) | (3, 2) => at_header(&mut cur),
            (3, 1) => {
                let mut id = [0u8; 8];
                id.copy_from_slice(cur.bytes(8)?);
                Ok(SharedRef::Heap(id))
            }
            (v, k) => Err(cur.corrupt(format!("shared message version {v}, type {k}"))),
        }
    }
}

/// Resolves a shared datatype message: the committed datatype's type and
/// the relative address of its object header.
pub fn committed_datatype(ctx: &FileCtx, body: &[u8], addr: u64) -> Result<(Datatype, u64)> {
    match SharedRef::parse(ctx, body, addr)? {
        SharedRef::ObjectHeader(target) => {
            let header = ObjectHeader::read(ctx, target)?;
            let msg = header
                .all(kind::DATATYPE)
                .find(|m| !m.is_shared())
                .ok_or_else(|| {
                    ctx.corrupt(
                        "committed datatype",
                        target,
                        "object header without a datatype message",
                    )
                })?;
            let dt = Datatype::parse(&mut ctx.cursor(&msg.body, msg.addr, "datatype message"))?;
            Ok((dt, target))
        }
        SharedRef::Heap(_) => Err(ctx.unsupported(
            "shared datatype",
            addr,
            "datatypes in the shared object header message heap",
        )),
    }
}

/// A datatype stored at `addr` as `body`: decoded in place, or, when
/// `shared`, resolved to the committed datatype (whose address comes back).
pub fn datatype(
    ctx: &FileCtx,
    body: &[u8],
    addr: u64,
    shared: bool,
) -> Result<(Datatype, Option<u64>)> {
    if shared {
        let (dt, at) = committed_datatype(ctx, body, addr)?;
        Ok((dt, Some(at)))
    } else {
        let dt = Datatype::parse(&mut ctx.cursor(body, addr, "datatype"))?;
        Ok((dt, None))
    }
}
