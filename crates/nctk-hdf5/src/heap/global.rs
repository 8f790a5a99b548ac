//! Global heap collections (`GCOL`): the bytes of variable-length strings
//! and sequences. Collections are read whole and cached, a bounded number
//! at a time.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::{Arc, Mutex};

use crate::error::Result;
use crate::io::FileCtx;

const WHAT: &str = "global heap collection";

/// The most collections kept in the cache (each at most a few megabytes).
const CACHED_COLLECTIONS: usize = 64;

/// One collection: its bytes and where each object lies in them.
#[derive(Debug)]
pub struct Collection {
    addr: u64,
    bytes: Vec<u8>,
    objects: HashMap<u16, Range<usize>>,
}

impl Collection {
    /// Reads the collection at relative address `addr`.
    pub fn read(ctx: &FileCtx, addr: u64) -> Result<Collection> {
        let ss = usize::from(ctx.sizeof_size());
        let head = ctx.read(addr, 8 + ss as u64, WHAT)?;
        let mut cur = ctx.cursor(&head, addr, WHAT);
        cur.signature(b"GCOL")?;
        let version = cur.u8()?;
        if version != 1 {
            return Err(cur.corrupt(format!("version {version}")));
        }
        cur.skip(3)?;
        let size = cur.length()?;
        if size < head.len() as u64 {
            return Err(cur.corrupt(format!("collection size {size}")));
        }
        let bytes = ctx.read(addr, size, WHAT)?;
        let mut cur = ctx.cursor(&bytes, addr, WHAT);
        cur.seek(head.len())?;
        let mut objects = HashMap::new();
        while cur.remaining() >= 8 + ss {
            let index = cur.u16()?;
            if index == 0 {
                break; // free space to the end
            }
            cur.skip(6)?; // reference count, reserved
            let len = cur.length()?;
            let start = cur.pos();
            let stored = usize::try_from(len)
                .ok()
                .and_then(|n| n.checked_add(7))
                .map(|n| n & !7)
                .filter(|&n| n <= cur.remaining())
                .ok_or_else(|| {
                    cur.corrupt(format!("object {index} of {len} bytes does not fit"))
                })?;
            cur.skip(stored)?;
            objects.insert(index, start..start + len as usize);
        }
        Ok(Collection {
            addr,
            bytes,
            objects,
        })
    }

    /// The bytes of object `index`.
    pub fn object(&self, ctx: &FileCtx, index: u32) -> Result<&[u8]> {
        u16::try_from(index)
            .ok()
            .and_then(|i| self.objects.get(&i))
            .map(|r| &self.bytes[r.clone()])
            .ok_or_else(|| ctx.corrupt(WHAT, self.addr, format!("no object {index}")))
    }
}

/// A bounded cache of collections, shared by readers on many threads.
#[derive(Debug, Default)]
pub struct GlobalHeap {
    cache: Mutex<HashMap<u64, Arc<Collection>>>,
}

impl GlobalHeap {
    /// The collection at relative address `addr`, from the cache or read.
    pub fn collection(&self, ctx: &FileCtx, addr: u64) -> Result<Arc<Collection>> {
        if let Some(c) = self.lock().get(&addr) {
            return Ok(c.clone());
        }
        let c = Arc::new(Collection::read(ctx, addr)?);
        let mut cache = self.lock();
        if cache.len() >= CACHED_COLLECTIONS {
            cache.clear();
        }
        cache.insert(addr, c.clone());
        Ok(c)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Arc<Collection>>> {
        self.cache.lock().unwrap_or_else(|e| e.into_inner())
    }
}
