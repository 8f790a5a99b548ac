//! `-x`: NcML output (ncdump's `do_ncdumpx`): dimensions, global and
//! variable attributes, no data. Names are written as they are.

use std::io::Write;

use nctk_model::{Attribute, Values, VarId};

use super::escape::push_xml_text;
use super::numbers::{push_g, push_g_f32, push_i64, push_u64, GStyle};
use super::{DumpError, Printer};

/// Appends the space-separated values of a numeric attribute as ncdump
/// prints them in NcML (via `double`, no type suffixes).
fn push_values(out: &mut Vec<u8>, v: &Values, fd: usize, dd: usize) {
    fn list<T: Copy>(out: &mut Vec<u8>, v: &[T], mut f: impl FnMut(&mut Vec<u8>, T)) {
        for (i, &x) in v.iter().enumerate() {
            if i > 0 {
                out.push(b' ');
            }
            f(out, x);
        }
    }
    fn float(out: &mut Vec<u8>, x: f64, is_f32: bool, digits: usize) {
        if x.is_nan() {
            out.extend_from_slice(if x.is_sign_negative() {
                b"-nan"
            } else {
                b"nan"
            });
        } else if x.is_infinite() {
            out.extend_from_slice(if x < 0.0 { b"-inf" } else { b"inf" });
        } else if is_f32 {
            push_g_f32(out, x as f32, digits, GStyle::KeepPoint);
        } else {
            push_g(out, x, digits, GStyle::KeepPoint);
        }
    }
    match v {
        Values::Byte(v) => list(out, v, |o, x| push_i64(o, x.into())),
        Values::Short(v) => list(out, v, |o, x| push_i64(o, x.into())),
        Values::Int(v) => list(out, v, |o, x| push_i64(o, x.into())),
        Values::UByte(v) => list(out, v, |o, x| push_u64(o, x.into())),
        Values::UShort(v) => list(out, v, |o, x| push_u64(o, x.into())),
        Values::UInt(v) => list(out, v, |o, x| push_u64(o, x.into())),
        // ncdump reads these through double.
        Values::Int64(v) => list(out, v, |o, x| push_i64(o, x as f64 as i64)),
        Values::UInt64(v) => list(out, v, |o, x| push_u64(o, x as f64 as u64)),
        Values::Float(v) => list(out, v, |o, x| float(o, x.into(), true, fd)),
        Values::Double(v) => list(out, v, |o, x| float(o, x, false, dd)),
        // Text is printed by the caller; NcML output is for the classic
        // model, whose types are all above.
        _ => {}
    }
}

impl<W: Write> Printer<'_, W> {
    /// One `<attribute>` element (ncdump's `pr_attx`).
    fn attx(&mut self, global: bool, att: &Attribute) {
        let indent: &[u8] = if global { b"" } else { b"  " };
        self.buf.extend_from_slice(indent);
        self.buf.extend_from_slice(b"  <attribute name=\"");
        self.buf.extend_from_slice(att.name.as_bytes());
        match &att.value {
            Values::Char(t) => {
                self.buf.extend_from_slice(b"\" value=");
                push_xml_text(&mut self.buf, t);
            }
            Values::String(s) => {
                // ncdump shows only the first string of a string attribute.
                self.buf.extend_from_slice(b"\" type=\"string\" value=");
                // (NcML is for the classic model, which has no strings: a
                // null is the empty text.)
                let first = s.first().and_then(Option::as_deref);
                let first = first.map_or(&[][..], str::as_bytes);
                push_xml_text(&mut self.buf, first);
            }
            v => {
                self.buf.extend_from_slice(b"\" type=\"");
                self.buf.extend_from_slice(v.dtype().cdl_name().as_bytes());
                self.buf.extend_from_slice(b"\" value=\"");
                let (fd, dd) = (self.float_digits(), self.double_digits());
                push_values(&mut self.buf, v, fd, dd);
                self.buf.push(b'"');
            }
        }
        self.buf.extend_from_slice(b" />\n");
    }
}

/// Prints the dataset as NcML.
pub(crate) fn dump_ncml<W: Write>(
    p: &mut Printer<'_, W>,
    path: &str,
    vars: &Option<Vec<VarId>>,
) -> Result<(), DumpError> {
    let schema = p.schema;
    p.buf.extend_from_slice(
        b"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<netcdf xmlns=\"https://www.unidata.ucar.edu/namespaces/netcdf/ncml-2.2\" location=\"",
    );
    p.buf.extend_from_slice(path.as_bytes());
    p.buf.extend_from_slice(b"\">\n");
    let root = schema.root();
    for &d in &root.dims {
        let dim = schema.dim(d);
        p.buf.extend_from_slice(b"  <dimension name=\"");
        p.buf.extend_from_slice(dim.name.as_bytes());
        p.buf.extend_from_slice(b"\" length=\"");
        // ncdump prints the length as a C int.
        push_i64(&mut p.buf, i64::from(dim.len as i32));
        if dim.unlimited {
            p.buf.extend_from_slice(b"\" isUnlimited=\"true\" />\n");
        } else {
            p.buf.extend_from_slice(b"\" />\n");
        }
    }
    for att in &root.attributes {
        p.attx(true, att);
    }
    for &v in &root.vars {
        let var = schema.var(v);
        p.buf.extend_from_slice(b"  <variable name=\"");
        p.buf.extend_from_slice(var.name.as_bytes());
        p.buf.push(b'"');
        if !var.dims.is_empty() {
            p.buf.extend_from_slice(b" shape=\"");
            for (i, &d) in var.dims.iter().enumerate() {
                if i > 0 {
                    p.buf.push(b' ');
                }
                p.buf.extend_from_slice(schema.dim(d).name.as_bytes());
            }
            p.buf.push(b'"');
        }
        let type_name = var.dtype.cdl_name().as_bytes();
        if var.attributes.is_empty() {
            let no_records = schema.is_record_var(v)
                && schema
                    .unlimited_dim()
                    .is_some_and(|u| schema.dim(u).len == 0);
            if p.opts.header_only
                || vars.as_ref().is_some_and(|l| !l.contains(&v))
                || (p.opts.coords_only && !p.is_coord_var(var.group, v))
                || no_records
            {
                p.buf.extend_from_slice(b" type=\"");
                p.buf.extend_from_slice(type_name);
                p.buf.extend_from_slice(b"\" />\n");
                continue;
            }
        }
        p.buf.extend_from_slice(b" type=\"");
        p.buf.extend_from_slice(type_name);
        p.buf.extend_from_slice(b"\">\n");
        for att in &var.attributes {
            p.attx(false, att);
        }
        p.buf.extend_from_slice(b"  </variable>\n");
        p.maybe_flush()?;
    }
    p.buf.extend_from_slice(b"</netcdf>\n");
    Ok(())
}
