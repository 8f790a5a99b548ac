//! Encoding and storing chunks on every core: [`EncodeQueue`] hands each
//! finished chunk to a task of a [`TaskQueue`] (on rayon's threads) that
//! encodes it and puts it in the store, while the caller goes on filling
//! the next chunks. At most one chunk per
//! worker thread is in flight, each holding its decoded bytes and, while
//! encoding, its working and encoded bytes; submitting more waits for one
//! to finish, and so does a chunk whose bytes (counted with its encoding's
//! working memory) would take the chunks in flight past the memory limit.
//! A chunk holding only its variable's fill value is not stored (and one
//! already there is removed), as zarr-python's `write_empty_chunks=False`:
//! readers read a missing chunk as fill. An inner chunk of a sharded array
//! goes to its shard's [`Assembly`] instead, and the job completing the
//! shard stores it ([`super::shards`]).

use std::collections::HashMap;
use std::sync::Arc;

use nctk_codec::queue::{SharedState, TaskQueue};
use nctk_store::kv::{Bytes, StoreKey};

use super::chain::ChunkChain;
use super::pool::BufferPool;
use super::shards::{self, Assembly, Inner, ShardLayout};
use super::{ReadWriteStore, WriteError};

/// One chunk to encode and store.
pub struct Job {
    /// Index of the variable (its pipeline).
    pub var: u32,
    /// Where it goes: its key, or its shard's.
    pub key: StoreKey,
    /// For an inner chunk of a shard, its place in the shard.
    pub inner: Option<Inner>,
    /// The decoded chunk (consumed: moved into the store as is when the
    /// pipeline is empty).
    pub buf: Vec<u8>,
}

/// A chunk in flight: its key, and its position in the shard for an
/// inner chunk.
type JobId = (StoreKey, Option<usize>);

/// The queue's shared state: beside the jobs in flight, the shards being
/// assembled, by key.
type Shared = SharedState<JobId, WriteError, HashMap<StoreKey, Assembly>>;

/// Encodes and stores chunks in parallel with a bounded number in flight;
/// see the [module docs](self).
pub struct EncodeQueue {
    store: Arc<dyn ReadWriteStore>,
    pipelines: Arc<[ChunkChain]>,
    /// Per variable, the fill value's bytes (one element) when chunks
    /// holding only it are left out; `None` stores every chunk.
    empty: Arc<[Option<Vec<u8>>]>,
    /// Per variable, how its shards hold inner chunks (`None`: unsharded).
    layouts: Vec<Option<ShardLayout>>,
    /// The jobs in flight (their bytes counted by [`cost`](Self::cost)),
    /// and the shards being assembled.
    tasks: TaskQueue<JobId, WriteError, HashMap<StoreKey, Assembly>>,
    /// Where the decoded buffers of stored chunks go back to.
    pool: BufferPool,
}

/// True when `buf` is `fill` (one element) repeated.
pub(super) fn is_fill(buf: &[u8], fill: &[u8]) -> bool {
    match fill {
        [] => false,
        [b, rest @ ..] if rest.iter().all(|x| x == b) => buf.iter().all(|x| x == b),
        _ => buf.len() % fill.len() == 0 && buf.chunks_exact(fill.len()).all(|c| c == fill),
    }
}

/// Encodes `job` with its pipeline and stores it; a chunk that is all
/// `empty` (the fill value, when such chunks are left out) is removed
/// from the store instead. An inner chunk goes to its shard's assembly
/// (in `shared`), and the shard is stored once that completes it. A chunk
/// stored as it is lends its buffer to the store, and the buffer goes back
/// to `pool` when the store drops it.
fn run(
    store: &dyn ReadWriteStore,
    pipeline: &ChunkChain,
    empty: Option<&[u8]>,
    shared: &Shared,
    pool: &BufferPool,
    job: Job,
) -> Result<(), WriteError> {
    let Job {
        key, buf, inner, ..
    } = job;
    let fill_only = empty.is_some_and(|fill| is_fill(&buf, fill));
    if inner.is_none() && pipeline.is_empty() && !fill_only {
        store.put(&key, pool.bytes(buf))?;
        return Ok(());
    }
    // Buffers of encoded chunks are freed, not pooled: encoding allocates
    // working memory beside them, which a pooled buffer would add to.
    let enc = if fill_only {
        None
    } else if pipeline.is_empty() {
        Some(buf)
    } else {
        let enc = pipeline.encode(&buf).map_err(|source| WriteError::Codec {
            key: key.to_string(),
            source,
        })?;
        drop(buf);
        Some(enc)
    };
    let Some(inner) = inner else {
        match enc {
            Some(bytes) => store.put(&key, Bytes::from(bytes))?,
            None => store.delete(&key)?,
        }
        return Ok(());
    };
    let complete = {
        let mut st = shared.lock();
        let done = st
            .extra
            .get_mut(&key)
            .is_some_and(|a| a.arrive(inner.pos, enc));
        if done {
            st.extra.remove(&key)
        } else {
            None
        }
    };
    if let Some(a) = complete {
        shards::store(store, &key, a)?;
    }
    Ok(())
}

impl EncodeQueue {
    /// A queue storing into `store`, variable `i` encoded by `pipelines[i]`;
    /// chunks of variable `i` that are all `empty[i]` (one element's bytes)
    /// are not stored (a missing entry stores every chunk); chunks of a
    /// variable with a `layouts[i]` are inner chunks of its shards; the
    /// chunks in flight hold at most `memory` bytes (see [`cost`](Self::cost)).
    pub fn new(
        store: Arc<dyn ReadWriteStore>,
        pipelines: Vec<ChunkChain>,
        empty: Vec<Option<Vec<u8>>>,
        layouts: Vec<Option<ShardLayout>>,
        memory: usize,
    ) -> EncodeQueue {
        EncodeQueue {
            store,
            pipelines: pipelines.into(),
            empty: empty.into(),
            layouts,
            tasks: TaskQueue::new(memory, HashMap::new()),
            pool: BufferPool::default(),
        }
    }

    /// The buffers of chunks already stored, free for new chunks.
    pub fn pool(&self) -> &BufferPool {
        &self.pool
    }

    /// The memory a chunk of `size` decoded bytes of variable `var` takes
    /// while in flight: the bytes themselves when they are stored as they
    /// are, else three times them (the decoded bytes, a filter's output and
    /// the compressor's, which is near the input's size at worst).
    pub fn cost(&self, var: usize, size: usize) -> usize {
        if self.pipelines[var].is_empty() {
            size
        } else {
            size.saturating_mul(3)
        }
    }

    /// Waits while the chunk at `key` (the inner chunk at `pos` of the
    /// shard at `key`) is being stored, so that it is read back, or stored
    /// again, only after its earlier version has landed.
    pub fn wait_for(&self, key: &StoreKey, pos: Option<usize>) {
        let id = (key.clone(), pos);
        drop(
            self.tasks
                .shared()
                .wait_until(|st| !st.in_flight.contains(&id)),
        );
    }

    /// Applies `f` to the assembly of the shard of variable `var` at `key`
    /// holding `inner`, opening it (from the store, when the shard is
    /// there) if it is not being assembled: once no job of that shard is in
    /// flight, so that a shard being stored has landed.
    fn with_shard<R>(
        &self,
        var: usize,
        key: &StoreKey,
        inner: &Inner,
        f: impl FnOnce(&mut Assembly) -> R,
    ) -> Result<R, WriteError> {
        let mut st = self.tasks.shared().wait_until(|st| {
            st.extra.contains_key(key) || !st.in_flight.iter().any(|(k, _)| k == key)
        });
        if let Some(a) = st.extra.get_mut(key) {
            return Ok(f(a));
        }
        drop(st);
        let layout = self.layouts[var].as_ref().expect("a sharded variable");
        let stored = self.store.get(key)?;
        let mut a = Assembly::open(layout, inner, key, stored.as_deref())?;
        let r = f(&mut a);
        // Only this thread opens assemblies, and no job of this one runs.
        self.tasks.shared().lock().extra.insert(key.clone(), a);
        Ok(r)
    }

    /// Takes inner chunk `inner` of the shard of variable `var` at `key`
    /// out of it, to be written again: its encoded bytes, `None` when it
    /// has none (never written, or only fill).
    pub fn take_inner(
        &self,
        var: u32,
        key: &StoreKey,
        inner: &Inner,
    ) -> Result<Option<Vec<u8>>, WriteError> {
        self.wait_for(key, Some(inner.pos));
        self.with_shard(var as usize, key, inner, |a| a.take(inner.pos))
    }

    /// Waits until `size` more bytes fit beside `held` bytes and the chunks
    /// in flight within `limit`, or nothing is in flight.
    pub fn wait_for_room(&self, held: usize, size: usize, limit: usize) {
        drop(
            self.tasks
                .shared()
                .wait_until(|st| st.in_flight.is_empty() || held + st.bytes + size <= limit),
        );
    }

    /// Encodes and stores `job`, in the background when workers are free;
    /// waits while the most jobs allowed are in flight (or one for the same
    /// key). With a single thread the job runs on the caller's. An error of
    /// an earlier background job is returned here or by [`wait`](Self::wait).
    pub fn submit(&self, job: Job) -> Result<(), WriteError> {
        let var = job.var as usize;
        if let Some(inner) = &job.inner {
            self.with_shard(var, &job.key, inner, Assembly::expect_one)?;
        }
        let size = self.cost(var, job.buf.len());
        let id = (job.key.clone(), job.inner.as_ref().map(|i| i.pos));
        let (store, pipelines, empty, pool) = (
            self.store.clone(),
            self.pipelines.clone(),
            self.empty.clone(),
            self.pool.clone(),
        );
        self.tasks.submit(id, size, move |shared| {
            let fill = empty.get(var).and_then(Option::as_deref);
            run(store.as_ref(), &pipelines[var], fill, shared, &pool, job)
        })
    }

    /// Waits until every submitted job is stored; returns the first error
    /// any of them met.
    pub fn wait(&self) -> Result<(), WriteError> {
        self.tasks.wait()
    }
}

impl EncodeQueue {
    /// Stores every shard still being assembled (inner chunks that never
    /// arrived are missing from it: they read as fill), in key order, once
    /// every job has finished.
    pub fn finish_shards(&self) -> Result<(), WriteError> {
        self.wait()?;
        let mut open: Vec<(StoreKey, Assembly)> =
            self.tasks.shared().lock().extra.drain().collect();
        open.sort_by(|a, b| a.0.cmp(&b.0));
        for (key, a) in open {
            shards::store(self.store.as_ref(), &key, a)?;
        }
        Ok(())
    }
}
