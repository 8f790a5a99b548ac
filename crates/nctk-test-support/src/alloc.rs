//! A global allocator for bad-input tests: the system allocator, recording
//! the largest single allocation of the process (on any thread), so a test
//! can assert that damaged input never makes a reader allocate beyond a
//! bound. A test binary installs it with
//!
//! ```ignore
//! #[global_allocator]
//! static GLOBAL: nctk_test_support::alloc::Tracking = nctk_test_support::alloc::Tracking;
//! ```
//!
//! and reads [`take_largest`] after each case.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The recording allocator; see the module documentation.
pub struct Tracking;

static LARGEST: AtomicUsize = AtomicUsize::new(0);

/// The largest single allocation since the last call, and a fresh start.
pub fn take_largest() -> usize {
    LARGEST.swap(0, Ordering::Relaxed)
}

// SAFETY: forwards to the system allocator unchanged; only records sizes.
unsafe impl GlobalAlloc for Tracking {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LARGEST.fetch_max(layout.size(), Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LARGEST.fetch_max(new_size, Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}
