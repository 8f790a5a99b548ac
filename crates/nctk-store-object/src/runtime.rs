//! The crate's own tokio runtime, and the one way blocking code waits on it.

use std::future::Future;
use std::sync::OnceLock;

use tokio::runtime::Runtime;

/// The runtime every request of this crate runs on: started on first use,
/// with as many worker threads as cores (at least two), kept for the
/// process's life.
fn runtime() -> &'static Runtime {
    static RUNTIME: OnceLock<Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        let workers = std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(2)
            .max(2);
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(workers)
            .thread_name("nctk-object-io")
            .enable_all()
            .build()
            .unwrap_or_else(|e| panic!("cannot start nctk's I/O runtime: {e}"))
    })
}

/// Runs `future` on the crate's runtime and blocks the calling thread until
/// it finishes.
///
/// Unlike `Runtime::block_on`, this may be called from any thread,
/// including a worker of a caller's tokio runtime (current-thread or
/// multi-thread): the work runs on this crate's threads, so it never needs
/// the thread it blocks. A panic inside `future` is resumed here.
pub fn block_on<F>(future: F) -> F::Output
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    let task = runtime().spawn(future);
    match futures::executor::block_on(task) {
        Ok(output) => output,
        Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
        // Tasks are only cancelled when the runtime shuts down, which the
        // process-wide runtime never does.
        Err(e) => panic!("nctk's I/O runtime cancelled a request: {e}"),
    }
}

/// Spawns `future` on the crate's runtime without waiting (background
/// uploads); the handle is awaited later with [`block_on`].
pub fn spawn<F>(future: F) -> tokio::task::JoinHandle<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    runtime().spawn(future)
}

#[cfg(test)]
mod tests {
    use super::block_on;

    async fn answer() -> u32 {
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        42
    }

    #[test]
    fn from_a_plain_thread() {
        assert_eq!(block_on(answer()), 42);
    }

    #[tokio::test(flavor = "current_thread")]
    async fn from_inside_a_current_thread_runtime() {
        // tokio's own block_on would panic here ("Cannot start a runtime
        // from within a runtime"); a deadlock would hang the test.
        assert_eq!(block_on(answer()), 42);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 1)]
    async fn from_inside_a_multi_thread_runtime() {
        assert_eq!(block_on(answer()), 42);
    }

    #[test]
    fn panics_are_resumed() {
        let r = std::panic::catch_unwind(|| block_on(async { panic!("boom") }));
        assert!(r.is_err());
    }
}
