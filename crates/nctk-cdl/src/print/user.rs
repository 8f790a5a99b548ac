//! User-defined types in CDL: the `types:` section, type names as a group
//! sees them, and values of user types, as netCDF-C 4.9.0's ncdump prints
//! them (`print_ud_type`, `print_type_name`, the `*_typ_tostring`
//! functions of `dumplib.c`).

use std::io::Write;
use std::sync::OnceLock;

use nctk_model::{Attribute, DataType, GroupId, Schema, UserTypeKind, Values};

use super::escape::{push_name, push_string_data, trim_nuls};
use super::header::push_special;
use super::numbers::{push_g, push_g_f32, push_i64, push_u64, GStyle};
use super::Printer;

/// Element `i` of integer values as `i128`; `None` for other types.
fn int_at(values: &Values, i: usize) -> Option<i128> {
    Some(match values {
        Values::Byte(v) => v.get(i)?.to_owned().into(),
        Values::Short(v) => v.get(i)?.to_owned().into(),
        Values::Int(v) => v.get(i)?.to_owned().into(),
        Values::Int64(v) => v.get(i)?.to_owned().into(),
        Values::UByte(v) => v.get(i)?.to_owned().into(),
        Values::UShort(v) => v.get(i)?.to_owned().into(),
        Values::UInt(v) => v.get(i)?.to_owned().into(),
        Values::UInt64(v) => v.get(i)?.to_owned().into(),
        _ => return None,
    })
}

/// Appends `0X` and the bytes in upper-case hex (`ncopaque_val_as_hex`).
fn push_hex(out: &mut Vec<u8>, bytes: &[u8]) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    out.extend_from_slice(b"0X");
    for &b in bytes {
        out.extend_from_slice(&[HEX[usize::from(b >> 4)], HEX[usize::from(b & 15)]]);
    }
}

/// Appends text as ncdump's `chars_tostring` does (char fields of
/// compounds): quoted, trailing NULs dropped, the C escape characters
/// preceded by a backslash (the character itself kept), other
/// unprintable bytes as octal escapes.
fn push_chars(out: &mut Vec<u8>, text: &[u8]) {
    out.push(b'"');
    for &c in trim_nuls(text) {
        match c {
            0x08 | 0x0c | b'\n' | b'\r' | b'\t' | 0x0b | b'\\' | b'\'' | b'"' => {
                out.extend_from_slice(&[b'\\', c])
            }
            0x20..=0x7e => out.push(c),
            c => out.extend_from_slice(format!("\\{c:03o}").as_bytes()),
        }
    }
    out.push(b'"');
}

/// Formats values of any type as ncdump formats the elements of user
/// types (no type suffixes; floats with `%.7g`, doubles with `%.15g`, or
/// the `-p` digits). A value it cannot print (an enum value that names no
/// member, as ncdump stops with "NetCDF: Invalid argument"; values that
/// do not fit their type) is recorded in [`ValueText::problem`].
pub(crate) struct ValueText<'s> {
    schema: &'s Schema,
    float_digits: usize,
    double_digits: usize,
    /// The first value that could not be printed, described.
    pub(crate) problem: OnceLock<String>,
}

impl<'s> ValueText<'s> {
    pub(crate) fn new(schema: &'s Schema, float_digits: usize, double_digits: usize) -> Self {
        ValueText {
            schema,
            float_digits,
            double_digits,
            problem: OnceLock::new(),
        }
    }

    fn trouble(&self, out: &mut Vec<u8>, what: String) {
        let _ = self.problem.set(what);
        out.push(b'?');
    }

    /// The member of enum type `dtype` whose value is `value`.
    pub(crate) fn enum_name(&self, dtype: DataType, value: i128) -> Option<&'s str> {
        match self.schema.user_kind(dtype) {
            Some(UserTypeKind::Enum { members, .. }) => members
                .iter()
                .find(|m| m.value == value)
                .map(|m| m.name.as_str()),
            _ => None,
        }
    }

    /// Appends element `i` of `values`, which hold values of `dtype`.
    pub(crate) fn push(&self, out: &mut Vec<u8>, dtype: DataType, values: &Values, i: usize) {
        match (self.schema.user_kind(dtype), values) {
            (None, Values::Char(v)) => out.push(v[i]),
            (None, Values::String(v)) => push_string_data(out, v[i].as_deref().map(str::as_bytes)),
            (None, Values::Float(v)) if v[i].is_finite() => {
                push_g_f32(out, v[i], self.float_digits, GStyle::Plain)
            }
            (None, Values::Float(v)) => push_special(out, v[i].into(), b"f"),
            (None, Values::Double(v)) if v[i].is_finite() => {
                push_g(out, v[i], self.double_digits, GStyle::Plain)
            }
            (None, Values::Double(v)) => push_special(out, v[i], b""),
            (None, v) => match int_at(v, i) {
                Some(x) if x < 0 => push_i64(out, x as i64),
                Some(x) => push_u64(out, x as u64),
                None => self.trouble(out, format!("{} values for type {dtype}", v.dtype())),
            },
            (Some(UserTypeKind::Enum { .. }), v) => match int_at(v, i) {
                Some(x) => match self.enum_name(dtype, x) {
                    Some(name) => out.extend_from_slice(name.as_bytes()),
                    None => self.trouble(
                        out,
                        format!(
                            "value {x} of enum type {} names no member (ncdump: NetCDF: Invalid argument)",
                            self.schema.type_name(dtype)
                        ),
                    ),
                },
                None => self.trouble(out, "non-integer values for an enum type".into()),
            },
            (Some(UserTypeKind::Opaque { .. }), Values::Opaque { size, bytes }) => {
                push_hex(out, &bytes[i * size..(i + 1) * size])
            }
            (Some(UserTypeKind::Vlen { base }), Values::Vlen(seqs)) => {
                out.push(b'{');
                let seq = &seqs[i];
                for j in 0..seq.len() {
                    if j > 0 {
                        out.extend_from_slice(b", ");
                    }
                    self.push(out, *base, seq, j);
                }
                out.push(b'}');
            }
            (Some(UserTypeKind::Compound { fields, .. }), Values::Compound { fields: vs, .. })
                if vs.len() == fields.len() =>
            {
                out.push(b'{');
                for (k, (f, v)) in fields.iter().zip(vs).enumerate() {
                    if k > 0 {
                        out.extend_from_slice(b", ");
                    }
                    let n = f.count();
                    let start = i * n;
                    match (f.dtype, v) {
                        (DataType::Char, Values::Char(c)) if f.dims.is_empty() => {
                            push_chars(out, &c[start..start + 1])
                        }
                        (DataType::Char, Values::Char(c)) => {
                            // Rows of the last dimension as strings.
                            let row = f.dims.last().map_or(1, |&d| d as usize).max(1);
                            out.push(b'{');
                            for (r, s) in c[start..start + n].chunks(row).enumerate() {
                                if r > 0 {
                                    out.extend_from_slice(b", ");
                                }
                                push_chars(out, s);
                            }
                            out.push(b'}');
                        }
                        _ if f.dims.is_empty() => self.push(out, f.dtype, v, start),
                        _ => {
                            out.push(b'{');
                            for j in 0..n {
                                if j > 0 {
                                    out.extend_from_slice(b", ");
                                }
                                self.push(out, f.dtype, v, start + j);
                            }
                            out.push(b'}');
                        }
                    }
                }
                out.push(b'}');
            }
            (Some(kind), v) => self.trouble(
                out,
                format!("{} values for a {} type", v.dtype(), kind.class_name()),
            ),
        }
    }
}

impl<W: Write> Printer<'_, W> {
    /// Appends a type's name as group `loc` sees it (`print_type_name`):
    /// the simple name when `loc` or an ancestor defines a type of that
    /// name, else the defining group's path, `/`, and the name.
    pub(crate) fn push_type_name(&mut self, loc: GroupId, dtype: DataType) {
        let schema = self.schema;
        let DataType::User(id) = dtype else {
            self.buf.extend_from_slice(dtype.cdl_name().as_bytes());
            return;
        };
        let t = schema.user_type(id);
        if schema.type_by_name(loc, &t.name).is_none() {
            push_name(&mut self.buf, &schema.group_path(t.group));
            self.buf.push(b'/');
        }
        push_name(&mut self.buf, &t.name);
    }

    /// The `types:` section of a group (before its dimensions).
    pub(crate) fn print_types(&mut self, gid: GroupId) {
        let schema = self.schema;
        let types = &schema.group(gid).types;
        if types.is_empty() {
            return;
        }
        self.indent_out();
        self.buf.extend_from_slice(b"types:\n");
        self.indent += 2;
        for &id in types {
            let dtype = DataType::User(id);
            let t = schema.user_type(id);
            match &t.kind {
                UserTypeKind::Vlen { base } => {
                    self.indent_out();
                    self.push_type_name(gid, *base);
                    self.buf.extend_from_slice(b"(*) ");
                    self.push_type_name(gid, dtype);
                    self.buf.extend_from_slice(b" ;\n");
                }
                UserTypeKind::Opaque { size } => {
                    self.indent_out();
                    self.buf.extend_from_slice(b"opaque(");
                    push_u64(&mut self.buf, *size);
                    self.buf.extend_from_slice(b") ");
                    self.push_type_name(gid, dtype);
                    self.buf.extend_from_slice(b" ;\n");
                }
                UserTypeKind::Enum { base, members } => {
                    self.indent_out();
                    let mut piece = base.cdl_name().as_bytes().to_vec();
                    piece.extend_from_slice(b" enum ");
                    push_name(&mut piece, &t.name);
                    piece.extend_from_slice(b" {");
                    self.lput(&piece);
                    for (k, m) in members.iter().enumerate() {
                        piece.clear();
                        push_name(&mut piece, &m.name);
                        piece.extend_from_slice(format!(" = {}", m.value).as_bytes());
                        piece.extend_from_slice(if k + 1 == members.len() {
                            b"} ;\n"
                        } else {
                            b", "
                        });
                        self.lput(&piece);
                    }
                }
                UserTypeKind::Compound { fields, .. } => {
                    self.indent_out();
                    self.buf.extend_from_slice(b"compound ");
                    self.push_type_name(gid, dtype);
                    self.buf.extend_from_slice(b" {\n");
                    for f in fields {
                        self.indent_out();
                        self.buf.extend_from_slice(b"  ");
                        self.push_type_name(gid, f.dtype);
                        self.buf.push(b' ');
                        push_name(&mut self.buf, &f.name);
                        if !f.dims.is_empty() {
                            let dims: Vec<String> = f.dims.iter().map(u64::to_string).collect();
                            self.buf.push(b'(');
                            self.buf.extend_from_slice(dims.join(", ").as_bytes());
                            self.buf.push(b')');
                        }
                        self.buf.extend_from_slice(b" ;\n");
                    }
                    self.indent_out();
                    self.buf.extend_from_slice(b"}; // ");
                    self.push_type_name(gid, dtype);
                    self.buf.push(b'\n');
                }
            }
        }
        self.indent -= 2;
    }

    /// Appends the values of an attribute of a user type (ncdump's
    /// `pr_att`): enum member names and opaque hex joined by `, `; vlen
    /// and compound values through `lput`, so long lists wrap.
    pub(crate) fn push_user_att_values(&mut self, att: &Attribute) -> Result<(), String> {
        let dtype = att.dtype();
        let text = ValueText::new(self.schema, self.float_digits(), self.double_digits());
        let n = att.value.len();
        match self.schema.user_kind(dtype) {
            Some(UserTypeKind::Enum { .. }) => {
                for i in 0..n {
                    if i > 0 {
                        self.buf.extend_from_slice(b", ");
                    }
                    match int_at(&att.value, i).and_then(|x| text.enum_name(dtype, x)) {
                        Some(name) => push_name(&mut self.buf, name),
                        None => {
                            return Err(format!(
                                "a value of enum type {} names no member (ncdump: NetCDF: Invalid argument)",
                                self.schema.type_name(dtype)
                            ))
                        }
                    }
                }
            }
            Some(UserTypeKind::Opaque { .. }) => {
                for i in 0..n {
                    if i > 0 {
                        self.buf.extend_from_slice(b", ");
                    }
                    text.push(&mut self.buf, dtype, &att.value, i);
                }
            }
            _ => {
                let mut piece = Vec::new();
                for i in 0..n {
                    piece.clear();
                    text.push(&mut piece, dtype, &att.value, i);
                    if i + 1 < n {
                        piece.extend_from_slice(b", ");
                    }
                    self.lput(&piece);
                }
            }
        }
        match text.problem.into_inner() {
            Some(p) => Err(p),
            None => Ok(()),
        }
    }
}
