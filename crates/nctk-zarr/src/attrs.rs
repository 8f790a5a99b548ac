//! Attribute values: JSON to typed netCDF values, with NCZarr's recorded
//! types or, in pure Zarr, netCDF-C's inference.

use nctk_model::{DataType, Values};
use serde_json::Value;

use crate::cell::json_number_as;
use crate::meta::{Dtype, DtypeKind};

/// True for attributes netCDF-C keeps for itself and never shows:
/// NCZarr's bookkeeping (`_nczarr_*`, any case), xarray's
/// `_ARRAY_DIMENSIONS` and the `_NCProperties` provenance text.
pub fn is_hidden(name: &str) -> bool {
    name.to_ascii_lowercase().starts_with("_nczarr")
        || name == "_ARRAY_DIMENSIONS"
        || name == "_NCProperties"
}

/// Converts an attribute's JSON to values. `type_hint` is the dtype NCZarr
/// recorded for it (`<i4`, `>S1`, `|J0`, ...), if any.
pub fn to_values(value: &Value, type_hint: Option<&str>) -> Values {
    if let Some(hint) = type_hint {
        if let Some(v) = typed(value, hint) {
            return v;
        }
    }
    infer(value)
}

fn json_text(value: &Value) -> Values {
    match value {
        Value::String(s) => Values::text(s),
        other => Values::text(&other.to_string()),
    }
}

fn typed(value: &Value, hint: &str) -> Option<Values> {
    if hint == "|J0" {
        return Some(json_text(value));
    }
    let d = Dtype::parse(hint)?;
    let elems: Vec<&Value> = match value {
        Value::Array(a) => a.iter().collect(),
        other => vec![other],
    };
    match d.kind {
        // NC_CHAR: ">S1" (4.9.2+), "<U1" (4.9.0). The text as given.
        DtypeKind::Bytes if d.n == 1 && d.order == '>' => Some(json_text(value)),
        DtypeKind::Unicode if d.n == 1 => Some(json_text(value)),
        DtypeKind::Bytes | DtypeKind::Unicode => {
            let strings = elems
                .iter()
                .map(|e| match e {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                })
                .collect();
            Some(Values::String(strings))
        }
        DtypeKind::Bool => numbers(&elems, DataType::UByte),
        _ => {
            let cell = crate::cell::Cell::for_dtype(d, false);
            numbers(&elems, cell.data_type())
        }
    }
}

fn numbers(elems: &[&Value], dtype: DataType) -> Option<Values> {
    let mut out = Values::with_capacity(dtype, elems.len());
    for e in elems {
        out.extend_from(&json_number_as(e, dtype)?);
    }
    Some(out)
}

/// netCDF-C's (4.10) inference for untyped attributes: a string is `char`
/// text; integers are `int`, or `int64`, or `uint64` when they need it;
/// other numbers are `double`; booleans are `ubyte`. An array of numbers
/// takes the type its members need (netCDF-C takes the first member's type
/// and truncates the rest; nctk widens so no value is lost). Anything else
/// (objects, null, arrays of strings, mixed arrays) becomes its JSON text.
pub fn infer(value: &Value) -> Values {
    let elems: Vec<&Value> = match value {
        Value::Array(a) if !a.is_empty() => a.iter().collect(),
        Value::Array(_) => return json_text(value),
        Value::String(s) => return Values::text(s),
        other => vec![other],
    };
    if elems.iter().all(|e| e.is_boolean()) {
        return Values::UByte(
            elems
                .iter()
                .map(|e| u8::from(e.as_bool() == Some(true)))
                .collect(),
        );
    }
    if !elems.iter().all(|e| e.is_number()) {
        return json_text(value);
    }
    let dtype = if elems.iter().any(|e| e.is_f64()) {
        DataType::Double
    } else if elems
        .iter()
        .all(|e| e.as_i64().is_some_and(|i| i32::try_from(i).is_ok()))
    {
        DataType::Int
    } else if elems.iter().all(|e| e.as_i64().is_some()) {
        DataType::Int64
    } else if elems.iter().all(|e| e.as_u64().is_some()) {
        DataType::UInt64
    } else {
        DataType::Double
    };
    numbers(&elems, dtype).unwrap_or_else(|| json_text(value))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn inference_follows_netcdf_c() {
        assert_eq!(infer(&json!(1)), Values::Int(vec![1]));
        assert_eq!(
            infer(&json!(5000000000i64)),
            Values::Int64(vec![5000000000])
        );
        assert_eq!(
            infer(&json!(18446744073709551615u64)),
            Values::UInt64(vec![u64::MAX])
        );
        assert_eq!(infer(&json!(2.5)), Values::Double(vec![2.5]));
        assert_eq!(infer(&json!(true)), Values::UByte(vec![1]));
        assert_eq!(infer(&json!("hé")), Values::text("hé"));
        assert_eq!(infer(&json!([1, 2.5])), Values::Double(vec![1.0, 2.5]));
        assert_eq!(infer(&json!(["a", "bc"])), Values::text(r#"["a","bc"]"#));
        assert_eq!(infer(&json!(null)), Values::text("null"));
    }

    #[test]
    fn typed_values() {
        assert_eq!(
            to_values(&json!([1, 2]), Some("<i2")),
            Values::Short(vec![1, 2])
        );
        assert_eq!(to_values(&json!("abc"), Some(">S1")), Values::text("abc"));
        assert_eq!(to_values(&json!("abc"), Some("<U1")), Values::text("abc"));
        assert_eq!(
            to_values(&json!(["a", "b"]), Some("|S8")),
            Values::String(vec!["a".into(), "b".into()])
        );
        assert_eq!(to_values(&json!("NaN"), Some("<f8")).len(), 1);
        assert_eq!(
            to_values(&json!({"a": 1}), Some("|J0")),
            Values::text(r#"{"a":1}"#)
        );
        // A value that does not fit its recorded type falls back to inference.
        assert_eq!(to_values(&json!(300), Some("<i1")), Values::Int(vec![300]));
    }
}
