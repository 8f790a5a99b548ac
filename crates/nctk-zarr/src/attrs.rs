//! Attribute values: JSON to typed netCDF values, with NCZarr's recorded
//! types or, in pure Zarr, netCDF-C's inference.

use nctk_model::{DataType, Values};
use serde_json::Value;

use crate::cell::json_number_as;
use crate::meta::{Dtype, DtypeKind};

/// True for attributes netCDF-C keeps for itself and never shows:
/// NCZarr's bookkeeping (`_nczarr_*`, any case, but for the string widths
/// `_nczarr_maxstrlen` and `_nczarr_default_maxstrlen`, which netCDF-C
/// shows like user attributes; see [`nctk_model::string_width`]), xarray's
/// `_ARRAY_DIMENSIONS` and the `_NCProperties` provenance text (the reader
/// still puts `_NCProperties` among the root group's attributes: netCDF-C
/// exposes it by name, `ncdump -s` prints it, the printer and the copier
/// leave it out otherwise).
pub fn is_hidden(name: &str) -> bool {
    (name.to_ascii_lowercase().starts_with("_nczarr")
        && !nctk_model::string_width::is_width_attribute(name))
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

/// The text of a JSON value as a `char` attribute: a string's bytes as the
/// file holds them (bytes that are not UTF-8 included, see
/// [`crate::json::raw_bytes`]), anything else as `unparse` writes it.
fn json_text(value: &Value) -> Values {
    match value {
        Value::String(s) => Values::Char(crate::json::raw_bytes(s)),
        other => Values::Char(crate::json::raw_bytes(&unparse(other))),
    }
}

/// JSON text as netCDF-C's `NCJunparse` writes it (what `ncdump` shows for
/// an attribute holding a JSON object or array): `": "` and `", "` in
/// objects, a bare `,` in arrays, bare tokens as `NaN` / `Infinity`.
pub fn unparse(value: &Value) -> String {
    let mut out = String::new();
    unparse_into(value, &mut out);
    out
}

fn unparse_into(value: &Value, out: &mut String) {
    match value {
        Value::Object(m) => {
            out.push('{');
            for (i, (k, v)) in m.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(&Value::String(k.clone()).to_string());
                out.push_str(": ");
                unparse_into(v, out);
            }
            out.push('}');
        }
        Value::Array(a) => {
            out.push('[');
            for (i, v) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                unparse_into(v, out);
            }
            out.push(']');
        }
        Value::String(s) => match s.strip_prefix(crate::json::BARE_TOKEN) {
            Some(token) if crate::json::bare_token(s).is_some() => out.push_str(token),
            _ => out.push_str(&value.to_string()),
        },
        other => out.push_str(&other.to_string()),
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
            // A `string` holds UTF-8: text with other bytes is read as
            // `char` text instead (by `infer`), never with bytes replaced.
            if elems
                .iter()
                .any(|e| e.as_str().is_some_and(crate::json::has_raw_bytes))
            {
                return None;
            }
            let strings = elems
                .iter()
                .map(|e| match e {
                    Value::String(s) => Some(s.clone()),
                    // JSON's null, as zarr-python writes `None`.
                    Value::Null => None,
                    other => Some(other.to_string()),
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

/// A JSON number's netCDF type as netCDF-C 4.10 infers it
/// (`NCZ_inferinttype`): `int` when it fits, `uint` for positive values up
/// to `u32::MAX`, `int64`, and `uint64` from `i64::MAX` on; other numbers
/// (and bare `NaN` / `Infinity` tokens) are `double`, booleans `ubyte`.
/// `None` for anything that is not a number or boolean.
fn infer_one(v: &Value) -> Option<DataType> {
    match v {
        Value::Bool(_) => Some(DataType::UByte),
        Value::Number(n) => Some(if let Some(i) = n.as_i64() {
            if i == i64::MAX {
                DataType::UInt64
            } else if i32::try_from(i).is_ok() {
                DataType::Int
            } else if u32::try_from(i).is_ok() {
                DataType::UInt
            } else {
                DataType::Int64
            }
        } else if n.as_u64().is_some() {
            DataType::UInt64
        } else {
            DataType::Double
        }),
        Value::String(s) if crate::json::bare_token(s).is_some() => Some(DataType::Double),
        _ => None,
    }
}

/// netCDF-C's (4.10.1, checked with the Python `netCDF4` wheel) inference
/// for untyped attributes: a string is `char` text; a number or an array of
/// numbers takes the type `infer_one` gives its first member; booleans
/// are `ubyte`. Anything else (objects, null, empty arrays, arrays of
/// strings) becomes its JSON text as `unparse` writes it.
///
/// Where netCDF-C would lose data (an array whose later members do not fit
/// the first member's type: it truncates `[1, 2.5]` to `1, 2` and refuses
/// `[1, 3000000000]`), nctk widens to a type that holds every member.
pub fn infer(value: &Value) -> Values {
    let elems: Vec<&Value> = match value {
        Value::Array(a) if !a.is_empty() => a.iter().collect(),
        Value::Array(_) => return json_text(value),
        Value::String(s) if crate::json::bare_token(s).is_none() => return json_text(value),
        other => vec![other],
    };
    let Some(types) = elems
        .iter()
        .map(|e| infer_one(e))
        .collect::<Option<Vec<_>>>()
    else {
        return json_text(value);
    };
    let lossless = |dtype: DataType| {
        !dtype.is_integer()
            || elems
                .iter()
                .all(|e| !e.is_f64() || e.as_f64().is_some_and(|f| f.fract() == 0.0))
    };
    if lossless(types[0]) {
        if let Some(v) = numbers(&elems, types[0]) {
            return v;
        }
    }
    // Widen: the first type that holds every member.
    let wide = if types.contains(&DataType::Double) {
        DataType::Double
    } else if elems.iter().all(|e| e.as_i64().is_some() || e.is_boolean()) {
        DataType::Int64
    } else if elems.iter().all(|e| e.as_u64().is_some() || e.is_boolean()) {
        DataType::UInt64
    } else {
        DataType::Double
    };
    numbers(&elems, wide).unwrap_or_else(|| json_text(value))
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
        assert_eq!(infer(&json!(3000000000u32)), Values::UInt(vec![3000000000]));
        assert_eq!(
            infer(&json!(-3000000000i64)),
            Values::Int64(vec![-3000000000])
        );
        assert_eq!(
            infer(&json!(i64::MAX)),
            Values::UInt64(vec![i64::MAX as u64])
        );
        assert_eq!(infer(&json!([2.5, 1])), Values::Double(vec![2.5, 1.0]));
        assert_eq!(infer(&json!([1, 2.0])), Values::Int(vec![1, 2]));
        assert_eq!(infer(&json!([true, 2])), Values::UByte(vec![1, 2]));
        // netCDF-C truncates or refuses these; nctk widens.
        assert_eq!(infer(&json!([1, 2.5])), Values::Double(vec![1.0, 2.5]));
        assert_eq!(
            infer(&json!([1, 3000000000u32])),
            Values::Int64(vec![1, 3000000000])
        );
        assert_eq!(infer(&json!(["a", "bc"])), Values::text(r#"["a","bc"]"#));
        assert_eq!(
            infer(&json!({"k": 1, "j": [1, 2], "s": "x"})),
            Values::text(r#"{"k": 1, "j": [1,2], "s": "x"}"#)
        );
        assert_eq!(infer(&json!([])), Values::text("[]"));
        let bare = crate::json::parse_attrs("k", br#"{"a": NaN, "b": [-Infinity, 1], "c": "NaN"}"#)
            .unwrap();
        assert!(matches!(&infer(&bare["a"]), Values::Double(d) if d[0].is_nan()));
        assert_eq!(
            infer(&bare["b"]),
            Values::Double(vec![f64::NEG_INFINITY, 1.0])
        );
        assert_eq!(infer(&bare["c"]), Values::text("NaN"));
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
            Values::strings(["a", "b"])
        );
        assert_eq!(to_values(&json!("NaN"), Some("<f8")).len(), 1);
        assert_eq!(
            to_values(&json!({"a": 1}), Some("|J0")),
            Values::text(r#"{"a": 1}"#)
        );
        // A value that does not fit its recorded type falls back to inference.
        assert_eq!(to_values(&json!(300), Some("<i1")), Values::Int(vec![300]));
    }
}
