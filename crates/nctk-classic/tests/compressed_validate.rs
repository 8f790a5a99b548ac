//! The block-compressed validator on intact files: a clean report that
//! counts every block it checked (and the header's CRC-32 recorded), a warning for bytes no block accounts
//! for, and the stored header checked with the classic validator's rules
//! (which agree with PnetCDF's `ncvalidator`), moved to the stored file.

mod common;
mod compressed_cases;

use std::sync::Arc;

use compressed_cases::{compressed, sample_classic};
use nctk_classic::compressed::{compress, validate_report, CodecId, CompressOptions, Index};
use nctk_classic::{validate_source, ClassicReader, Severity};
use nctk_store::bytes::{ByteSource, FileSource, MemSink, MemSource};

#[test]
fn an_intact_file_validates_clean_and_every_block_is_checked() {
    let classic = sample_classic();
    for codec in [CodecId::Zstd, CodecId::Lz4, CodecId::None] {
        let bytes = compressed(&classic, codec);
        // The superblock records the CRC-32 of the stored header (the
        // specification's bytes 60..64 over bytes 64 .. 64 + header_len).
        let header_len = u64::from_be_bytes(bytes[16..24].try_into().unwrap()) as usize;
        let recorded = u32::from_be_bytes(bytes[60..64].try_into().unwrap());
        assert_eq!(recorded, crc32fast::hash(&bytes[64..64 + header_len]));
        let source = MemSource::new(bytes);
        let index = Index::open(&source).unwrap();
        let report = validate_report(&source);
        assert_eq!(report.findings, vec![], "{}", codec.name());
        let blocks: u64 = index.entries.iter().map(|e| e.nblocks).sum();
        let data: u64 = index.entries.iter().map(|e| e.data_bytes).sum();
        assert_eq!(report.checked.blocks, blocks);
        assert_eq!(report.checked.table_entries, blocks);
        assert_eq!(report.checked.decoded_bytes, data);
        assert_eq!(report.checked.entries, 4);
    }
}

/// Bytes no block accounts for (a hole left where a block shrank) are a
/// warning at the hole, not an error.
#[test]
fn bytes_between_blocks_are_a_warning() {
    let d = compressed_cases::Damager::new(compressed(&sample_classic(), CodecId::Zstd));
    let elev = d.var("elev");
    let mut e = d.tables[elev][0];
    let stored = MemSource::new(d.intact.clone())
        .read_range(e.offset..e.end())
        .unwrap()
        .to_vec();
    // Block 0 of elev moved 3 bytes on is a hole of 3 bytes, then its bytes.
    let mut bytes = d.with_block_entry(elev, 0, {
        e.offset += 3;
        e.stored_len -= 3;
        e.crc32 = crc32fast::hash(&stored[..stored.len() - 3]);
        e
    });
    let at = e.offset as usize;
    bytes[at..at + stored.len() - 3].copy_from_slice(&stored[..stored.len() - 3]);
    let report = validate_report(&MemSource::new(bytes));
    let warnings: Vec<_> = report
        .findings
        .iter()
        .filter(|f| f.severity == Severity::Warning)
        .collect();
    assert_eq!(warnings.len(), 1, "{:?}", report.findings);
    assert_eq!(warnings[0].offset, e.offset - 3);
    assert!(warnings[0].message.contains("3 bytes"), "{warnings:?}");
}

/// Every classic file of the corpus compressed: the compressed
/// validator's findings on the stored header are the classic validator's
/// (which agrees with PnetCDF's `ncvalidator`) on the original, 64 bytes
/// on; nothing else is found.
#[test]
fn header_findings_are_the_classic_validators() {
    let Some(dir) = nctk_test_support::require::corpus() else {
        return;
    };
    let mut checked = 0;
    let mut with_findings = 0;
    for path in common::classic_files(&dir) {
        let source: Arc<dyn ByteSource> = Arc::new(FileSource::open(&path).unwrap());
        if source.len().unwrap() > 8 << 20 {
            continue;
        }
        let Ok(reader) = ClassicReader::from_source(source.clone()) else {
            continue;
        };
        let header_len = reader.layout().header_len;
        let sink = MemSink::new();
        let options = CompressOptions {
            block_bytes: 4096,
            ..Default::default()
        };
        compress(&reader, &sink, &options).unwrap();
        let mut want: Vec<_> = validate_source(source.as_ref())
            .into_iter()
            .filter(|f| f.offset < header_len)
            .map(|f| (f.severity, f.offset + 64))
            .collect();
        // The numrecs field: a STREAMING count is stored as the count.
        want.retain(|&(_, offset)| offset != 64 + 4);
        let mut got: Vec<_> = validate_report(&MemSource::new(sink.into_vec()))
            .findings
            .into_iter()
            .map(|f| (f.severity, f.offset))
            .collect();
        want.sort();
        got.sort();
        with_findings += usize::from(!want.is_empty());
        assert_eq!(got, want, "{}", path.display());
        checked += 1;
    }
    assert!(checked > 50, "{checked} files");
    assert!(with_findings > 0, "no corpus file has header findings");
}
