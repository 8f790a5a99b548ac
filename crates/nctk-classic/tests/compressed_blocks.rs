//! Every classic corpus file compressed with each codec: the index opens
//! and checks, and every stored block decodes to the bytes of the
//! variable's data stream the classic reader reads from the original.

mod common;

use std::sync::Arc;

use nctk_classic::compressed::{compress, CodecId, CompressOptions, Index};
use nctk_classic::ClassicReader;
use nctk_model::VarId;
use nctk_store::bytes::{ByteSource, FileSource, MemSink, MemSource};

#[test]
fn every_block_decodes_to_the_original_stream() {
    let Some(dir) = nctk_test_support::require::corpus() else {
        return;
    };
    let files = common::classic_files(&dir);
    assert!(files.len() > 50, "corpus classic files: {}", files.len());
    let codecs = [
        CodecId::Zstd,
        CodecId::Zlib,
        CodecId::Lz4,
        CodecId::Blosc,
        CodecId::None,
    ];
    let mut checked = 0;
    for (n, path) in files.iter().enumerate() {
        let source: Arc<dyn ByteSource> = Arc::new(FileSource::open(path).unwrap());
        // Sample: big files (the sparse 4 GB ones) are skipped here.
        if source.len().unwrap() > 64 << 20 {
            continue;
        }
        let Ok(reader) = ClassicReader::from_source(source) else {
            continue;
        };
        let options = CompressOptions {
            codec: codecs[n % codecs.len()],
            level: None,
            shuffle: n % 2 == 0,
            block_bytes: [100, 4096, 1 << 20][n % 3],
        };
        let sink = MemSink::new();
        compress(&reader, &sink, &options).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let stored = MemSource::new(sink.into_vec());
        let index = Index::open(&stored).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(index.numrecs, reader.numrecs(), "{}", path.display());
        for (var, entry) in index.entries.iter().enumerate() {
            let blocks = index.blocks(&stored, var, 0..entry.nblocks).unwrap();
            for (b, block) in blocks.iter().enumerate() {
                let len = entry.block_len(b as u64) as usize;
                let mut want = vec![0u8; len];
                reader
                    .read_stream(VarId(var as u32), b as u64 * entry.block_bytes, &mut want)
                    .unwrap();
                let bytes = stored.read_range(block.offset..block.end()).unwrap();
                assert_eq!(crc32fast::hash(&bytes), block.crc32);
                let mut got = vec![0u8; len];
                entry.codec.decode_block(&bytes, &mut got).unwrap();
                assert!(got == want, "{}: variable {var} block {b}", path.display());
            }
        }
        checked += 1;
    }
    assert!(checked > 50, "files checked: {checked}");
}
