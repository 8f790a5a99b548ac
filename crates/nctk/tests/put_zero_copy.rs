//! `DatasetMut::put_values` and `put` write from the caller's memory: no
//! copy of the data is made on the way to the writer. A counting allocator
//! adds up the bytes this thread allocates during one write of 4 MiB of
//! `byte` values to a classic file (which the classic writer writes as
//! they are, one byte per value, with no byte swap): a copy of the slice
//! into `Values` (or an ndarray flattened into a `Vec`) would allocate the
//! 4 MiB again.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use nctk::Format;

struct Counting;

thread_local! {
    static ALLOCATED: Cell<usize> = const { Cell::new(0) };
}

// SAFETY: forwards to the system allocator unchanged; only counts sizes
// (in a thread-local `Cell`, which allocates nothing).
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCATED.try_with(|a| a.set(a.get() + layout.size()));
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let _ = ALLOCATED.try_with(|a| a.set(a.get() + new_size));
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Bytes this thread allocates while `f` runs.
fn allocated_by(f: impl FnOnce()) -> usize {
    let before = ALLOCATED.with(Cell::get);
    f();
    ALLOCATED.with(Cell::get) - before
}

const N: usize = 4 << 20;

#[test]
fn put_values_and_put_write_from_the_callers_memory() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("b.nc");
    let mut def = nctk::create_with_fill(&path, Format::Classic, false).unwrap();
    let x = def.add_dimension("x", N as u64).unwrap();
    def.add_variable::<i8>("a", &[x]).unwrap();
    def.add_variable::<i8>("b", &[x]).unwrap();
    let mut ds = def.end_define().unwrap();
    let data: Vec<i8> = (0..N).map(|i| (i % 127) as i8).collect();
    let by_slice = allocated_by(|| ds.put_values("a", .., &data).unwrap());
    assert!(
        by_slice < N / 4,
        "put_values allocated {by_slice} bytes for {N} bytes of data"
    );
    let array = ndarray::ArrayView1::from(&data[..]).into_dyn();
    let by_array = allocated_by(|| ds.put("b", .., array).unwrap());
    assert!(
        by_array < N / 4,
        "put allocated {by_array} bytes for {N} bytes of data"
    );
    ds.close().unwrap();
    let back = nctk::open(&path).unwrap();
    for name in ["a", "b"] {
        let got: Vec<i8> = back.variable(name).unwrap().get_values(..).unwrap();
        assert!(got == data, "{name} reads back as written");
    }
}
