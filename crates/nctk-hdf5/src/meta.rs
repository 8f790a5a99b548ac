//! [`Meta`]: what the metadata readers share beyond the byte context: a
//! bounded cache of object headers (committed datatypes are met again and
//! again, and an object's kind is looked up before the object is read)
//! and the shared message table, through which shared messages resolve.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use crate::error::Result;
use crate::io::FileCtx;
use crate::message::shared::{SharedRef, SharedTable};
use crate::object_header::ObjectHeader;
use crate::superblock::Superblock;

/// The most object headers kept in the cache.
const CACHED_HEADERS: usize = 4096;

/// The metadata readers' shared state.
#[derive(Debug)]
pub struct Meta {
    ctx: FileCtx,
    headers: Mutex<HashMap<u64, Arc<ObjectHeader>>>,
    shared: Option<SharedTable>,
}

/// A message body, resolved when it was shared.
#[derive(Debug)]
pub struct Body<'a> {
    /// The body's bytes.
    pub bytes: Cow<'a, [u8]>,
    /// The relative address the bytes were read at.
    pub addr: u64,
    /// The committed object's header, when the body came from one.
    pub committed: Option<u64>,
}

impl Meta {
    /// The state for a file whose superblock is `sb`.
    pub fn new(ctx: FileCtx, sb: &Superblock) -> Result<Meta> {
        let shared = sb
            .shared_message_table
            .map(|(addr, count)| SharedTable::read(&ctx, addr, count))
            .transpose()?;
        Ok(Meta {
            ctx,
            headers: Mutex::new(HashMap::new()),
            shared,
        })
    }

    /// The byte context.
    pub fn ctx(&self) -> &FileCtx {
        &self.ctx
    }

    /// The object header at relative address `addr` (cached).
    pub fn header(&self, addr: u64) -> Result<Arc<ObjectHeader>> {
        if let Some(h) = self.lock().get(&addr) {
            return Ok(h.clone());
        }
        let header = Arc::new(ObjectHeader::read(&self.ctx, addr)?);
        let mut cache = self.lock();
        if cache.len() >= CACHED_HEADERS {
            cache.clear();
        }
        cache.insert(addr, header.clone());
        Ok(header)
    }

    /// The body of a message of type `kind` stored as `body` at `addr`:
    /// itself, or, when `shared`, the message it refers to (in a committed
    /// object's header or the shared message heap).
    pub fn body<'a>(&self, kind: u16, body: &'a [u8], addr: u64, shared: bool) -> Result<Body<'a>> {
        if !shared {
            return Ok(Body {
                bytes: Cow::Borrowed(body),
                addr,
                committed: None,
            });
        }
        match SharedRef::parse(&self.ctx, body, addr)? {
            SharedRef::ObjectHeader(target) => {
                let header = self.header(target)?;
                let msg = header.all(kind).find(|m| !m.is_shared()).ok_or_else(|| {
                    self.ctx.corrupt(
                        "shared message",
                        target,
                        format!("the object header it names has no message of type {kind}"),
                    )
                })?;
                Ok(Body {
                    bytes: Cow::Owned(msg.body.clone()),
                    addr: msg.addr,
                    committed: Some(target),
                })
            }
            SharedRef::Heap(id) => Ok(Body {
                bytes: Cow::Owned(self.heap_message(kind, &id, addr)?),
                addr,
                committed: None,
            }),
        }
    }

    /// The body of the message of type `kind` kept in the shared message
    /// heap under `id` (named at `addr`).
    pub fn heap_message(&self, kind: u16, id: &[u8; 8], addr: u64) -> Result<Vec<u8>> {
        let table = self.shared.as_ref().ok_or_else(|| {
            self.ctx.corrupt(
                "shared message",
                addr,
                "in the shared message heap, but the file has no shared message table",
            )
        })?;
        table.message(&self.ctx, kind, id)
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<u64, Arc<ObjectHeader>>> {
        self.headers.lock().unwrap_or_else(|e| e.into_inner())
    }
}
