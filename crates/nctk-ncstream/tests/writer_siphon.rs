//! Streams `NcStreamWriter` writes, parsed by siphon 0.11 (the independent
//! ncstream reader): every data message decodes to the values written,
//! attributes to their values, the header's dimensions and types as netCDF-Java
//! declares them; deflated messages inflate (Python's zlib) to their values.

mod writer_dataset;

use nctk_model::{DataSink, Schema, Values, VarId};
use nctk_ncstream::{DataOptions, NcStreamWriter};
use serde_json::Value as Json;

const SCRIPT: &str = include_str!("siphon_messages.py");

/// What was written and siphon's view of it.
type Written = (Schema, Vec<(VarId, Values)>, Vec<Json>);

/// Writes the dataset whole, one message a variable, and siphon's view of it.
fn written(options: DataOptions) -> Option<Written> {
    let (schema, vals) = writer_dataset::dataset();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("all.ncs");
    let file = std::fs::File::create(&path).unwrap();
    let mut sink: Box<dyn DataSink> = Box::new(NcStreamWriter::new(file, "all.ncs", options));
    writer_dataset::write_all(sink.as_mut(), &schema, &vals);
    sink.finish().unwrap();
    let out = nctk_test_support::require::python_output(
        &["siphon", "numpy", "google.protobuf"],
        SCRIPT,
        [&path],
    )?;
    let lines = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    Some((schema, vals, lines))
}

/// A number as siphon printed it or as nctk holds it.
#[derive(Debug, Clone, Copy)]
enum Num {
    Int(i128),
    Float(f64),
}

impl PartialEq for Num {
    fn eq(&self, other: &Num) -> bool {
        match (self, other) {
            (Num::Int(a), Num::Int(b)) => a == b,
            (Num::Float(a), Num::Float(b)) => {
                a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
            }
            _ => false,
        }
    }
}

fn parse(text: &str) -> Num {
    text.parse::<i128>()
        .map(Num::Int)
        .unwrap_or_else(|_| Num::Float(text.parse().unwrap_or_else(|_| panic!("number {text:?}"))))
}

fn nums(v: &Values) -> Vec<Num> {
    match v {
        Values::Byte(v) => v.iter().map(|&x| Num::Int(x.into())).collect(),
        Values::UByte(v) => v.iter().map(|&x| Num::Int(x.into())).collect(),
        Values::Short(v) => v.iter().map(|&x| Num::Int(x.into())).collect(),
        Values::UShort(v) => v.iter().map(|&x| Num::Int(x.into())).collect(),
        Values::Int(v) => v.iter().map(|&x| Num::Int(x.into())).collect(),
        Values::UInt(v) => v.iter().map(|&x| Num::Int(x.into())).collect(),
        Values::Int64(v) => v.iter().map(|&x| Num::Int(x.into())).collect(),
        Values::UInt64(v) => v.iter().map(|&x| Num::Int(x.into())).collect(),
        Values::Float(v) => v.iter().map(|&x| Num::Float(x.into())).collect(),
        Values::Double(v) => v.iter().map(|&x| Num::Float(x)).collect(),
        other => panic!("not numbers: {other:?}"),
    }
}

fn json_nums(j: &Json) -> Vec<Num> {
    j.as_array()
        .unwrap()
        .iter()
        .map(|x| parse(x.as_str().unwrap()))
        .collect()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// siphon's decode of one data message equals the values written.
fn check_values(name: &str, want: &Values, got: &Json) {
    match want {
        Values::Char(b) => assert_eq!(got["chars"], hex(b), "{name}"),
        Values::String(v) => assert_eq!(got["objects"], serde_json::json!(v), "{name}"),
        Values::Opaque { size, bytes } => {
            let blobs: Vec<String> = bytes.chunks(*size).map(hex).collect();
            assert_eq!(got["objects"], serde_json::json!(blobs), "{name}");
        }
        Values::Vlen(seqs) => {
            let objects = got["objects"].as_array().unwrap();
            assert_eq!(objects.len(), seqs.len(), "{name}");
            for (o, s) in objects.iter().zip(seqs) {
                assert_eq!(json_nums(o), nums(s), "{name}");
            }
        }
        Values::Compound { .. } => {
            let fields = &got["fields"];
            let expect = [
                ("day", vec![Num::Int(1), Num::Int(2), Num::Int(-3)]),
                ("temp", nums(&Values::Float(vec![15.5, -40.0, 0.0]))),
                ("pos.a", nums(&Values::Short(vec![10, 20, 30]))),
                ("pos.b", nums(&Values::Double(vec![0.25, -1.0, 1e300]))),
                ("hist", nums(&Values::Short(vec![1, 2, 3, 4, 5, 6]))),
            ];
            for (f, values) in expect {
                assert_eq!(json_nums(&fields[f]), values, "{name}.{f}");
            }
        }
        v => assert_eq!(json_nums(&got["numbers"]), nums(v), "{name}"),
    }
}

#[test]
fn siphon_reads_every_type_with_the_values_written() {
    let Some((schema, vals, lines)) = written(DataOptions::default()) else {
        return;
    };
    assert_eq!(
        lines.first().unwrap()["kind"],
        "43444653",
        "MAGIC_START first"
    );
    assert_eq!(lines.last().unwrap()["kind"], "ededdede", "MAGIC_END last");
    let data: Vec<&Json> = lines.iter().filter(|l| l["kind"] == "data").collect();
    assert_eq!(data.len(), vals.len());
    for ((v, want), got) in vals.iter().zip(&data) {
        let full = nctk_ncstream::names::full_name(&schema, *v);
        assert_eq!(got["var"], full.as_str());
        assert_eq!(got["bigend"], true, "{full}");
        assert_eq!(got["version"], 2, "{full}");
        let sizes: Vec<u64> = got["section"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r[1].as_u64().unwrap())
            .collect();
        let mut shape = schema.shape(*v);
        if schema.is_record_var(*v) {
            shape[0] = want.len() as u64;
        }
        assert_eq!(sizes, shape, "{full}: section sizes");
        check_values(&full, want, got);
    }
    assert_eq!(
        data.last().unwrap()["var"],
        "g/w\\.v",
        "escaped full name in a group"
    );
}

#[test]
fn siphon_reads_the_attributes_and_the_header() {
    let Some((_, _, lines)) = written(DataOptions::default()) else {
        return;
    };
    let header = lines.iter().find(|l| l["kind"] == "header").unwrap();
    let atts: Vec<(String, String, Json)> = header["attributes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            (
                a[0].as_str().unwrap().into(),
                a[1].as_str().unwrap().into(),
                a[2].clone(),
            )
        })
        .collect();
    let find = |owner: &str, name: &str| {
        atts.iter()
            .find(|a| a.0 == owner && a.1 == name)
            .unwrap_or_else(|| panic!("attribute {owner}:{name} in {atts:?}"))
            .2
            .clone()
    };
    assert_eq!(find("", "title")["objects"], serde_json::json!(["a test"]));
    assert_eq!(
        json_nums(&find("", "ints")["numbers"]),
        nums(&Values::Int(vec![1, -2]))
    );
    // siphon reads the old signed type of an unsigned attribute: the bits survive.
    let big = json_nums(&find("", "big")["numbers"]);
    assert!(
        big == [Num::Int(4_000_000_000)] || big == [Num::Int(4_000_000_000 - (1 << 32))],
        "{big:?}"
    );
    assert_eq!(
        find("", "names")["objects"],
        serde_json::json!(["a", "b c"])
    );
    assert_eq!(
        json_nums(&find("t", "scale")["numbers"]),
        nums(&Values::Float(vec![2.5]))
    );
    assert_eq!(
        json_nums(&find("g/", "level")["numbers"]),
        nums(&Values::Short(vec![3]))
    );

    let root = &header["header"]["root"];
    let time = &root["dims"][0];
    assert_eq!(time["name"], "time");
    assert_eq!(time["isUnlimited"], true);
    let vars = root["vars"].as_array().unwrap();
    let var = |name: &str| vars.iter().find(|v| v["name"] == name).unwrap();
    assert_eq!(var("u64")["dataType"], "ULONG");
    assert_eq!(var("cloud")["dataType"], "ENUM1");
    assert_eq!(var("cloud")["enumType"], "cloud_t");
    assert_eq!(var("op")["dataType"], "OPAQUE");
    let vl = var("vl");
    assert_eq!(vl["dataType"], "INT");
    assert_eq!(vl["shape"][1]["isVlen"], true, "vlen as a last * dimension");
    let cloud = &root["enumTypes"][0];
    assert_eq!(cloud["name"], "cloud_t");
    assert_eq!(cloud["map"][1]["code"], 255);
    assert_eq!(cloud["map"][1]["value"], "missing");
    let obs = &root["structs"][0];
    assert_eq!(obs["name"], "obs");
    assert_eq!(
        obs["structs"][0]["name"], "pos",
        "nested compound as a nested structure"
    );
    assert_eq!(root["groups"][0]["name"], "g");
}

#[test]
fn deflated_messages_inflate_to_their_values_and_stated_size() {
    let Some((schema, vals, lines)) = written(DataOptions { deflate: Some(5) }) else {
        return;
    };
    let data: Vec<&Json> = lines.iter().filter(|l| l["kind"] == "data").collect();
    for ((v, want), got) in vals.iter().zip(&data) {
        let full = nctk_ncstream::names::full_name(&schema, *v);
        let fixed = nctk_model::bytes::values_as_bytes(want).is_some();
        assert_eq!(
            got["compress"],
            if fixed { 1 } else { 0 },
            "{full}: DEFLATE for numbers only"
        );
        check_values(&full, want, got);
    }
}
