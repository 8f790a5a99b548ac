//! The header: dimensions, variables, attributes, special attributes,
//! and the recursion through groups (ncdump's `do_ncdump_rec`).

use std::io::Write;

use nctk_model::{Attribute, DataType, DimId, Format, GroupId, Layout, Values, VarId};

use super::escape::{c_str, push_att_text, push_name, NIL};
use super::numbers::{push_g, push_g_f32, push_i64, push_u64, GStyle};
use super::{DumpError, Printer};

/// Default significant digits of float and double values.
pub(crate) const FLT_DIGITS: usize = 7;
/// Default significant digits of double values.
pub(crate) const DBL_DIGITS: usize = 15;

/// Variable names after which ncdump puts a blank before `:` in attributes.
fn is_keyword(name: &str) -> bool {
    matches!(
        name,
        "variables" | "dimensions" | "data" | "group" | "types"
    )
}

/// Appends attribute values as ncdump's `pr_att_valgs` does, with type
/// suffixes for the types CDL cannot infer; a type CDL has no notation for
/// comes back as the error.
pub(crate) fn push_att_values(
    out: &mut Vec<u8>,
    values: &Values,
    netcdf4: bool,
    float_digits: usize,
    double_digits: usize,
) -> Result<(), DataType> {
    fn list<T: Copy>(out: &mut Vec<u8>, v: &[T], mut f: impl FnMut(&mut Vec<u8>, T)) {
        for (i, &x) in v.iter().enumerate() {
            if i > 0 {
                out.extend_from_slice(b", ");
            }
            f(out, x);
        }
    }
    match values {
        _ if values.is_empty() => out.extend_from_slice(b"\"\""),
        Values::Char(t) => push_att_text(out, t, netcdf4),
        Values::Byte(v) => list(out, v, |o, x| {
            push_i64(o, x.into());
            o.push(b'b');
        }),
        Values::Short(v) => list(out, v, |o, x| {
            push_i64(o, x.into());
            o.push(b's');
        }),
        Values::Int(v) => list(out, v, |o, x| push_i64(o, x.into())),
        Values::Float(v) => list(out, v, |o, x| {
            if x.is_finite() {
                push_g_f32(o, x, float_digits, GStyle::KeepPoint);
                o.push(b'f');
            } else {
                push_special(o, f64::from(x), b"f");
            }
        }),
        Values::Double(v) => list(out, v, |o, x| {
            if x.is_finite() {
                push_g(o, x, double_digits, GStyle::KeepPoint);
            } else {
                push_special(o, x, b"");
            }
        }),
        Values::UByte(v) => list(out, v, |o, x| {
            push_u64(o, x.into());
            o.extend_from_slice(b"UB");
        }),
        Values::UShort(v) => list(out, v, |o, x| {
            push_u64(o, x.into());
            o.extend_from_slice(b"US");
        }),
        Values::UInt(v) => list(out, v, |o, x| {
            push_u64(o, x.into());
            o.push(b'U');
        }),
        Values::Int64(v) => list(out, v, |o, x| {
            push_i64(o, x);
            o.extend_from_slice(b"LL");
        }),
        Values::UInt64(v) => list(out, v, |o, x| {
            push_u64(o, x);
            o.extend_from_slice(b"ULL");
        }),
        Values::String(v) => {
            for (i, s) in v.iter().enumerate() {
                if i > 0 {
                    out.extend_from_slice(b", ");
                }
                match s {
                    Some(s) => push_att_text(out, c_str(s.as_bytes()), netcdf4),
                    None => out.extend_from_slice(NIL),
                }
            }
        }
        other => return Err(other.dtype()),
    }
    Ok(())
}

/// Appends `NaN`, `Infinity` or `-Infinity` with a type suffix.
pub(crate) fn push_special(out: &mut Vec<u8>, x: f64, suffix: &[u8]) {
    if x.is_nan() {
        out.extend_from_slice(b"NaN");
    } else {
        if x < 0.0 {
            out.push(b'-');
        }
        out.extend_from_slice(b"Infinity");
    }
    out.extend_from_slice(suffix);
}

impl<W: Write> Printer<'_, W> {
    /// Significant digits of float values.
    pub(crate) fn float_digits(&self) -> usize {
        self.opts.float_digits.unwrap_or(FLT_DIGITS)
    }

    /// Significant digits of double values.
    pub(crate) fn double_digits(&self) -> usize {
        self.opts.double_digits.unwrap_or(DBL_DIGITS)
    }

    /// Prints one group and, recursively, its subgroups.
    pub(crate) fn dump_group(
        &mut self,
        gid: GroupId,
        vars: &Option<Vec<VarId>>,
        groups: &Option<Vec<GroupId>>,
    ) -> Result<(), DumpError> {
        let schema = self.schema;
        let group = schema.group(gid);
        let is_root = group.parent.is_none();

        self.print_types(gid);
        if !group.dims.is_empty() {
            self.indent_out();
            self.buf.extend_from_slice(b"dimensions:\n");
        }
        for &d in &group.dims {
            let dim = schema.dim(d);
            self.indent_out();
            self.buf.push(b'\t');
            push_name(&mut self.buf, &dim.name);
            self.buf.extend_from_slice(b" = ");
            if dim.unlimited {
                self.buf.extend_from_slice(b"UNLIMITED ; // (");
                push_u64(&mut self.buf, dim.len);
                self.buf.extend_from_slice(b" currently)\n");
            } else {
                push_u64(&mut self.buf, dim.len);
                self.buf.extend_from_slice(b" ;\n");
            }
        }

        if !group.vars.is_empty() {
            self.indent_out();
            self.buf.extend_from_slice(b"variables:\n");
        }
        for &v in &group.vars {
            let var = schema.var(v);
            self.indent_out();
            self.buf.push(b'\t');
            self.push_type_name(gid, var.dtype);
            self.buf.push(b' ');
            push_name(&mut self.buf, &var.name);
            if !var.dims.is_empty() {
                self.buf.push(b'(');
                for (i, &d) in var.dims.iter().enumerate() {
                    if i > 0 {
                        self.buf.extend_from_slice(b", ");
                    }
                    self.push_dim_ref(gid, d);
                }
                self.buf.push(b')');
            }
            self.buf.extend_from_slice(b" ;\n");
            for att in &var.attributes {
                self.print_att(gid, Some(v), &var.name, att)?;
            }
            if self.opts.special {
                self.print_specials(v);
            }
        }

        // `_NCProperties` of a netCDF-4 root is hidden (shown with `-s`).
        let hide_props = is_root && self.netcdf4;
        let hidden = move |name: &str| hide_props && name == "_NCProperties";
        if group.attributes.iter().any(|a| !hidden(&a.name)) || self.opts.special {
            self.buf.push(b'\n');
            self.indent_out();
            if is_root {
                self.buf.extend_from_slice(b"// global attributes:\n");
            } else {
                self.buf.extend_from_slice(b"// group attributes:\n");
            }
        }
        for att in &group.attributes {
            if hidden(&att.name) {
                continue;
            }
            self.print_att(gid, None, "", att)?;
        }
        if is_root && self.opts.special {
            self.print_hidden_globals();
            self.indent_out();
            self.buf.extend_from_slice(b"\t\t:_Format = \"");
            self.buf
                .extend_from_slice(self.source.format().name().as_bytes());
            self.buf.extend_from_slice(b"\" ;\n");
        }
        self.maybe_flush()?;

        let group_wanted = groups.as_ref().is_none_or(|g| g.contains(&gid));
        if !self.opts.header_only && group_wanted {
            if !group.vars.is_empty() {
                self.indent_out();
                self.buf.extend_from_slice(b"data:\n");
            }
            for &v in &group.vars {
                if vars.as_ref().is_some_and(|l| !l.contains(&v)) {
                    continue;
                }
                if self.opts.coords_only && !self.is_coord_var(gid, v) {
                    continue;
                }
                if schema.shape(v).contains(&0) {
                    continue;
                }
                self.print_var_data(v)?;
            }
        }

        for &c in &group.groups {
            self.buf.push(b'\n');
            self.indent_out();
            self.buf.extend_from_slice(b"group: ");
            push_name(&mut self.buf, &schema.group(c).name);
            self.buf.extend_from_slice(b" {\n");
            self.indent += 2;
            self.dump_group(c, vars, groups)?;
            self.indent_out();
            self.buf.extend_from_slice(b"} // group ");
            push_name(&mut self.buf, &schema.group(c).name);
            self.buf.push(b'\n');
            self.indent = self.indent.saturating_sub(2);
        }
        Ok(())
    }

    /// A dimension name in a variable declaration: the simple name, or the
    /// absolute one (its group's path) when the simple name would find
    /// another dimension or none (a dimension of a sibling group).
    fn push_dim_ref(&mut self, gid: GroupId, d: DimId) {
        let schema = self.schema;
        let name = &schema.dim(d).name;
        if schema.dim_by_name(gid, name) != Some(d) {
            let path = schema.group_path(schema.dim(d).group);
            push_name(&mut self.buf, &path);
            if path != "/" {
                self.buf.push(b'/');
            }
        }
        push_name(&mut self.buf, name);
    }

    /// ncdump's `iscoordvar`: rank 1 and named like a dimension visible
    /// from the group.
    pub(crate) fn is_coord_var(&self, gid: GroupId, v: VarId) -> bool {
        let var = self.schema.var(v);
        var.dims.len() == 1 && self.schema.dim_by_name(gid, &var.name).is_some()
    }

    /// Prints one attribute line (ncdump's `pr_att`).
    fn print_att(
        &mut self,
        gid: GroupId,
        var: Option<VarId>,
        varname: &str,
        att: &Attribute,
    ) -> Result<(), DumpError> {
        self.indent_out();
        self.buf.extend_from_slice(b"\t\t");
        let user = att.dtype().is_user();
        if user || att.dtype() == DataType::String {
            self.push_type_name(gid, att.dtype());
            self.buf.push(b' ');
        }
        push_name(&mut self.buf, varname);
        if is_keyword(varname) {
            self.buf.push(b' ');
        }
        self.buf.push(b':');
        push_name(&mut self.buf, &att.name);
        self.buf.extend_from_slice(b" = ");
        let (fd, dd) = (self.float_digits(), self.double_digits());
        if user && !att.value.is_empty() {
            self.push_user_att_values(att)
                .map_err(|reason| DumpError::BadValue {
                    name: att.name.clone(),
                    reason,
                })?;
        } else {
            push_att_values(&mut self.buf, &att.value, self.netcdf4, fd, dd).map_err(|dtype| {
                DumpError::UnsupportedType {
                    name: att.name.clone(),
                    dtype,
                }
            })?;
        }
        self.buf.extend_from_slice(b" ;");
        if self.opts.times != super::TimeStrings::Off && !att.value.is_empty() {
            if let Some(v) = var {
                self.print_att_times(v, &att.value);
                if att.name == "bounds" {
                    self.note_bounds(v, &att.value);
                }
            }
        }
        self.buf.push(b'\n');
        Ok(())
    }

    /// Appends `indent\t\tvar:name = `.
    fn special_name(&mut self, varname: &str, att: &str) {
        self.indent_out();
        self.buf.extend_from_slice(b"\t\t");
        push_name(&mut self.buf, varname);
        self.buf.push(b':');
        self.buf.extend_from_slice(att.as_bytes());
        self.buf.extend_from_slice(b" = ");
    }

    /// The `-s` virtual attributes of a variable (ncdump's `pr_att_specials`).
    fn print_specials(&mut self, v: VarId) {
        if matches!(self.source.format(), Format::Classic | Format::Offset64) {
            return;
        }
        let var = self.schema.var(v);
        let st = &var.storage;
        let name = var.name.as_str();
        // HDF5 reports a scalar's storage too; a Zarr store does not.
        let hdf5 = self.source.file_facts().superblock_version.is_some();
        if !var.dims.is_empty() || hdf5 {
            match &st.layout {
                Layout::Chunked(sizes) => {
                    self.special_name(name, "_Storage");
                    self.buf.extend_from_slice(b"\"chunked\" ;\n");
                    self.special_name(name, "_ChunkSizes");
                    for (i, &c) in sizes.iter().enumerate() {
                        if i > 0 {
                            self.buf.extend_from_slice(b", ");
                        }
                        push_u64(&mut self.buf, c);
                    }
                    self.buf.extend_from_slice(b" ;\n");
                }
                Layout::Compact => {
                    self.special_name(name, "_Storage");
                    self.buf.extend_from_slice(b"\"compact\" ;\n");
                }
                Layout::Contiguous => {
                    self.special_name(name, "_Storage");
                    self.buf.extend_from_slice(b"\"contiguous\" ;\n");
                }
                // Storage not known (a schema not read from a file).
                Layout::Unset => {}
            }
        }
        if st.fletcher32 {
            self.special_name(name, "_Fletcher32");
            self.buf.extend_from_slice(b"\"true\" ;\n");
        }
        if st.shuffle {
            self.special_name(name, "_Shuffle");
            self.buf.extend_from_slice(b"\"true\" ;\n");
        }
        if let Some(level) = st.deflate_level {
            self.special_name(name, "_DeflateLevel");
            push_u64(&mut self.buf, level.into());
            self.buf.extend_from_slice(b" ;\n");
        }
        if let Some(f) = &st.filters {
            self.special_name(name, "_Filter");
            self.buf.push(b'"');
            self.buf.extend_from_slice(f.as_bytes());
            self.buf.extend_from_slice(b"\" ;\n");
        }
        if let Some(c) = &st.codecs {
            self.special_name(name, "_Codecs");
            self.buf.push(b'"');
            self.buf.extend_from_slice(c.as_bytes());
            self.buf.extend_from_slice(b"\" ;\n");
        }
        if var.dtype.size().is_some_and(|s| s > 1) {
            if let Some(e) = st.endianness {
                self.special_name(name, "_Endianness");
                self.buf.extend_from_slice(match e {
                    nctk_model::Endianness::Little => b"\"little\" ;\n",
                    nctk_model::Endianness::Big => b"\"big\" ;\n",
                });
            }
        }
        if st.no_fill {
            self.special_name(name, "_NoFill");
            self.buf.extend_from_slice(b"\"true\" ;\n");
        }
    }

    /// ncdump's hidden globals of a netCDF-4 source (`pr_att_hidden`):
    /// `_NCProperties` when the source exposes it as a global attribute
    /// (ncdump hides it from the attribute list and shows it only with
    /// `-s`), then `_SuperblockVersion` and `_IsNetcdf4`.
    ///
    /// For an HDF5 file (netCDF-4 or its classic model) the source's
    /// [`FileFacts`](nctk_model::FileFacts) give them; for a Zarr store netCDF-C (libnczarr) answers
    /// `_SuperblockVersion` with the `version=` of `_NCProperties` (0
    /// without one) and `_IsNetcdf4` with 1.
    fn print_hidden_globals(&mut self) {
        let facts = self.source.file_facts();
        if let Some(version) = facts.superblock_version {
            if let Some(p) = &facts.nc_properties {
                self.special_name("", "_NCProperties");
                self.buf.push(b'"');
                self.buf.extend_from_slice(p.as_bytes());
                self.buf.extend_from_slice(b"\" ;\n");
            }
            self.special_name("", "_SuperblockVersion");
            push_u64(&mut self.buf, version.into());
            self.buf.extend_from_slice(b" ;\n");
            self.special_name("", "_IsNetcdf4");
            self.buf
                .extend_from_slice(if facts.is_netcdf4 { b"1 ;\n" } else { b"0 ;\n" });
            return;
        }
        if !self.netcdf4 {
            return;
        }
        let root = self.schema.root();
        let mut superblock = 0;
        if let Some(a) = root.attributes.iter().find(|a| a.name == "_NCProperties") {
            if let Values::Char(t) = &a.value {
                self.special_name("", "_NCProperties");
                self.buf.push(b'"');
                self.buf.extend_from_slice(t);
                self.buf.extend_from_slice(b"\" ;\n");
                superblock = provenance_version(t);
            }
        }
        self.special_name("", "_SuperblockVersion");
        push_u64(&mut self.buf, superblock);
        self.buf.extend_from_slice(b" ;\n");
        self.special_name("", "_IsNetcdf4");
        self.buf.extend_from_slice(b"1 ;\n");
    }
}

/// The `version=N` of an `_NCProperties` text (`version=2,netcdf=4.9.0,...`),
/// 0 when absent or not a number.
fn provenance_version(text: &[u8]) -> u64 {
    String::from_utf8_lossy(text)
        .split(',')
        .find_map(|kv| kv.trim().strip_prefix("version="))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0)
}
