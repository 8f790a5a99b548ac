//! A batch of ranges costs the requests its source chooses: a local file
//! merges small pieces that lie close together into one read and reads far
//! or large pieces on their own; memory never merges. Every range holds
//! the file's bytes, written with `std::fs`. Requests are counted by
//! `CountingSource`, which passes the inner source's choice on.

use nctk_store::bytes::{ByteSource, FileSource, MemSource};
use nctk_store::conformance::CountingSource;

/// Reads `ranges` (offset, length) as one batch; returns the number of
/// reads it took, after checking every range against `data`.
fn batch<S: ByteSource>(src: &CountingSource<S>, data: &[u8], ranges: &[(u64, usize)]) -> usize {
    let mut bufs: Vec<Vec<u8>> = ranges.iter().map(|&(_, n)| vec![0; n]).collect();
    let mut reads: Vec<(u64, &mut [u8])> = ranges
        .iter()
        .zip(&mut bufs)
        .map(|(&(o, _), b)| (o, &mut b[..]))
        .collect();
    src.reset();
    let got = src.read_ranges_into(&mut reads).unwrap();
    for ((&(o, n), buf), g) in ranges.iter().zip(&bufs).zip(got) {
        assert_eq!(g, n, "range at {o}");
        assert_eq!(&buf[..], &data[o as usize..o as usize + n], "range at {o}");
    }
    src.reads()
}

#[test]
fn files_merge_small_near_pieces_and_memory_never_merges() {
    let data: Vec<u8> = (0..(8u32 << 20)).map(|i| (i ^ (i >> 9)) as u8).collect();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("blob");
    std::fs::write(&path, &data).unwrap();
    let file = CountingSource::new(FileSource::open(&path).unwrap());
    let mem = CountingSource::new(MemSource::new(data.clone()));

    // 100 values of 4 bytes, 4 bytes apart, given out of order.
    let near: Vec<(u64, usize)> = (0..100u64).rev().map(|i| (1000 + 8 * i, 4)).collect();
    assert_eq!(batch(&file, &data, &near), 1, "file: near small pieces");
    assert_eq!(batch(&mem, &data, &near), 100, "memory: near small pieces");

    // Values a megabyte apart.
    let far: Vec<(u64, usize)> = (0..7u64).map(|i| (i << 20, 4)).collect();
    assert_eq!(batch(&file, &data, &far), 7, "file: far pieces");

    // Large pieces next to each other: each straight into its buffer.
    let large: Vec<(u64, usize)> = (0..4u64).map(|i| (i * 65536, 65536)).collect();
    assert_eq!(batch(&file, &data, &large), 4, "file: large pieces");
}
