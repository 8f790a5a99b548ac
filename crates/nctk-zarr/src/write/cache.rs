//! A bounded cache of decoded chunks: read-modify-write of chunks already
//! stored, least recently touched chunks encoded and stored first.

use std::collections::HashMap;
use std::sync::Arc;

use nctk_store::kv::{Bytes, StoreKey};

use super::plan::ArrayPlan;
use super::{ReadWriteStore, WriteError};

struct Entry {
    buf: Vec<u8>,
    tick: u64,
}

/// Decoded chunks waiting to be stored, keyed by (variable index, chunk index).
pub struct ChunkCache {
    entries: HashMap<(u32, Vec<u64>), Entry>,
    bytes: usize,
    limit: usize,
    tick: u64,
}

/// The store key of a chunk.
pub fn chunk_key(plan: &ArrayPlan, index: &[u64]) -> Result<StoreKey, WriteError> {
    let name = if index.is_empty() {
        "0".to_string()
    } else {
        index
            .iter()
            .map(u64::to_string)
            .collect::<Vec<_>>()
            .join(".")
    };
    Ok(StoreKey::new(format!("{}/{name}", plan.prefix))?)
}

impl ChunkCache {
    /// A cache holding at most `limit` bytes (and always at least one chunk).
    pub fn new(limit: usize) -> ChunkCache {
        ChunkCache {
            entries: HashMap::new(),
            bytes: 0,
            limit,
            tick: 0,
        }
    }

    /// The decoded chunk `index` of variable `var`: from the cache, else
    /// read back from the store and decoded, else filled.
    pub fn chunk(
        &mut self,
        store: &Arc<dyn ReadWriteStore>,
        plans: &[ArrayPlan],
        var: u32,
        index: &[u64],
    ) -> Result<&mut Vec<u8>, WriteError> {
        self.tick += 1;
        let id = (var, index.to_vec());
        if !self.entries.contains_key(&id) {
            let plan = &plans[var as usize];
            let size = plan.chunk_bytes();
            while !self.entries.is_empty() && self.bytes + size > self.limit {
                self.evict_one(store, plans)?;
            }
            let key = chunk_key(plan, index)?;
            let buf = match store.get(&key)? {
                Some(enc) => plan
                    .pipeline
                    .decode(&enc, size)
                    .map_err(|e| WriteError::Codec {
                        key: key.to_string(),
                        reason: e.to_string(),
                    })?,
                None => plan.fill_bytes.repeat(size / plan.width),
            };
            self.bytes += size;
            self.entries.insert(id.clone(), Entry { buf, tick: 0 });
        }
        let e = self.entries.get_mut(&id).expect("inserted above");
        e.tick = self.tick;
        Ok(&mut e.buf)
    }

    fn evict_one(
        &mut self,
        store: &Arc<dyn ReadWriteStore>,
        plans: &[ArrayPlan],
    ) -> Result<(), WriteError> {
        let Some(id) = self
            .entries
            .iter()
            .min_by_key(|(_, e)| e.tick)
            .map(|(k, _)| k.clone())
        else {
            return Ok(());
        };
        let e = self.entries.remove(&id).expect("found above");
        self.bytes -= e.buf.len();
        store_chunk(store, &plans[id.0 as usize], &id.1, &e.buf)
    }

    /// Encodes and stores every cached chunk, in key order.
    pub fn flush(
        &mut self,
        store: &Arc<dyn ReadWriteStore>,
        plans: &[ArrayPlan],
    ) -> Result<(), WriteError> {
        let mut all: Vec<_> = self.entries.drain().collect();
        all.sort_by(|a, b| a.0.cmp(&b.0));
        self.bytes = 0;
        for ((var, index), e) in all {
            store_chunk(store, &plans[var as usize], &index, &e.buf)?;
        }
        Ok(())
    }
}

fn store_chunk(
    store: &Arc<dyn ReadWriteStore>,
    plan: &ArrayPlan,
    index: &[u64],
    buf: &[u8],
) -> Result<(), WriteError> {
    let key = chunk_key(plan, index)?;
    let enc = plan.pipeline.encode(buf).map_err(|e| WriteError::Codec {
        key: key.to_string(),
        reason: e.to_string(),
    })?;
    store.put(&key, Bytes::from(enc))?;
    Ok(())
}
