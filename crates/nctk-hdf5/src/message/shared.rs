//! Shared messages (message flag bit 1, or the shared bits of an attribute
//! message): the body is a reference to a message kept elsewhere, in
//! another object header (a committed datatype) or in the shared object
//! header message (SOHM) heaps the superblock extension's table lists.

use std::sync::OnceLock;

use crate::checksum;
use crate::error::Result;
use crate::heap::fractal::FractalHeap;
use crate::io::{Cursor, FileCtx};

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
        let at_header = |cur: &mut Cursor<'_>| {
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

/// One index of the SOHM table: which message types it holds and the
/// fractal heap they are kept in.
#[derive(Debug)]
struct Index {
    type_flags: u16,
    heap_addr: Option<u64>,
    heap: OnceLock<FractalHeap>,
}

/// The shared object header message table (`SMTB`).
#[derive(Debug)]
pub struct SharedTable {
    addr: u64,
    indexes: Vec<Index>,
}

impl SharedTable {
    /// Reads the table at relative address `addr` with `count` indexes.
    pub fn read(ctx: &FileCtx, addr: u64, count: u8) -> Result<SharedTable> {
        const WHAT: &str = "shared message table";
        let entry = 14 + 2 * u64::from(ctx.sizeof_addr());
        let buf = ctx.read(addr, 4 + u64::from(count) * entry + 4, WHAT)?;
        if !checksum::verify(&buf) {
            return Err(ctx.corrupt(WHAT, addr, "checksum mismatch"));
        }
        let mut cur = ctx.cursor(&buf, addr, WHAT);
        cur.signature(b"SMTB")?;
        let mut indexes = Vec::with_capacity(usize::from(count));
        for _ in 0..count {
            cur.skip(2)?; // version, index type
            let type_flags = cur.u16()?;
            cur.skip(4 + 2 + 2 + 2)?; // minimum size, cutoffs, message count
            cur.address()?; // the index (list or B-tree): not needed to read
            let heap_addr = cur.address()?;
            indexes.push(Index {
                type_flags,
                heap_addr,
                heap: OnceLock::new(),
            });
        }
        Ok(SharedTable { addr, indexes })
    }

    /// The body of the shared message of type `msg_kind` with heap ID `id`.
    pub fn message(&self, ctx: &FileCtx, msg_kind: u16, id: &[u8; 8]) -> Result<Vec<u8>> {
        // An index's type flags have bit N set for message type N.
        let flag = 1u16.checked_shl(u32::from(msg_kind)).unwrap_or(0);
        let (index, heap_addr) = self
            .indexes
            .iter()
            .find_map(|i| {
                i.heap_addr
                    .filter(|_| i.type_flags & flag != 0)
                    .map(|a| (i, a))
            })
            .ok_or_else(|| {
                ctx.corrupt(
                    "shared message table",
                    self.addr,
                    format!("no index holds messages of type {msg_kind}"),
                )
            })?;
        let heap = match index.heap.get() {
            Some(h) => h,
            None => {
                let opened = FractalHeap::open(ctx, heap_addr)?;
                index.heap.get_or_init(|| opened)
            }
        };
        heap.get(ctx, id)
    }
}
