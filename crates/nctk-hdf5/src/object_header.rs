//! Object headers: version 1 (a 16-byte prefix, messages aligned to eight
//! bytes) and version 2 (`OHDR`, checksummed, continuation blocks `OCHK`),
//! read whole with their continuation chunks into a list of messages.
//!
//! Every message must fit in its chunk, every continuation chunk is read
//! once (a loop of continuations is an error) and the total size of a
//! header is bounded.

use std::collections::{HashSet, VecDeque};

use crate::checksum;
use crate::error::Result;
use crate::io::{Cursor, FileCtx};

const WHAT: &str = "object header";

/// The most bytes one object header may span across all its chunks.
const MAX_HEADER_BYTES: u64 = 64 << 20;

/// The most chunks (the first and its continuations) of one header.
const MAX_CHUNKS: usize = 4096;

/// Bytes read at first: most headers fit, so most take one read.
const FIRST_READ: u64 = 1024;

/// Message type numbers (the ones this reader acts on).
pub mod kind {
    /// Padding.
    pub const NIL: u16 = 0;
    /// Dataspace.
    pub const DATASPACE: u16 = 1;
    /// Link info (new-style group).
    pub const LINK_INFO: u16 = 2;
    /// Datatype.
    pub const DATATYPE: u16 = 3;
    /// Old fill value.
    pub const FILL_OLD: u16 = 4;
    /// Fill value.
    pub const FILL: u16 = 5;
    /// Link (new-style compact group).
    pub const LINK: u16 = 6;
    /// Data layout.
    pub const LAYOUT: u16 = 8;
    /// Group info (new-style group).
    pub const GROUP_INFO: u16 = 10;
    /// Filter pipeline.
    pub const FILTER: u16 = 11;
    /// Attribute.
    pub const ATTRIBUTE: u16 = 12;
    /// Shared message table (superblock extension).
    pub const SHARED_TABLE: u16 = 15;
    /// Object header continuation.
    pub const CONTINUATION: u16 = 16;
    /// Symbol table (old-style group).
    pub const SYMBOL_TABLE: u16 = 17;
    /// B-tree 'K' values (superblock extension).
    pub const BTREE_K: u16 = 19;
    /// Attribute info (dense attributes).
    pub const ATTRIBUTE_INFO: u16 = 21;
    /// Reference count (links to the object beyond the first).
    pub const REFCOUNT: u16 = 22;
}

/// Message flag bit 1: the body is a reference to a shared message.
pub const FLAG_SHARED: u8 = 0x02;

/// One header message.
#[derive(Debug, Clone)]
pub struct Message {
    /// The message type ([`kind`]).
    pub kind: u16,
    /// The message flags (bit 1: shared).
    pub flags: u8,
    /// The creation order, when the header tracks attribute creation order.
    pub creation_order: Option<u16>,
    /// Relative address of the body.
    pub addr: u64,
    /// The body.
    pub body: Vec<u8>,
}

impl Message {
    /// Whether the body is a shared-message reference.
    pub fn is_shared(&self) -> bool {
        self.flags & FLAG_SHARED != 0
    }
}

/// An object header with the messages of all its chunks, in stored order.
#[derive(Debug, Clone)]
pub struct ObjectHeader {
    /// Relative address of the header.
    pub addr: u64,
    /// Header version (1 or 2).
    pub version: u8,
    /// Whether attribute creation order is tracked (version 2 flag bit 2).
    pub attribute_order_tracked: bool,
    /// The messages (continuations and padding left out).
    pub messages: Vec<Message>,
}

impl ObjectHeader {
    /// Reads the object header at relative address `addr`.
    pub fn read(ctx: &FileCtx, addr: u64) -> Result<ObjectHeader> {
        let first = ctx.read_upto(addr, FIRST_READ, WHAT)?;
        if first.starts_with(b"OHDR") {
            read_v2(ctx, addr, first)
        } else {
            read_v1(ctx, addr, first)
        }
    }

    /// The messages of type `kind`.
    pub fn all(&self, kind: u16) -> impl Iterator<Item = &Message> {
        self.messages.iter().filter(move |m| m.kind == kind)
    }

    /// The first message of type `kind`.
    pub fn first(&self, kind: u16) -> Option<&Message> {
        self.all(kind).next()
    }

    /// Whether there is a message of type `kind`.
    pub fn has(&self, kind: u16) -> bool {
        self.first(kind).is_some()
    }
}

/// The chunks still to read and the bookkeeping that bounds them.
struct Chunks {
    pending: VecDeque<(u64, u64)>,
    seen: HashSet<u64>,
    total: u64,
}

impl Chunks {
    fn new(addr: u64) -> Chunks {
        Chunks {
            pending: VecDeque::new(),
            seen: HashSet::from([addr]),
            total: 0,
        }
    }

    /// Counts a chunk of `len` bytes against the header's bounds.
    fn account(&mut self, ctx: &FileCtx, addr: u64, len: u64) -> Result<()> {
        self.total = self.total.saturating_add(len);
        if self.total > MAX_HEADER_BYTES || self.seen.len() > MAX_CHUNKS {
            return Err(ctx.corrupt(
                WHAT,
                addr,
                format!("header spans more than {MAX_HEADER_BYTES} bytes or {MAX_CHUNKS} chunks"),
            ));
        }
        Ok(())
    }

    /// Queues the continuation a message body names.
    fn continuation(&mut self, ctx: &FileCtx, msg: &Message) -> Result<()> {
        let mut cur = ctx.cursor(&msg.body, msg.addr, "continuation message");
        let addr = cur
            .address()?
            .ok_or_else(|| cur.corrupt("continuation at the undefined address"))?;
        let len = cur.length()?;
        if !self.seen.insert(addr) {
            return Err(cur.corrupt(format!("continuation loops back to address {addr}")));
        }
        self.pending.push_back((addr, len));
        Ok(())
    }
}

/// `len` bytes at `at`: cut from `first` (read at `addr`) when it holds
/// them, else read.
fn chunk(ctx: &FileCtx, first: &[u8], addr: u64, at: u64, len: u64) -> Result<Vec<u8>> {
    let start = at.checked_sub(addr).and_then(|s| usize::try_from(s).ok());
    let end = start.and_then(|s| s.checked_add(usize::try_from(len).ok()?));
    match (start, end) {
        (Some(s), Some(e)) if e <= first.len() => Ok(first[s..e].to_vec()),
        _ => ctx.read(at, len, WHAT),
    }
}

fn read_v1(ctx: &FileCtx, addr: u64, first: Vec<u8>) -> Result<ObjectHeader> {
    let mut cur = ctx.cursor(&first, addr, WHAT);
    let version = cur.u8()?;
    if version != 1 {
        return Err(cur.corrupt(format!(
            "object header version {version} (neither 1 nor an OHDR signature)"
        )));
    }
    cur.skip(1)?;
    let count = usize::from(cur.u16()?);
    cur.skip(4)?; // reference count
    let size = u64::from(cur.u32()?);
    let mut chunks = Chunks::new(addr);
    chunks.pending.push_back((addr.saturating_add(16), size));
    let mut messages = Vec::new();
    while let Some((at, len)) = chunks.pending.pop_front() {
        chunks.account(ctx, at, len)?;
        let buf = chunk(ctx, &first, addr, at, len)?;
        let mut cur = ctx.cursor(&buf, at, WHAT);
        while cur.remaining() >= 8 {
            let kind = cur.u16()?;
            let size = usize::from(cur.u16()?);
            let flags = cur.u8()?;
            cur.skip(3)?;
            if size % 8 != 0 {
                return Err(cur.corrupt(format!("message size {size} is not a multiple of 8")));
            }
            let msg = message(&mut cur, kind, flags, None, size)?;
            collect(ctx, &mut chunks, &mut messages, msg)?;
        }
        if messages.len() > count {
            return Err(ctx.corrupt(
                WHAT,
                addr,
                format!("more messages than the {count} the header declares"),
            ));
        }
    }
    Ok(ObjectHeader {
        addr,
        version,
        attribute_order_tracked: false,
        messages,
    })
}

fn read_v2(ctx: &FileCtx, addr: u64, first: Vec<u8>) -> Result<ObjectHeader> {
    let mut cur = ctx.cursor(&first, addr, WHAT);
    cur.signature(b"OHDR")?;
    let version = cur.u8()?;
    if version != 2 {
        return Err(cur.corrupt(format!("OHDR version {version}")));
    }
    let flags = cur.u8()?;
    if flags & 0x20 != 0 {
        cur.skip(16)?; // access, modification, change and birth times
    }
    if flags & 0x10 != 0 {
        cur.skip(4)?; // attribute phase change values
    }
    let size = cur.uint(1 << (flags & 3))?;
    let prefix = cur.pos() as u64;
    let tracked = flags & 0x04 != 0;
    let total = prefix
        .checked_add(size)
        .and_then(|n| n.checked_add(4))
        .ok_or_else(|| cur.corrupt(format!("chunk size {size}")))?;
    let mut chunks = Chunks::new(addr);
    chunks.account(ctx, addr, total)?;
    let block = chunk(ctx, &first, addr, addr, total)?;
    let mut messages = Vec::new();
    v2_chunk(
        ctx,
        &block,
        addr,
        prefix as usize,
        tracked,
        &mut chunks,
        &mut messages,
    )?;
    while let Some((at, len)) = chunks.pending.pop_front() {
        chunks.account(ctx, at, len)?;
        let block = ctx.read(at, len, WHAT)?;
        ctx.cursor(&block, at, "object header continuation")
            .signature(b"OCHK")?;
        v2_chunk(ctx, &block, at, 4, tracked, &mut chunks, &mut messages)?;
    }
    Ok(ObjectHeader {
        addr,
        version,
        attribute_order_tracked: tracked,
        messages,
    })
}

/// The messages of one version-2 chunk (`block` from its start, checksum
/// last; messages begin at `start`).
fn v2_chunk(
    ctx: &FileCtx,
    block: &[u8],
    addr: u64,
    start: usize,
    tracked: bool,
    chunks: &mut Chunks,
    messages: &mut Vec<Message>,
) -> Result<()> {
    if !checksum::verify(block) {
        return Err(ctx.corrupt(WHAT, addr, "checksum mismatch"));
    }
    let body = &block[..block.len().saturating_sub(4)];
    let mut cur = ctx.cursor(body, addr, WHAT);
    cur.seek(start)?;
    let header_len = if tracked { 6 } else { 4 };
    while cur.remaining() >= header_len {
        let kind = u16::from(cur.u8()?);
        let size = usize::from(cur.u16()?);
        let flags = cur.u8()?;
        let order = if tracked { Some(cur.u16()?) } else { None };
        let msg = message(&mut cur, kind, flags, order, size)?;
        collect(ctx, chunks, messages, msg)?;
    }
    Ok(())
}

/// Cuts a message body of `size` bytes at the cursor, which must fit in
/// the chunk.
fn message(
    cur: &mut Cursor<'_>,
    kind: u16,
    flags: u8,
    creation_order: Option<u16>,
    size: usize,
) -> Result<Message> {
    if size > cur.remaining() {
        return Err(cur.corrupt(format!(
            "message of type {kind} claims {size} bytes, {} left in its header chunk",
            cur.remaining()
        )));
    }
    let addr = cur.addr();
    Ok(Message {
        kind,
        flags,
        creation_order,
        addr,
        body: cur.bytes(size)?.to_vec(),
    })
}

/// Keeps a message, following continuations and dropping padding.
fn collect(
    ctx: &FileCtx,
    chunks: &mut Chunks,
    messages: &mut Vec<Message>,
    msg: Message,
) -> Result<()> {
    match msg.kind {
        kind::NIL => {}
        kind::CONTINUATION => chunks.continuation(ctx, &msg)?,
        _ => messages.push(msg),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Hdf5Error;
    use nctk_store::bytes::MemSource;
    use std::sync::Arc;

    fn ctx(bytes: &[u8]) -> FileCtx {
        FileCtx::new(
            Arc::new(MemSource::new(bytes.to_vec())),
            bytes.len() as u64,
            0,
            8,
            8,
        )
    }

    /// A version-1 header whose only message is a continuation: to `target`.
    fn v1_continuing_to(target: u64, msg_size: u16) -> Vec<u8> {
        let mut b = vec![1, 0, 1, 0, 1, 0, 0, 0, 24, 0, 0, 0, 0, 0, 0, 0];
        b.extend_from_slice(&kind::CONTINUATION.to_le_bytes());
        b.extend_from_slice(&msg_size.to_le_bytes());
        b.extend_from_slice(&[0; 4]);
        b.extend_from_slice(&target.to_le_bytes());
        b.extend_from_slice(&24u64.to_le_bytes());
        b
    }

    #[test]
    fn a_continuation_loop_is_an_error() {
        let b = v1_continuing_to(16, 16);
        let err = ObjectHeader::read(&ctx(&b), 0).unwrap_err();
        assert!(err.to_string().contains("loops back"), "{err}");
    }

    #[test]
    fn a_message_larger_than_its_chunk_is_an_error() {
        let b = v1_continuing_to(16, 64);
        let err = ObjectHeader::read(&ctx(&b), 0).unwrap_err();
        assert!(
            matches!(err, Hdf5Error::Corrupt { offset: 24, .. }),
            "{err}"
        );
        assert!(err.to_string().contains("claims 64 bytes"), "{err}");
    }
}
