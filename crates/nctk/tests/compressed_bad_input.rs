//! Damaged block-compressed files through the facade. Each damage case of
//! `compressed_cases` (the index, the blocks, the superblock, a lying
//! header): `nctk::open` and reading every variable give an error naming
//! the variable, the block and the stored file's offset, and
//! `nctk::validate` reports it there. A sweep over compressed corpus
//! files (every truncation at a stride, every byte of the index flipped,
//! bytes of some blocks flipped): never a panic, a hang or an allocation
//! past the bound, and never a silent wrong value: a read that succeeds
//! equals the original's values, and a damaged block is always an error
//! (its CRC-32 catches any one changed byte), as is a damaged stored
//! classic header (the superblock's `header_crc`).

#[path = "../../nctk-classic/tests/compressed_cases/mod.rs"]
mod cases;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use cases::{all_cases, sample_classic, Damager};
use nctk::model::{Schema, Selection, Values};
use nctk::Severity;
use nctk_classic::compressed::format::SUPERBLOCK_LEN;
use nctk_classic::compressed::{compress, validate, CodecId, CompressOptions};
use nctk_classic::ClassicReader;
use nctk_store::bytes::{FileSource, MemSink, MemSource};
use nctk_test_support::bounded::{run_case, Bounds, Rng, Tracking};
use nctk_test_support::require;

#[global_allocator]
static GLOBAL: Tracking = Tracking;

/// The tests of this binary run one at a time: the allocation tracker
/// sees the whole process.
static SERIAL: Mutex<()> = Mutex::new(());

/// The files here are a few KiB to 100 KiB, their blocks at most 1000
/// bytes: nothing may allocate more than a codec's own context (zstd's
/// is about 380 KB), whatever sizes the damage declares.
const BOUNDS: Bounds = Bounds {
    time: Duration::from_secs(30),
    allocation: 1 << 20,
};

/// A dataset's schema and every variable's values, or the first error.
fn read_all(ds: &nctk::Dataset) -> Result<(Schema, Vec<Values>), String> {
    let source = ds.source();
    let schema = source.schema().clone();
    let mut values = vec![];
    for var in schema.var_ids() {
        let selection = Selection::all(&schema.shape(var));
        values.push(source.read(var, &selection).map_err(|e| e.to_string())?);
    }
    Ok((schema, values))
}

/// Every variable's values of the classic file `bytes`, with its schema.
fn original(bytes: &[u8]) -> (Schema, Vec<Values>) {
    read_all(&nctk::open_mem(bytes.to_vec()).unwrap()).unwrap()
}

#[test]
fn damaged_files_give_errors_naming_variable_block_and_offset() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let (schema, values) = original(&sample_classic());
    let mut failures = vec![];
    let mut count = 0;
    for (codec, cases) in all_cases() {
        for case in cases {
            count += 1;
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("damaged.ncb");
            std::fs::write(&path, &case.bytes).unwrap();
            let (schema, values) = (schema.clone(), values.clone());
            let label = format!("{}: {}", codec.name(), case.label);
            let failure = run_case(label, BOUNDS, move || {
                let expect = &case.expect;
                // Damage in a block may be met at open (the classic
                // reader's first read covers a small file's data) or when
                // the variable is read; either way an error naming it.
                match nctk::open(&path) {
                    Err(e) => expect.check(&e.to_string())?,
                    Ok(_) if !expect.opens => return Err("opened".into()),
                    Ok(ds) => {
                        // The damaged block's variable is an error, the
                        // others read the original's values.
                        let source = ds.source();
                        if source.schema() != &schema {
                            return Err("another schema".into());
                        }
                        let mut errors = 0;
                        for var in schema.var_ids() {
                            let selection = Selection::all(&schema.shape(var));
                            match source.read(var, &selection) {
                                Ok(v) if v == values[var.0 as usize] => {}
                                Ok(_) => return Err(format!("{var:?}: wrong values")),
                                Err(e) => {
                                    expect.check(&e.to_string())?;
                                    errors += 1;
                                }
                            }
                        }
                        if errors == 0 {
                            return Err("every variable read".into());
                        }
                    }
                }
                let findings = nctk::validate(&path);
                let hit = findings.iter().any(|f| {
                    f.severity == Severity::Error
                        && f.offset == expect.offset
                        && expect.check(&f.to_string()).is_ok()
                });
                if !hit {
                    return Err(format!("validate: {findings:?}"));
                }
                Ok(())
            });
            failures.extend(failure);
        }
    }
    assert!(count >= 100, "{count} cases");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The sweep's corpus files: records, CDF-1 and CDF-5, many small
/// variables, a real aircraft trajectory.
const SWEEP_FILES: &[&str] = &[
    "generated/from-cdl/netcdf-c/ncgen/c0.nc3.nc",
    "generated/from-cdl/netcdf-c/ncgen/c0.nc5.nc",
    "netcdf-java/cdm/core/src/test/data/trajectory/aircraft/WMI_Lear-2003-05-28-212817.nc",
];

/// What a damaged copy of a compressed file gave.
fn outcome(bytes: Vec<u8>) -> Result<(Schema, Vec<Values>), String> {
    nctk::open_mem(bytes)
        .map_err(|e| e.to_string())
        .and_then(|ds| read_all(&ds))
}

/// Where a damaged byte is.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Region {
    /// The stored classic header (its CRC-32 is in the superblock).
    Header,
    /// The superblock, the directory or the block tables.
    Index,
    /// A stored block.
    Block,
    /// A cut (truncation).
    Cut,
}

#[test]
fn sweep_of_truncations_and_flips_never_panics_or_reads_wrong_values() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let Some(corpus) = require::corpus() else {
        return;
    };
    let mut failures = vec![];
    let mut count = 0;
    let codecs = [CodecId::Zstd, CodecId::Lz4, CodecId::Zlib];
    for (n, file) in SWEEP_FILES.iter().enumerate() {
        let path = corpus.join(file);
        let classic = std::fs::read(&path).unwrap();
        let reader =
            ClassicReader::from_source(Arc::new(FileSource::open(&path).unwrap())).unwrap();
        let sink = MemSink::new();
        let options = CompressOptions {
            codec: codecs[n % codecs.len()],
            block_bytes: 256,
            ..Default::default()
        };
        compress(&reader, &sink, &options).unwrap();
        let d = Damager::new(sink.into_vec());
        let (schema, values) = original(&classic);
        assert_eq!(
            outcome(d.intact.clone()),
            Ok((schema.clone(), values.clone()))
        );
        let header = SUPERBLOCK_LEN..SUPERBLOCK_LEN + d.index.superblock.header_len;
        let region = |at: u64| {
            if header.contains(&at) {
                Region::Header
            } else if at < d.index.data_start {
                Region::Index
            } else {
                Region::Block
            }
        };
        let len = d.intact.len();
        let mut cases: Vec<(String, Vec<u8>, Region)> = vec![];
        for at in (0..len).step_by((len / 200).max(1)) {
            cases.push((format!("cut at {at}"), d.intact[..at].to_vec(), Region::Cut));
        }
        let mut rng = Rng(0x5EED ^ len as u64);
        let flip = |at: usize, mask: u8, cases: &mut Vec<_>| {
            let mut b = d.intact.clone();
            b[at] ^= mask;
            cases.push((format!("byte {at} ^ {mask:#04x}"), b, region(at as u64)));
        };
        for at in 0..d.index.data_start as usize {
            // Every byte of the index, one byte in eight of the header
            // (names and attributes, mostly): all bits, or one.
            if region(at as u64) == Region::Index || at % 8 == 0 {
                let mask = if at % 2 == 0 { 0xFF } else { 1 << rng.below(8) };
                flip(at, mask, &mut cases);
            }
        }
        for table in [
            d.tables.first(),
            d.tables.get(d.tables.len() / 2),
            d.tables.last(),
        ] {
            for block in table.into_iter().flat_map(|t| t.iter().take(2)) {
                for at in block.offset..block.end() {
                    flip(at as usize, 1 << rng.below(8), &mut cases);
                }
            }
        }
        for (label, bytes, region) in cases {
            count += 1;
            let label = format!("{file}: {label}");
            let (schema, values) = (schema.clone(), values.clone());
            let failure = run_case(label, BOUNDS, move || {
                let findings = validate(&MemSource::new(bytes.clone()));
                let invalid = findings.iter().any(|f| f.severity == Severity::Error);
                match (outcome(bytes), region) {
                    (Ok(_), Region::Header | Region::Block | Region::Cut) => {
                        Err("a damaged header or block or a cut file read without an error".into())
                    }
                    (Ok((s, v)), Region::Index) if (&s, &v) != (&schema, &values) => {
                        Err("read other values".into())
                    }
                    (Err(e), _) if !invalid => {
                        Err(format!("the read failed ({e}) but validate found nothing"))
                    }
                    _ => Ok(()),
                }
            });
            failures.extend(failure);
        }
    }
    assert!(count > 8000, "only {count} cases");
    assert!(
        failures.is_empty(),
        "{} of {count} cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The file name is in the errors of a damaged file opened by path.
#[test]
fn errors_name_the_file() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let d = Damager::new(cases::compressed(&sample_classic(), CodecId::Zstd));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("named.ncb");
    let temp = d.var("temp");
    let mut e = d.tables[temp][0];
    e.offset = 1;
    std::fs::write(&path, d.with_block_entry(temp, 0, e)).unwrap();
    let Err(err) = nctk::open(&path) else {
        panic!("a damaged index opened");
    };
    assert!(
        err.to_string().contains(&path.display().to_string()),
        "{err}"
    );
}
