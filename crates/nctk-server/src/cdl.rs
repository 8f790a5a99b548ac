//! `req=CDL`: the dataset's structure as netCDF-Java's `CDLWriter` prints
//! it for THREDDS (`NetcdfFile.toString()`, not strict): indented by two,
//! dimensions' lengths inside each variable's shape, a `// type` comment
//! after each non-text attribute, no data.

use std::fmt::Write;

use nctk_model::{Attribute, DataType, GroupId, Schema, UserTypeKind, VarId};

use crate::java::{enum_typedefs, is_text, numbers, text_values, type_name};

/// The CDL text of `schema`, named `name` (THREDDS uses the dataset's path
/// under its service, `nc4/nc4_pres_temp_4D.nc`).
pub fn cdl(schema: &Schema, name: &str) -> String {
    let mut out = format!("netcdf {name} {{\n");
    group(&mut out, schema, GroupId::ROOT, 1);
    out.push_str("}\n");
    out
}

fn indent(depth: usize) -> String {
    "  ".repeat(depth)
}

fn group(out: &mut String, schema: &Schema, id: GroupId, depth: usize) {
    let g = schema.group(id);
    let pad = indent(depth);
    let enums = enum_typedefs(schema, id);
    if !enums.is_empty() {
        let _ = writeln!(out, "{pad}types:");
        for e in enums {
            let base = match e.base.size() {
                Some(1) => "byte ",
                Some(2) => "short ",
                _ => "",
            };
            let list: Vec<String> = e
                .members
                .iter()
                .map(|m| format!("'{}' = {}", m.name, m.value))
                .collect();
            let _ = writeln!(
                out,
                "{}{base}enum {} {{ {}}};",
                indent(depth + 1),
                e.name,
                list.join(", ")
            );
        }
        out.push('\n');
    }
    if !g.dims.is_empty() {
        let _ = writeln!(out, "{pad}dimensions:");
        for &d in &g.dims {
            let dim = schema.dim(d);
            let _ = if dim.unlimited {
                writeln!(
                    out,
                    "{}{} = UNLIMITED;   // ({} currently)",
                    indent(depth + 1),
                    dim.name,
                    dim.len
                )
            } else {
                writeln!(out, "{}{} = {};", indent(depth + 1), dim.name, dim.len)
            };
        }
    }
    if !g.vars.is_empty() {
        let _ = writeln!(out, "{pad}variables:");
        for &v in &g.vars {
            variable(out, schema, v, depth + 1);
            out.push('\n');
        }
    }
    for &sub in &g.groups {
        let _ = writeln!(out, "{pad}group: {} {{", schema.group(sub).name);
        group(out, schema, sub, depth + 1);
        let _ = writeln!(out, "{pad}}}\n");
    }
    if !g.attributes.is_empty() {
        let which = if id == GroupId::ROOT {
            "global"
        } else {
            "group"
        };
        let _ = writeln!(out, "{pad}// {which} attributes:");
        for a in &g.attributes {
            attribute(out, schema, a, &pad);
        }
    }
}

/// A variable's shape as `getNameAndDimensions` writes it: `(d=2, e=3)`,
/// `*` for a vlen's own dimension, nothing for a scalar.
fn shape(schema: &Schema, var: VarId) -> String {
    let v = schema.var(var);
    let mut parts: Vec<String> = v
        .dims
        .iter()
        .map(|&d| format!("{}={}", schema.dim(d).name, schema.dim(d).len))
        .collect();
    if matches!(schema.user_kind(v.dtype), Some(UserTypeKind::Vlen { .. })) {
        parts.push("*".into());
    }
    if parts.is_empty() {
        String::new()
    } else {
        format!("({})", parts.join(", "))
    }
}

fn variable(out: &mut String, schema: &Schema, id: VarId, depth: usize) {
    let v = schema.var(id);
    let pad = indent(depth);
    match schema.user_kind(v.dtype) {
        Some(UserTypeKind::Compound { fields, .. }) => {
            let _ = writeln!(out, "{pad}Structure {{");
            for f in fields {
                let dims: Vec<String> = f.dims.iter().map(u64::to_string).collect();
                let dims = if dims.is_empty() {
                    String::new()
                } else {
                    format!("({})", dims.join(", "))
                };
                let _ = writeln!(
                    out,
                    "{}{} {}{dims};",
                    indent(depth + 1),
                    type_name(schema, f.dtype),
                    f.name
                );
            }
            let _ = writeln!(out, "{pad}}} {}{};", v.name, shape(schema, id));
        }
        Some(UserTypeKind::Enum { .. }) => {
            let _ = writeln!(
                out,
                "{pad}enum {} {}{};",
                schema.type_name(v.dtype),
                v.name,
                shape(schema, id)
            );
        }
        _ => {
            let _ = writeln!(
                out,
                "{pad}{} {}{};",
                type_name(schema, v.dtype),
                v.name,
                shape(schema, id)
            );
        }
    }
    let pad = indent(depth + 1);
    for a in &v.attributes {
        attribute(out, schema, a, &pad);
    }
}

/// `:name = values; // type`, as `CDLWriter.writeCDL(Attribute)` prints it.
fn attribute(out: &mut String, schema: &Schema, a: &Attribute, pad: &str) {
    let _ = write!(out, "{pad}:{} = ", a.name);
    if is_text(a) {
        let quoted: Vec<String> = text_values(a)
            .iter()
            .map(|s| format!("\"{}\"", escape(s)))
            .collect();
        let _ = writeln!(out, "{};", quoted.join(", "));
        return;
    }
    let dtype = a.value.dtype();
    let suffix = match dtype {
        DataType::Float => "f",
        DataType::Short => "S",
        DataType::UShort => "US",
        DataType::Byte => "B",
        DataType::UByte => "UB",
        DataType::Int64 => "L",
        DataType::UInt64 => "UL",
        DataType::UInt => "U",
        _ => "",
    };
    let values = numbers(&a.value).unwrap_or_default();
    let list: Vec<String> = values.iter().map(|n| format!("{n}{suffix}")).collect();
    let _ = writeln!(out, "{}; // {}", list.join(", "), type_name(schema, dtype));
}

/// `CDLWriter.encodeString`: backslash escapes for the control characters
/// and quotes.
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            '"' => out.push_str("\\\""),
            c => out.push(c),
        }
    }
    out
}
