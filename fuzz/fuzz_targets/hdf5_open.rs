//! Opens fuzzed bytes as a netCDF-4/HDF5 file from memory (`nctk::open_bytes`),
//! reads every variable of a sane size and prints the whole dataset as CDL:
//! errors naming the input or values, never a panic, a hang or an
//! unbounded allocation.
//!
//! Seeds: the corpus's HDF5 files and the HDF5 fixtures,
//!
//! ```sh
//! mkdir -p fuzz/corpus/hdf5_open
//! for f in $(find "$NCTK_CORPUS/netcdf-c" -name '*.nc'); do
//!   head -c 8 "$f" | grep -q HDF && cp "$f" fuzz/corpus/hdf5_open/
//! done
//! python3 crates/nctk-hdf5/tests/fixtures/make_fixtures.py /tmp/hdf5-seeds
//! cp /tmp/hdf5-seeds/*.h5 /tmp/hdf5-seeds/*.nc fuzz/corpus/hdf5_open/
//! cd fuzz && RUSTC_BOOTSTRAP=1 cargo fuzz run -s none hdf5_open -- -max_len=262144 -rss_limit_mb=1024
//! ```
#![no_main]

use libfuzzer_sys::fuzz_target;
use nctk_model::Selection;

/// The name the input goes by in errors.
const NAME: &str = "fuzz.nc";

/// Variables with more elements than this are not read (a fuzzed extent
/// may claim a huge variable of fill values, legitimately).
const MAX_ELEMENTS: u64 = 1 << 16;

fuzz_target!(|data: &[u8]| {
    let ds = match nctk::open_bytes(NAME, data.to_vec().into()) {
        Ok(ds) => ds,
        Err(e) => {
            assert!(e.to_string().contains(NAME), "{e}");
            return;
        }
    };
    let schema = ds.schema();
    let mut small = true;
    for var in schema.var_ids() {
        let shape = schema.shape(var);
        let n = shape.iter().try_fold(1u64, |a, &b| a.checked_mul(b));
        if n.is_none_or(|n| n > MAX_ELEMENTS) {
            small = false;
            continue;
        }
        let _ = ds.source().read(var, &Selection::all(&shape));
    }
    if small {
        let _ = nctk_cdl::print::dump(ds.source(), NAME, &Default::default(), std::io::sink());
    }
});
