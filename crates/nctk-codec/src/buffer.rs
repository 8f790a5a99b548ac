//! Buffers: output buffers for whole-array reads, per-thread scratch kept
//! between blocks ([`with_kept`]), and chunk buffers kept once written for
//! the chunks that follow ([`BufferPool`]).
//!
//! ## Output buffers
//!
//! A read of a large array writes every byte of a freshly allocated buffer
//! once. With the kernel's default 4 KiB pages, most of that time can be
//! page faults: on the 2-core benchmark VM, filling a new 415 MB buffer
//! takes 0.16-0.18 s with 4 KiB pages but 0.05 s with 2 MiB pages, while
//! decoding blosc-lz4 into it takes about 0.1 s of CPU. numpy asks for huge
//! pages on every allocation of 4 MiB or more (`madvise(MADV_HUGEPAGE)`),
//! so a Python reader gets them for its output array; [`advise_huge_pages`]
//! does the same for ours.

use std::sync::{Arc, Mutex, PoisonError};

use nctk_model::{DataType, Values};

/// Buffers smaller than this are left alone (numpy's threshold).
const MIN_LEN: usize = 4 << 20;

/// The largest buffer [`with_kept`] keeps for the next use.
const KEEP_LEN: usize = 16 << 20;

/// A byte buffer per thread, declared with `thread_local!` as a
/// `Cell<Vec<u8>>` and used through [`with_kept`].
pub type ThreadBuffer = std::thread::LocalKey<std::cell::Cell<Vec<u8>>>;

/// Runs `f` with this thread's `buffer` (its contents and length are
/// whatever the last use left), then keeps it for the next use when its
/// capacity is at most 16 MiB: block-sized scratch that a fresh
/// allocation per block would pay for in page faults. The buffer is taken
/// out while `f` runs, so a nested use of the same buffer gets an empty
/// one rather than aliasing it.
pub fn with_kept<R>(buffer: &'static ThreadBuffer, f: impl FnOnce(&mut Vec<u8>) -> R) -> R {
    let mut buf = buffer.take();
    let result = f(&mut buf);
    if buf.capacity() <= KEEP_LEN {
        buffer.set(buf);
    }
    result
}

/// Byte buffers given back once their data is written, for the next ones
/// (the writers' chunk buffers): a buffer whose pages are already mapped
/// spares a fresh one's page faults and zeroing, which cost more than
/// copying a chunk into it. Clones share the buffers. The pool keeps at
/// most `max_buffers` buffers of at most `max_bytes` in all, the largest
/// first.
#[derive(Clone)]
pub struct BufferPool {
    free: Arc<Mutex<Vec<Vec<u8>>>>,
    max_buffers: usize,
    max_bytes: usize,
}

impl BufferPool {
    /// An empty pool that keeps at most `max_buffers` buffers holding at
    /// most `max_bytes` (their capacities).
    pub fn new(max_buffers: usize, max_bytes: usize) -> BufferPool {
        BufferPool {
            free: Arc::default(),
            max_buffers,
            max_bytes,
        }
    }

    /// A kept buffer with room for at least `len` bytes, its contents and
    /// length what its last user left, or `None` when none is large enough.
    pub fn take(&self, len: usize) -> Option<Vec<u8>> {
        let mut free = self.free.lock().unwrap_or_else(PoisonError::into_inner);
        let i = free.iter().position(|b| b.capacity() >= len)?;
        Some(free.remove(i))
    }

    /// Keeps `buf` for a later user, then drops the smallest buffers kept
    /// until the pool is within its bounds.
    pub fn give(&self, buf: Vec<u8>) {
        let mut free = self.free.lock().unwrap_or_else(PoisonError::into_inner);
        // largest first, so the smallest go when the pool is over its bounds
        let at = free.partition_point(|b| b.capacity() >= buf.capacity());
        free.insert(at, buf);
        let mut held: usize = free.iter().map(Vec::capacity).sum();
        while free.len() > self.max_buffers || held > self.max_bytes {
            held -= free.pop().map_or(0, |b| b.capacity());
        }
    }
}

/// Asks the kernel to back `buf` with transparent huge pages when it is
/// first touched (Linux `madvise(MADV_HUGEPAGE)` on the 2 MiB-aligned part
/// of it). Call it on a large buffer right after allocating it zeroed (a
/// large `vec![0; n]` comes from fresh, untouched pages) and before writing
/// it. Only a hint: the contents are unchanged, nothing happens on other
/// systems, for buffers under 4 MiB, or when transparent huge pages are
/// off; failures are ignored.
pub fn advise_huge_pages<T: Copy>(buf: &mut [T]) {
    let len = std::mem::size_of_val(buf);
    if len < MIN_LEN {
        return;
    }
    sys::advise(buf.as_mut_ptr().cast::<u8>(), len);
}

/// `n` zero elements, after checking that the allocation can succeed
/// (`vec![0; n]` takes zeroed pages from the allocator without writing
/// them, but aborts on failure); a large buffer asks for huge pages
/// ([`advise_huge_pages`]), which makes first-touch page faults several
/// times cheaper. `None` when the memory cannot be had.
pub fn zeroed<T: Copy + Default>(n: usize) -> Option<Vec<T>> {
    let mut probe: Vec<T> = Vec::new();
    probe.try_reserve_exact(n).ok()?;
    drop(probe);
    let mut v = vec![T::default(); n];
    advise_huge_pages(&mut v);
    Some(v)
}

/// `n` zero values of the fixed-width type `dtype` (a number or `char`),
/// allocated as [`zeroed`] allocates them: the output buffer of a
/// whole-array read. `None` for the other types, or when the memory
/// cannot be had.
pub fn zeroed_values(dtype: DataType, n: usize) -> Option<Values> {
    Some(match dtype {
        DataType::Byte => Values::Byte(zeroed(n)?),
        DataType::UByte => Values::UByte(zeroed(n)?),
        DataType::Char => Values::Char(zeroed(n)?),
        DataType::Short => Values::Short(zeroed(n)?),
        DataType::UShort => Values::UShort(zeroed(n)?),
        DataType::Int => Values::Int(zeroed(n)?),
        DataType::UInt => Values::UInt(zeroed(n)?),
        DataType::Int64 => Values::Int64(zeroed(n)?),
        DataType::UInt64 => Values::UInt64(zeroed(n)?),
        DataType::Float => Values::Float(zeroed(n)?),
        DataType::Double => Values::Double(zeroed(n)?),
        _ => return None,
    })
}

#[cfg(target_os = "linux")]
mod sys {
    /// The huge page size on x86_64 and aarch64 with 4 KiB base pages.
    const HUGE: usize = 2 << 20;

    pub(super) fn advise(ptr: *mut u8, len: usize) {
        let start = ptr as usize;
        let Some(end) = start.checked_add(len) else {
            return;
        };
        // Whole huge pages only: madvise wants a page-aligned start, and
        // only 2 MiB-aligned ranges can be huge pages anyway.
        let lo = start.next_multiple_of(HUGE);
        let hi = end / HUGE * HUGE;
        if hi <= lo {
            return;
        }
        // SAFETY: [lo, hi) lies inside the caller's live, mutably borrowed
        // buffer. MADV_HUGEPAGE only changes how the kernel backs those
        // pages, never their contents, so no Rust-visible memory changes;
        // the result is ignored because the advice is optional.
        let _ = unsafe { libc::madvise(lo as *mut libc::c_void, hi - lo, libc::MADV_HUGEPAGE) };
    }
}

#[cfg(not(target_os = "linux"))]
mod sys {
    pub(super) fn advise(_ptr: *mut u8, _len: usize) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pool_gives_back_what_fits_and_keeps_the_largest_within_bounds() {
        let pool = BufferPool::new(4, usize::MAX);
        pool.give(vec![7; 8]);
        assert!(pool.take(16).is_none(), "too small");
        assert_eq!(pool.take(8), Some(vec![7; 8]), "contents as left");
        assert!(pool.take(1).is_none(), "taken once");
        for n in 1..=7 {
            pool.give(Vec::with_capacity(n));
        }
        let mut kept: Vec<usize> = std::iter::from_fn(|| pool.take(0))
            .map(|b| b.capacity())
            .collect();
        kept.sort_unstable();
        assert_eq!(kept, [4, 5, 6, 7], "at most 4, the largest");
        let pool = BufferPool::new(usize::MAX, 10);
        for n in [6, 3, 4] {
            pool.give(Vec::with_capacity(n));
        }
        let kept: usize = std::iter::from_fn(|| pool.take(0))
            .map(|b| b.capacity())
            .sum();
        assert_eq!(kept, 10, "at most 10 bytes, the largest first");
    }

    #[test]
    fn contents_unchanged() {
        let mut v: Vec<f32> = (0..(3 << 20)).map(|i| i as f32).collect();
        let copy = v.clone();
        advise_huge_pages(&mut v);
        assert_eq!(v, copy);
        let mut z = vec![0u8; 9 << 20];
        advise_huge_pages(&mut z);
        z[5 << 20] = 1;
        assert_eq!(z.iter().map(|&b| u32::from(b)).sum::<u32>(), 1);
        advise_huge_pages::<u8>(&mut []);
        advise_huge_pages(&mut [1u64; 3]);
    }
}
