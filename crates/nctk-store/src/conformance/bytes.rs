//! The checks every byte source and sink must pass.

use std::ops::Range;

use crate::bytes::{ByteError, ByteSink, ByteSource, COALESCE_GAP};

/// Contents the source checks run on: empty, tiny, and larger than
/// [`COALESCE_GAP`] so `read_ranges` both merges and splits. Each byte
/// depends on its offset, so a read from the wrong place is seen.
fn contents() -> Vec<Vec<u8>> {
    let pattern = |n: usize| (0..n).map(|i| (i ^ (i >> 8) ^ (i >> 16)) as u8).collect();
    vec![
        Vec::new(),
        vec![42],
        pattern(1000),
        pattern(3 * COALESCE_GAP as usize),
    ]
}

/// The bytes of `range` in `data`, clipped to its end.
fn clip(data: &[u8], range: Range<u64>) -> &[u8] {
    let len = data.len() as u64;
    let start = range.start.min(len);
    &data[start as usize..range.end.clamp(start, len) as usize]
}

/// Ranges inside, across and past the end, empty and reversed, overlapping,
/// repeated, unsorted, and far apart.
fn ranges(len: u64) -> Vec<Range<u64>> {
    let far = 2 * COALESCE_GAP;
    vec![
        len / 2..len,
        0..len.min(7),
        3..3,
        len / 3..len / 3 + 10,
        len.saturating_sub(3)..len + 5,
        // Reversed: empty.
        Range { start: 9, end: 4 },
        0..len.min(7),
        len + 10..len + 20,
        far..far + 100,
        1..far + 2,
        len..len,
    ]
}

/// An error for an offset far past any blob must name that offset.
fn assert_names_offset(result: Result<usize, ByteError>, offset: u64, name: &str) {
    match result {
        Ok(n) => assert_eq!(n, 0, "{name}: read at offset {offset} past the end"),
        Err(e) => assert!(
            e.to_string().contains(&offset.to_string()),
            "{name}: error for offset {offset} does not name it: {e}"
        ),
    }
}

/// Checks `src` against the bytes it should hold.
fn check_source(src: &dyn ByteSource, data: &[u8]) {
    let name = src.name();
    let len = data.len() as u64;
    assert_eq!(src.len().expect("len"), len, "{name}: len");
    assert_eq!(
        src.is_empty().expect("is_empty"),
        len == 0,
        "{name}: is_empty"
    );

    // read_at within the blob: a prefix of what was asked for, from the right place.
    for offset in [0, len / 3, len.saturating_sub(1)] {
        let mut buf = vec![0xAAu8; 17];
        let n = src.read_at(offset, &mut buf).expect("read_at");
        let want = clip(data, offset..offset + 17);
        assert!(
            n <= want.len(),
            "{name}: read_at {offset} read {n} bytes, past the end"
        );
        assert_eq!(&buf[..n], &want[..n], "{name}: read_at {offset}");
        assert!(
            n > 0 || want.is_empty(),
            "{name}: read_at {offset} read nothing"
        );
    }
    // read_full across the end: the bytes that exist, the rest untouched.
    let offset = len.saturating_sub(5);
    let mut buf = vec![0xAAu8; 20];
    let n = src.read_full(offset, &mut buf).expect("read_full");
    assert_eq!(
        &buf[..n],
        clip(data, offset..offset + 20),
        "{name}: read_full {offset}"
    );
    assert!(
        buf[n..].iter().all(|&b| b == 0xAA),
        "{name}: bytes after the end were written"
    );
    // Empty requests and requests past the end.
    assert_eq!(
        src.read_at(len / 2, &mut []).expect("empty read_at"),
        0,
        "{name}: empty read_at"
    );
    assert_eq!(
        src.read_at(len, &mut [0u8; 4]).expect("read_at the end"),
        0,
        "{name}: read_at the end"
    );
    assert_eq!(
        src.read_at(len + 100, &mut [0u8; 4])
            .expect("read_at past the end"),
        0,
        "{name}: read_at past the end"
    );
    match src.read_exact_at(offset, &mut [0u8; 20]) {
        Err(
            e @ ByteError::UnexpectedEof {
                offset: at, wanted, ..
            },
        ) => {
            assert_eq!(
                (at, wanted),
                (len, offset + 20 - len),
                "{name}: read_exact_at across the end"
            );
            assert!(
                e.to_string().contains(&len.to_string()),
                "{name}: {e} does not name offset {len}"
            );
        }
        other => panic!("{name}: read_exact_at across the end gave {other:?}"),
    }
    let huge = u64::MAX - 2;
    assert_names_offset(src.read_at(huge, &mut [0u8; 4]), huge, &name);
    assert_names_offset(src.read_range(huge..u64::MAX).map(|b| b.len()), huge, &name);

    // read_range and read_ranges: each result equals the bytes of its range.
    let ranges = ranges(len);
    for r in &ranges {
        let got = src
            .read_range(r.clone())
            .unwrap_or_else(|e| panic!("{name}: read_range {r:?}: {e}"));
        assert_eq!(&got[..], clip(data, r.clone()), "{name}: read_range {r:?}");
    }
    assert!(src
        .read_ranges(&[])
        .expect("read_ranges of nothing")
        .is_empty());
    let all = src.read_ranges(&ranges).expect("read_ranges");
    assert_eq!(
        all.len(),
        ranges.len(),
        "{name}: read_ranges returns one result per range"
    );
    for (r, got) in ranges.iter().zip(&all) {
        assert_eq!(&got[..], clip(data, r.clone()), "{name}: read_ranges {r:?}");
    }
    let mut bufs: Vec<Vec<u8>> = ranges
        .iter()
        .map(|r| vec![0xA5; r.end.saturating_sub(r.start) as usize])
        .collect();
    let mut reads: Vec<(u64, &mut [u8])> = ranges
        .iter()
        .zip(&mut bufs)
        .map(|(r, b)| (r.start, &mut b[..]))
        .collect();
    let got = src.read_ranges_into(&mut reads).expect("read_ranges_into");
    for ((r, n), buf) in ranges.iter().zip(got).zip(&bufs) {
        let want = clip(data, r.clone());
        assert_eq!(&buf[..n], want, "{name}: read_ranges_into {r:?}");
        assert!(
            buf[n..].iter().all(|&b| b == 0xA5),
            "{name}: read_ranges_into {r:?} wrote past the data"
        );
    }

    // Several threads reading different places at once.
    let name = &name;
    std::thread::scope(|s| {
        for t in 0..4u64 {
            s.spawn(move || {
                for i in 0..50u64 {
                    let offset = (t * 7919 + i * 104_729) % (len + 1);
                    let r = offset..offset + 33;
                    let got = src.read_range(r.clone()).expect("concurrent read_range");
                    assert_eq!(
                        &got[..],
                        clip(data, r.clone()),
                        "{name}: thread {t} read_range {r:?}"
                    );
                    let mut buf = [0u8; 9];
                    let n = src
                        .read_full(offset, &mut buf)
                        .expect("concurrent read_full");
                    assert_eq!(
                        &buf[..n],
                        clip(data, offset..offset + 9),
                        "{name}: thread {t} read_full {offset}"
                    );
                }
            });
        }
    });
}

/// Builds sources with `make` (given the bytes each must hold) and checks
/// each: `len`, `read_at` within and across the end, empty requests,
/// requests past the end (nothing, or an error naming the offset),
/// `read_exact_at` failing with the offset where the data ends,
/// `read_range`, `read_ranges` and `read_ranges_into` (unsorted,
/// overlapping, repeated, far apart) equal to single reads, and reads from four threads at once.
pub fn byte_source<S, F>(make: F)
where
    S: ByteSource,
    F: Fn(&[u8]) -> S,
{
    for data in contents() {
        check_source(&make(&data), &data);
    }
}

/// Builds empty sinks with `make` and checks each: writes with gaps (read
/// as zero bytes), overwrites, `set_len` shrinking and growing, writes from
/// four threads at once, `flush` and `sync`; then every check of
/// [`byte_source`] on sinks filled by writes.
pub fn byte_sink<S, F>(make: F)
where
    S: ByteSink,
    F: Fn() -> S,
{
    let sink = make();
    let name = sink.name();
    assert_eq!(sink.len().expect("len"), 0, "{name}: a new sink is empty");
    sink.write_at(4, b"abcd").expect("write_at");
    assert_eq!(
        sink.len().expect("len"),
        8,
        "{name}: a write grows the blob"
    );
    assert_eq!(
        &sink.read_range(0..8).expect("read_range")[..],
        b"\0\0\0\0abcd",
        "{name}: a gap reads as zeros"
    );
    sink.write_at(2, b"XY").expect("overwrite");
    sink.write_at(9, b"Z").expect("write past the end");
    assert_eq!(
        &sink.read_range(0..20).expect("read_range")[..],
        b"\0\0XYabcd\0Z",
        "{name}: after overwrites"
    );
    sink.set_len(5).expect("set_len shrinking");
    assert_eq!(sink.len().expect("len"), 5, "{name}: set_len shrinks");
    sink.set_len(7).expect("set_len growing");
    assert_eq!(
        &sink.read_range(0..9).expect("read_range")[..],
        b"\0\0XYa\0\0",
        "{name}: set_len grows with zeros"
    );
    // Starting write-back is a hint: over any range, inside the blob,
    // past its end or past i64, it succeeds and changes nothing.
    for (offset, len) in [(0, 7), (3, 2), (5, 100), (7, 0), (u64::MAX - 1, u64::MAX)] {
        sink.start_sync(offset, len).expect("start_sync");
    }
    assert_eq!(
        &sink.read_range(0..9).expect("read_range")[..],
        b"\0\0XYa\0\0",
        "{name}: start_sync changes nothing"
    );
    sink.flush().expect("flush");
    sink.sync().expect("sync");

    // Four threads writing disjoint blocks, out of order.
    let sink = make();
    let expected: Vec<u8> = (0..4000u32).map(|i| (i * 31 % 251) as u8).collect();
    std::thread::scope(|s| {
        for t in 0..4usize {
            let (sink, expected) = (&sink, &expected);
            s.spawn(move || {
                for block in (t..40).step_by(4).rev() {
                    let r = block * 100..block * 100 + 100;
                    sink.write_at(r.start as u64, &expected[r])
                        .expect("concurrent write_at");
                }
            });
        }
    });
    check_source(&sink, &expected);

    byte_source(|data| {
        let sink = make();
        // Back to front, so the length grows on the first write.
        let half = data.len() / 2;
        sink.write_at(half as u64, &data[half..]).expect("write_at");
        sink.write_at(0, &data[..half]).expect("write_at");
        sink
    });
}
