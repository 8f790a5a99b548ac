//! Encoding chunks on every core with bounded memory, for the writers
//! (Zarr stores, HDF5 files): [`TaskQueue`] runs each submitted task (the
//! encoding and storing of one finished chunk) on rayon's threads while
//! the caller goes on filling the next chunks. At most one task per worker
//! thread is in flight, each counted with the bytes it holds; submitting
//! more waits until one finishes, and so does a task whose bytes would
//! take those in flight past the memory limit (one task always may run).
//! Tasks are keyed, and a task waits for one of the same key to finish
//! (a chunk stored again lands after its earlier version). The first
//! error of a background task is returned by a later
//! [`submit`](TaskQueue::submit) or by [`wait`](TaskQueue::wait). Beside
//! the tasks, the queue's state holds the writer's own shared data
//! (`extra`), behind the same lock.

use std::collections::HashSet;
use std::hash::Hash;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

/// The state of a [`TaskQueue`], shared with its tasks.
#[derive(Debug)]
pub struct State<K, E, X> {
    /// The keys of the tasks in flight.
    pub in_flight: HashSet<K>,
    /// The bytes the tasks in flight hold, as their submitters counted them.
    pub bytes: usize,
    /// The first error a background task returned, until reported.
    pub error: Option<E>,
    /// The writer's own data, changed by its tasks under the same lock.
    pub extra: X,
}

/// A [`State`] behind a lock, with a condition signalled when a task ends.
#[derive(Debug)]
pub struct Shared<S> {
    state: Mutex<S>,
    changed: Condvar,
}

impl<S> Shared<S> {
    /// Locks the state.
    pub fn lock(&self) -> MutexGuard<'_, S> {
        // Tasks update the state in single steps and never panic while
        // holding the lock, so a poisoned lock is still consistent.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Waits until `done` holds. A caller that is itself a rayon worker
    /// runs pending tasks of its pool meanwhile (in a pool of one thread
    /// the tasks it waits for are queued behind it).
    pub fn wait_until(&self, done: impl Fn(&S) -> bool) -> MutexGuard<'_, S> {
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

/// Runs tasks in parallel with a bounded number in flight and bounded
/// memory; see the [module docs](self).
pub struct TaskQueue<K, E, X> {
    shared: Arc<Shared<State<K, E, X>>>,
    limit: usize,
    memory: usize,
}

/// The state a task of a [`TaskQueue`] is given.
pub type SharedState<K, E, X> = Shared<State<K, E, X>>;

impl<K, E, X> TaskQueue<K, E, X>
where
    K: Eq + Hash + Clone + Send + 'static,
    E: Send + 'static,
    X: Send + 'static,
{
    /// A queue whose tasks in flight hold at most `memory` bytes (one
    /// task always may run), with `extra` beside them in its state.
    pub fn new(memory: usize, extra: X) -> TaskQueue<K, E, X> {
        TaskQueue {
            shared: Arc::new(Shared {
                state: Mutex::new(State {
                    in_flight: HashSet::new(),
                    bytes: 0,
                    error: None,
                    extra,
                }),
                changed: Condvar::new(),
            }),
            limit: rayon::current_num_threads(),
            memory,
        }
    }

    /// The shared state (what tasks are given).
    pub fn shared(&self) -> &SharedState<K, E, X> {
        &self.shared
    }

    /// Runs `task`, keyed `key` and holding `bytes`, in the background
    /// when workers are free; waits while the most tasks allowed are in
    /// flight, while one of the same key is, or while `bytes` more would
    /// take those in flight past the memory limit. With a single thread
    /// the task runs on the caller's. An error of an earlier background
    /// task is returned here (and `task` not run).
    pub fn submit(
        &self,
        key: K,
        bytes: usize,
        task: impl FnOnce(&SharedState<K, E, X>) -> Result<(), E> + Send + 'static,
    ) -> Result<(), E> {
        if self.limit <= 1 {
            return task(&self.shared);
        }
        let mut st = self.shared.wait_until(|st| {
            st.error.is_some()
                || (st.in_flight.len() < self.limit
                    && !st.in_flight.contains(&key)
                    && (st.in_flight.is_empty() || st.bytes + bytes <= self.memory))
        });
        if let Some(e) = st.error.take() {
            return Err(e);
        }
        st.in_flight.insert(key.clone());
        st.bytes += bytes;
        drop(st);
        let shared = self.shared.clone();
        rayon::spawn(move || {
            let result = task(&shared);
            let mut st = shared.lock();
            st.in_flight.remove(&key);
            st.bytes -= bytes;
            if let Err(e) = result {
                st.error.get_or_insert(e);
            }
            drop(st);
            shared.changed.notify_all();
        });
        Ok(())
    }

    /// Waits until every submitted task has ended; returns the first
    /// error any of them met.
    pub fn wait(&self) -> Result<(), E> {
        let mut st = self.shared.wait_until(|st| st.in_flight.is_empty());
        match st.error.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

impl<K, E, X> Drop for TaskQueue<K, E, X> {
    /// Tasks still in flight finish before the queue goes away, so that
    /// nothing writes into an output its owner is about to remove.
    fn drop(&mut self) {
        drop(self.shared.wait_until(|st| st.in_flight.is_empty()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn every_task_runs_and_the_first_error_is_reported() {
        let q: TaskQueue<u32, String, Vec<u32>> = TaskQueue::new(1 << 20, Vec::new());
        let ran = Arc::new(AtomicUsize::new(0));
        for i in 0..50u32 {
            let ran = ran.clone();
            q.submit(i % 7, 100, move |sh| {
                ran.fetch_add(1, Ordering::SeqCst);
                sh.lock().extra.push(i);
                Ok(())
            })
            .unwrap();
        }
        q.wait().unwrap();
        assert_eq!(ran.load(Ordering::SeqCst), 50);
        let mut got = std::mem::take(&mut q.shared().lock().extra);
        got.sort_unstable();
        assert_eq!(got, (0..50).collect::<Vec<_>>());
        q.submit(0, 1, |_| Err("bad".to_string())).unwrap_or(());
        let later = q.submit(1, 1, |_| Ok(())).and_then(|()| q.wait());
        assert_eq!(later, Err("bad".to_string()));
    }

    #[test]
    fn bytes_in_flight_stay_under_the_limit() {
        let q: TaskQueue<u32, (), usize> = TaskQueue::new(250, 0);
        for i in 0..20 {
            q.submit(i, 100, |sh| {
                let st = sh.lock();
                assert!(st.bytes <= 250, "{} bytes in flight", st.bytes);
                Ok(())
            })
            .unwrap();
        }
        q.wait().unwrap();
        assert_eq!(q.shared().lock().bytes, 0);
    }
}
