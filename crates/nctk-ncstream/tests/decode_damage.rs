//! Damaged streams: every corpus stream cut short at every offset (small
//! ones; a spread of offsets in the large ones) and with bytes overwritten,
//! opened with `NcStreamReader` and decoded with `response::decode_data`.
//! Each either decodes or fails with an error naming the stream; none
//! panics, and no single allocation is larger than a bounded multiple of
//! the stream (the allocator of this test binary records the largest).
//! Random framings (proptest) likewise.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use nctk_model::{DataSource, Selection};
use nctk_ncstream::header::decode::StreamHeader;
use nctk_ncstream::response::decode_data;
use nctk_ncstream::NcStreamReader;
use nctk_store::bytes::MemSource;
use proptest::prelude::*;

#[global_allocator]
static GLOBAL: nctk_test_support::alloc::Tracking = nctk_test_support::alloc::Tracking;

/// The tests share the allocation record: one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

/// The most a damaged stream of `len` bytes may allocate at once: what a
/// sound stream of that size can hold (deflate's ratio of about 1032), and
/// no more than a few megabytes beyond it.
fn bound(len: usize) -> usize {
    len * 1100 + (8 << 20)
}

/// A corpus response: its name, its bytes, and for a data response the
/// header response of its dataset.
type Response = (String, Vec<u8>, Option<Vec<u8>>);

/// Every corpus response.
fn corpus_streams() -> Option<Vec<Response>> {
    let root = nctk_test_support::require::corpus_path("generated/ncstream/siphon")?;
    let mut out = vec![];
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    dirs.sort();
    for d in dirs {
        let header = std::fs::read(d.join("00.ncs"))
            .ok()
            .filter(|b| b.starts_with(&nctk_ncstream::wire::Magic::Header.bytes()));
        let mut files: Vec<PathBuf> = std::fs::read_dir(&d)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "ncs"))
            .collect();
        files.sort();
        for f in files {
            let bytes = std::fs::read(&f).unwrap();
            let is_header = bytes.starts_with(&nctk_ncstream::wire::Magic::Header.bytes());
            out.push((
                f.display().to_string(),
                bytes,
                if is_header { None } else { header.clone() },
            ));
        }
    }
    Some(out)
}

/// What a header response says.
fn decoded_header(bytes: &[u8]) -> StreamHeader {
    NcStreamReader::open(Arc::new(MemSource::new(bytes.to_vec())), "header")
        .unwrap()
        .header()
        .clone()
}

/// Opens `bytes` and reads every small variable; decodes `bytes` as a data
/// response against `header` when given. Panics only on a panic inside, an
/// error not naming the stream, or an allocation beyond [`bound`]. True
/// when the stream decoded.
fn exercise(name: &str, bytes: &[u8], header: Option<&StreamHeader>) -> bool {
    nctk_test_support::alloc::take_largest();
    let result = match header {
        Some(h) => decode_data(h, bytes, name).map(|_| ()),
        None => NcStreamReader::open(Arc::new(MemSource::new(bytes.to_vec())), name).map(|r| {
            let s = r.schema();
            for v in s.var_ids() {
                let shape = s.shape(v);
                if shape.iter().product::<u64>() <= 1 << 16 {
                    let _ = r.read(v, &Selection::all(&shape));
                }
            }
        }),
    };
    let largest = nctk_test_support::alloc::take_largest();
    assert!(
        largest <= bound(bytes.len()),
        "{name} ({} bytes): an allocation of {largest} bytes",
        bytes.len()
    );
    match result {
        Ok(()) => true,
        Err(e) => {
            assert!(e.to_string().starts_with(name), "{e}");
            false
        }
    }
}

/// Offsets to damage: all of a small stream, a spread of a large one.
fn offsets(len: usize) -> Vec<usize> {
    if len <= 4096 {
        (0..len).collect()
    } else {
        let step = len / if len > 65536 { 60 } else { 300 };
        (0..64).chain((64..len).step_by(step)).collect()
    }
}

#[test]
fn cut_short_anywhere_decodes_or_fails_cleanly() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let Some(streams) = corpus_streams() else {
        return;
    };
    let (mut cuts, mut refused) = (0, 0);
    for (name, bytes, header) in &streams {
        let header = header.as_deref().map(decoded_header);
        for cut in offsets(bytes.len()) {
            let label = format!("{name} cut at {cut}");
            cuts += 1;
            refused += usize::from(!exercise(&label, &bytes[..cut], header.as_ref()));
        }
    }
    // Only a cut between two messages (or at 0 of a data response) decodes.
    assert!(refused + 40 >= cuts, "{refused} of {cuts} cuts refused");
}

#[test]
fn overwritten_bytes_decode_or_fail_cleanly() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let Some(streams) = corpus_streams() else {
        return;
    };
    for (name, bytes, header) in &streams {
        let header = header.as_deref().map(decoded_header);
        for at in offsets(bytes.len()) {
            for value in [bytes[at] ^ 0xff, 0xff] {
                let mut damaged = bytes.clone();
                damaged[at] = value;
                let label = format!("{name} byte {at} = {value:#04x}");
                exercise(&label, &damaged, header.as_ref());
            }
        }
    }
}

/// Random messages: a mark from the grammar (or not), a varint length and
/// random bytes, in random number.
fn framing() -> impl Strategy<Value = Vec<u8>> {
    let mark = prop_oneof![
        Just(nctk_ncstream::wire::Magic::Header.bytes().to_vec()),
        Just(nctk_ncstream::wire::Magic::Data.bytes().to_vec()),
        Just(nctk_ncstream::wire::Magic::Data2.bytes().to_vec()),
        Just(nctk_ncstream::wire::Magic::Error.bytes().to_vec()),
        Just(nctk_ncstream::wire::Magic::End.bytes().to_vec()),
        prop::collection::vec(any::<u8>(), 4),
    ];
    let message = (mark, prop::collection::vec(any::<u8>(), 0..64)).prop_map(|(mut m, body)| {
        nctk_ncstream::wire::put_varint(&mut m, body.len() as u64);
        m.extend_from_slice(&body);
        m
    });
    prop::collection::vec(message, 0..6).prop_map(|ms| ms.concat())
}

proptest! {
    #[test]
    fn random_framing_decodes_or_fails_cleanly(bytes in framing()) {
        let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        exercise("random", &bytes, None);
        exercise("random", &bytes, Some(&StreamHeader::default()));
    }
}
