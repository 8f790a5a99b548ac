//! The compatibility rules of `ncstream-messages.md` (and the grammar's
//! framing) on hand-built messages: each test builds a stream with prost
//! from `proto.rs` and asserts what the spec states it means.

mod decode_support;

use std::io::Write;
use std::sync::Arc;

use decode_support::framed;
use nctk_model::{DataSource, DataType, Selection, UserTypeKind, Values};
use nctk_ncstream::proto::{self, attribute::Type as OldType, DataType as P};
use nctk_ncstream::wire::{put_varint, Magic};
use nctk_ncstream::{NcStreamError, NcStreamReader};
use nctk_store::bytes::MemSource;
use prost::Message;

fn dim(name: &str, length: u64) -> proto::Dimension {
    proto::Dimension {
        name: Some(name.into()),
        length: Some(length),
        ..Default::default()
    }
}

fn var(name: &str, t: P, shape: Vec<proto::Dimension>) -> proto::Variable {
    proto::Variable {
        name: Some(name.into()),
        data_type: Some(t as i32),
        shape,
        ..Default::default()
    }
}

fn header(root: proto::Group) -> Vec<u8> {
    framed(
        Magic::Header,
        &proto::Header {
            root: Some(root),
            version: Some(1),
            ..Default::default()
        },
    )
}

fn section(ranges: &[(u64, u64, Option<u64>)]) -> Option<proto::Section> {
    Some(proto::Section {
        range: ranges
            .iter()
            .map(|&(start, size, stride)| proto::Range {
                start: Some(start),
                size: Some(size),
                stride,
            })
            .collect(),
    })
}

fn data(name: &str, t: P, sec: Option<proto::Section>) -> proto::Data {
    proto::Data {
        var_name: Some(name.into()),
        data_type: Some(t as i32),
        section: sec,
        ..Default::default()
    }
}

/// A data message and its payload of raw bytes (a varint count first).
fn raw_message(d: &proto::Data, bytes: &[u8]) -> Vec<u8> {
    let mut out = framed(Magic::Data, d);
    put_varint(&mut out, bytes.len() as u64);
    out.extend_from_slice(bytes);
    out
}

fn open(parts: &[Vec<u8>]) -> Result<NcStreamReader, NcStreamError> {
    let mut bytes = Magic::Start.bytes().to_vec();
    bytes.extend(parts.concat());
    bytes.extend_from_slice(&Magic::End.bytes());
    NcStreamReader::open(Arc::new(MemSource::new(bytes)), "test.ncs")
}

fn read_all(r: &NcStreamReader, name: &str) -> Values {
    let v = r.schema().var_by_path(name).unwrap();
    r.read(v, &Selection::all(&r.schema().shape(v))).unwrap()
}

fn x_group() -> proto::Group {
    proto::Group {
        dims: vec![dim("n", 2)],
        vars: vec![var("x", P::Int, vec![dim("n", 2)])],
        ..Default::default()
    }
}

#[test]
fn byte_order_follows_bigend_else_the_version() {
    let be = [0, 0, 1, 2, 0, 0, 0, 7];
    let le = [2, 1, 0, 0, 7, 0, 0, 0];
    // (bigend, version, payload): all mean 258 and 7.
    let cases = [
        (None, Some(2), be),
        (None, None, be),
        (None, Some(3), le),
        (Some(true), Some(3), be),
        (Some(false), Some(2), le),
    ];
    for (bigend, version, bytes) in cases {
        let mut d = data("x", P::Int, section(&[(0, 2, Some(1))]));
        d.bigend = bigend;
        d.version = version;
        let r = open(&[header(x_group()), raw_message(&d, &bytes)]).unwrap();
        assert_eq!(
            read_all(&r, "x"),
            Values::Int(vec![258, 7]),
            "{bigend:?} {version:?}"
        );
    }
}

#[test]
fn stride_zero_is_one_and_uncovered_elements_are_the_fill() {
    let mut g = x_group();
    g.vars[0].atts.push(proto::Attribute {
        name: Some("_FillValue".into()),
        r#type: Some(OldType::Int as i32),
        len: Some(1),
        data: Some((-5i32).to_be_bytes().to_vec()),
        ..Default::default()
    });
    g.dims[0].length = Some(4);
    g.vars[0].shape[0].length = Some(4);
    // Elements 1 and 2 (stride 0 = 1); a later message overwrites element 2.
    let first = raw_message(
        &data("x", P::Int, section(&[(1, 2, Some(0))])),
        &[0, 0, 0, 1, 0, 0, 0, 2],
    );
    let second = raw_message(&data("x", P::Int, section(&[(2, 1, None)])), &[0, 0, 0, 9]);
    let r = open(&[header(g), first, second]).unwrap();
    assert_eq!(read_all(&r, "x"), Values::Int(vec![-5, 1, 9, -5]));
    let v = r.schema().var_by_path("x").unwrap();
    let strided = Selection {
        start: vec![0],
        count: vec![2],
        stride: vec![2],
    };
    assert_eq!(r.read(v, &strided).unwrap(), Values::Int(vec![-5, 9]));
}

#[test]
fn attribute_types_fall_back_as_the_rules_say() {
    let att = |name: &str,
               new: Option<P>,
               old: Option<OldType>,
               data: &[u8],
               sdata: &[&str],
               len: u32| {
        proto::Attribute {
            name: Some(name.into()),
            data_type: new.map(|t| t as i32),
            r#type: old.map(|t| t as i32),
            len: Some(len),
            data: Some(data.to_vec()),
            sdata: sdata.iter().map(|s| s.to_string()).collect(),
            ..Default::default()
        }
    };
    let g = proto::Group {
        atts: vec![
            att(
                "new_wins",
                Some(P::Short),
                Some(OldType::Int),
                &[0, 3],
                &[],
                1,
            ),
            att("old_int", None, Some(OldType::Int), &[0, 0, 0, 4], &[], 1),
            att(
                "proto3_char_default",
                Some(P::Char),
                Some(OldType::Double),
                &[0x3f, 0xf0, 0, 0, 0, 0, 0, 0],
                &[],
                1,
            ),
            att("strings", None, None, &[], &["a", "b"], 2),
            att("chars", None, None, b"hi", &[], 2),
            att("empty", Some(P::Float), None, &[], &[], 0),
            proto::Attribute {
                unsigned: Some(true),
                ..att("old_unsigned", None, Some(OldType::Byte), &[0xff], &[], 1)
            },
        ],
        ..Default::default()
    };
    let r = open(&[header(g)]).unwrap();
    let a = |n: &str| {
        r.schema()
            .root()
            .attributes
            .iter()
            .find(|a| a.name == n)
            .unwrap()
            .value
            .clone()
    };
    assert_eq!(a("new_wins"), Values::Short(vec![3]));
    assert_eq!(a("old_int"), Values::Int(vec![4]));
    assert_eq!(a("proto3_char_default"), Values::Double(vec![1.0]));
    assert_eq!(a("strings"), Values::strings(["a", "b"]));
    assert_eq!(a("chars"), Values::Char(b"hi".to_vec()));
    assert_eq!(a("empty"), Values::Float(vec![]));
    assert_eq!(a("old_unsigned"), Values::UByte(vec![255]));
}

#[test]
fn unsigned_private_and_vlen_dimensions_map_to_the_model() {
    let mut unsigned_attr = var("u", P::Short, vec![dim("n", 2)]);
    unsigned_attr.atts.push(proto::Attribute {
        name: Some("_Unsigned".into()),
        len: Some(1),
        sdata: vec!["true".into()],
        ..Default::default()
    });
    let private = proto::Dimension {
        is_private: Some(true),
        length: Some(3),
        ..Default::default()
    };
    let star = proto::Dimension {
        name: Some("*".into()),
        is_vlen: Some(true),
        is_private: Some(true),
        ..Default::default()
    };
    let g = proto::Group {
        dims: vec![dim("n", 2)],
        vars: vec![
            unsigned_attr,
            proto::Variable {
                unsigned: Some(true),
                ..var("b", P::Byte, vec![])
            },
            var("p", P::Float, vec![private]),
            var("v", P::Int, vec![dim("n", 2), star]),
        ],
        ..Default::default()
    };
    let r = open(&[header(g)]).unwrap();
    let s = r.schema();
    let t = |n: &str| s.var(s.var_by_path(n).unwrap()).dtype;
    // the attribute says it; the type stays as netCDF-C shows it
    assert_eq!(t("u"), DataType::Short);
    assert_eq!(t("b"), DataType::UByte);
    let p = s.var(s.var_by_path("p").unwrap());
    assert_eq!(s.dim(p.dims[0]).name, "phony_dim_0");
    assert_eq!(s.dim(p.dims[0]).len, 3);
    let v = s.var_by_path("v").unwrap();
    assert_eq!(s.shape(v), vec![2]);
    assert_eq!(
        s.user_kind(t("v")),
        Some(&UserTypeKind::Vlen {
            base: DataType::Int
        })
    );
}

#[test]
fn vlen_and_string_payloads_are_counted_lists() {
    let star = proto::Dimension {
        is_vlen: Some(true),
        ..Default::default()
    };
    let g = proto::Group {
        dims: vec![dim("n", 2)],
        vars: vec![
            var("v", P::Short, vec![dim("n", 2), star]),
            var("s", P::String, vec![dim("n", 2)]),
        ],
        ..Default::default()
    };
    // netCDF-Java's section of a vlen variable ends with `Range.VLEN`
    // (size -1, sent as 2^64 - 1), which the model's shape does not have.
    let mut vd = data("v", P::Short, section(&[(0, 2, None), (0, u64::MAX, None)]));
    vd.vdata = Some(true);
    let mut vmsg = framed(Magic::Data, &vd);
    vmsg.extend_from_slice(&[2, 2, 0, 1, 4, 0, 2, 0, 3]);
    let mut smsg = framed(Magic::Data, &data("s", P::String, section(&[(0, 2, None)])));
    smsg.extend_from_slice(&[2, 2, b'h', b'i', 0]);
    let r = open(&[header(g), vmsg, smsg]).unwrap();
    assert_eq!(
        read_all(&r, "v"),
        Values::Vlen(vec![Values::Short(vec![1]), Values::Short(vec![2, 3])])
    );
    assert_eq!(read_all(&r, "s"), Values::strings(["hi", ""]));
}

#[test]
fn structures_and_sequences_decode_rows_with_nrows_zero_as_one() {
    let members = vec![
        var("a", P::Short, vec![]),
        var("b", P::Byte, vec![dim("", 2)]),
    ];
    let g = proto::Group {
        structs: vec![
            proto::Structure {
                name: Some("st".into()),
                data_type: Some(P::Structure as i32),
                vars: members.clone(),
                ..Default::default()
            },
            proto::Structure {
                name: Some("seq".into()),
                data_type: Some(P::Sequence as i32),
                vars: members,
                ..Default::default()
            },
        ],
        ..Default::default()
    };
    // A scalar structure: one row (nrows absent), big-endian by version 1.
    let sd = proto::StructureData {
        data: Some(vec![0, 5, 7, 8]),
        row_length: Some(4),
        ..Default::default()
    };
    let mut d = data("st", P::Structure, Some(proto::Section::default()));
    d.version = Some(1);
    let st = raw_message(&d, &sd.encode_to_vec());
    // A sequence of 3 rows in two VDATA blocks, little-endian.
    let mut sq = framed(
        Magic::Data,
        &proto::Data {
            bigend: Some(false),
            ..data("seq", P::Sequence, None)
        },
    );
    for rows in [vec![1u8, 0, 1, 2, 2, 0, 3, 4], vec![3, 0, 5, 6]] {
        let n = rows.len() as u64 / 4;
        let sd = proto::StructureData {
            data: Some(rows),
            nrows: Some(n),
            row_length: Some(4),
            ..Default::default()
        };
        sq.extend_from_slice(&framed(Magic::VData, &sd));
    }
    sq.extend_from_slice(&Magic::VEnd.bytes());
    let r = open(&[header(g), st, sq]).unwrap();
    assert_eq!(
        read_all(&r, "st"),
        Values::Compound {
            len: 1,
            fields: vec![Values::Short(vec![5]), Values::Byte(vec![7, 8])]
        }
    );
    assert_eq!(
        read_all(&r, "seq"),
        Values::Vlen(vec![Values::Compound {
            len: 3,
            fields: vec![
                Values::Short(vec![1, 2, 3]),
                Values::Byte(vec![1, 2, 3, 4, 5, 6])
            ]
        }])
    );
}

fn zlib(bytes: &[u8]) -> Vec<u8> {
    let mut z = flate2::write::ZlibEncoder::new(vec![], flate2::Compression::default());
    z.write_all(bytes).unwrap();
    z.finish().unwrap()
}

#[test]
fn deflated_payloads_inflate_to_the_stated_size_only() {
    let values: Vec<u8> = (0..2000i32).flat_map(|i| i.to_be_bytes()).collect();
    let g = proto::Group {
        dims: vec![dim("n", 2000)],
        vars: vec![var("x", P::Int, vec![dim("n", 2000)])],
        ..Default::default()
    };
    let msg = |stated: u32| {
        let mut d = data("x", P::Int, section(&[(0, 2000, None)]));
        d.compress = Some(proto::Compress::Deflate as i32);
        d.uncompressed_size = Some(stated);
        raw_message(&d, &zlib(&values))
    };
    let r = open(&[header(g.clone()), msg(8000)]).unwrap();
    assert_eq!(read_all(&r, "x"), Values::Int((0..2000).collect()));
    // A size other than the section's is refused when the stream is opened.
    assert!(open(&[header(g.clone()), msg(4000)]).is_err());
    // A zlib stream shorter than stated is refused when read, naming the stream.
    let mut d = data("x", P::Int, section(&[(0, 2000, None)]));
    d.compress = Some(proto::Compress::Deflate as i32);
    d.uncompressed_size = Some(8000);
    let r = open(&[header(g), raw_message(&d, &zlib(&values[..4000]))]).unwrap();
    let v = r.schema().var_by_path("x").unwrap();
    let e = r.read(v, &Selection::all(&[2000])).unwrap_err().to_string();
    assert!(
        e.starts_with("test.ncs: offset") && e.contains("not the stated 8000"),
        "{e}"
    );
    // A stated size no compressed length of this size can give is refused
    // before anything is allocated for it.
    let e = nctk_ncstream::payload::decode::inflate(&zlib(&[0; 10]), 1 << 31, 7).unwrap_err();
    assert!(e.to_string().contains("at most"), "{e}");
}

#[test]
fn later_headers_add_definitions_and_immediate_data_is_the_first_message() {
    let mut g = x_group();
    g.vars[0].data = Some(vec![0, 0, 0, 1, 0, 0, 0, 2]);
    let later = proto::Group {
        dims: vec![dim("c", 3)],
        vars: vec![
            var("y", P::Double, vec![]),
            proto::Variable {
                data: Some(b"abc".to_vec()),
                ..var("text", P::Char, vec![dim("c", 3)])
            },
        ],
        ..Default::default()
    };
    let over = raw_message(&data("x", P::Int, section(&[(1, 1, None)])), &[0, 0, 0, 9]);
    let r = open(&[header(g), header(later), over]).unwrap();
    assert_eq!(read_all(&r, "x"), Values::Int(vec![1, 9]));
    assert_eq!(read_all(&r, "y"), DataType::Double.default_fill());
    assert_eq!(read_all(&r, "text"), Values::Char(b"abc".to_vec()));
}

#[test]
fn streams_end_cleanly_or_fail_naming_the_offset() {
    // A header body as cdmremote sends it: no START, no END.
    let h = header(x_group());
    NcStreamReader::open(Arc::new(MemSource::new(h.clone())), "body").unwrap();
    // Cut inside the message.
    let e = NcStreamReader::open(Arc::new(MemSource::new(h[..h.len() - 1].to_vec())), "cut")
        .unwrap_err();
    assert!(
        matches!(e, NcStreamError::Truncated { offset: 5, .. }),
        "{e}"
    );
    assert!(e.to_string().starts_with("cut: offset 5"), "{e}");
    // An error message is the writer's error.
    let err = framed(
        Magic::Error,
        &proto::Error {
            message: Some("no such variable".into()),
            code: None,
        },
    );
    let e = open(&[h, err]).unwrap_err();
    assert!(
        matches!(&e, NcStreamError::Remote { message, .. } if message == "no such variable"),
        "{e}"
    );
}

#[test]
fn enums_take_their_typedef_base_and_fill_by_member_name() {
    let typedef = proto::EnumTypedef {
        name: Some("cloud_t".into()),
        map: [(0, "Clear"), (255, "Missing")]
            .into_iter()
            .map(|(code, value)| proto::enum_typedef::EnumType {
                code: Some(code),
                value: Some(value.into()),
            })
            .collect(),
    };
    let fill = proto::Attribute {
        name: Some("_FillValue".into()),
        len: Some(1),
        sdata: vec!["Missing".into()],
        ..Default::default()
    };
    let named = proto::Variable {
        enum_type: Some("cloud_t".into()),
        atts: vec![fill.clone()],
        ..var("named", P::Enum1, vec![])
    };
    // netCDF-Java 5 names the variable itself: the one enum in scope.
    let misnamed = proto::Variable {
        enum_type: Some("misnamed".into()),
        atts: vec![fill],
        ..var("misnamed", P::Enum1, vec![])
    };
    let g = proto::Group {
        enum_types: vec![typedef],
        vars: vec![named, misnamed],
        ..Default::default()
    };
    let r = open(&[header(g)]).unwrap();
    let s = r.schema();
    for name in ["named", "misnamed"] {
        let v = s.var_by_path(name).unwrap();
        let t = s.var(v).dtype;
        assert_eq!(s.type_name(t), "cloud_t");
        // Code 255 does not fit `byte`: the base is `ubyte`.
        assert!(matches!(
            s.user_kind(t),
            Some(UserTypeKind::Enum {
                base: DataType::UByte,
                ..
            })
        ));
        assert_eq!(s.fill_value(v), Values::UByte(vec![255]));
        s.check_fill_value(v).unwrap();
        // No data message: the fill.
        assert_eq!(read_all(&r, name), Values::UByte(vec![255]));
    }
}

#[test]
fn raw_rows_nested_structures_and_heap_strings() {
    let inner = proto::Structure {
        name: Some("inner".into()),
        data_type: Some(P::Structure as i32),
        vars: vec![var("i", P::Int, vec![])],
        ..Default::default()
    };
    let st = proto::Structure {
        name: Some("st".into()),
        data_type: Some(P::Structure as i32),
        shape: vec![dim("n", 2)],
        vars: vec![var("a", P::Short, vec![]), var("s", P::String, vec![])],
        structs: vec![inner],
        ..Default::default()
    };
    let g = proto::Group {
        dims: vec![dim("n", 2)],
        structs: vec![st.clone()],
        ..Default::default()
    };
    // Rows: a (2 bytes), s (heap index, 4 bytes), inner.i (4 bytes); packed.
    let row = |a: i16, s: u32, i: i32, big: bool| -> Vec<u8> {
        if big {
            [
                a.to_be_bytes().as_slice(),
                &s.to_be_bytes(),
                &i.to_be_bytes(),
            ]
            .concat()
        } else {
            [
                a.to_le_bytes().as_slice(),
                &s.to_le_bytes(),
                &i.to_le_bytes(),
            ]
            .concat()
        }
    };
    let sd = proto::StructureData {
        data: Some([row(1, 0, 10, false), row(2, 1, 20, false)].concat()),
        heap_count: vec![1, 1],
        sdata: vec!["ab".into(), "c".into()],
        nrows: Some(2),
        row_length: Some(10),
        ..Default::default()
    };
    let mut d = data("st", P::Structure, section(&[(0, 2, None)]));
    d.version = Some(2);
    d.bigend = Some(false);
    let r = open(&[header(g), raw_message(&d, &sd.encode_to_vec())]).unwrap();
    let want = Values::Compound {
        len: 2,
        fields: vec![
            Values::Short(vec![1, 2]),
            Values::strings(["ab", "c"]),
            Values::Compound {
                len: 2,
                fields: vec![Values::Int(vec![10, 20])],
            },
        ],
    };
    assert_eq!(read_all(&r, "st"), want);
    // Version 0: the raw rows themselves, big-endian (no heap: no strings).
    let st0 = proto::Structure {
        vars: vec![var("a", P::Short, vec![])],
        ..st
    };
    let g0 = proto::Group {
        dims: vec![dim("n", 2)],
        structs: vec![st0],
        ..Default::default()
    };
    let rows: Vec<u8> = [1i16, 2]
        .iter()
        .zip([10i32, 20])
        .flat_map(|(a, i)| [a.to_be_bytes().to_vec(), i.to_be_bytes().to_vec()].concat())
        .collect();
    let mut d0 = data("st", P::Structure, section(&[(0, 2, None)]));
    d0.version = Some(0);
    let r = open(&[header(g0), raw_message(&d0, &rows)]).unwrap();
    assert_eq!(
        read_all(&r, "st"),
        Values::Compound {
            len: 2,
            fields: vec![
                Values::Short(vec![1, 2]),
                Values::Compound {
                    len: 2,
                    fields: vec![Values::Int(vec![10, 20])],
                },
            ],
        }
    );
}

#[test]
fn values_of_another_type_are_refused_not_reinterpreted() {
    // INT numbers for a FLOAT variable: the same size, other values.
    let g = proto::Group {
        dims: vec![dim("n", 2)],
        vars: vec![var("f", P::Float, vec![dim("n", 2)])],
        ..Default::default()
    };
    let msg = raw_message(
        &data("f", P::Int, section(&[(0, 2, None)])),
        &[0, 0, 0, 1, 0, 0, 0, 2],
    );
    let r = open(&[header(g), msg]).unwrap();
    let v = r.schema().var_by_path("f").unwrap();
    let e = r.read(v, &Selection::all(&[2])).unwrap_err().to_string();
    assert!(
        e.starts_with("test.ncs: offset") && e.contains("INT data for a variable of type float"),
        "{e}"
    );
}
