//! Damaged-input cases run under bounds: each on a thread of its own,
//! within a time bound, with no panic, and with the largest single
//! allocation of the process recorded by [`Tracking`] (`crate::alloc`'s;
//! a test binary installs it as its global allocator) and held under a
//! cap.
//!
//! ```no_run
//! use nctk_test_support::bounded::{run_case, Bounds, Tracking};
//!
//! #[global_allocator]
//! static GLOBAL: Tracking = Tracking;
//!
//! # fn test() {
//! let bounds = Bounds { time: std::time::Duration::from_secs(30), allocation: 256 << 20 };
//! let failure = run_case("x.nc cut at 10".into(), bounds, || Ok(()));
//! assert!(failure.is_none());
//! # }
//! ```

use std::sync::mpsc;
use std::time::Duration;

pub use crate::alloc::Tracking;

/// The bounds of one case.
#[derive(Debug, Clone, Copy)]
pub struct Bounds {
    /// How long the case may take.
    pub time: Duration,
    /// The largest single allocation it may make (seen only when the
    /// binary's global allocator is [`Tracking`]).
    pub allocation: usize,
}

/// Runs `case` on a thread of its own: a panic, a run past `bounds.time`,
/// an allocation past `bounds.allocation` or an `Err` (the case's own
/// verdict) is a failure, described and prefixed with `label`.
pub fn run_case(
    label: String,
    bounds: Bounds,
    case: impl FnOnce() -> Result<(), String> + Send + 'static,
) -> Option<String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(case));
        let _ = tx.send(outcome);
    });
    let failure = match rx.recv_timeout(bounds.time) {
        Ok(Ok(Ok(()))) => None,
        Ok(Ok(Err(e))) => Some(e),
        Ok(Err(panic)) => Some(format!(
            "panicked: {}",
            panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default()
        )),
        Err(_) => Some(format!("did not finish within {:?}", bounds.time)),
    };
    let largest = crate::alloc::take_largest();
    let failure = failure.or_else(|| {
        (largest > bounds.allocation).then(|| format!("allocated {largest} bytes at once"))
    });
    failure.map(|f| format!("{label}: {f}"))
}

/// A small deterministic generator (xorshift64), so that a failing case
/// is the same on every run.
#[derive(Debug, Clone)]
pub struct Rng(pub u64);

impl Rng {
    /// A number in `0..n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}
