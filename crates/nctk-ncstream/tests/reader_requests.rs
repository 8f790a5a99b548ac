//! What a read costs: an uncompressed row message is read only in the part
//! the selection needs, straight from the stream (counted on a byte source
//! that records every byte read); and what a read finds when the stream
//! has shrunk since it was opened.

mod decode_support;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use decode_support::framed;
use nctk_model::{DataSource, Selection, Values};
use nctk_ncstream::proto::{self, DataType as P};
use nctk_ncstream::wire::{put_varint, Magic};
use nctk_ncstream::NcStreamReader;
use nctk_store::bytes::{ByteError, ByteSource, FileSource, MemSource};

/// A memory source counting the bytes and requests that reach it.
struct Counted {
    inner: MemSource,
    bytes: AtomicU64,
    requests: AtomicU64,
}

impl ByteSource for Counted {
    fn len(&self) -> Result<u64, ByteError> {
        self.inner.len()
    }
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<usize, ByteError> {
        self.bytes.fetch_add(buf.len() as u64, Ordering::Relaxed);
        self.requests.fetch_add(1, Ordering::Relaxed);
        self.inner.read_at(offset, buf)
    }
    fn name(&self) -> String {
        self.inner.name()
    }
}

const NT: u64 = 50;
const NX: u64 = 1000;

/// `v(t, x)`: one big-endian row message per record, element (t, x) = t * NX + x.
fn stream() -> Vec<u8> {
    let d = |n: &str, l| proto::Dimension {
        name: Some(n.into()),
        length: Some(l),
        ..Default::default()
    };
    let root = proto::Group {
        dims: vec![d("t", NT), d("x", NX)],
        vars: vec![proto::Variable {
            name: Some("v".into()),
            data_type: Some(P::Int as i32),
            shape: vec![d("t", NT), d("x", NX)],
            ..Default::default()
        }],
        ..Default::default()
    };
    let mut out = framed(
        Magic::Header,
        &proto::Header {
            root: Some(root),
            ..Default::default()
        },
    );
    for t in 0..NT {
        let r = |start, size| proto::Range {
            start: Some(start),
            size: Some(size),
            stride: Some(1),
        };
        let data = proto::Data {
            var_name: Some("v".into()),
            data_type: Some(P::Int as i32),
            section: Some(proto::Section {
                range: vec![r(t, 1), r(0, NX)],
            }),
            version: Some(2),
            ..Default::default()
        };
        out.extend(framed(Magic::Data, &data));
        let values: Vec<u8> = (0..NX)
            .flat_map(|x| ((t * NX + x) as i32).to_be_bytes())
            .collect();
        put_varint(&mut out, values.len() as u64);
        out.extend(values);
    }
    out
}

#[test]
fn reads_fetch_only_the_elements_selected() {
    let source = Arc::new(Counted {
        inner: MemSource::new(stream()),
        bytes: AtomicU64::new(0),
        requests: AtomicU64::new(0),
    });
    let r = NcStreamReader::open(source.clone(), "counted").unwrap();
    let v = r.schema().var_by_path("v").unwrap();
    let cases = [
        // Ten elements of one record: one request of 40 bytes.
        (Selection::block(&[7, 100], &[1, 10]), 40, 1),
        // One element of every tenth record: five requests of 4 bytes.
        (
            Selection {
                start: vec![0, 5],
                count: vec![5, 1],
                stride: vec![10, 1],
            },
            20,
            5,
        ),
    ];
    for (sel, bytes, requests) in cases {
        source.bytes.store(0, Ordering::Relaxed);
        source.requests.store(0, Ordering::Relaxed);
        let got = r.read(v, &sel).unwrap();
        let mut want = vec![];
        for i in 0..sel.count[0] {
            for j in 0..sel.count[1] {
                let (t, x) = (
                    sel.start[0] + i * sel.stride[0],
                    sel.start[1] + j * sel.stride[1],
                );
                want.push((t * NX + x) as i32);
            }
        }
        assert_eq!(got, Values::Int(want));
        assert_eq!(source.bytes.load(Ordering::Relaxed), bytes, "{sel:?}");
        assert_eq!(source.requests.load(Ordering::Relaxed), requests, "{sel:?}");
    }
}

/// A stream file cut short after it was opened: reading the records past
/// the cut fails naming the stream and where the missing values start,
/// never reads as zeros; the records before it still read.
#[test]
fn values_cut_off_after_opening_are_an_error() {
    let bytes = stream();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("shrunk.ncs");
    std::fs::write(&path, &bytes).unwrap();
    let r = NcStreamReader::open(Arc::new(FileSource::open(&path).unwrap()), "shrunk.ncs").unwrap();
    let v = r.schema().var_by_path("v").unwrap();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(bytes.len() as u64 / 2)
        .unwrap();
    let first = r.read(v, &Selection::block(&[0, 0], &[1, NX])).unwrap();
    assert_eq!(first, Values::Int((0..NX as i32).collect()));
    let err = r
        .read(v, &Selection::block(&[0, 0], &[NT, NX]))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("shrunk.ncs")
            && err.contains("stream ends inside the values of a data message"),
        "{err}"
    );
}
