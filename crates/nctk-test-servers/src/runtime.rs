//! The tokio runtime each server or client runs on: its own threads, so
//! the servers work the same from synchronous tests and from inside a
//! caller's runtime.

use std::future::Future;

use crate::error::{Error, Result};

/// A multi-threaded tokio runtime owned by one server or client, shut down
/// (its tasks, listeners and connections dropped) when it is dropped.
pub(crate) struct Background {
    rt: Option<tokio::runtime::Runtime>,
}

impl Background {
    /// A runtime whose threads are named `name`.
    pub(crate) fn new(name: &str) -> Result<Self> {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name(name)
            .enable_all()
            .build()
            .map_err(Error::io(format!("starting the {name} runtime")))?;
        Ok(Self { rt: Some(rt) })
    }

    /// The runtime's handle, to spawn tasks on it.
    pub(crate) fn handle(&self) -> &tokio::runtime::Handle {
        self.rt.as_ref().expect("present until dropped").handle()
    }

    /// Runs `future` on the runtime and waits for its output, blocking this
    /// thread (which may be a thread of another runtime: no panic there).
    pub(crate) fn run<F>(&self, future: F) -> F::Output
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        let (tx, rx) = std::sync::mpsc::channel();
        self.handle().spawn(async move {
            let _ = tx.send(future.await);
        });
        rx.recv()
            .expect("the runtime outlives the tasks run on it and they do not panic")
    }
}

impl Drop for Background {
    fn drop(&mut self) {
        if let Some(rt) = self.rt.take() {
            if tokio::runtime::Handle::try_current().is_ok() {
                // Waiting is not allowed inside another runtime.
                rt.shutdown_background();
            } else {
                rt.shutdown_timeout(std::time::Duration::from_secs(5));
            }
        }
    }
}
