//! A conformance check every byte source and sink runs.

use super::*;
use std::sync::Arc;

fn exercise_sink(sink: &dyn ByteSink) {
    assert_eq!(sink.len().unwrap(), 0);
    sink.write_at(4, b"abcd").unwrap();
    assert_eq!(sink.len().unwrap(), 8);
    let mut buf = [9u8; 8];
    assert_eq!(sink.read_at(0, &mut buf).unwrap(), 8);
    assert_eq!(&buf, b"\0\0\0\0abcd");
    // Short read at the end leaves the rest untouched.
    let mut buf = [9u8; 4];
    assert_eq!(sink.read_at(6, &mut buf).unwrap(), 2);
    assert_eq!(&buf, b"cd\x09\x09");
    assert!(matches!(
        sink.read_exact_at(6, &mut [0u8; 4]),
        Err(ByteError::UnexpectedEof {
            offset: 8,
            wanted: 2,
            ..
        })
    ));
    assert_eq!(sink.read_at(100, &mut buf).unwrap(), 0);
    assert_eq!(&sink.read_range(5..7).unwrap()[..], b"bc");
    assert_eq!(&sink.read_range(6..20).unwrap()[..], b"cd");
    let parts = sink.read_ranges(&[6..8, 0..2, 4..5, 10..12]).unwrap();
    assert_eq!(&parts[0][..], b"cd");
    assert_eq!(&parts[1][..], b"\0\0");
    assert_eq!(&parts[2][..], b"a");
    assert_eq!(&parts[3][..], b"");
    sink.set_len(5).unwrap();
    assert_eq!(sink.len().unwrap(), 5);
    sink.set_len(7).unwrap();
    assert_eq!(&sink.read_range(0..7).unwrap()[..], b"\0\0\0\0a\0\0");
    sink.flush().unwrap();
    sink.sync().unwrap();
}

#[test]
fn memory_sink_conforms() {
    exercise_sink(&MemSink::new());
}

#[test]
fn file_sink_conforms_and_file_source_reads_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.bin");
    let sink = FileSink::create(&path).unwrap();
    exercise_sink(&sink);
    let src = FileSource::open(&path).unwrap();
    assert_eq!(src.len().unwrap(), 7);
    assert!(src.name().ends_with("x.bin"));
    assert!(FileSource::open(dir.path().join("missing")).is_err());
}

#[test]
fn sources_are_shared_across_threads() {
    let src: Arc<dyn ByteSource> = Arc::new(MemSource::new((0u8..=255).collect::<Vec<_>>()));
    std::thread::scope(|s| {
        for t in 0..4u8 {
            let src = src.clone();
            s.spawn(move || {
                let mut b = [0u8; 1];
                src.read_exact_at(t as u64 * 10, &mut b).unwrap();
                assert_eq!(b[0], t * 10);
            });
        }
    });
}
