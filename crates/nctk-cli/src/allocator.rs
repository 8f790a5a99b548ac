//! The C allocator's settings for a process that moves chunks of
//! megabytes: glibc serves each block of 128 KiB or more with its own
//! `mmap` and gives it back to the kernel when freed, so every chunk
//! buffer of a copy (a few MiB, one or more per chunk) costs a page fault
//! per 4 KiB page and the kernel's zeroing of it. Raised thresholds keep
//! freed buffers in the heap, where the next chunk reuses them: for
//! `nctk copy -k nc4` of a 415 MB variable, 53,000 page faults become
//! 4,500 and a third of the CPU time of an uncompressed copy goes
//! (docs/benchmarks.md). Peak memory does not change: it is bounded by
//! the chunks in flight, which the heap now keeps instead of unmapping.

/// Applies the settings (glibc on Linux; elsewhere nothing).
pub fn tune() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // Blocks up to this size come from the heap, not a mapping of
        // their own (glibc's largest allowed threshold on 64-bit systems).
        const MMAP_THRESHOLD: i32 = 32 << 20;
        // Free memory at the top of the heap kept for reuse, up to this much.
        const TRIM_THRESHOLD: i32 = 256 << 20;
        // SAFETY: mallopt only changes the allocator's parameters; it is
        // called first thing in main, before any other thread exists.
        unsafe {
            libc::mallopt(libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD);
            libc::mallopt(libc::M_TRIM_THRESHOLD, TRIM_THRESHOLD);
        }
    }
}
