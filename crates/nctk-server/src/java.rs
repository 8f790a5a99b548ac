//! How netCDF-Java prints what the text answers (`req=CDL`, `req=NcML`)
//! show: its type names (`ucar.ma2.DataType.toString`), numbers as Java's
//! `toString` writes them, and the `_ChunkSizes` attribute THREDDS' HDF5
//! reader adds to chunked variables.

use nctk_model::{
    Attribute, DataType, EnumMember, GroupId, Layout, Schema, TypeId, UserTypeKind, Values,
};

/// netCDF-Java's name of `dtype` (`float`, `String`, `ubyte`, `Structure`,
/// `enum1`, `opaque`; a vlen is named by its element type, its `*`
/// dimension says it is one).
pub fn type_name(schema: &Schema, dtype: DataType) -> String {
    match dtype {
        DataType::Byte => "byte".into(),
        DataType::Char => "char".into(),
        DataType::Short => "short".into(),
        DataType::Int => "int".into(),
        DataType::Float => "float".into(),
        DataType::Double => "double".into(),
        DataType::UByte => "ubyte".into(),
        DataType::UShort => "ushort".into(),
        DataType::UInt => "uint".into(),
        DataType::Int64 => "long".into(),
        DataType::UInt64 => "ulong".into(),
        DataType::String => "String".into(),
        DataType::User(_) => match schema.user_kind(dtype) {
            Some(UserTypeKind::Compound { .. }) => "Structure".into(),
            Some(UserTypeKind::Vlen { base }) => type_name(schema, *base),
            Some(UserTypeKind::Enum { base, .. }) => match base.size() {
                Some(1) => "enum1".into(),
                Some(2) => "enum2".into(),
                _ => "enum4".into(),
            },
            Some(UserTypeKind::Opaque { .. }) => "opaque".into(),
            None => "Unknown".into(),
        },
        _ => "Unknown".into(),
    }
}

/// An enum typedef as netCDF-Java holds it: its name, base type and
/// members sorted by value (its map is sorted).
pub struct EnumTypedef<'a> {
    /// The type's id.
    pub id: TypeId,
    /// The type's name.
    pub name: &'a str,
    /// The base integer type.
    pub base: DataType,
    /// The members, by value.
    pub members: Vec<&'a EnumMember>,
}

/// The enum typedefs defined in `group`, in definition order.
pub fn enum_typedefs(schema: &Schema, group: GroupId) -> Vec<EnumTypedef<'_>> {
    schema
        .group(group)
        .types
        .iter()
        .filter_map(|&id| {
            let t = schema.user_type(id);
            let UserTypeKind::Enum { base, members } = &t.kind else {
                return None;
            };
            let mut members: Vec<&EnumMember> = members.iter().collect();
            members.sort_by_key(|m| m.value);
            Some(EnumTypedef {
                id,
                name: &t.name,
                base: *base,
                members,
            })
        })
        .collect()
}

/// Whether an attribute prints as text: netCDF-Java reads `char` and
/// `string` attributes as Strings.
pub fn is_text(attr: &Attribute) -> bool {
    matches!(attr.value, Values::Char(_) | Values::String(_))
}

/// The text values of a `char` or `string` attribute (a `char` attribute
/// is one String, as netCDF-Java reads it; a null string is the text
/// `NIL`, as netCDF-Java's HDF5 reader gives one).
pub fn text_values(attr: &Attribute) -> Vec<String> {
    match &attr.value {
        Values::Char(bytes) => vec![String::from_utf8_lossy(bytes).into_owned()],
        Values::String(v) => v
            .iter()
            .map(|s| s.clone().unwrap_or_else(|| "NIL".into()))
            .collect(),
        _ => Vec::new(),
    }
}

/// The numbers of a numeric attribute as Java's `Number.toString` writes
/// them (unsigned values widened, as `CDLWriter` does); `None` for other types.
pub fn numbers(value: &Values) -> Option<Vec<String>> {
    Some(match value {
        Values::Byte(v) => v.iter().map(i8::to_string).collect(),
        Values::Short(v) => v.iter().map(i16::to_string).collect(),
        Values::Int(v) => v.iter().map(i32::to_string).collect(),
        Values::Int64(v) => v.iter().map(i64::to_string).collect(),
        Values::UByte(v) => v.iter().map(u8::to_string).collect(),
        Values::UShort(v) => v.iter().map(u16::to_string).collect(),
        Values::UInt(v) => v.iter().map(u32::to_string).collect(),
        Values::UInt64(v) => v.iter().map(u64::to_string).collect(),
        Values::Float(v) => v
            .iter()
            .map(|x| java_real(f64::from(*x), format!("{x:e}")))
            .collect(),
        Values::Double(v) => v.iter().map(|x| java_real(*x, format!("{x:e}"))).collect(),
        _ => return None,
    })
}

/// Java's `Float.toString` / `Double.toString`: the shortest digits that
/// read back as the value, in plain notation with at least one decimal
/// when 10^-3 <= |x| < 10^7, else as `d.dddE±n`. `shortest` is Rust's
/// `{:e}` of the value in its own width (shortest round-trip digits).
fn java_real(x: f64, shortest: String) -> String {
    if x.is_nan() {
        return "NaN".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    let sign = if x.is_sign_negative() { "-" } else { "" };
    if x == 0.0 {
        return format!("{sign}0.0");
    }
    let (mantissa, exp) = shortest
        .trim_start_matches('-')
        .split_once('e')
        .expect("{:e} has an exponent");
    let exp: i32 = exp.parse().expect("{:e} exponent is an integer");
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let abs = x.abs();
    if (1e-3..1e7).contains(&abs) {
        // value = 0.DIGITS * 10^(exp + 1)
        let point = exp + 1;
        let (int, frac) = if point <= 0 {
            (
                "0".to_string(),
                "0".repeat(point.unsigned_abs() as usize) + &digits,
            )
        } else if point as usize >= digits.len() {
            (
                digits.clone() + &"0".repeat(point as usize - digits.len()),
                String::new(),
            )
        } else {
            (
                digits[..point as usize].to_string(),
                digits[point as usize..].to_string(),
            )
        };
        let frac = if frac.is_empty() {
            "0".to_string()
        } else {
            frac
        };
        format!("{sign}{int}.{frac}")
    } else {
        let rest = if digits.len() > 1 { &digits[1..] } else { "0" };
        format!("{sign}{}.{rest}E{exp}", &digits[..1])
    }
}

/// `schema` as THREDDS presents a netCDF-4 file (netCDF-Java's CDM):
///
/// * each chunked variable carries `_ChunkSizes` (int), its chunk lengths,
///   as netCDF-Java's HDF5 reader adds it (the corpus's THREDDS headers
///   and CDL show it), unless the variable has one already;
/// * attributes of compound, vlen and opaque types are left out: a
///   netCDF-Java attribute holds numbers or strings only (its HDF5 reader
///   drops them), and ncstream has no way to carry them.
pub fn served_schema(schema: &Schema) -> Schema {
    let mut served = schema.clone();
    let plain = |a: &Attribute| {
        a.user_type
            .is_none_or(|t| matches!(schema.user_type(t).kind, UserTypeKind::Enum { .. }))
    };
    for id in schema.group_ids() {
        served.group_mut(id).attributes.retain(plain);
    }
    for id in schema.var_ids() {
        let var = served.var_mut(id);
        var.attributes.retain(plain);
        let Layout::Chunked(chunks) = &var.storage.layout else {
            continue;
        };
        if var.attribute("_ChunkSizes").is_some() {
            continue;
        }
        let Ok(lengths) = chunks.iter().map(|&c| i32::try_from(c)).collect() else {
            continue;
        };
        var.attributes
            .push(Attribute::new("_ChunkSizes", Values::Int(lengths)));
    }
    served
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reals_print_as_java_prints_them() {
        // Java's own outputs (Float.toString / Double.toString).
        let f = |x: f32| java_real(f64::from(x), format!("{x:e}"));
        let d = |x: f64| java_real(x, format!("{x:e}"));
        assert_eq!(f(1.0), "1.0");
        assert_eq!(f(-125.0), "-125.0");
        assert_eq!(f(0.1), "0.1");
        assert_eq!(f(1.0e7), "1.0E7");
        assert_eq!(f(9_999_999.0), "9999999.0");
        assert_eq!(f(0.001), "0.001");
        assert_eq!(f(1.0e-4), "1.0E-4");
        assert_eq!(f(f32::MAX), "3.4028235E38");
        assert_eq!(f(9.96921e36), "9.96921E36");
        assert_eq!(d(9.969209968386869e36), "9.969209968386869E36");
        assert_eq!(d(123.456), "123.456");
        assert_eq!(d(-0.0), "-0.0");
        assert_eq!(d(f64::NAN), "NaN");
        assert_eq!(d(f64::NEG_INFINITY), "-Infinity");
        assert_eq!(d(0.00123), "0.00123");
    }
}
