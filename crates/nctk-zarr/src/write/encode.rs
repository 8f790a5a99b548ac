//! Encoding and storing chunks on every core: [`EncodeQueue`] hands each
//! finished chunk to a rayon task that encodes it and puts it in the store,
//! while the caller goes on filling the next chunks. At most one chunk per
//! worker thread is in flight, each holding its decoded bytes and, while
//! encoding, its working and encoded bytes; submitting more waits for one
//! to finish, and so does a chunk whose bytes (counted with its encoding's
//! working memory) would take the chunks in flight past the memory limit.
//! A chunk holding only its variable's fill value is not stored (and one
//! already there is removed), as zarr-python's `write_empty_chunks=False`:
//! readers read a missing chunk as fill.

use std::collections::HashSet;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use nctk_store::kv::{Bytes, StoreKey};

use super::chain::ChunkChain;
use super::{ReadWriteStore, WriteError};

/// One chunk to encode and store.
pub struct Job {
    /// Index of the variable (its pipeline).
    pub var: u32,
    /// Where it goes.
    pub key: StoreKey,
    /// The decoded chunk (consumed: moved into the store as is when the
    /// pipeline is empty).
    pub buf: Vec<u8>,
}

#[derive(Default)]
struct State {
    /// Keys of the chunks being encoded or stored.
    in_flight: HashSet<StoreKey>,
    /// Bytes the chunks in flight hold: decoded, and while encoding the
    /// working and encoded copies ([`EncodeQueue::cost`]).
    bytes: usize,
    error: Option<WriteError>,
}

struct Shared {
    state: Mutex<State>,
    changed: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // Tasks update the state in single steps and never panic while
        // holding the lock, so a poisoned lock is still consistent.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Waits until `done` holds. A caller that is itself a rayon worker
    /// runs pending tasks of its pool meanwhile (in a pool of one thread
    /// the jobs it waits for are queued behind it).
    fn wait_until(&self, done: impl Fn(&State) -> bool) -> MutexGuard<'_, State> {
        let mut st = self.lock();
        while !done(&st) {
            if rayon::current_thread_index().is_none() {
                st = self.changed.wait(st).unwrap_or_else(|p| p.into_inner());
                continue;
            }
            drop(st);
            if rayon::yield_now() != Some(rayon::Yield::Executed) {
                let guard = self.lock();
                let timeout = std::time::Duration::from_millis(1);
                st = match self.changed.wait_timeout(guard, timeout) {
                    Ok((g, _)) => g,
                    Err(p) => p.into_inner().0,
                };
            } else {
                st = self.lock();
            }
        }
        st
    }
}

/// Encodes and stores chunks in parallel with a bounded number in flight;
/// see the [module docs](self).
pub struct EncodeQueue {
    store: Arc<dyn ReadWriteStore>,
    pipelines: Arc<[ChunkChain]>,
    /// Per variable, the fill value's bytes (one element) when chunks
    /// holding only it are left out; `None` stores every chunk.
    empty: Arc<[Option<Vec<u8>>]>,
    shared: Arc<Shared>,
    limit: usize,
    /// Bytes the chunks in flight may hold (one chunk always may).
    memory: usize,
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
/// from the store instead.
fn run(
    store: &dyn ReadWriteStore,
    pipeline: &ChunkChain,
    empty: Option<&[u8]>,
    job: Job,
) -> Result<(), WriteError> {
    let Job { key, buf, .. } = job;
    if empty.is_some_and(|fill| is_fill(&buf, fill)) {
        store.delete(&key)?;
        return Ok(());
    }
    let bytes = if pipeline.is_empty() {
        Bytes::from(buf)
    } else {
        let enc = pipeline.encode(&buf).map_err(|source| WriteError::Codec {
            key: key.to_string(),
            source,
        })?;
        drop(buf);
        Bytes::from(enc)
    };
    store.put(&key, bytes)?;
    Ok(())
}

impl EncodeQueue {
    /// A queue storing into `store`, variable `i` encoded by `pipelines[i]`;
    /// chunks of variable `i` that are all `empty[i]` (one element's bytes)
    /// are not stored (a missing entry stores every chunk); the chunks in
    /// flight hold at most `memory` bytes (see [`cost`](Self::cost)).
    pub fn new(
        store: Arc<dyn ReadWriteStore>,
        pipelines: Vec<ChunkChain>,
        empty: Vec<Option<Vec<u8>>>,
        memory: usize,
    ) -> EncodeQueue {
        EncodeQueue {
            store,
            pipelines: pipelines.into(),
            empty: empty.into(),
            shared: Arc::new(Shared {
                state: Mutex::new(State::default()),
                changed: Condvar::new(),
            }),
            limit: rayon::current_num_threads(),
            memory,
        }
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

    /// Waits while `key` is being stored, so that a chunk is read back, or
    /// stored again, only after its earlier version has landed.
    pub fn wait_for(&self, key: &StoreKey) {
        drop(self.shared.wait_until(|st| !st.in_flight.contains(key)));
    }

    /// Waits until `size` more bytes fit beside `held` bytes and the chunks
    /// in flight within `limit`, or nothing is in flight.
    pub fn wait_for_room(&self, held: usize, size: usize, limit: usize) {
        drop(
            self.shared
                .wait_until(|st| st.in_flight.is_empty() || held + st.bytes + size <= limit),
        );
    }

    /// Encodes and stores `job`, in the background when workers are free;
    /// waits while the most jobs allowed are in flight (or one for the same
    /// key). With a single thread the job runs on the caller's. An error of
    /// an earlier background job is returned here or by [`wait`](Self::wait).
    pub fn submit(&self, job: Job) -> Result<(), WriteError> {
        let var = job.var as usize;
        if self.limit <= 1 {
            let empty = self.empty.get(var).and_then(Option::as_deref);
            return run(self.store.as_ref(), &self.pipelines[var], empty, job);
        }
        let size = self.cost(var, job.buf.len());
        let mut st = self.shared.wait_until(|st| {
            st.error.is_some()
                || (st.in_flight.len() < self.limit
                    && !st.in_flight.contains(&job.key)
                    && (st.in_flight.is_empty() || st.bytes + size <= self.memory))
        });
        if let Some(e) = st.error.take() {
            return Err(e);
        }
        st.in_flight.insert(job.key.clone());
        st.bytes += size;
        drop(st);
        let (store, pipelines, empty, shared) = (
            self.store.clone(),
            self.pipelines.clone(),
            self.empty.clone(),
            self.shared.clone(),
        );
        rayon::spawn(move || {
            let key = job.key.clone();
            let fill = empty.get(var).and_then(Option::as_deref);
            let result = run(store.as_ref(), &pipelines[var], fill, job);
            let mut st = shared.lock();
            st.in_flight.remove(&key);
            st.bytes -= size;
            if let Err(e) = result {
                st.error.get_or_insert(e);
            }
            drop(st);
            shared.changed.notify_all();
        });
        Ok(())
    }

    /// Waits until every submitted job is stored; returns the first error
    /// any of them met.
    pub fn wait(&self) -> Result<(), WriteError> {
        let mut st = self.shared.wait_until(|st| st.in_flight.is_empty());
        match st.error.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

impl Drop for EncodeQueue {
    /// Jobs still in flight finish before the writer goes away, so that
    /// nothing writes into a store its owner is about to remove.
    fn drop(&mut self) {
        let _ = self.wait();
    }
}
