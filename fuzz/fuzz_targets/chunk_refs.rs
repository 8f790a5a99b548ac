//! Chunk references (what `nctk refs` writes for kerchunk and Icechunk) of
//! fuzzed bytes opened from memory as a classic or netCDF-4/HDF5 file:
//! every variable's references are an error naming the input, or point
//! only inside the input, with one reference per chunk of the grid at
//! most and chunk coordinates inside it; never a panic or an unbounded
//! allocation.
//!
//! Seeds: the corpus's classic and HDF5 files,
//!
//! ```sh
//! mkdir -p fuzz/corpus/chunk_refs
//! find "$NCTK_CORPUS" -name '*.nc' -size -256k -exec cp {} fuzz/corpus/chunk_refs/ \;
//! cd fuzz && RUSTC_BOOTSTRAP=1 cargo fuzz run -s none chunk_refs -- -max_len=262144 -rss_limit_mb=1024
//! ```
#![no_main]

use libfuzzer_sys::fuzz_target;
use nctk_model::ChunkRef;

/// The name the input goes by in errors.
const NAME: &str = "fuzz.nc";

fuzz_target!(|data: &[u8]| {
    let Ok(ds) = nctk::open_bytes(NAME, data.to_vec().into()) else {
        return;
    };
    for var in ds.variables() {
        let refs = match var.chunk_refs() {
            Ok(refs) => refs,
            Err(e) => {
                assert!(e.to_string().contains(NAME), "{e}");
                continue;
            }
        };
        let shape = var.shape();
        assert_eq!(refs.chunk_shape.len(), shape.len());
        assert!(refs.chunk_shape.iter().all(|&c| c >= 1));
        let grid: Vec<u64> = shape
            .iter()
            .zip(&refs.chunk_shape)
            .map(|(&n, &c)| n.div_ceil(c))
            .collect();
        let mut last: Option<&Vec<u64>> = None;
        for (coords, r) in &refs.chunks {
            assert_eq!(coords.len(), grid.len());
            assert!(
                coords.iter().zip(&grid).all(|(&i, &g)| i < g),
                "{}: chunk {coords:?} outside the grid {grid:?}",
                var.name()
            );
            assert!(
                last.is_none_or(|l| l < coords),
                "chunks in row-major order, once each"
            );
            last = Some(coords);
            if let ChunkRef::Range { offset, length } = r {
                assert!(
                    offset
                        .checked_add(*length)
                        .is_some_and(|end| end <= data.len() as u64),
                    "{}: chunk {coords:?} at {offset}+{length} past the input's {} bytes",
                    var.name(),
                    data.len()
                );
            }
        }
    }
});
