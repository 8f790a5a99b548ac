//! Opens fuzzed bytes as a block-compressed classic file from memory
//! (`CompressedSource` over a `MemSource`), reads every variable of a
//! sane size through the unchanged classic reader, and runs the
//! validator. Nothing may panic or allocate without bound; a file the
//! validator passes must open and read. Each input runs twice: as it is,
//! and with its checksums and `data_end` made to match (so the mutations
//! reach the checks behind the CRCs: lying headers, sizes, offsets and
//! blocks).
#![no_main]

use std::sync::Arc;

use libfuzzer_sys::fuzz_target;
use nctk_classic::compressed::{validate, CompressedSource};
use nctk_classic::{ClassicReader, Severity};
use nctk_model::{DataSource, Selection};
use nctk_store::bytes::{ByteSource, MemSource};

/// Variables with more bytes than this are not read (a header may
/// declare a huge variable legitimately).
const MAX_READ_BYTES: u64 = 4 << 20;

fuzz_target!(|data: &[u8]| {
    check(data.to_vec());
    let mut fixed = data.to_vec();
    fix_checksums(&mut fixed);
    check(fixed);
});

/// The big-endian integer of `N` bytes at `at`, if the file has them.
fn be<const N: usize>(b: &[u8], at: u64) -> Option<u64> {
    let bytes: [u8; N] = b
        .get(at as usize..(at as usize).checked_add(N)?)?
        .try_into()
        .ok()?;
    Some(bytes.iter().fold(0u64, |a, &x| a << 8 | u64::from(x)))
}

/// Writes the CRC-32 of `b[from..to]` at `at`.
fn put_crc(b: &mut [u8], from: u64, to: u64, at: u64) {
    let (from, to, at) = (from as usize, to as usize, at as usize);
    let crc = crc32fast::hash(&b[from..to]).to_be_bytes();
    b[at..at + 4].copy_from_slice(&crc);
}

/// Sets `data_end` to the length and recomputes the superblock's, the
/// header's, the directory entries' and the blocks' checksums where the (fuzzed) fields
/// point inside the file (at most 4096 entries each).
fn fix_checksums(b: &mut [u8]) {
    let len = b.len() as u64;
    if len < 64 {
        return;
    }
    b[48..56].copy_from_slice(&len.to_be_bytes());
    put_crc(b, 0, 56, 56);
    if let Some(header_end) = be::<8>(b, 16).and_then(|n| n.checked_add(64)) {
        if header_end <= len {
            put_crc(b, 64, header_end, 60);
        }
    }
    let (Some(dir), Some(nvars)) = (be::<8>(b, 32), be::<4>(b, 40)) else {
        return;
    };
    for var in 0..nvars.min(4096) {
        let at = dir.saturating_add(var * 48);
        if at.saturating_add(48) > len {
            break;
        }
        put_crc(b, at, at + 40, at + 40);
        let (Some(nblocks), Some(table)) = (be::<8>(b, at + 24), be::<8>(b, at + 32)) else {
            continue;
        };
        for block in 0..nblocks.min(4096) {
            let e = table.saturating_add(block * 16);
            let (Some(offset), Some(stored)) = (be::<8>(b, e), be::<4>(b, e.saturating_add(8)))
            else {
                break;
            };
            let end = offset.saturating_add(stored);
            if end <= len && e + 16 <= len {
                put_crc(b, offset, end, e + 12);
            }
        }
    }
}

/// Validates, opens and reads `data`.
fn check(data: Vec<u8>) {
    let stored: Arc<dyn ByteSource> = Arc::new(MemSource::new(data));
    let findings = validate(stored.as_ref());
    let valid = !findings.iter().any(|f| f.severity == Severity::Error);
    let source = match CompressedSource::open(stored) {
        Ok(s) => s.with_cache_bytes(1 << 20),
        Err(e) => {
            assert!(
                !valid,
                "the validator passed a file that does not open: {e}"
            );
            return;
        }
    };
    let reader = match ClassicReader::from_source(Arc::new(source)) {
        Ok(r) => r,
        Err(e) => {
            assert!(
                !valid,
                "the validator passed a file the classic reader refuses: {e}"
            );
            return;
        }
    };
    let schema = reader.schema().clone();
    for var in schema.var_ids() {
        let shape = schema.shape(var);
        let bytes = shape
            .iter()
            .try_fold(schema.var(var).dtype.size().unwrap_or(1) as u64, |a, &b| {
                a.checked_mul(b)
            });
        if bytes.is_none_or(|n| n > MAX_READ_BYTES) {
            continue;
        }
        let read = reader.read(var, &Selection::all(&shape));
        if let (true, Err(e)) = (valid, read) {
            panic!("the validator passed a file whose variable {var:?} does not read: {e}");
        }
    }
}
