//! Opens fuzzed bytes as an ncstream from memory (`NcStreamReader::open`:
//! a full stream or a cdmremote header response), reads every variable of
//! a sane size, and decodes the same bytes as a data-only cdmremote
//! response against the header it carried: errors naming the input or
//! values, never a panic, a hang or an unbounded allocation.
//!
//! Seeds: every stream of the corpus and the full streams nctk writes,
//!
//! ```sh
//! mkdir -p fuzz/corpus/ncstream_decode
//! for f in "$NCTK_CORPUS"/generated/ncstream/siphon/*/*.ncs; do
//!   cp "$f" "fuzz/corpus/ncstream_decode/$(basename "$(dirname "$f")")-$(basename "$f")"
//! done
//! for f in "$NCTK_CORPUS"/generated/from-cdl/*.nc5.nc; do
//!   target/debug/nctk copy "$f" "fuzz/corpus/ncstream_decode/$(basename "$f" .nc).ncs"
//! done
//! cd fuzz && RUSTC_BOOTSTRAP=1 cargo fuzz run -s none ncstream_decode -- -max_total_time=300 -rss_limit_mb=1024
//! ```
#![no_main]

use std::sync::Arc;

use libfuzzer_sys::fuzz_target;
use nctk_model::{DataSource, Selection};
use nctk_ncstream::reader::NcStreamReader;
use nctk_ncstream::response::decode_data;
use nctk_store::bytes::MemSource;

/// The name the input goes by in errors.
const NAME: &str = "fuzz.ncs";

/// Variables with more elements than this are not read (a fuzzed shape
/// may claim a huge variable of fill values, legitimately).
const MAX_ELEMENTS: u64 = 1 << 16;

fuzz_target!(|data: &[u8]| {
    let source = Arc::new(MemSource::new(data.to_vec()));
    let reader = match NcStreamReader::open(source, NAME) {
        Ok(reader) => reader,
        Err(e) => {
            assert!(e.to_string().contains(NAME), "{e}");
            return;
        }
    };
    let schema = reader.schema();
    for var in schema.var_ids() {
        let shape = schema.shape(var);
        let n = shape.iter().try_fold(1u64, |a, &b| a.checked_mul(b));
        if n.is_none_or(|n| n > MAX_ELEMENTS) {
            continue;
        }
        if let Err(e) = reader.read(var, &Selection::all(&shape)) {
            assert!(e.to_string().contains(NAME), "{e}");
        }
    }
    // The same bytes as the body of a `req=data` answer to this header.
    if let Err(e) = decode_data(reader.header(), data, NAME) {
        assert!(e.to_string().contains(NAME), "{e}");
    }
});
