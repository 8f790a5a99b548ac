//! The messages `message.rs` writes, decoded field by field with prost and
//! checked against `ncstream-messages.md` and netCDF-Java 4's conventions:
//! framing (magic, varint length), `Header.version`, attributes with both
//! the old `type` and `dataType` and big-endian `data`, unsigned flags,
//! dimensions (unlimited with their length, a vlen's private `*`),
//! structure members' private dimensions, enum codes; `Data` with the full
//! escaped name, `bigend` set, `version` 2, `Range.stride` set, `vdata`;
//! error messages; what ncstream cannot carry refused with its name.

mod writer_dataset;

use nctk_model::{GroupId, Schema, Selection, UserTypeKind, Values};
use nctk_ncstream::message::{data_message, error_message, header_message, DataOptions};
use nctk_ncstream::proto;
use nctk_ncstream::wire::{get_varint, Magic};
use prost::Message;

/// Splits `bytes` into its magic and the framed message; the rest.
fn unframe(bytes: &[u8], magic: Magic) -> (&[u8], &[u8]) {
    assert_eq!(bytes[..4], magic.bytes(), "starts with {}", magic.name());
    let (len, n) = get_varint(&bytes[4..], 4).unwrap();
    let body = &bytes[4 + n..4 + n + len as usize];
    (body, &bytes[4 + n + len as usize..])
}

fn header() -> (Schema, proto::Header) {
    let (schema, _) = writer_dataset::dataset();
    let bytes = header_message(&schema, "here.ncs").unwrap();
    let (body, rest) = unframe(&bytes, Magic::Header);
    assert!(rest.is_empty(), "one header message");
    (schema, proto::Header::decode(body).unwrap())
}

fn att<'a>(atts: &'a [proto::Attribute], name: &str) -> &'a proto::Attribute {
    atts.iter().find(|a| a.name() == name).unwrap()
}

#[test]
fn the_header_follows_netcdf_java_4() {
    let (_, h) = header();
    assert_eq!(h.version, Some(2));
    assert_eq!(h.location.as_deref(), Some("here.ncs"));
    let root = h.root.as_ref().unwrap();
    assert_eq!(root.name.as_deref(), Some(""));
    let time = &root.dims[0];
    assert_eq!(
        (time.name(), time.is_unlimited, time.length),
        ("time", Some(true), Some(0))
    );
    assert_eq!(root.dims[1].length, Some(3));

    let ints = att(&root.atts, "ints");
    assert_eq!(ints.r#type, Some(proto::attribute::Type::Int as i32));
    assert_eq!(ints.data_type, Some(proto::DataType::Int as i32));
    assert_eq!(ints.len, Some(2));
    let want: Vec<u8> = [1i32, -2].iter().flat_map(|x| x.to_be_bytes()).collect();
    assert_eq!(ints.data.as_deref(), Some(&want[..]), "big-endian data");

    let big = att(&root.atts, "big");
    assert_eq!(
        big.r#type,
        Some(proto::attribute::Type::Int as i32),
        "old type: signed"
    );
    assert_eq!(big.unsigned, Some(true));
    assert_eq!(big.data_type, Some(proto::DataType::Uint as i32));
    assert_eq!(
        big.data.as_deref(),
        Some(&4_000_000_000u32.to_be_bytes()[..])
    );

    let names = att(&root.atts, "names");
    assert_eq!(names.sdata, ["a", "b c"]);
    assert_eq!(names.r#type, Some(proto::attribute::Type::String as i32));
    assert_eq!(names.data_type, Some(proto::DataType::String as i32));

    let title = att(&root.atts, "title");
    assert_eq!(
        title.sdata,
        ["a test"],
        "char text as a string for netCDF-Java"
    );
    assert_eq!(title.data.as_deref(), Some(&b"a test"[..]), "and its bytes");
    assert_eq!(title.len, Some(1));

    let var = |name: &str| root.vars.iter().find(|v| v.name() == name).unwrap();
    assert_eq!(var("u64").data_type, Some(proto::DataType::Ulong as i32));
    assert_eq!(var("u64").unsigned, Some(true));
    assert_eq!(var("sc").shape.len(), 0, "a scalar has no shape");
    let vl = var("vl");
    let star = vl.shape.last().unwrap();
    assert_eq!(
        (star.name(), star.is_vlen, star.is_private, star.length),
        ("*", Some(true), Some(true), None)
    );
    assert_eq!(var("cloud").enum_type.as_deref(), Some("cloud_t"));
    let cloud = &root.enum_types[0];
    let codes: Vec<(u32, &str)> = cloud.map.iter().map(|m| (m.code(), m.value())).collect();
    assert_eq!(codes, [(0, "clear"), (255, "missing")]);

    let obs = &root.structs[0];
    assert_eq!(obs.data_type, Some(proto::DataType::Structure as i32));
    let members: Vec<&str> = obs.vars.iter().map(|v| v.name()).collect();
    assert_eq!(
        members,
        ["day", "temp", "label", "hist"],
        "plain members first"
    );
    let hist = obs.vars.iter().find(|v| v.name() == "hist").unwrap();
    assert_eq!(hist.shape[0].length, Some(2));
    assert_eq!(hist.shape[0].is_private, Some(true));
    assert_eq!(hist.shape[0].name, None, "an anonymous member dimension");
    assert_eq!(obs.structs[0].name(), "pos", "the nested compound last");

    let g = &root.groups[0];
    assert_eq!(g.name(), "g");
    assert_eq!(
        g.vars[0].name(),
        "w.v",
        "short names unescaped in the header"
    );
}

#[test]
fn data_messages_follow_netcdf_java_4() {
    let (schema, vals) = writer_dataset::dataset();
    let (w, _) = vals.last().unwrap();
    // Every other column of both rows: stride 2.
    let sel = Selection {
        start: vec![0, 0],
        count: vec![2, 2],
        stride: vec![1, 2],
    };
    let picked = Values::Short(vec![1, 3, 4, 6]);
    let bytes = data_message(&schema, *w, &sel, &picked, &DataOptions::default()).unwrap();
    let (body, payload) = unframe(&bytes, Magic::Data);
    let data = proto::Data::decode(body).unwrap();
    assert_eq!(data.var_name.as_deref(), Some("g/w\\.v"));
    assert_eq!(data.data_type, Some(proto::DataType::Short as i32));
    assert_eq!(
        (data.bigend, data.version, data.vdata),
        (Some(true), Some(2), Some(false))
    );
    let ranges: Vec<(u64, u64, u64)> = data
        .section
        .unwrap()
        .range
        .iter()
        .map(|r| (r.start(), r.size(), r.stride()))
        .collect();
    assert_eq!(ranges, [(0, 2, 1), (0, 2, 2)]);
    let (n, at) = get_varint(payload, 0).unwrap();
    let want: Vec<u8> = [1i16, 3, 4, 6]
        .iter()
        .flat_map(|x| x.to_be_bytes())
        .collect();
    assert_eq!(&payload[at..], &want[..]);
    assert_eq!(n as usize, want.len());

    // A vlen: vdata, the base type, a count of objects then each counted.
    let (vl, seqs) = vals
        .iter()
        .find(|(v, _)| schema.var(*v).name == "vl")
        .unwrap();
    let bytes = data_message(
        &schema,
        *vl,
        &Selection::all(&[3]),
        seqs,
        &DataOptions::default(),
    )
    .unwrap();
    let (body, payload) = unframe(&bytes, Magic::Data);
    let data = proto::Data::decode(body).unwrap();
    assert_eq!(
        (data.vdata, data.data_type),
        (Some(true), Some(proto::DataType::Int as i32))
    );
    assert_eq!(get_varint(payload, 0).unwrap(), (3, 1), "three objects");
}

#[test]
fn error_messages_carry_their_text() {
    let bytes = error_message("no such variable");
    let (body, rest) = unframe(&bytes, Magic::Error);
    assert!(rest.is_empty());
    assert_eq!(
        proto::Error::decode(body).unwrap().message(),
        "no such variable"
    );
}

#[test]
fn what_ncstream_cannot_carry_is_refused_by_name() {
    let (schema, vals) = writer_dataset::dataset();
    let (grid, _) = vals[1];
    let err = data_message(
        &schema,
        grid,
        &Selection::all(&[3]),
        &Values::Float(vec![1.0]),
        &DataOptions::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("variable \"grid\"") && err.contains("1 values"),
        "{err}"
    );

    let mut s = Schema::new();
    let t = s
        .add_type(
            GroupId::ROOT,
            "big_enum",
            UserTypeKind::Enum {
                base: nctk_model::DataType::Int64,
                members: vec![nctk_model::EnumMember {
                    name: "a".into(),
                    value: 1,
                }],
            },
        )
        .unwrap();
    s.add_var(GroupId::ROOT, "e", nctk_model::DataType::User(t), &[])
        .unwrap();
    let err = header_message(&s, "x").unwrap_err().to_string();
    assert!(
        err.contains("variable \"e\"") && err.contains("enum"),
        "{err}"
    );
}
