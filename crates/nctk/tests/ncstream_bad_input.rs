//! Damaged ncstreams: every stream of the corpus (and streams nctk writes)
//! cut short at many offsets and with bytes flipped at many places, and
//! streams built with prost to lie (unknown magic, lengths and counts past
//! the end, sizes that would allocate more than the stream holds,
//! structures and groups nested past any sane depth). Each case must end,
//! within a time bound, in values or in an error naming the stream and the
//! byte offset; never a panic, a hang, or an allocation larger than
//! [`MAX_ALLOCATION`]. A cut stream is an error: a corpus response holds
//! one message, so the cut is inside it; a full stream (`MAGIC_START`)
//! ends with `MAGIC_END` (the grammar: `MAGIC_START, {message}*,
//! MAGIC_END`), so one cut even between two messages lacks its end.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

#[path = "ncstream_common/mod.rs"]
mod common;

use nctk::model::{DataSink, DataSource, Selection};
use nctk_ncstream::header::decode::{schema_of, StreamHeader};
use nctk_ncstream::proto::{self, DataType as PType};
use nctk_ncstream::reader::NcStreamReader;
use nctk_ncstream::response::decode_data;
use nctk_ncstream::wire::{self, Magic};
use nctk_ncstream::NcStreamWriter;
use nctk_store::bytes::MemSource;
use nctk_test_support::bounded::{run_case, Bounds, Rng, Tracking};
use nctk_test_support::require;
use prost::Message;

/// The largest single allocation a damaged stream may cause (the corpus's
/// largest response is under 1 MB; its values a few megabytes).
const MAX_ALLOCATION: usize = 64 << 20;

/// Variables with more elements than this are not read: a header may
/// declare a huge variable of fill values legitimately.
const MAX_READ_ELEMENTS: u64 = 1 << 22;

const BOUNDS: Bounds = Bounds {
    time: Duration::from_secs(30),
    allocation: MAX_ALLOCATION,
};

#[global_allocator]
static GLOBAL: Tracking = Tracking;

/// Whether an error's text names the stream and a byte offset.
fn names_stream_and_offset(text: &str, name: &str) -> Result<(), String> {
    if text.contains(name) && text.contains("offset") {
        Ok(())
    } else {
        Err(format!("error does not name the stream and offset: {text}"))
    }
}

/// What decoding a damaged stream gave.
#[derive(Debug, PartialEq)]
enum Outcome {
    /// Values (a flip may leave a stream that decodes).
    Values,
    /// An error naming the stream and offset.
    Error(String),
}

/// Opens `bytes` as the stream `name` (a full stream or a header response)
/// and reads every variable of a sane size.
fn open_and_read(name: &str, bytes: Vec<u8>) -> Result<Outcome, String> {
    let source = Arc::new(MemSource::new(bytes));
    let reader = match NcStreamReader::open(source, name) {
        Ok(reader) => reader,
        Err(e) => {
            let text = e.to_string();
            names_stream_and_offset(&text, name)?;
            return Ok(Outcome::Error(text));
        }
    };
    let schema = reader.schema().clone();
    let mut outcome = Outcome::Values;
    for var in schema.var_ids() {
        let shape = schema.shape(var);
        let n = shape.iter().try_fold(1u64, |a, &b| a.checked_mul(b));
        if n.is_none_or(|n| n > MAX_READ_ELEMENTS) {
            continue;
        }
        if let Err(e) = reader.read(var, &Selection::all(&shape)) {
            let text = e.to_string();
            names_stream_and_offset(&text, name)?;
            outcome = Outcome::Error(text);
        }
    }
    Ok(outcome)
}

/// Decodes `bytes` as the data response `name` to `header`.
fn decode_response(header: &StreamHeader, name: &str, bytes: &[u8]) -> Result<Outcome, String> {
    match decode_data(header, bytes, name) {
        Ok(_) => Ok(Outcome::Values),
        Err(e) => {
            let text = e.to_string();
            names_stream_and_offset(&text, name)?;
            Ok(Outcome::Error(text))
        }
    }
}

/// One stream of the corpus: its name, bytes, and for a data response
/// the header of its dataset.
struct Stream {
    name: String,
    bytes: Vec<u8>,
    header: Option<Arc<StreamHeader>>,
}

/// The corpus's streams; a data response is paired with the header
/// response of the same dataset URL (`INDEX.tsv`).
fn corpus_streams(corpus: &Path) -> Vec<Stream> {
    let all = common::answers(corpus);
    let headers = common::header_answers(&all);
    let root = common::root(corpus);
    all.values()
        .flatten()
        .map(|answer| {
            let bytes = std::fs::read(&answer.file).unwrap();
            let name = answer.file.strip_prefix(&root).unwrap();
            let header = (!answer.header).then(|| {
                let h = std::fs::read(&headers[&answer.url]).unwrap();
                Arc::new(schema_of(&common::header_of(&h)).unwrap())
            });
            Stream {
                name: name.to_string_lossy().into_owned(),
                bytes,
                header,
            }
        })
        .collect()
}

/// Streams nctk writes (`NcStreamWriter`, every variable in one data
/// message) from a few classic files of the corpus: every classic type,
/// record variables, attributes of each type.
fn written_streams(corpus: &Path) -> Vec<Stream> {
    let dir = corpus.join("generated/from-cdl/netcdf-c/ncgen");
    ["c0.nc5.nc", "c5.nc5.nc", "tst_usuffix.nc5.nc"]
        .iter()
        .map(|file| {
            let ds = nctk::open(dir.join(file)).unwrap();
            let source = ds.source();
            let schema = source.schema();
            let mut bytes = vec![];
            let mut sink = Box::new(NcStreamWriter::new(&mut bytes, file, Default::default()));
            sink.define(schema).unwrap();
            for var in schema.var_ids() {
                let selection = Selection::all(&schema.shape(var));
                sink.write(var, &selection, &source.read(var, &selection).unwrap())
                    .unwrap();
            }
            sink.finish().unwrap();
            Stream {
                name: format!("{file}.ncs"),
                bytes,
                header: None,
            }
        })
        .collect()
}

/// Runs `cases` of every stream of the corpus and of [`written_streams`]
/// (each case: a label, the damaged bytes, and whether it must be an
/// error) and fails with all failures.
fn check_all(cases: impl Fn(&Stream) -> Vec<(String, Vec<u8>, bool)>) {
    let Some(corpus) = require::corpus() else {
        return;
    };
    let mut streams = corpus_streams(&corpus);
    assert!(streams.len() >= 30, "{} streams", streams.len());
    streams.extend(written_streams(&corpus));
    let mut failures = vec![];
    let mut count = 0;
    for stream in &streams {
        // the intact stream decodes
        let intact = match &stream.header {
            None => open_and_read(&stream.name, stream.bytes.clone()),
            Some(h) => decode_response(h, &stream.name, &stream.bytes),
        };
        if intact != Ok(Outcome::Values) {
            failures.push(format!("{}: the intact stream: {intact:?}", stream.name));
        }
        for (label, damaged, must_fail) in cases(stream) {
            count += 1;
            let name = stream.name.clone();
            let header = stream.header.clone();
            let failure = run_case(label, BOUNDS, move || {
                let outcome = match header {
                    None => open_and_read(&name, damaged)?,
                    Some(h) => decode_response(&h, &name, &damaged)?,
                };
                if must_fail && outcome == Outcome::Values {
                    return Err("decoded without an error".into());
                }
                Ok(())
            });
            if let Some(f) = failure {
                // shown as it happens (not captured): a slow case is seen
                // while the test still runs
                let _ =
                    std::io::Write::write_all(&mut std::io::stderr(), format!("{f}\n").as_bytes());
                failures.push(f);
            }
        }
    }
    assert!(count > 2500, "only {count} cases");
    assert!(
        failures.is_empty(),
        "{} of {count} cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Streams larger than this are cut and flipped at fewer places (their
/// bulk is values; each case decodes all of them).
const LARGE: usize = 64 << 10;

/// Cut offsets: every offset of the first 1 KiB (of the first 256 bytes
/// for a [`LARGE`] stream), 128 (64) spread over the rest and the last 16
/// bytes.
fn cuts(len: usize) -> Vec<usize> {
    let (head, spread) = if len > LARGE { (256, 64) } else { (1024, 128) };
    let mut cuts: Vec<usize> = (1..len.min(head)).collect();
    cuts.extend((1..spread).map(|i| len * i / spread));
    cuts.extend(len.saturating_sub(16)..len);
    cuts.retain(|&at| at > 0 && at < len);
    cuts.sort_unstable();
    cuts.dedup();
    cuts
}

/// A cut anywhere must be an error (see the module's comment).
#[test]
fn truncated_streams_give_errors_naming_stream_and_offset() {
    check_all(|s| {
        cuts(s.bytes.len())
            .into_iter()
            .map(|at| {
                (
                    format!("{} cut at {at}", s.name),
                    s.bytes[..at].to_vec(),
                    true,
                )
            })
            .collect()
    });
}

/// One byte changed (all bits flipped, or one bit) at 100 places per
/// stream (20 for a [`LARGE`] one), two thirds of them in the first 1 KiB
/// (framing, header, `Data`).
#[test]
fn byte_flips_give_values_or_errors_naming_stream_and_offset() {
    check_all(|s| {
        let bytes = &s.bytes;
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ bytes.len() as u64);
        let n = if bytes.len() > LARGE { 20 } else { 100 };
        (0..n)
            .map(|i| {
                let at = if i % 3 == 2 {
                    rng.below(bytes.len())
                } else {
                    rng.below(bytes.len().min(1024))
                };
                let mask = if i % 2 == 0 { 0xFF } else { 1 << rng.below(8) };
                let mut damaged = bytes.to_vec();
                damaged[at] ^= mask;
                (
                    format!("{} byte {at} ^ {mask:#04x}", s.name),
                    damaged,
                    false,
                )
            })
            .collect()
    });
}

// ---- streams built to lie ----

/// `magic`, the varint length of `body`, and `body`.
fn frame(magic: Magic, body: &[u8]) -> Vec<u8> {
    let mut out = magic.bytes().to_vec();
    wire::put_varint(&mut out, body.len() as u64);
    out.extend_from_slice(body);
    out
}

fn dim(name: &str, length: u64) -> proto::Dimension {
    proto::Dimension {
        name: Some(name.into()),
        length: Some(length),
        ..Default::default()
    }
}

fn var(name: &str, dtype: PType, shape: Vec<proto::Dimension>) -> proto::Variable {
    proto::Variable {
        name: Some(name.into()),
        data_type: Some(dtype as i32),
        shape,
        ..Default::default()
    }
}

/// A header of `n` = 10, `f(n)` float, `s(n)` string, `v(n, *)` int vlen,
/// `o(n)` opaque and the structure `obs(n) { int a; }`.
fn header() -> proto::Header {
    let vlen = proto::Dimension {
        name: Some("*".into()),
        is_vlen: Some(true),
        is_private: Some(true),
        ..Default::default()
    };
    proto::Header {
        version: Some(1),
        root: Some(proto::Group {
            name: Some(String::new()),
            dims: vec![dim("n", 10)],
            vars: vec![
                var("f", PType::Float, vec![dim("n", 10)]),
                var("s", PType::String, vec![dim("n", 10)]),
                var("v", PType::Int, vec![dim("n", 10), vlen]),
                var("o", PType::Opaque, vec![dim("n", 10)]),
            ],
            structs: vec![proto::Structure {
                name: Some("obs".into()),
                data_type: Some(PType::Structure as i32),
                shape: vec![dim("n", 10)],
                vars: vec![var("a", PType::Int, vec![])],
                ..Default::default()
            }],
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// The `Data` message of all of `name` (10 values) with `dtype`.
fn data(name: &str, dtype: PType) -> proto::Data {
    proto::Data {
        var_name: Some(name.into()),
        data_type: Some(dtype as i32),
        section: Some(proto::Section {
            range: vec![proto::Range {
                start: Some(0),
                size: Some(10),
                stride: Some(1),
            }],
        }),
        bigend: Some(true),
        version: Some(2),
        vdata: (name == "v").then_some(true),
        ..Default::default()
    }
}

/// A full stream: start, the header, `messages` as they are, end.
fn stream(header: &proto::Header, messages: &[u8]) -> Vec<u8> {
    let mut out = Magic::Start.bytes().to_vec();
    out.extend(frame(Magic::Header, &header.encode_to_vec()));
    out.extend_from_slice(messages);
    out.extend(Magic::End.bytes());
    out
}

/// A data message: its `Data` framed, then `payload` as it is.
fn data_message(d: &proto::Data, payload: &[u8]) -> Vec<u8> {
    let mut out = frame(Magic::Data, &d.encode_to_vec());
    out.extend_from_slice(payload);
    out
}

/// A varint alone.
fn varint(v: u64) -> Vec<u8> {
    let mut out = vec![];
    wire::put_varint(&mut out, v);
    out
}

/// Runs `bytes` as the full stream `name` under the bounds; it must be an
/// error naming the stream and the offset, and the error's text must
/// contain `expect` (an offset, a word of the reason).
fn must_fail(name: &str, bytes: Vec<u8>, expect: &str) -> Option<String> {
    let owned = name.to_string();
    let expect = expect.to_string();
    run_case(name.into(), BOUNDS, move || {
        match open_and_read(&owned, bytes)? {
            Outcome::Values => Err("decoded without an error".into()),
            Outcome::Error(text) if text.contains(&expect) => Ok(()),
            Outcome::Error(text) => Err(format!("error does not say {expect:?}: {text}")),
        }
    })
}

/// The intact built stream reads (the cases below each break one thing).
#[test]
fn the_built_stream_reads() {
    let mut floats = vec![];
    for i in 0..10 {
        floats.extend((i as f32).to_be_bytes());
    }
    let mut messages = data_message(&data("f", PType::Float), &varint(40));
    messages.extend(&floats);
    let bytes = stream(&header(), &messages);
    let reader = NcStreamReader::open(Arc::new(MemSource::new(bytes)), "built.ncs").unwrap();
    let var = reader.schema().var_by_path("/f").unwrap();
    let values = reader.read(var, &Selection::all(&[10])).unwrap();
    let want: Vec<f32> = (0..10).map(|i| i as f32).collect();
    assert_eq!(values, nctk::model::Values::Float(want));
}

/// A magic number no message has, where a message starts: the error gives
/// its offset.
#[test]
fn unknown_magic_is_an_error_at_its_offset() {
    let h = header();
    let at = 4 + frame(Magic::Header, &h.encode_to_vec()).len();
    let mut bytes = stream(&h, b"\x01\x02\x03\x04");
    bytes.truncate(at + 4);
    bytes.extend(Magic::End.bytes());
    let failure = must_fail("magic.ncs", bytes, &format!("offset {at}"));
    assert!(failure.is_none(), "{failure:?}");
    // before the header: not an ncstream at all
    let failure = must_fail("nothing.ncs", b"NOPE\x00\x00\x00\x00".to_vec(), "offset 0");
    assert!(failure.is_none(), "{failure:?}");
}

/// A message length larger than what follows, small and huge.
#[test]
fn lengths_past_the_end_are_errors() {
    let body = header().encode_to_vec();
    let mut failures = vec![];
    for claimed in [body.len() as u64 + 1, 1 << 31, 1 << 40, u64::MAX >> 1] {
        let mut bytes = Magic::Start.bytes().to_vec();
        bytes.extend(Magic::Header.bytes());
        wire::put_varint(&mut bytes, claimed);
        bytes.extend(&body);
        failures.extend(must_fail(&format!("length{claimed}.ncs"), bytes, "offset"));
    }
    // a varint that never ends
    let mut bytes = Magic::Start.bytes().to_vec();
    bytes.extend(Magic::Header.bytes());
    bytes.extend([0xFF; 16]);
    failures.extend(must_fail("varint.ncs", bytes, "offset 8"));
    assert!(failures.is_empty(), "{failures:#?}");
}

/// Data messages whose counts and sizes claim far more than the stream
/// holds: each an error, none allocating what it claims.
#[test]
fn counts_past_the_stream_do_not_allocate() {
    let h = header();
    let huge = 1u64 << 40;
    let mut cases: Vec<(&str, Vec<u8>)> = vec![];
    // a primitive payload of 2^40 bytes
    cases.push((
        "bytes",
        data_message(&data("f", PType::Float), &varint(huge)),
    ));
    // 2^40 strings, one there
    let mut p = varint(huge);
    p.extend(varint(3));
    p.extend(b"abc");
    cases.push(("strings", data_message(&data("s", PType::String), &p)));
    // one string of 2^40 bytes
    let mut p = varint(10);
    p.extend(varint(huge));
    p.extend(b"abc");
    cases.push(("string", data_message(&data("s", PType::String), &p)));
    // 2^40 opaque blobs
    cases.push((
        "opaques",
        data_message(&data("o", PType::Opaque), &varint(huge)),
    ));
    // 2^40 vlen rows, then a row of 2^40 elements
    cases.push(("vlens", data_message(&data("v", PType::Int), &varint(huge))));
    let mut p = varint(10);
    p.extend(varint(huge));
    cases.push(("vlen", data_message(&data("v", PType::Int), &p)));
    // a deflated payload claiming 4 GiB uncompressed
    let mut d = data("f", PType::Float);
    d.compress = Some(proto::Compress::Deflate as i32);
    d.uncompressed_size = Some(u32::MAX);
    let zlib = [0x78, 0x9C, 0x63, 0x60, 0x00, 0x00, 0x00, 0x02, 0x00, 0x01];
    let mut p = varint(zlib.len() as u64);
    p.extend(zlib);
    cases.push(("deflate", data_message(&d, &p)));
    // structure rows: 2^40 rows of 2^20 bytes
    let sd = proto::StructureData {
        data: Some(vec![0; 4]),
        nrows: Some(huge),
        row_length: Some(1 << 20),
        ..Default::default()
    };
    let mut p = varint(sd.encoded_len() as u64);
    p.extend(sd.encode_to_vec());
    cases.push(("rows", data_message(&data("obs", PType::Structure), &p)));
    let mut failures = vec![];
    for (name, message) in cases {
        failures.extend(must_fail(
            &format!("{name}.ncs"),
            stream(&h, &message),
            "offset",
        ));
    }
    // a header declaring a variable of 2^62 values with immediate data
    let mut big = header();
    let root = big.root.as_mut().unwrap();
    root.dims.push(dim("huge", 1 << 62));
    root.vars.push(proto::Variable {
        data: Some(vec![0; 8]),
        ..var("g", PType::Double, vec![dim("huge", 1 << 62)])
    });
    let bytes = stream(&big, &[]);
    failures.extend(run_case("immediate.ncs".into(), BOUNDS, move || {
        open_and_read("immediate.ncs", bytes).map(|_| ())
    }));
    assert!(failures.is_empty(), "{failures:#?}");
}

/// The bytes of a protobuf field `tag` holding the message `body`.
fn field(tag: u8, body: &[u8]) -> Vec<u8> {
    let mut out = vec![tag << 3 | 2];
    wire::put_varint(&mut out, body.len() as u64);
    out.extend_from_slice(body);
    out
}

/// A full stream whose root group has, besides [`header`]'s content, the
/// field `tag` holding `nested`. Built as bytes (protobuf fields may come
/// in any order and repeat), so that the test itself never holds, encodes
/// or drops a deeply nested message.
fn stream_with_root_field(tag: u8, nested: &[u8]) -> Vec<u8> {
    let h = header();
    let mut root = h.root.as_ref().unwrap().encode_to_vec();
    root.extend(field(tag, nested));
    let mut body = proto::Header { root: None, ..h }.encode_to_vec();
    body.extend(field(4, &root));
    let mut out = Magic::Start.bytes().to_vec();
    out.extend(frame(Magic::Header, &body));
    out.extend(Magic::End.bytes());
    out
}

/// Structures nested inside structures, and groups inside groups, deeper
/// than any real dataset: an error, not a stack overflow.
#[test]
fn nesting_past_the_limit_is_an_error() {
    let mut failures = vec![];
    for depth in [200, 100_000] {
        // Structure { name: "s", dataType: STRUCTURE, structs: inner }
        let mut st = var("a", PType::Int, vec![]).encode_to_vec();
        st = [
            field(1, b"s"),
            vec![2 << 3, PType::Structure as u8],
            field(5, &st),
        ]
        .concat();
        // Group { name: "g", groups: inner }
        let mut g = field(1, b"g");
        for _ in 0..depth {
            st = [
                field(1, b"s"),
                vec![2 << 3, PType::Structure as u8],
                field(6, &st),
            ]
            .concat();
            g = [field(1, b"g"), field(6, &g)].concat();
        }
        let name = format!("structs{depth}.ncs");
        failures.extend(must_fail(&name, stream_with_root_field(4, &st), "offset"));
        let name = format!("groups{depth}.ncs");
        failures.extend(must_fail(&name, stream_with_root_field(6, &g), "offset"));
    }
    assert!(failures.is_empty(), "{failures:#?}");
}
