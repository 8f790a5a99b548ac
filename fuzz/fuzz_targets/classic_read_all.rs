//! Opens fuzzed bytes as a classic file from memory and reads every
//! variable; the validator runs too. Nothing may panic, and a file the
//! reader opens must read the same through a source that returns at most
//! one byte per read.
#![no_main]

use libfuzzer_sys::fuzz_target;
use nctk_classic::{validate_source, ClassicReader};
use nctk_model::{DataSource, Selection};
use nctk_store::bytes::{ByteError, ByteSource, MemSource};
use std::sync::Arc;

/// A source that hands out one byte per read.
struct OneByte(MemSource);

impl ByteSource for OneByte {
    fn len(&self) -> Result<u64, ByteError> {
        self.0.len()
    }
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<usize, ByteError> {
        let n = buf.len().min(1);
        self.0.read_at(offset, &mut buf[..n])
    }
    fn name(&self) -> String {
        self.0.name()
    }
}

fuzz_target!(|data: &[u8]| {
    let _ = validate_source(&MemSource::new(data.to_vec()));
    let Ok(r) = ClassicReader::from_bytes(data.to_vec()) else {
        return;
    };
    let slow = ClassicReader::from_source(Arc::new(OneByte(MemSource::new(data.to_vec()))));
    for v in r.schema().var_ids() {
        let shape = r.schema().shape(v);
        let n = shape.iter().try_fold(1u64, |a, &b| a.checked_mul(b));
        if n.is_none_or(|n| n > 1 << 16) {
            continue;
        }
        let sel = Selection::all(&shape);
        let fast = r.read(v, &sel).ok();
        let _ = r.read_vec::<f64>(v, &sel);
        if let Ok(slow) = &slow {
            let other = slow.read(v, &sel).ok();
            assert_eq!(format!("{fast:?}"), format!("{other:?}"));
        }
    }
});
