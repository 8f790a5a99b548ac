//! A dataset with every type ncstream carries, shared by the writer's tests
//! (each test binary uses part of it).
#![allow(dead_code)]

use nctk_model::{
    Attribute, CompoundField, DataSink, DataType, EnumMember, GroupId, Schema, Selection,
    UserTypeKind, Values, VarId,
};

/// A dataset with every type ncstream carries, and its values.
pub fn dataset() -> (Schema, Vec<(VarId, Values)>) {
    let mut s = Schema::new();
    let root = GroupId::ROOT;
    let time = s.add_dim(root, "time", 0, true).unwrap();
    let x = s.add_dim(root, "x", 3, false).unwrap();
    s.set_attr(root, None, Attribute::new("title", Values::text("a test")));
    s.set_attr(root, None, Attribute::new("ints", Values::Int(vec![1, -2])));
    s.set_attr(
        root,
        None,
        Attribute::new("big", Values::UInt(vec![4_000_000_000])),
    );
    s.set_attr(
        root,
        None,
        Attribute::new("names", Values::strings(["a", "b c"])),
    );
    let mut vals = Vec::new();
    let mut var = |s: &mut Schema, g, name: &str, t, dims: &[_], v: Values| {
        let id = s.add_var(g, name, t, dims).unwrap();
        vals.push((id, v));
        id
    };
    let t = var(
        &mut s,
        root,
        "t",
        DataType::Double,
        &[time],
        Values::Double(vec![0.5, f64::NAN]),
    );
    s.set_attr(
        root,
        Some(t),
        Attribute::new("scale", Values::Float(vec![2.5])),
    );
    var(
        &mut s,
        root,
        "grid",
        DataType::Float,
        &[x],
        Values::Float(vec![1.0, -2.5, 3e30]),
    );
    var(
        &mut s,
        root,
        "u8",
        DataType::UByte,
        &[x],
        Values::UByte(vec![0, 200, 255]),
    );
    var(
        &mut s,
        root,
        "i64",
        DataType::Int64,
        &[x],
        Values::Int64(vec![i64::MIN, 0, i64::MAX]),
    );
    var(
        &mut s,
        root,
        "u64",
        DataType::UInt64,
        &[x],
        Values::UInt64(vec![u64::MAX, 1, 2]),
    );
    var(
        &mut s,
        root,
        "sc",
        DataType::Short,
        &[],
        Values::Short(vec![-7]),
    );
    var(
        &mut s,
        root,
        "c",
        DataType::Char,
        &[x],
        Values::Char(b"abc".to_vec()),
    );
    let strings = Values::strings(["Washington", "", "ünïcode"]);
    var(&mut s, root, "s", DataType::String, &[x], strings);
    let cloud = s
        .add_type(
            root,
            "cloud_t",
            UserTypeKind::Enum {
                base: DataType::UByte,
                members: vec![
                    EnumMember {
                        name: "clear".into(),
                        value: 0,
                    },
                    EnumMember {
                        name: "missing".into(),
                        value: 255,
                    },
                ],
            },
        )
        .unwrap();
    var(
        &mut s,
        root,
        "cloud",
        DataType::User(cloud),
        &[x],
        Values::UByte(vec![0, 255, 0]),
    );
    let vl = s
        .add_type(
            root,
            "vl_t",
            UserTypeKind::Vlen {
                base: DataType::Int,
            },
        )
        .unwrap();
    let seqs = vec![
        Values::Int(vec![1]),
        Values::Int(vec![]),
        Values::Int(vec![-3, 4, 5]),
    ];
    var(
        &mut s,
        root,
        "vl",
        DataType::User(vl),
        &[x],
        Values::Vlen(seqs),
    );
    let op = s
        .add_type(root, "op_t", UserTypeKind::Opaque { size: 2 })
        .unwrap();
    let blobs = Values::Opaque {
        size: 2,
        bytes: vec![1, 2, 3, 4, 0xff, 0],
    };
    var(&mut s, root, "op", DataType::User(op), &[x], blobs);
    let field = |name: &str, offset, dtype| CompoundField {
        name: name.into(),
        offset,
        dtype,
        dims: vec![],
    };
    let inner = s
        .add_type(
            root,
            "inner_t",
            UserTypeKind::Compound {
                size: 16,
                fields: vec![
                    field("a", 0, DataType::Short),
                    field("b", 8, DataType::Double),
                ],
            },
        )
        .unwrap();
    let obs = s
        .add_type(
            root,
            "obs_t",
            UserTypeKind::Compound {
                size: 36,
                fields: vec![
                    field("day", 0, DataType::Byte),
                    field("pos", 8, DataType::User(inner)),
                    field("temp", 4, DataType::Float),
                    field("label", 24, DataType::String),
                    CompoundField {
                        dims: vec![2],
                        ..field("hist", 32, DataType::Short)
                    },
                ],
            },
        )
        .unwrap();
    let obs_values = Values::Compound {
        len: 3,
        fields: vec![
            Values::Byte(vec![1, 2, -3]),
            Values::Compound {
                len: 3,
                fields: vec![
                    Values::Short(vec![10, 20, 30]),
                    Values::Double(vec![0.25, -1.0, 1e300]),
                ],
            },
            Values::Float(vec![15.5, -40.0, 0.0]),
            Values::strings(["one", "", "three"]),
            Values::Short(vec![1, 2, 3, 4, 5, 6]),
        ],
    };
    var(&mut s, root, "obs", DataType::User(obs), &[x], obs_values);
    let g = s.add_group(root, "g").unwrap();
    let y = s.add_dim(g, "y", 2, false).unwrap();
    s.set_attr(g, None, Attribute::new("level", Values::Short(vec![3])));
    var(
        &mut s,
        g,
        "w.v",
        DataType::Short,
        &[y, x],
        Values::Short(vec![1, 2, 3, 4, 5, 6]),
    );
    (s, vals)
}

/// Defines `schema` in `sink` and writes each variable's values whole, one
/// data message each.
pub fn write_all(sink: &mut dyn DataSink, schema: &Schema, vals: &[(VarId, Values)]) {
    sink.define(schema).unwrap();
    for (v, values) in vals {
        let mut shape = schema.shape(*v);
        if schema.is_record_var(*v) {
            shape[0] = values.len() as u64;
        }
        sink.write(*v, &Selection::all(&shape), values).unwrap();
    }
}
