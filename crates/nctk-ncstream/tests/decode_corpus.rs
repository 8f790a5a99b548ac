//! Every ncstream response of the corpus (`generated/ncstream/siphon`:
//! what THREDDS servers running netCDF-Java 4 and 5 sent) decoded by nctk
//! equals siphon 0.11's decode of the same bytes (`siphon_decode.py`):
//! each header's variables (names, types, shapes, attribute values,
//! immediate data) and each data response's values, through
//! `response::decode_data` against the dataset's header and through
//! `NcStreamReader` over the header and the data as one stream.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use nctk_model::{DataSource, DataType, Schema, Selection, UserTypeKind, Values, VarId};
use nctk_ncstream::header::decode::StreamHeader;
use nctk_ncstream::response::decode_data;
use nctk_ncstream::NcStreamReader;
use nctk_store::bytes::MemSource;
use serde_json::{json, Value};

const SCRIPT: &str = include_str!("siphon_decode.py");

/// The request of each response file, from the dataset's `INDEX.tsv`.
fn requests(dir: &Path) -> Vec<(PathBuf, String)> {
    let index = std::fs::read_to_string(dir.join("INDEX.tsv")).unwrap();
    index
        .lines()
        .skip(1)
        .filter_map(|l| {
            let cols: Vec<&str> = l.split('\t').collect();
            cols[1]
                .ends_with(".ncs")
                .then(|| (dir.join(cols[1]), cols[4].to_string()))
        })
        .collect()
}

fn number(x: f64) -> Value {
    if x.is_nan() {
        json!("NaN")
    } else {
        json!(x)
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Values as siphon's decode shows them, flattened.
fn values_json(v: &Values) -> Vec<Value> {
    match v {
        Values::Byte(x) => x.iter().map(|&n| json!(n)).collect(),
        Values::Short(x) => x.iter().map(|&n| json!(n)).collect(),
        Values::Int(x) => x.iter().map(|&n| json!(n)).collect(),
        Values::Int64(x) => x.iter().map(|&n| json!(n)).collect(),
        Values::UByte(x) => x.iter().map(|&n| json!(n)).collect(),
        Values::UShort(x) => x.iter().map(|&n| json!(n)).collect(),
        Values::UInt(x) => x.iter().map(|&n| json!(n)).collect(),
        Values::UInt64(x) => x.iter().map(|&n| json!(n)).collect(),
        Values::Float(x) => x.iter().map(|&n| number(f64::from(n))).collect(),
        Values::Double(x) => x.iter().map(|&n| number(n)).collect(),
        Values::String(x) => x.iter().map(|s| json!(s)).collect(),
        Values::Char(x) => vec![json!(x.iter().map(|&b| b as char).collect::<String>())],
        Values::Opaque { size, bytes } => bytes.chunks(*size).map(|c| json!(hex(c))).collect(),
        Values::Vlen(x) => x.iter().map(|e| Value::Array(values_json(e))).collect(),
        other => panic!("no JSON for {}", other.dtype()),
    }
}

/// An attribute's values as siphon shows them: an enum value as its
/// member's name (netCDF-Java's form).
fn attribute_json(schema: &Schema, a: &nctk_model::Attribute) -> Vec<Value> {
    let Some(UserTypeKind::Enum { members, .. }) = a.user_type.map(|t| &schema.user_type(t).kind)
    else {
        return values_json(&a.value);
    };
    values_json(&a.value)
        .iter()
        .map(|code| {
            let m = members
                .iter()
                .find(|m| code.as_i64() == Some(m.value as i64))
                .unwrap();
            json!(m.name)
        })
        .collect()
}

/// The ncstream type name siphon's side gives a model type.
fn type_name(schema: &Schema, t: DataType) -> String {
    match schema.user_kind(t) {
        Some(UserTypeKind::Enum { base, .. }) => format!("ENUM{}", base.size().unwrap()),
        Some(UserTypeKind::Opaque { .. }) => "OPAQUE".into(),
        Some(UserTypeKind::Compound { .. }) => "STRUCTURE".into(),
        Some(UserTypeKind::Vlen { base })
            if matches!(schema.user_kind(*base), Some(UserTypeKind::Compound { .. })) =>
        {
            "SEQUENCE".into()
        }
        Some(UserTypeKind::Vlen { base }) => type_name(schema, *base),
        None => match t {
            DataType::Char => "CHAR",
            DataType::Byte => "BYTE",
            DataType::UByte => "UBYTE",
            DataType::Short => "SHORT",
            DataType::UShort => "USHORT",
            DataType::Int => "INT",
            DataType::UInt => "UINT",
            DataType::Int64 => "LONG",
            DataType::UInt64 => "ULONG",
            DataType::Float => "FLOAT",
            DataType::Double => "DOUBLE",
            DataType::String => "STRING",
            t => panic!("unexpected type {t}"),
        }
        .into(),
    }
}

fn members(schema: &Schema, t: DataType) -> Value {
    let Some(UserTypeKind::Compound { fields, .. }) = schema.user_kind(t) else {
        panic!("not a compound")
    };
    Value::Array(
        fields
            .iter()
            .map(|f| {
                let mut m =
                    json!({"name": f.name, "type": type_name(schema, f.dtype), "shape": f.dims});
                if matches!(
                    schema.user_kind(f.dtype),
                    Some(UserTypeKind::Compound { .. })
                ) {
                    m["members"] = members(schema, f.dtype);
                }
                m
            })
            .collect(),
    )
}

/// The header as siphon's side lists it, keyed by path.
fn header_json(reader: &NcStreamReader) -> BTreeMap<String, Value> {
    let schema = reader.schema();
    let mut out = BTreeMap::new();
    for g in schema.group_ids() {
        let prefix = match schema.group_path(g).as_str() {
            "/" => String::new(),
            p => format!("{}/", &p[1..]),
        };
        for a in &schema.group(g).attributes {
            let path = format!("{prefix}@{}", a.name);
            out.insert(
                path.clone(),
                json!({"path": path, "values": values_json(&a.value)}),
            );
        }
    }
    for v in schema.var_ids() {
        let var = schema.var(v);
        let path = nctk_ncstream::names::full_name(schema, v);
        let mut shape: Vec<Value> = schema.shape(v).into_iter().map(|n| json!(n)).collect();
        let mut item = json!({"path": path, "type": type_name(schema, var.dtype)});
        match schema.user_kind(var.dtype) {
            Some(UserTypeKind::Compound { .. }) => item["members"] = members(schema, var.dtype),
            Some(UserTypeKind::Vlen { base })
                if matches!(schema.user_kind(*base), Some(UserTypeKind::Compound { .. })) =>
            {
                item["members"] = members(schema, *base)
            }
            Some(UserTypeKind::Vlen { .. }) => shape.push(json!("*")),
            _ => {}
        }
        item["shape"] = Value::Array(shape);
        item["atts"] = var
            .attributes
            .iter()
            .map(|a| (a.name.clone(), Value::Array(attribute_json(schema, a))))
            .collect::<serde_json::Map<_, _>>()
            .into();
        if let Some((_, values)) = reader.header().immediate.iter().find(|(id, _)| *id == v) {
            item["immediate"] = Value::Array(values_json(values));
        }
        out.insert(path, item);
    }
    out
}

/// A decoded piece of data as siphon's side shows the message.
fn data_json(schema: &Schema, var: VarId, values: &Values, siphon: &Value) -> Value {
    let Values::Compound { len, fields } = values else {
        return match values {
            Values::Char(bytes) => json!({"values": hex(bytes)}),
            v => json!({"values": values_json(v)}),
        };
    };
    let Some(UserTypeKind::Compound { size, fields: defs }) =
        schema.user_kind(schema.var(var).dtype)
    else {
        panic!("compound values of a non-compound variable")
    };
    if let Some(big) = siphon["big_endian"].as_bool() {
        // netCDF-Java 4's rows: each field's bytes at its offset, packed.
        let mut rows = vec![vec![0u8; *size as usize]; *len];
        for (f, v) in defs.iter().zip(fields) {
            let w = f.dtype.size().unwrap() * f.count();
            for (r, row) in rows.iter_mut().enumerate() {
                let bytes = v.slice(r * f.count()..(r + 1) * f.count()).to_bytes(big);
                row[f.offset as usize..f.offset as usize + w].copy_from_slice(&bytes);
            }
        }
        return json!({"rows": rows.iter().map(|r| hex(r)).collect::<Vec<_>>(), "big_endian": big});
    }
    let map: serde_json::Map<String, Value> = defs
        .iter()
        .zip(fields)
        .map(|(f, v)| (f.name.clone(), Value::Array(values_json(v))))
        .collect();
    json!({"fields": map})
}

fn reader_of(bytes: Vec<u8>, name: &str) -> NcStreamReader {
    NcStreamReader::open(Arc::new(MemSource::new(bytes)), name)
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn every_corpus_stream_decodes_as_siphon_decodes_it() {
    let Some(root) = nctk_test_support::require::corpus_path("generated/ncstream/siphon") else {
        return;
    };
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("INDEX.tsv").is_file())
        .collect();
    dirs.sort();
    let all: Vec<(PathBuf, String)> = dirs.iter().flat_map(|d| requests(d)).collect();
    assert!(all.len() >= 25, "the corpus has its ncstream responses");
    let files: Vec<&Path> = all.iter().map(|(p, _)| p.as_path()).collect();
    let Some(out) = nctk_test_support::require::python_output(&["siphon", "numpy"], SCRIPT, &files)
    else {
        return;
    };
    let siphon: Value = serde_json::from_str(&out).unwrap();
    // Headers first, by the dataset URL they describe.
    let mut headers: BTreeMap<String, (Vec<u8>, NcStreamReader)> = BTreeMap::new();
    let mut header_urls: Vec<(String, String)> = vec![];
    let mut checked_headers = 0;
    for (path, uri) in &all {
        if !uri.contains("req=header") {
            continue;
        }
        let bytes = std::fs::read(path).unwrap();
        let reader = reader_of(bytes.clone(), &path.display().to_string());
        let theirs = &siphon[path.to_str().unwrap()][0]["header"];
        let theirs: BTreeMap<String, Value> = theirs
            .as_array()
            .unwrap()
            .iter()
            .map(|v| (v["path"].as_str().unwrap().to_string(), v.clone()))
            .collect();
        let ours = header_json(&reader);
        for (k, v) in &theirs {
            assert_eq!(ours.get(k), Some(v), "{}: {k}", path.display());
        }
        assert_eq!(
            ours.keys().collect::<Vec<_>>(),
            theirs.keys().collect::<Vec<_>>(),
            "{}",
            path.display()
        );
        headers.insert(
            path.parent().unwrap().display().to_string(),
            (bytes, reader),
        );
        header_urls.push((
            path.parent().unwrap().display().to_string(),
            uri.split('?').next().unwrap().to_string(),
        ));
        checked_headers += 1;
    }
    assert!(checked_headers >= 13);
    let mut checked_data = 0;
    for (path, uri) in &all {
        if uri.contains("req=header") || !path.to_str().unwrap().ends_with(".ncs") {
            continue;
        }
        let base = uri.split('?').next().unwrap();
        // The dataset's own header, else the header of the same URL from
        // the directory named most alike (a URL's header changed over time:
        // `rap_ncstream_*` go with `rap_ncstream_header`).
        let dir = path.parent().unwrap().display().to_string();
        let common = |a: &str| {
            a.chars()
                .zip(dir.chars())
                .take_while(|(x, y)| x == y)
                .count()
        };
        let key = if headers.contains_key(&dir) {
            dir.clone()
        } else {
            header_urls
                .iter()
                .filter(|(_, u)| u == base)
                .max_by_key(|(d, _)| common(d))
                .unwrap_or_else(|| panic!("no header response for {uri}"))
                .0
                .clone()
        };
        let (header_bytes, reader) = &headers[&key];
        let name = path.display().to_string();
        let body = std::fs::read(path).unwrap();
        let header: &StreamHeader = reader.header();
        let pieces = decode_data(header, &body, &name).unwrap_or_else(|e| panic!("{e}"));
        let theirs = &siphon[path.to_str().unwrap()];
        assert_eq!(pieces.len(), theirs.as_array().unwrap().len(), "{name}");
        // The header and the data as one stream, read with the pieces' selections.
        let mut stream = header_bytes.clone();
        stream.extend_from_slice(&body);
        let whole = reader_of(stream, &name);
        for (piece, their) in pieces.iter().zip(theirs.as_array().unwrap()) {
            let their = &their["data"];
            let schema = &header.schema;
            assert_eq!(
                &data_json(schema, piece.var, &piece.values, their),
                their,
                "{name}"
            );
            let sel = Selection {
                start: piece.start.clone(),
                count: piece.count.clone(),
                stride: piece.stride.clone(),
            };
            let read = whole
                .read(piece.var, &sel)
                .unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(
                &data_json(schema, piece.var, &read, their),
                their,
                "{name} read"
            );
            checked_data += 1;
        }
    }
    assert!(checked_data >= 17, "{checked_data} data responses checked");
}
