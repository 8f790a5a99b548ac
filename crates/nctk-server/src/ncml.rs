//! `req=NcML` and `req=capabilities`: the XML answers, written as THREDDS
//! writes them (single-quoted attributes, NcML 2.2's namespace, numbers
//! each followed by a space).

use std::fmt::Write;

use nctk_model::{Attribute, DataType, GroupId, Schema, UserTypeKind, VarId};

use crate::java::{enum_typedefs, is_text, numbers, text_values, type_name};

/// The NcML of `schema`, its `location` the dataset's URL.
pub fn ncml(schema: &Schema, location: &str) -> String {
    let mut out = String::from("<?xml version='1.0' encoding='UTF-8'?>\n");
    let _ = writeln!(
        out,
        "<netcdf xmlns='http://www.unidata.ucar.edu/namespaces/netcdf/ncml-2.2'\n    location='{}' >",
        xml(location)
    );
    group(&mut out, schema, GroupId::ROOT, 1);
    out.push_str("</netcdf>\n");
    out
}

/// The capabilities document THREDDS answers `req=capabilities` with
/// (written by JDOM's default outputter: double quotes, CRLF line ends).
pub fn capabilities(location: &str) -> String {
    let location = xml(location);
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\r\n<cdmRemoteCapabilities location=\"{location}\">\r\n  <featureDataset url=\"{location}\" />\r\n</cdmRemoteCapabilities>\r\n"
    )
}

fn group(out: &mut String, schema: &Schema, id: GroupId, depth: usize) {
    let g = schema.group(id);
    let pad = "  ".repeat(depth);
    for e in enum_typedefs(schema, id) {
        let _ = writeln!(
            out,
            "{pad}<enumTypedef name='{}' type='{}' >",
            xml(e.name),
            type_name(schema, DataType::User(e.id))
        );
        for m in e.members {
            let _ = writeln!(
                out,
                "{pad}  <enum key='{}'>{}</enum>",
                m.value,
                xml(&m.name)
            );
        }
        let _ = writeln!(out, "{pad}</enumTypedef>");
    }
    if !g.dims.is_empty() {
        out.push('\n');
        for &d in &g.dims {
            let dim = schema.dim(d);
            let unlimited = if dim.unlimited {
                " isUnlimited='true'"
            } else {
                ""
            };
            let _ = writeln!(
                out,
                "{pad}<dimension name='{}' length='{}'{unlimited} />",
                xml(&dim.name),
                dim.len
            );
        }
    }
    if !g.vars.is_empty() {
        out.push('\n');
        for &v in &g.vars {
            variable(out, schema, v, &pad);
        }
    }
    for a in &g.attributes {
        attribute(out, schema, a, &pad);
    }
    for &sub in &g.groups {
        let _ = writeln!(out, "{pad}<group name='{}' >", xml(&schema.group(sub).name));
        group(out, schema, sub, depth + 1);
        let _ = writeln!(out, "{pad}</group>");
    }
}

fn variable(out: &mut String, schema: &Schema, id: VarId, pad: &str) {
    let v = schema.var(id);
    let mut shape: Vec<String> = v.dims.iter().map(|&d| xml(&schema.dim(d).name)).collect();
    let kind = schema.user_kind(v.dtype);
    if matches!(kind, Some(UserTypeKind::Vlen { .. })) {
        shape.push("*".into());
    }
    let typedef = match kind {
        Some(UserTypeKind::Enum { .. }) => format!(" typedef='{}'", xml(schema.type_name(v.dtype))),
        _ => String::new(),
    };
    let fields = match kind {
        Some(UserTypeKind::Compound { fields, .. }) => fields.as_slice(),
        _ => &[],
    };
    let open = format!(
        "{pad}<variable name='{}' type='{}'{typedef} shape='{}' ",
        xml(&v.name),
        type_name(schema, v.dtype),
        shape.join(" ")
    );
    if v.attributes.is_empty() && fields.is_empty() {
        let _ = writeln!(out, "{open}/>");
        return;
    }
    let _ = writeln!(out, "{open}>");
    let inner = format!("{pad}  ");
    for a in &v.attributes {
        attribute(out, schema, a, &inner);
    }
    for f in fields {
        let dims: Vec<String> = f.dims.iter().map(u64::to_string).collect();
        let _ = writeln!(
            out,
            "{inner}<variable name='{}' type='{}' shape='{}' />",
            xml(&f.name),
            type_name(schema, f.dtype),
            dims.join(" ")
        );
    }
    let _ = writeln!(out, "{pad}</variable>");
}

fn attribute(out: &mut String, schema: &Schema, a: &Attribute, pad: &str) {
    let name = xml(&a.name);
    if is_text(a) {
        let values = text_values(a);
        let separator = if values.len() > 1 {
            " separator='|'"
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "{pad}<attribute name='{name}' value='{}'{separator} />",
            xml(&values.join("|"))
        );
        return;
    }
    let values: Vec<String> = numbers(&a.value)
        .unwrap_or_default()
        .into_iter()
        .map(|n| n + " ")
        .collect();
    let _ = writeln!(
        out,
        "{pad}<attribute name='{name}' value='{}' type='{}' />",
        values.join(" "),
        type_name(schema, a.value.dtype())
    );
}

/// `text` escaped for an XML attribute or element.
fn xml(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\'' => out.push_str("&apos;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    out
}
