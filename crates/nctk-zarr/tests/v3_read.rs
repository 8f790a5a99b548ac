//! nctk reads the Zarr v3 stores zarr-python, xarray and tensorstore write
//! (`tests/v3_fixtures.py`: every data type, codec chain, sharding layout,
//! chunk key encoding, consolidated or not, nested groups) as zarr-python
//! reads them (`tests/v3_dump.py`): the groups and the variables in each,
//! dimensions by name and size, attributes, fill values, and the values of
//! the whole variable and of a block and a strided selection. Directory
//! stores and a zip archive; with inline consolidated metadata, opening
//! lists nothing and reads what the metadata says.
//!
//! How the netCDF view is compared with zarr-python's:
//! * complex numbers are a compound of two reals (netCDF-C's draft v3
//!   appendix), compared as `[re, im]` pairs;
//! * numpy datetime64 / timedelta64 are int64 counts, with a `units`
//!   attribute as xarray gives it (`"<unit> since 1970-01-01..."`, or the
//!   unit alone for a timedelta);
//! * `bool` is 0/1, `string` and fixed-length UTF-32 are strings,
//!   variable-length bytes a vlen of (u)bytes or opaque blobs;
//! * a null or absent dimension name is an anonymous dimension
//!   (`_Anonymous_Dim_<len>`, netCDF-C's name);
//! * attributes by meaning: text as char text, numbers and booleans as
//!   numbers, other JSON (objects, null, lists of strings, `[]`) as its JSON
//!   text; `_FillValue` (xarray's encoding) as the fill value it means.
//!
//! Without the Python peers the tests are skipped with a visible note, or
//! fail under CI (`nctk_test_support::require`).

mod stores;
mod v3fix;

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use nctk_model::{DataSource, DataType, DimId, GroupId, Selection, Values, VarId};
use nctk_store::kv::{
    Bytes, Capabilities, DirectoryStore, ListableStore, Listing, ReadableStore, StoreError,
    StoreKey, StorePrefix,
};
use nctk_zarr::{ZarrOptions, ZarrReader};
use serde_json::{json, Value};

/// The values as zarr-python's dump spells them (see `v3_dump.py`).
fn as_json(v: &Values) -> Vec<Value> {
    let f = |x: f64| {
        if x.is_nan() {
            json!("NaN")
        } else if x.is_infinite() {
            json!(if x > 0.0 { "Infinity" } else { "-Infinity" })
        } else {
            json!(x)
        }
    };
    match v {
        Values::Byte(a) => a.iter().map(|&x| json!(x)).collect(),
        Values::Char(a) => a.iter().map(|&x| json!(x)).collect(),
        Values::Short(a) => a.iter().map(|&x| json!(x)).collect(),
        Values::Int(a) => a.iter().map(|&x| json!(x)).collect(),
        Values::Float(a) => a.iter().map(|&x| f(x as f64)).collect(),
        Values::Double(a) => a.iter().map(|&x| f(x)).collect(),
        Values::UByte(a) => a.iter().map(|&x| json!(x)).collect(),
        Values::UShort(a) => a.iter().map(|&x| json!(x)).collect(),
        Values::UInt(a) => a.iter().map(|&x| json!(x)).collect(),
        Values::Int64(a) => a.iter().map(|&x| json!(x)).collect(),
        Values::UInt64(a) => a.iter().map(|&x| json!(x)).collect(),
        Values::String(a) => a.iter().map(|x| json!(x)).collect(),
        // A compound of two reals: [re, im] per value.
        Values::Compound { len, fields } if fields.len() == 2 => {
            let (re, im) = (as_json(&fields[0]), as_json(&fields[1]));
            (0..*len).map(|i| json!([re[i], im[i]])).collect()
        }
        Values::Vlen(items) => items.iter().map(|x| Value::Array(as_json(x))).collect(),
        Values::Opaque { size, bytes } => bytes
            .chunks(*size)
            .map(|b| json!(b.iter().map(|&x| x as u64).collect::<Vec<_>>()))
            .collect(),
        other => vec![json!(format!("<no JSON form for {}>", other.dtype()))],
    }
}

/// Equal JSON values, numbers within a relative 1e-6 (float32 vs float64
/// printing), recursively.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        _ => match (a.as_f64(), b.as_f64()) {
            (Some(x), Some(y)) if a != b => x == y || (x - y).abs() <= 1e-6 * x.abs().max(y.abs()),
            _ => a == b,
        },
    }
}

fn same_list(ours: &[Value], theirs: &[Value]) -> bool {
    ours.len() == theirs.len() && ours.iter().zip(theirs).all(|(a, b)| same(a, b))
}

/// At most 8 values, for messages.
fn head(v: &[Value]) -> String {
    let s = serde_json::to_string(&v[..v.len().min(8)]).unwrap();
    if v.len() > 8 {
        format!("{s}... ({} values)", v.len())
    } else {
        s
    }
}

/// Whether the netCDF attribute `ours` means the JSON attribute `theirs`.
fn same_attribute(ours: &Values, theirs: &Value) -> bool {
    let text = match ours {
        Values::Char(b) => Some(String::from_utf8_lossy(b).into_owned()),
        Values::String(s) if s.len() == 1 => s[0].clone(),
        _ => None,
    };
    let numbers = |v: &Value| -> Option<Vec<Value>> {
        let one = |x: &Value| match x {
            Value::Bool(b) => Some(json!(*b as u8)),
            Value::Number(_) => Some(x.clone()),
            _ => None,
        };
        match v {
            Value::Array(a) if !a.is_empty() => a.iter().map(one).collect(),
            Value::Array(_) => None,
            x => one(x).map(|x| vec![x]),
        }
    };
    match theirs {
        Value::String(s) => text.as_deref() == Some(s),
        v => match numbers(v) {
            Some(n) => same_list(&as_json(ours), &n),
            // Objects, null, [], lists of strings: their JSON text.
            None => text
                .and_then(|t| serde_json::from_str::<Value>(&t).ok())
                .is_some_and(|t| &t == v),
        },
    }
}

/// What nctk gives as the variable's fill value: its `_FillValue`
/// attribute, else the fill value its storage records.
fn nctk_fill(r: &ZarrReader, v: VarId) -> Option<Values> {
    let var = r.schema().var(v);
    var.attribute("_FillValue")
        .map(|a| a.value.clone())
        .or_else(|| var.storage.fill_value.clone())
}

/// The CF name of a numpy time unit.
fn cf_unit(unit: &str) -> &'static str {
    match unit {
        "Y" => "years",
        "M" => "months",
        "W" => "weeks",
        "D" => "days",
        "h" => "hours",
        "m" => "minutes",
        "s" => "seconds",
        "ms" => "milliseconds",
        "us" => "microseconds",
        "ns" => "nanoseconds",
        _ => "?",
    }
}

/// Attributes compared apart: xarray's dimension list (as dimensions) and
/// `_FillValue` (as the fill value).
fn handled_apart(name: &str) -> bool {
    matches!(name, "_ARRAY_DIMENSIONS" | "_FillValue")
}

/// Every difference between nctk's reading of `store` and zarr-python's.
fn compare_store(dir: &Path, truth: &v3fix::Truth, store: &str) -> Vec<String> {
    let mut out = vec![];
    let r = match stores::open_path(dir.join(store), ZarrOptions::default()) {
        Ok(r) => r,
        Err(e) => return vec![format!("{store}: does not open: {e}")],
    };
    let s = r.schema();
    // Groups: the same set, with the same attributes.
    let mut theirs: Vec<&str> = truth
        .groups_of(store)
        .map(|g| g["group"].as_str().unwrap())
        .collect();
    let mut ours: Vec<String> = s.group_ids().map(|g| s.group_path(g)).collect();
    theirs.sort();
    ours.sort();
    if ours != theirs {
        out.push(format!("{store}: groups {ours:?}, zarr-python {theirs:?}"));
    }
    for g in truth.groups_of(store) {
        let path = g["group"].as_str().unwrap();
        let Some(id) = s.group_by_path(path) else {
            continue;
        };
        let attrs = &s.group(id).attributes;
        out.extend(compare_attributes(
            &format!("{store}{path}"),
            attrs,
            g["attributes"].as_object().unwrap(),
            &[],
        ));
    }
    // Variables: the same set per group.
    let mut theirs: Vec<&str> = truth
        .arrays_of(store)
        .map(|a| a["path"].as_str().unwrap())
        .collect();
    let mut ours: Vec<String> = s
        .var_ids()
        .map(|v| {
            let var = s.var(v);
            format!(
                "{}/{}",
                s.group_path(var.group).trim_end_matches('/'),
                var.name
            )
        })
        .collect();
    theirs.sort();
    ours.sort();
    if ours != theirs {
        out.push(format!(
            "{store}: variables {ours:?}, zarr-python {theirs:?}"
        ));
    }
    // A dimension name means one dimension within a group (as xarray).
    let mut by_name: HashMap<(GroupId, &str), DimId> = Default::default();
    for v in s.var_ids() {
        for &d in &s.var(v).dims {
            let key = (s.var(v).group, s.dim(d).name.as_str());
            if *by_name.entry(key).or_insert(d) != d {
                out.push(format!(
                    "{store}: two dimensions named {} in {}",
                    key.1,
                    s.group_path(key.0)
                ));
            }
        }
    }
    for a in truth.arrays_of(store) {
        let path = a["path"].as_str().unwrap();
        let label = format!("{store}{path}");
        if let Some(e) = a.get("error") {
            out.push(format!("{label}: zarr-python cannot read it: {e}"));
            continue;
        }
        let Some(v) = s.var_by_path(path) else {
            continue;
        };
        out.extend(compare_array(&r, v, a, &label));
    }
    out
}

/// The differences in one array.
fn compare_array(r: &ZarrReader, v: VarId, a: &Value, label: &str) -> Vec<String> {
    let s = r.schema();
    let var = s.var(v);
    let mut out = vec![];
    let shape: Vec<u64> = a["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap())
        .collect();
    if s.shape(v) != shape {
        out.push(format!(
            "{label}: shape {:?}, zarr-python {shape:?}",
            s.shape(v)
        ));
        return out;
    }
    // Dimensions: v3's dimension_names, or xarray's list in v2.
    let names: Vec<Value> = a["dimension_names"]
        .as_array()
        .or_else(|| a["attributes"]["_ARRAY_DIMENSIONS"].as_array())
        .cloned()
        .unwrap_or_else(|| vec![Value::Null; shape.len()]);
    for (i, (&d, name)) in var.dims.iter().zip(&names).enumerate() {
        let dim = s.dim(d);
        let ok = match name.as_str() {
            Some(n) => dim.name == n,
            None => dim.name == format!("_Anonymous_Dim_{}", shape[i]),
        };
        if !ok || dim.len != shape[i] {
            out.push(format!(
                "{label}: dimension {i} is {}({}), expected {name}({})",
                dim.name, dim.len, shape[i]
            ));
        }
    }
    // Type: the netCDF type each Zarr type maps to.
    let kind = a["kind"].as_str().unwrap();
    let type_ok = match kind {
        "M" | "m" => var.dtype == DataType::Int64,
        "T" | "U" | "S" => var.dtype == DataType::String,
        "c" => matches!(var.dtype, DataType::User(_)),
        "b" => var.dtype == DataType::UByte,
        _ => true,
    };
    if !type_ok {
        out.push(format!(
            "{label}: netCDF type {:?} for Zarr {}",
            var.dtype, a["data_type"]
        ));
    }
    // Datetimes: the units xarray would give them.
    if kind == "M" || kind == "m" {
        let unit = cf_unit(
            a["data_type"]["configuration"]["unit"]
                .as_str()
                .unwrap_or(""),
        );
        let units = var.attribute("units").and_then(|u| match &u.value {
            Values::Char(b) => Some(String::from_utf8_lossy(b).into_owned()),
            Values::String(s) => s.first().cloned().flatten(),
            _ => None,
        });
        let ok = units.as_deref().is_some_and(|u| {
            if kind == "M" {
                u.starts_with(&format!("{unit} since 1970-01-01"))
            } else {
                u == unit
            }
        });
        if !ok {
            out.push(format!(
                "{label}: units {units:?} for {}, expected {unit:?}{}",
                a["data_type"],
                if kind == "M" { " since 1970-01-01" } else { "" }
            ));
        }
    }
    // Attributes.
    let datetime_attrs: &[&str] = if kind == "M" || kind == "m" {
        &["units", "calendar"]
    } else {
        &[]
    };
    out.extend(compare_attributes(
        label,
        &var.attributes,
        a["attributes"].as_object().unwrap(),
        datetime_attrs,
    ));
    // The fill value (xarray's `_FillValue` first).
    let expected = if a["cf_fill_value"].is_null() {
        &a["fill_value"]
    } else {
        &a["cf_fill_value"]
    };
    if !expected.is_null() {
        let ours = nctk_fill(r, v).map(|f| as_json(&f));
        if !ours
            .as_ref()
            .is_some_and(|o| !o.is_empty() && same(&o[0], expected))
        {
            out.push(format!(
                "{label}: fill value {}, zarr-python {expected}",
                ours.map_or("none".into(), |o| head(&o))
            ));
        }
    }
    // Values: the whole variable, then each selection.
    let mut reads = vec![(
        "all".to_string(),
        Selection::all(&shape),
        a["values"].as_array().unwrap(),
    )];
    for sel in a["selections"].as_array().unwrap() {
        let vec = |k: &str| -> Vec<u64> {
            sel[k]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_u64().unwrap())
                .collect()
        };
        let selection = Selection {
            start: vec("start"),
            count: vec("count"),
            stride: vec("stride"),
        };
        reads.push((
            format!("{selection:?}"),
            selection,
            sel["values"].as_array().unwrap(),
        ));
    }
    for (what, selection, theirs) in reads {
        match r.read(v, &selection) {
            Err(e) => out.push(format!("{label} [{what}]: read fails: {e}")),
            Ok(vals) => {
                let ours = as_json(&vals);
                if !same_list(&ours, theirs) {
                    out.push(format!(
                        "{label} [{what}]: values {}, zarr-python {}",
                        head(&ours),
                        head(theirs)
                    ));
                }
            }
        }
    }
    out
}

/// The differences between nctk's attributes and zarr-python's; `extra`
/// names attributes nctk may add.
fn compare_attributes(
    label: &str,
    ours: &[nctk_model::Attribute],
    theirs: &serde_json::Map<String, Value>,
    extra: &[&str],
) -> Vec<String> {
    let mut out = vec![];
    for (name, value) in theirs {
        if handled_apart(name) {
            continue;
        }
        match ours.iter().find(|a| &a.name == name) {
            None => out.push(format!(
                "{label}: attribute {name} missing (zarr-python: {value})"
            )),
            Some(a) if !same_attribute(&a.value, value) => out.push(format!(
                "{label}: attribute {name} = {}, zarr-python {value}",
                head(&as_json(&a.value))
            )),
            Some(_) => {}
        }
    }
    for a in ours {
        if !theirs.contains_key(&a.name)
            && !handled_apart(&a.name)
            && !extra.contains(&a.name.as_str())
        {
            out.push(format!(
                "{label}: attribute {} that zarr-python does not have",
                a.name
            ));
        }
    }
    out
}

/// Compares every store whose name starts with one of `prefixes`; fails
/// with the list of differences.
fn check(prefixes: &[&str]) {
    let Some((dir, truth)) = v3fix::truth() else {
        return;
    };
    let names: Vec<String> = truth
        .store_names()
        .into_iter()
        .filter(|n| prefixes.iter().any(|p| n.starts_with(p)))
        .collect();
    assert!(
        !names.is_empty(),
        "no fixture store starts with {prefixes:?}"
    );
    let failures: Vec<String> = names
        .iter()
        .flat_map(|n| compare_store(dir, truth, n))
        .collect();
    assert!(
        failures.is_empty(),
        "{} differences from zarr-python in {} stores:\n  {}",
        failures.len(),
        names.len(),
        failures.join("\n  ")
    );
}

#[test]
fn data_types_and_fill_values() {
    check(&["dtypes."]);
}

#[test]
fn variable_length_bytes() {
    check(&["dtype_bytes."]);
}

#[test]
fn complex_numbers() {
    check(&["dtype_complex."]);
}

/// zarr-python's `null_terminated_bytes` (numpy `S<n>`) as strings, as
/// `S<n>` reads in v2, and its `raw_bytes` (numpy `V<n>`) as opaque.
#[test]
fn fixed_length_bytes() {
    check(&["dtype_null_terminated.", "dtype_raw."]);
}

#[test]
fn codec_chains() {
    check(&["codec_"]);
}

#[test]
fn sharding_layouts() {
    check(&["shard_"]);
}

#[test]
fn chunk_key_encodings() {
    check(&["keys_"]);
}

#[test]
fn groups_attributes_and_dimension_names() {
    check(&["groups."]);
}

#[test]
fn zip_store() {
    check(&["zip_groups."]);
}

#[test]
fn fill_value_forms() {
    check(&["fill_forms.", "fill_forms_complex."]);
}

#[test]
fn consolidated_metadata() {
    check(&["groups_consolidated."]);
}

#[test]
fn xarray_to_zarr_defaults_v3_and_v2_strings() {
    check(&["xarray_"]);
}

#[test]
fn tensorstore_stores() {
    check(&["tensorstore."]);
}

#[test]
fn zarr_python_v3_v2_twins() {
    check(&["twin_"]);
}

/// The inline consolidated metadata is what the reader uses: with an
/// array's own `zarr.json` and a group's removed, the store reads as before
/// (zarr-python reads it so too).
#[test]
fn consolidated_metadata_is_used_when_present() {
    let Some((dir, truth)) = v3fix::truth() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let copy = tmp.path().join("groups_consolidated.zarr");
    v3fix::copy_tree(&dir.join("groups_consolidated.zarr"), &copy);
    std::fs::remove_file(copy.join("g1/v/zarr.json")).unwrap();
    std::fs::remove_file(copy.join("g1/g2/zarr.json")).unwrap();
    let failures = compare_store(tmp.path(), truth, "groups_consolidated.zarr");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A directory store that counts its listings.
struct CountingLists {
    inner: DirectoryStore,
    lists: AtomicUsize,
}

impl ReadableStore for CountingLists {
    fn get(&self, key: &StoreKey) -> Result<Option<Bytes>, StoreError> {
        self.inner.get(key)
    }
    fn capabilities(&self) -> Capabilities {
        self.inner.capabilities()
    }
}

impl ListableStore for CountingLists {
    fn list_dir(&self, prefix: &StorePrefix) -> Result<Listing, StoreError> {
        self.lists.fetch_add(1, Ordering::Relaxed);
        self.inner.list_dir(prefix)
    }
}

/// How many listings opening `store` of the fixtures takes, and how many
/// variables it finds.
fn lists_to_open(dir: &Path, store: &str) -> (usize, usize) {
    let counting = Arc::new(CountingLists {
        inner: DirectoryStore::open(dir.join(store)).unwrap(),
        lists: Default::default(),
    });
    let r = ZarrReader::open(counting.clone(), ZarrOptions::default()).unwrap();
    let vars = r.schema().num_vars();
    (counting.lists.load(Ordering::Relaxed), vars)
}

/// With zarr-python's inline consolidated metadata, opening lists nothing
/// (the same hierarchy without it takes listings: the count counts).
#[test]
fn consolidated_open_lists_nothing() {
    let Some((dir, truth)) = v3fix::truth() else {
        return;
    };
    let arrays = truth.arrays_of("groups_consolidated.zarr").count();
    assert_eq!(lists_to_open(dir, "groups_consolidated.zarr"), (0, arrays));
    let (lists, vars) = lists_to_open(dir, "groups.zarr");
    assert!(
        lists > 0 && vars == arrays,
        "{lists} listings, {vars} variables"
    );
}
