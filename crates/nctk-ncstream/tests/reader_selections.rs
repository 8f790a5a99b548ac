//! `NcStreamReader::read` against a model of what a stream means: random
//! data messages (row messages in either byte order, deflated ones, and
//! `DataCol` columns) over random sections of a 2-D variable, read with
//! random strided selections. The expected grid is built element by element
//! from the spec's rules alone (messages in stream order, a later one wins,
//! elements no message covers are the `_FillValue`). `read_into` (into a
//! buffer holding stale values) and `read_native` must give the same, and
//! so must reads of messages large enough to be placed in parts on several
//! threads.

mod decode_support;

use std::io::Write;
use std::sync::Arc;

use decode_support::framed;
use nctk_model::{DataSource, NativeMut, Selection, Values};
use nctk_ncstream::proto::{self, DataType as P};
use nctk_ncstream::wire::{put_varint, Magic};
use nctk_ncstream::NcStreamReader;
use nctk_store::bytes::MemSource;
use proptest::prelude::*;

const FILL: i32 = -7;

/// How a message is sent.
#[derive(Debug, Clone, Copy)]
enum Kind {
    Big,
    Little,
    Deflated,
    Column,
}

/// A 2-D section: (start, count, stride) per dimension.
type Section2 = [(u64, u64, u64); 2];

/// One message: its section and kind.
#[derive(Debug, Clone)]
struct Msg {
    section: Section2,
    kind: Kind,
}

fn dim_section(len: u64) -> impl Strategy<Value = (u64, u64, u64)> {
    (0..len, 1..4u64).prop_flat_map(move |(start, stride)| {
        let most = (len - start - 1) / stride + 1;
        (Just(start), 1..=most, Just(stride))
    })
}

fn message(ny: u64, nx: u64) -> impl Strategy<Value = Msg> {
    let kind = prop_oneof![
        Just(Kind::Big),
        Just(Kind::Little),
        Just(Kind::Deflated),
        Just(Kind::Column)
    ];
    (dim_section(ny), dim_section(nx), kind).prop_map(|(a, b, kind)| Msg {
        section: [a, b],
        kind,
    })
}

fn case() -> impl Strategy<Value = (u64, u64, Vec<Msg>, Section2)> {
    (1..9u64, 1..9u64).prop_flat_map(|(ny, nx)| {
        (
            Just(ny),
            Just(nx),
            prop::collection::vec(message(ny, nx), 0..5),
            (dim_section(ny), dim_section(nx)).prop_map(|(a, b)| [a, b]),
        )
    })
}

/// The stream: a header for `v(y, x)` with `_FillValue`, then the messages;
/// message `k`'s element `e` holds `1000 * (k + 1) + e`.
fn stream(ny: u64, nx: u64, msgs: &[Msg]) -> Vec<u8> {
    let d = |n: &str, l| proto::Dimension {
        name: Some(n.into()),
        length: Some(l),
        ..Default::default()
    };
    let root = proto::Group {
        dims: vec![d("y", ny), d("x", nx)],
        vars: vec![proto::Variable {
            name: Some("v".into()),
            data_type: Some(P::Int as i32),
            shape: vec![d("y", ny), d("x", nx)],
            atts: vec![proto::Attribute {
                name: Some("_FillValue".into()),
                data_type: Some(P::Int as i32),
                len: Some(1),
                data: Some(FILL.to_be_bytes().to_vec()),
                ..Default::default()
            }],
            ..Default::default()
        }],
        ..Default::default()
    };
    let mut out = Magic::Start.bytes().to_vec();
    out.extend(framed(
        Magic::Header,
        &proto::Header {
            root: Some(root),
            ..Default::default()
        },
    ));
    for (k, m) in msgs.iter().enumerate() {
        let n = m.section[0].1 * m.section[1].1;
        let values: Vec<i32> = (0..n as i32).map(|e| 1000 * (k as i32 + 1) + e).collect();
        let section = Some(proto::Section {
            range: m
                .section
                .iter()
                .map(|&(start, size, stride)| proto::Range {
                    start: Some(start),
                    size: Some(size),
                    stride: Some(stride),
                })
                .collect(),
        });
        let be: Vec<u8> = values.iter().flat_map(|v| v.to_be_bytes()).collect();
        let le: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let data = |bigend: bool| proto::Data {
            var_name: Some("v".into()),
            data_type: Some(P::Int as i32),
            section: section.clone(),
            bigend: Some(bigend),
            version: Some(2),
            ..Default::default()
        };
        let (header, payload) = match m.kind {
            Kind::Big => (framed(Magic::Data, &data(true)), be),
            Kind::Little => (framed(Magic::Data, &data(false)), le),
            Kind::Deflated => {
                let mut d = data(true);
                d.compress = Some(proto::Compress::Deflate as i32);
                d.uncompressed_size = Some(be.len() as u32);
                let mut z = flate2::write::ZlibEncoder::new(vec![], flate2::Compression::fast());
                z.write_all(&be).unwrap();
                (framed(Magic::Data, &d), z.finish().unwrap())
            }
            Kind::Column => {
                let col = proto::DataCol {
                    name: Some("v".into()),
                    data_type: Some(P::Int as i32),
                    section: section.clone(),
                    version: Some(3),
                    nelems: Some(n as u32),
                    primdata: Some(le),
                    ..Default::default()
                };
                out.extend(framed(Magic::Data2, &col));
                continue;
            }
        };
        out.extend(header);
        put_varint(&mut out, payload.len() as u64);
        out.extend(payload);
    }
    out.extend_from_slice(&Magic::End.bytes());
    out
}

/// The grid the rules give, element by element.
fn expected(ny: u64, nx: u64, msgs: &[Msg]) -> Vec<i32> {
    let mut grid = vec![FILL; (ny * nx) as usize];
    for (k, m) in msgs.iter().enumerate() {
        let [(y0, ny_m, sy), (x0, nx_m, sx)] = m.section;
        for i in 0..ny_m {
            for j in 0..nx_m {
                let (y, x) = (y0 + i * sy, x0 + j * sx);
                grid[(y * nx + x) as usize] = 1000 * (k as i32 + 1) + (i * nx_m + j) as i32;
            }
        }
    }
    grid
}

proptest! {
    #[test]
    fn reads_give_what_the_messages_say((ny, nx, msgs, sel) in case(), stale in 0..4usize) {
        let bytes = stream(ny, nx, &msgs);
        let r = NcStreamReader::open(Arc::new(MemSource::new(bytes)), "random.ncs").unwrap();
        let v = r.schema().var_by_path("v").unwrap();
        let selection = Selection {
            start: vec![sel[0].0, sel[1].0],
            count: vec![sel[0].1, sel[1].1],
            stride: vec![sel[0].2, sel[1].2],
        };
        let grid = expected(ny, nx, &msgs);
        let mut want = vec![];
        for i in 0..sel[0].1 {
            for j in 0..sel[1].1 {
                let (y, x) = (sel[0].0 + i * sel[0].2, sel[1].0 + j * sel[1].2);
                want.push(grid[(y * nx + x) as usize]);
            }
        }
        prop_assert_eq!(r.read(v, &selection).unwrap(), Values::Int(want.clone()));
        let mut reused = Values::Int(vec![i32::MIN; want.len() + stale]);
        r.read_into(v, &selection, &mut reused).unwrap();
        prop_assert_eq!(reused, Values::Int(want.clone()));
        let mut native = vec![i32::MIN; want.len()];
        r.read_native(v, &selection, NativeMut::Int(&mut native)).unwrap();
        prop_assert_eq!(native, want);
    }
}

/// Reads all of `v(ny, nx)` from a stream of `msgs` with `read`,
/// `read_into` (into stale values) and `read_native`, each against the
/// rules' grid.
fn assert_reads_whole(ny: u64, nx: u64, msgs: &[Msg]) {
    let bytes = stream(ny, nx, msgs);
    let r = NcStreamReader::open(Arc::new(MemSource::new(bytes)), "large.ncs").unwrap();
    let v = r.schema().var_by_path("v").unwrap();
    let all = Selection::all(&[ny, nx]);
    let want = expected(ny, nx, msgs);
    assert_eq!(r.read(v, &all).unwrap(), Values::Int(want.clone()));
    let mut reused = Values::Int(vec![i32::MIN; 7]);
    r.read_into(v, &all, &mut reused).unwrap();
    assert!(reused == Values::Int(want.clone()), "read_into: {msgs:?}");
    let mut native = vec![i32::MIN; want.len()];
    r.read_native(v, &all, NativeMut::Int(&mut native)).unwrap();
    assert!(native == want, "read_native: {msgs:?}");
}

/// Rows of 600,000 values (2.4 MB, cut into parts by the reader): rows
/// that cover the variable exactly (no fill written), rows that leave one
/// out (fill), and messages that overlap (the later wins), in every kind.
#[test]
fn large_messages_read_in_parts() {
    let (ny, nx) = (4u64, 600_000u64);
    let row = |y: u64, kind| Msg {
        section: [(y, 1, 1), (0, nx, 1)],
        kind,
    };
    let exact = vec![
        row(2, Kind::Big),
        row(0, Kind::Little),
        row(3, Kind::Deflated),
        row(1, Kind::Big),
    ];
    assert_reads_whole(ny, nx, &exact);
    let gap = vec![
        row(3, Kind::Big),
        row(0, Kind::Column),
        row(1, Kind::Little),
    ];
    assert_reads_whole(ny, nx, &gap);
    let overlapping = vec![
        Msg {
            section: [(0, 4, 1), (0, nx, 1)],
            kind: Kind::Big,
        },
        Msg {
            section: [(1, 2, 1), (1000, 299_000, 2)],
            kind: Kind::Little,
        },
        row(3, Kind::Deflated),
        Msg {
            section: [(0, 2, 1), (5, 400_000, 1)],
            kind: Kind::Big,
        },
    ];
    assert_reads_whole(ny, nx, &overlapping);
}
