//! Every ncstream of the corpus (`generated/ncstream/siphon/NAME/NN.ncs`:
//! the cdmremote responses THREDDS servers of netCDF-Java 4 and 5 sent to
//! siphon's test suite) decoded by nctk equals siphon 0.11's decode of the
//! same bytes (`crates/nctk-ncstream/tests/fixtures/siphon_decode.py`
//! prints it as JSON): header responses opened through `nctk::open` give
//! the group tree, dimensions, variables, types, shapes, attributes, enum
//! typedefs and immediate values siphon reads from the header protobuf;
//! data responses decoded with their dataset's header
//! (`response::decode_data`) give the variable, section and values siphon
//! reads; and `nctk dump` of each header stream is CDL that netCDF-C's
//! `ncgen` accepts.
//!
//! What the model cannot carry is left out of the comparison and said so
//! where it is done: attributes of structure members (a compound field has
//! none) and the names of anonymous dimensions.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

#[path = "ncstream_common/mod.rs"]
mod common;

use nctk::model::{DataSource, DataType, GroupId, Schema, Selection, UserTypeKind, Values, VarId};
use nctk_ncstream::header::decode::{schema_of, StreamHeader};
use nctk_ncstream::response::decode_data;
use nctk_ncstream::{names, NcStreamReader};
use nctk_store::bytes::FileSource;
use nctk_test_support::require;
use serde_json::{json, Value};

/// siphon's decode, as JSON.
const SIPHON_DECODE: &str = include_str!("../../nctk-ncstream/tests/fixtures/siphon_decode.py");

/// One dataset of the corpus: its header response and its data responses.
struct Dataset {
    /// The directory's name.
    name: String,
    /// The header response (of this directory or of another one answering
    /// for the same dataset URL).
    header: PathBuf,
    /// The data responses.
    data: Vec<PathBuf>,
}

/// Every dataset with ncstream answers, a data-only directory paired with
/// the header answer of the same dataset URL.
fn datasets(corpus: &Path) -> Vec<Dataset> {
    let all = common::answers(corpus);
    let headers = common::header_answers(&all);
    let mut out = vec![];
    for (name, answers) in all {
        let Some(first) = answers.first() else {
            continue;
        };
        let header = answers
            .iter()
            .find(|a| a.header)
            .map(|a| a.file.clone())
            .or_else(|| headers.get(&first.url).cloned())
            .unwrap_or_else(|| panic!("{name}: no header answer for {}", first.url));
        let data = answers
            .iter()
            .filter(|a| !a.header)
            .map(|a| a.file.clone())
            .collect();
        out.push(Dataset { name, header, data });
    }
    out
}

/// siphon's messages of each of `files`, one list per file, from one
/// Python process (starting one with siphon costs more than decoding a
/// dataset): each header response sets the header the data responses
/// after it are decoded with.
fn siphon(files: &[PathBuf]) -> Option<Vec<Vec<Value>>> {
    let out = require::python_output(&["siphon.cdmr.ncstream", "numpy"], SIPHON_DECODE, files)?;
    let files: Vec<Value> = serde_json::from_str(&out).unwrap();
    Some(
        files
            .into_iter()
            .map(|f| f["messages"].as_array().unwrap().clone())
            .collect(),
    )
}

// ---- the canonical form of nctk's decode (the helper's form) ----

/// A JSON number of an integer or a float, the non-finite as strings.
fn float(x: f64) -> Value {
    if x.is_nan() {
        json!("NaN")
    } else if x.is_infinite() {
        json!(if x > 0.0 { "Infinity" } else { "-Infinity" })
    } else {
        json!(x)
    }
}

/// `values` of type `dtype` flattened as the helper flattens siphon's
/// arrays. Enum codes are given as siphon gives them: unsigned.
fn values_json(schema: &Schema, dtype: DataType, values: &Values) -> Vec<Value> {
    let unsigned_enum = matches!(schema.user_kind(dtype), Some(UserTypeKind::Enum { .. }));
    match values {
        Values::Byte(v) if unsigned_enum => v.iter().map(|&x| json!(x as u8)).collect(),
        Values::Short(v) if unsigned_enum => v.iter().map(|&x| json!(x as u16)).collect(),
        Values::Int(v) if unsigned_enum => v.iter().map(|&x| json!(x as u32)).collect(),
        Values::Byte(v) => v.iter().map(|&x| json!(x)).collect(),
        Values::Char(v) | Values::UByte(v) => v.iter().map(|&x| json!(x)).collect(),
        Values::Short(v) => v.iter().map(|&x| json!(x)).collect(),
        Values::Int(v) => v.iter().map(|&x| json!(x)).collect(),
        Values::Float(v) => v.iter().map(|&x| float(x as f64)).collect(),
        Values::Double(v) => v.iter().map(|&x| float(x)).collect(),
        Values::UShort(v) => v.iter().map(|&x| json!(x)).collect(),
        Values::UInt(v) => v.iter().map(|&x| json!(x)).collect(),
        Values::Int64(v) => v.iter().map(|&x| json!(x)).collect(),
        Values::UInt64(v) => v.iter().map(|&x| json!(x)).collect(),
        Values::String(v) => v.iter().map(|x| json!(x)).collect(),
        Values::Opaque { size, bytes } => bytes.chunks(*size).map(|b| json!(b)).collect(),
        Values::Vlen(items) => {
            let base = match schema.user_kind(dtype) {
                Some(UserTypeKind::Vlen { base }) => *base,
                other => panic!("vlen values of a {other:?}"),
            };
            items
                .iter()
                .map(|item| Value::Array(values_json(schema, base, item)))
                .collect()
        }
        Values::Compound { fields, .. } => {
            let Some(UserTypeKind::Compound { fields: defs, .. }) = schema.user_kind(dtype) else {
                panic!("compound values of {dtype:?}");
            };
            defs.iter()
                .zip(fields)
                .map(|(def, v)| json!([def.name, values_json(schema, def.dtype, v)]))
                .collect()
        }
        other => panic!("values not handled by the comparison: {other:?}"),
    }
}

/// An attribute's values: text as one string, numbers as numbers.
fn attribute_json(schema: &Schema, attr: &nctk::model::Attribute) -> Value {
    let values = match &attr.value {
        Values::Char(b) if b.is_empty() => vec![],
        Values::Char(b) => vec![json!(String::from_utf8_lossy(b))],
        v => values_json(schema, attr.dtype(), v),
    };
    json!({"name": attr.name, "values": values})
}

/// The ncstream type name of `dtype` and, for a vlen, the element type's.
fn type_json(schema: &Schema, dtype: DataType, out: &mut serde_json::Map<String, Value>) {
    let name = match dtype {
        DataType::Byte => "byte",
        DataType::Char => "char",
        DataType::Short => "short",
        DataType::Int => "int",
        DataType::Int64 => "int64",
        DataType::Float => "float",
        DataType::Double => "double",
        DataType::UByte => "ubyte",
        DataType::UShort => "ushort",
        DataType::UInt => "uint",
        DataType::UInt64 => "uint64",
        DataType::String => "string",
        DataType::User(id) => {
            let ty = schema.user_type(id);
            match &ty.kind {
                UserTypeKind::Opaque { .. } => "opaque",
                UserTypeKind::Enum { base, .. } => {
                    out.insert("enum".into(), json!(ty.name));
                    match base.size() {
                        Some(1) => "enum1",
                        Some(2) => "enum2",
                        _ => "enum4",
                    }
                }
                UserTypeKind::Compound { fields, .. } => {
                    let members = fields
                        .iter()
                        .map(|f| {
                            let mut m = serde_json::Map::new();
                            m.insert("name".into(), json!(f.name));
                            type_json(schema, f.dtype, &mut m);
                            let shape: Vec<Value> =
                                f.dims.iter().map(|&n| anonymous(n as i64)).collect();
                            m.insert("shape".into(), json!(shape));
                            Value::Object(m)
                        })
                        .collect::<Vec<_>>();
                    out.insert("members".into(), json!(members));
                    "structure"
                }
                UserTypeKind::Vlen { base } => {
                    // a vlen of a compound is a sequence; of anything else,
                    // a variable with a `*` dimension last
                    type_json(schema, *base, out);
                    if out["type"] == "structure" {
                        out.insert("type".into(), json!("sequence"));
                    } else {
                        out.insert("vlen".into(), json!(true));
                    }
                    return;
                }
            }
        }
        other => panic!("type not handled by the comparison: {other:?}"),
    };
    out.insert("type".into(), json!(name));
}

/// A dimension with no name (a compound field's, a vlen's `*`).
fn anonymous(len: i64) -> Value {
    json!({"name": "", "len": len, "unlimited": false})
}

fn variable_json(schema: &Schema, var: VarId) -> Value {
    let v = schema.var(var);
    let mut out = serde_json::Map::new();
    out.insert("name".into(), json!(v.name));
    type_json(schema, v.dtype, &mut out);
    let mut shape: Vec<Value> = v
        .dims
        .iter()
        .map(|&d| {
            let dim = schema.dim(d);
            json!({"name": dim.name, "len": dim.len, "unlimited": dim.unlimited})
        })
        .collect();
    if out.remove("vlen").is_some() {
        shape.push(anonymous(-1));
    }
    out.insert("shape".into(), json!(shape));
    let attrs: Vec<Value> = v
        .attributes
        .iter()
        .map(|a| attribute_json(schema, a))
        .collect();
    out.insert("attributes".into(), json!(attrs));
    Value::Object(out)
}

fn group_json(schema: &Schema, id: GroupId) -> Value {
    let g = schema.group(id);
    let dims: Vec<Value> = g
        .dims
        .iter()
        .map(|&d| {
            let dim = schema.dim(d);
            json!({"name": dim.name, "len": dim.len, "unlimited": dim.unlimited})
        })
        .collect();
    let mut vars: Vec<Value> = g.vars.iter().map(|&v| variable_json(schema, v)).collect();
    vars.sort_by_key(|v| v["name"].as_str().unwrap().to_string());
    let enums: Vec<Value> = g
        .types
        .iter()
        .filter_map(|&t| {
            let ty = schema.user_type(t);
            let UserTypeKind::Enum { members, .. } = &ty.kind else {
                return None;
            };
            let bits = 8 * schema.type_size(DataType::User(t)).unwrap_or(4);
            let mask = if bits >= 64 {
                u64::MAX
            } else {
                (1u64 << bits) - 1
            };
            let members: Vec<Value> = members
                .iter()
                .map(|m| json!([(m.value as i64 as u64) & mask, m.name]))
                .collect();
            Some(json!({"name": ty.name, "members": members}))
        })
        .collect();
    json!({
        "name": g.name,
        "dims": dims,
        "vars": vars,
        "attributes": g.attributes.iter().map(|a| attribute_json(schema, a)).collect::<Vec<_>>(),
        "enums": enums,
        "groups": g.groups.iter().map(|&c| group_json(schema, c)).collect::<Vec<_>>(),
    })
}

// ---- siphon's form, brought to what the model can carry ----

/// siphon's header tree with what the model cannot carry taken out: the
/// attributes of structure members, and the immediate values (returned
/// apart, by full name); a variable naming an enum typedef the header does
/// not define is of the one enum in scope, else of the enum's base type
/// (the rule of `header/decode.rs`). An enum variable's attribute given by member
/// name (netCDF-Java writes `_FillValue = "Missing"`) is given by code,
/// as the model holds it.
fn expected_group(
    g: &mut Value,
    path: &str,
    enums: &BTreeMap<String, Vec<(u64, String)>>,
    immediate: &mut BTreeMap<String, Value>,
) {
    let mut enums = enums.clone();
    for e in g["enums"].as_array().unwrap() {
        let members = e["members"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| (m[0].as_u64().unwrap(), m[1].as_str().unwrap().to_string()))
            .collect();
        enums.insert(e["name"].as_str().unwrap().to_string(), members);
    }
    let vars = g["vars"].as_array_mut().unwrap();
    for v in vars.iter_mut() {
        let name = v["name"].as_str().unwrap().to_string();
        let full = format!("{path}{}", names::escape(&name));
        if let Some(values) = v.as_object_mut().unwrap().remove("immediate") {
            if !values.is_null() {
                immediate.insert(full.clone(), values);
            }
        }
        if let Some(members) = v.get_mut("members") {
            strip_member_attributes(members);
        }
        let missing_typedef = v["enum"].as_str().is_some_and(|e| !enums.contains_key(e));
        if missing_typedef {
            // TDS 5 names the variable, not its typedef: the one enum in
            // scope when there is one, else the enum's base integer type
            let v = v.as_object_mut().unwrap();
            if enums.len() == 1 {
                let only = enums.keys().next().unwrap().clone();
                v.insert("enum".into(), json!(only));
            } else {
                let base = match v["type"].as_str() {
                    Some("enum1") => "byte",
                    Some("enum2") => "short",
                    _ => "int",
                };
                v.remove("enum");
                v.insert("type".into(), json!(base));
            }
        }
        if let Some(members) = v["enum"].as_str().and_then(|e| enums.get(e)) {
            for a in v["attributes"].as_array_mut().unwrap() {
                for x in a["values"].as_array_mut().unwrap() {
                    if let Some(code) = x
                        .as_str()
                        .and_then(|s| members.iter().find(|(_, n)| n == s))
                        .map(|(c, _)| *c)
                    {
                        *x = json!(code);
                    }
                }
            }
        }
    }
    vars.sort_by_key(|v| v["name"].as_str().unwrap().to_string());
    for c in g["groups"].as_array_mut().unwrap() {
        let child = format!("{path}{}/", names::escape(c["name"].as_str().unwrap()));
        expected_group(c, &child, &enums, immediate);
    }
}

/// Takes out of nctk's group tree `actual` the dimensions that stand for
/// netCDF-Java's private (anonymous) dimensions: the model has no
/// anonymous dimension, so the reader makes each a dimension of the group
/// (`phony_dim_N`). A dimension is taken out only when siphon's group has
/// no dimension of that name and every variable using it has an anonymous
/// dimension there in siphon's tree.
fn fold_private_dims(expected: &Value, actual: &mut Value) {
    let shared: Vec<&str> = expected["dims"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|d| d["name"].as_str())
        .collect();
    let mut standing_in = std::collections::BTreeSet::new();
    let mut named = std::collections::BTreeSet::new();
    let by_name = |vars: &Value, name: &Value| {
        vars.as_array()
            .unwrap()
            .iter()
            .find(|v| v["name"] == *name)
            .cloned()
    };
    for var in actual["vars"].as_array().unwrap() {
        let Some(want) = by_name(&expected["vars"], &var["name"]) else {
            continue;
        };
        let (Some(ours), Some(theirs)) = (var["shape"].as_array(), want["shape"].as_array()) else {
            continue;
        };
        for (d, w) in ours.iter().zip(theirs) {
            let name = d["name"].as_str().unwrap_or_default().to_string();
            if w["name"] == "" {
                standing_in.insert(name);
            } else {
                named.insert(name);
            }
        }
    }
    actual["dims"].as_array_mut().unwrap().retain(|d| {
        let name = d["name"].as_str().unwrap_or_default();
        shared.contains(&name) || !standing_in.contains(name) || named.contains(name)
    });
    let children = expected["groups"].as_array().unwrap();
    for g in actual["groups"].as_array_mut().unwrap() {
        if let Some(want) = children.iter().find(|c| c["name"] == g["name"]) {
            fold_private_dims(want, g);
        }
    }
}

/// Removes `attributes` from structure members, recursively (a compound
/// field has none).
fn strip_member_attributes(members: &mut Value) {
    for m in members.as_array_mut().unwrap() {
        let m = m.as_object_mut().unwrap();
        m.remove("attributes");
        if let Some(inner) = m.get_mut("members") {
            strip_member_attributes(inner);
        }
    }
}

/// Where `a` (siphon's) and `b` (nctk's) first differ, as a JSON path
/// and both sides, or `None` when they are the same: numbers equal as
/// values (integers exactly, floats to 1e-15 relative: the helper prints
/// floats in decimal), and a dimension `name` of `""` (anonymous)
/// matching any.
fn difference(a: &Value, b: &Value, path: &str) -> Option<String> {
    let here = || Some(format!("at {path}: siphon {a}, nctk {b}"));
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys = |m: &serde_json::Map<String, Value>| m.keys().cloned().collect::<Vec<_>>();
            if keys(x).iter().collect::<std::collections::BTreeSet<_>>()
                != keys(y).iter().collect::<std::collections::BTreeSet<_>>()
            {
                return Some(format!("at {path}: keys {:?}, nctk {:?}", keys(x), keys(y)));
            }
            let anonymous_dim = x.contains_key("len") && (x["name"] == "" || y["name"] == "");
            x.iter()
                .filter(|(k, _)| !(anonymous_dim && k.as_str() == "name"))
                .find_map(|(k, v)| {
                    let label = match x.get("name").and_then(Value::as_str) {
                        Some(name) => format!("{path}[{name}].{k}"),
                        None => format!("{path}.{k}"),
                    };
                    difference(v, &y[k], &label)
                })
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(i, (v, w))| difference(v, w, &format!("{path}[{i}]"))),
        (Value::Array(x), Value::Array(y)) => {
            let names = |v: &[Value]| -> Vec<String> {
                v.iter()
                    .map(|e| {
                        e.get("name")
                            .map_or_else(|| e.to_string(), |n| n.to_string())
                    })
                    .collect()
            };
            let (p, q) = (names(x), names(y));
            let missing: Vec<&String> = p.iter().filter(|n| !q.contains(n)).collect();
            let extra: Vec<&String> = q.iter().filter(|n| !p.contains(n)).collect();
            Some(format!(
                "at {path}: {} entries, nctk {}; nctk lacks {missing:?}, has more {extra:?}",
                x.len(),
                y.len()
            ))
        }
        (Value::Number(x), Value::Number(y)) => {
            let equal = match (x.as_i64(), y.as_i64(), x.as_u64(), y.as_u64()) {
                (Some(p), Some(q), _, _) => p == q,
                (_, _, Some(p), Some(q)) => p == q,
                _ => {
                    let (p, q) = (x.as_f64().unwrap(), y.as_f64().unwrap());
                    p == q || (p - q).abs() <= 1e-15 * p.abs().max(q.abs())
                }
            };
            if equal {
                None
            } else {
                here()
            }
        }
        _ if a == b => None,
        _ => here(),
    }
}

/// What differs, described, when nctk's decode is not siphon's.
fn differs(what: &str, expected: &Value, actual: &Value) -> Option<String> {
    difference(expected, actual, "").map(|d| format!("{what}: nctk differs from siphon {d}"))
}

/// Fails with every failure, when there are any.
fn assert_none(failures: &[String]) {
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

/// The header responses of the corpus.
fn header_files(corpus: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = datasets(corpus).into_iter().map(|d| d.header).collect();
    files.sort();
    files.dedup();
    files
}

/// One header response against siphon: its tree and immediate values.
fn header_differences(file: &Path, decoded: &[Vec<Value>]) -> Vec<String> {
    let what = file.display().to_string();
    let mut expected = decoded[0][0]["root"].clone();
    let mut immediate = BTreeMap::new();
    expected_group(&mut expected, "", &BTreeMap::new(), &mut immediate);
    let source = FileSource::open(file).unwrap();
    let reader = match NcStreamReader::open(Arc::new(source), &what) {
        Ok(reader) => reader,
        Err(e) => return vec![format!("{what}: {e}")],
    };
    let mut failures = vec![];
    if reader.format() != nctk::model::Format::Netcdf4 {
        failures.push(format!("{what}: format {:?}", reader.format()));
    }
    let schema = reader.schema();
    let mut actual = group_json(schema, GroupId::ROOT);
    fold_private_dims(&expected, &mut actual);
    failures.extend(differs(&what, &expected, &actual));
    for (name, values) in immediate {
        let Some(var) = names::find_variable(schema, &name) else {
            failures.push(format!("{what}: no variable {name}"));
            continue;
        };
        let shape = schema.shape(var);
        match reader.read(var, &Selection::all(&shape)) {
            Ok(read) => {
                let actual = json!(values_json(schema, schema.var(var).dtype, &read));
                failures.extend(differs(&format!("{what}: {name}"), &values, &actual));
            }
            Err(e) => failures.push(format!("{what}: {name}: {e}")),
        }
    }
    failures
}

/// Each header response read by the stream reader has siphon's group tree
/// and reads siphon's immediate values.
#[test]
fn headers_equal_siphon() {
    let Some(corpus) = require::corpus() else {
        return;
    };
    let files = header_files(&corpus);
    assert!(files.len() >= 14, "{files:?}");
    let Some(decoded) = siphon(&files) else {
        return;
    };
    assert_eq!(decoded.len(), files.len());
    let mut failures = vec![];
    for (i, file) in files.iter().enumerate() {
        failures.extend(header_differences(file, &decoded[i..=i]));
    }
    assert_none(&failures);
}

/// One data response against siphon's decode of it (`expected`, its
/// messages); the number of messages compared.
fn data_differences(
    header: &StreamHeader,
    what: &str,
    bytes: &[u8],
    expected: &[Value],
    failures: &mut Vec<String>,
) -> usize {
    let schema = &header.schema;
    let pieces = match decode_data(header, bytes, what) {
        Ok(pieces) => pieces,
        Err(e) => {
            failures.push(e.to_string());
            return 0;
        }
    };
    if pieces.len() != expected.len() {
        failures.push(format!(
            "{what}: {} messages, siphon {}",
            pieces.len(),
            expected.len()
        ));
    }
    for (piece, message) in pieces.iter().zip(expected) {
        let dtype = schema.var(piece.var).dtype;
        let actual = json!({
            "kind": "data",
            "var": names::full_name(schema, piece.var),
            "type": message["type"],
            "start": piece.start,
            "count": piece.count,
            "stride": piece.stride,
            "values": values_json(schema, dtype, &piece.values),
        });
        failures.extend(differs(what, message, &actual));
    }
    pieces.len()
}

/// Each data response decoded with its dataset's header gives siphon's
/// variable, section and values.
#[test]
fn data_equal_siphon() {
    let Some(corpus) = require::corpus() else {
        return;
    };
    let sets: Vec<Dataset> = datasets(&corpus)
        .into_iter()
        .filter(|s| !s.data.is_empty())
        .collect();
    // Every set's header and data responses, in one siphon run.
    let files: Vec<PathBuf> = sets
        .iter()
        .flat_map(|s| std::iter::once(&s.header).chain(&s.data).cloned())
        .collect();
    let Some(all) = siphon(&files) else {
        return;
    };
    assert_eq!(all.len(), files.len());
    let mut rest = &all[..];
    let mut checked = 0;
    let mut failures = vec![];
    for set in &sets {
        let (decoded, after) = rest.split_at(1 + set.data.len());
        rest = after;
        let header = match schema_of(&common::header_of(&std::fs::read(&set.header).unwrap())) {
            Ok(header) => header,
            Err(e) => {
                failures.push(format!("{}: {e}", set.header.display()));
                continue;
            }
        };
        for (file, expected) in set.data.iter().zip(&decoded[1..]) {
            let name = file.file_name().unwrap().to_string_lossy();
            let what = format!("{}/{name}", set.name);
            let bytes = std::fs::read(file).unwrap();
            checked += data_differences(&header, &what, &bytes, expected, &mut failures);
        }
    }
    assert_none(&failures);
    assert!(checked >= 18, "{checked} data messages compared");
}

/// `nctk dump -h` of a header stream (the printer the CLI uses), or why not.
fn header_cdl(file: &Path) -> Result<Vec<u8>, String> {
    let what = file.display().to_string();
    let source = FileSource::open(file).unwrap();
    let reader = NcStreamReader::open(Arc::new(source), &what).map_err(|e| e.to_string())?;
    let mut cdl = vec![];
    let opts = nctk_cdl::print::Options {
        header_only: true,
        ..Default::default()
    };
    nctk_cdl::print::dump(&reader, &what, &opts, &mut cdl).map_err(|e| format!("{what}: {e}"))?;
    Ok(cdl)
}

/// `nctk dump -h` of each header stream is CDL that `ncgen` accepts.
#[test]
fn header_dumps_are_cdl_ncgen_accepts() {
    let Some(corpus) = require::corpus() else {
        return;
    };
    if !require::tools(&["ncgen"]) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let mut failures = vec![];
    for file in header_files(&corpus) {
        let cdl = match header_cdl(&file) {
            Ok(cdl) => cdl,
            Err(e) => {
                failures.push(e);
                continue;
            }
        };
        let cdl_path = tmp.path().join("header.cdl");
        std::fs::write(&cdl_path, &cdl).unwrap();
        let out = std::process::Command::new("ncgen")
            .args(["-k", "nc4", "-o"])
            .arg(tmp.path().join("header.nc"))
            .arg(&cdl_path)
            .output()
            .unwrap();
        if !out.status.success() {
            failures.push(format!(
                "{}: ncgen rejects nctk's CDL: {}\n{}",
                file.display(),
                String::from_utf8_lossy(&out.stderr),
                String::from_utf8_lossy(&cdl)
            ));
        }
    }
    assert_none(&failures);
}
