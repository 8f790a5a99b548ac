//! The writer: [`ClassicWriter`] creates, appends to and redefines classic files.
//!
//! Failure safety: a redefinition that must move data builds the new file
//! next to the old one (`<name>.nctk-redef-<pid>`), then renames it over the
//! old file, so a failure leaves the old file as it was. A redefinition that
//! moves nothing writes the added variables' fill values into space the old
//! header does not use, then the new header last. Conversion errors
//! (`NC_ERANGE`) are detected before anything is written.

use crate::error::{ClassicError, Result};
use crate::header::{encode_header, encoded_len, Header, HeaderDim, HeaderVar, NumRecs};
use crate::layout::{assign_begins, check_var_sizes, var_layouts, Align, FileLayout, OldBegins};
use crate::native::{is_native, native_to_be};
use crate::reader::{layout_of, pieces, read_header, schema_of};
use crate::Version;
use nctk_model::bytes::try_as_bytes;
use nctk_model::convert::{convert, vec_to_values};
use nctk_model::{
    name, Attribute, DataType, DimId, ModelError, NcValue, Schema, Selection, Values, VarId,
};
use nctk_store::bytes::{ByteSink, ByteSource, WriteBehind};
use std::sync::Arc;

/// Whether unwritten data is initialized with fill values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FillMode {
    /// Write fill values (`NC_FILL`, netCDF-C's default).
    #[default]
    Fill,
    /// Leave unwritten data as it happens to be (`NC_NOFILL`); the file is
    /// still extended to its full size on close.
    NoFill,
}

/// Bytes written per chunk when filling or converting.
const CHUNK: usize = 1 << 20;

struct Old {
    header: Header,
    layout: FileLayout,
}

/// A classic netCDF file open for writing.
///
/// Two ways to drive it:
///
/// * a generator with a whole schema: [`ClassicWriter::create_in_with_schema`]
///   then [`write`](Self::write) per variable, then [`close`](Self::close);
/// * incrementally: [`ClassicWriter::create_in`], then
///   [`add_dimension`](Self::add_dimension) /
///   [`add_unlimited_dimension`](Self::add_unlimited_dimension) /
///   [`add_variable`](Self::add_variable) /
///   [`put_attribute`](Self::put_attribute), [`end_define`](Self::end_define),
///   writes, and [`redefine`](Self::redefine) to go back to define mode.
///
/// Leaving define mode lays the file out with netCDF-C's rules, so the same
/// definitions and data give the same bytes as netCDF-C.
pub struct ClassicWriter {
    sink: Arc<dyn ByteSink>,
    name: String,
    fill: FillMode,
    align: Align,
    header: Header,
    schema: Schema,
    layout: Option<FileLayout>,
    numrecs: u64,
    define: bool,
    old: Option<Old>,
    /// Non-record variables whose fill values are not yet written.
    pending_fill: Vec<bool>,
    closed: bool,
    /// Made by `create*` (not `open*`): [`abort`](Self::abort) empties it.
    created: bool,
    /// The write-back started behind the data written, so that the sync
    /// of a large output at the end waits for little.
    behind: WriteBehind,
}

impl std::fmt::Debug for ClassicWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClassicWriter")
            .field("name", &self.name)
            .field("version", &self.header.version)
            .field("define", &self.define)
            .field("numrecs", &self.numrecs)
            .finish_non_exhaustive()
    }
}

impl ClassicWriter {
    /// Creates a file in `sink` (which is truncated), in define mode.
    pub fn create_in(
        sink: Arc<dyn ByteSink>,
        version: Version,
        fill: FillMode,
    ) -> Result<ClassicWriter> {
        sink.set_len(0)?;
        Ok(ClassicWriter {
            name: sink.name(),
            sink,
            fill,
            align: Align::default(),
            header: Header::empty(version),
            schema: Schema::new(),
            layout: None,
            numrecs: 0,
            define: true,
            old: None,
            pending_fill: vec![],
            closed: false,
            created: true,
            behind: WriteBehind::default(),
        })
    }

    /// Creates a file in `sink` with every definition of `schema` (root
    /// group only) and leaves define mode: ready for [`write`](Self::write).
    pub fn create_in_with_schema(
        sink: Arc<dyn ByteSink>,
        schema: &Schema,
        version: Version,
        fill: FillMode,
    ) -> Result<ClassicWriter> {
        let mut w = Self::create_in(sink, version, fill)?;
        w.define_schema(schema)?;
        w.end_define()?;
        Ok(w)
    }

    /// Opens an existing file held in `sink` to append data or to redefine
    /// it; starts in data mode. A redefinition that moves data builds the
    /// new file apart ([`ByteSink::replacement`]) and swaps it in whole, so
    /// an interrupted one leaves the old file intact.
    pub fn open_in(sink: Arc<dyn ByteSink>, fill: FillMode) -> Result<ClassicWriter> {
        let name = sink.name();
        let (decoded, file_len) = read_header(sink.as_ref())?;
        let layout = layout_of(&decoded, &name)?;
        let numrecs = match decoded.header.numrecs {
            NumRecs::Count(n) => n,
            NumRecs::Streaming => layout.records_in(file_len),
        };
        let schema = schema_of(&decoded.header, numrecs, &name, &decoded.var_offsets)?;
        let nvars = decoded.header.vars.len();
        Ok(ClassicWriter {
            name,
            sink,
            fill,
            align: Align::default(),
            header: decoded.header,
            schema,
            layout: Some(layout),
            numrecs,
            define: false,
            old: None,
            pending_fill: vec![false; nvars],
            closed: false,
            created: false,
            behind: WriteBehind::default(),
        })
    }

    /// Sets netCDF-C's `nc__enddef` alignment parameters used when leaving
    /// define mode (the default is `nc_enddef`'s).
    pub fn set_align(&mut self, align: Align) {
        self.align = align;
    }

    /// The format version.
    pub fn version(&self) -> Version {
        self.header.version
    }

    /// The current definitions (unlimited dimension at the current record count).
    pub fn schema(&self) -> &Schema {
        &self.schema
    }

    /// The current number of records.
    pub fn numrecs(&self) -> u64 {
        self.numrecs
    }

    /// True in define mode.
    pub fn in_define_mode(&self) -> bool {
        self.define
    }

    /// The layout of the file (offsets, sizes); `None` before the first `end_define`.
    pub fn layout(&self) -> Option<&FileLayout> {
        self.layout.as_ref()
    }

    fn define_err(&self, reason: impl Into<String>) -> ClassicError {
        ClassicError::Define {
            file: self.name.clone(),
            reason: reason.into(),
        }
    }

    fn need_define(&self) -> Result<()> {
        if self.define {
            Ok(())
        } else {
            Err(ClassicError::Mode {
                file: self.name.clone(),
                reason: "not in define mode (call redefine first)",
            })
        }
    }

    fn need_data(&self) -> Result<()> {
        if self.define {
            Err(ClassicError::Mode {
                file: self.name.clone(),
                reason: "in define mode (call end_define first)",
            })
        } else {
            Ok(())
        }
    }

    fn refresh_schema(&mut self) -> Result<()> {
        self.schema = schema_of(&self.header, self.numrecs, &self.name, &[])?;
        Ok(())
    }

    fn check_name(&self, n: &str) -> Result<String> {
        name::normalize(n).map_err(|e| self.define_err(e.to_string()))
    }

    /// Refuses `n` when `taken` already holds it (`NC_ENAMEINUSE`).
    fn check_unused<'a>(
        &self,
        what: &str,
        taken: impl Iterator<Item = &'a str>,
        n: &'a str,
    ) -> Result<()> {
        match name::first_duplicate(taken.chain([n])) {
            Some(d) => Err(self.define_err(format!(
                "{what}: {}",
                ModelError::DuplicateName(d.to_string())
            ))),
            None => Ok(()),
        }
    }

    /// Defines every dimension, variable and attribute of `schema`'s root
    /// group that is not yet defined, and sets every attribute. What is
    /// already defined must come first in `schema`, unchanged (a
    /// redefinition adds and changes, never removes: see
    /// [`nctk_model::redefinition_error`]). A schema that uses a name twice
    /// in one scope is refused.
    pub fn define_schema(&mut self, schema: &Schema) -> Result<()> {
        schema
            .writable()
            .map_err(|e| self.define_err(e.to_string()))?;
        if let Some(reason) = nctk_model::redefinition_error(&self.schema, schema) {
            return Err(self.define_err(reason));
        }
        let (old_dims, old_vars) = (self.header.dims.len(), self.header.vars.len());
        let mut dim_map = std::collections::HashMap::new();
        for (i, &d) in schema.root().dims.iter().enumerate() {
            let dim = schema.dim(d);
            let id = if i < old_dims {
                DimId(i as u32)
            } else if dim.unlimited {
                self.add_unlimited_dimension(&dim.name)?
            } else {
                self.add_dimension(&dim.name, dim.len)?
            };
            dim_map.insert(d, id);
        }
        for a in &schema.root().attributes {
            self.put_attribute(None, &a.name, a.value.clone())?;
        }
        for (i, &v) in schema.root().vars.iter().enumerate() {
            let var = schema.var(v);
            let dims: Vec<DimId> = var
                .dims
                .iter()
                .map(|d| {
                    dim_map.get(d).copied().ok_or_else(|| {
                        self.define_err(format!(
                            "variable {:?} uses a dimension outside the root group",
                            var.name
                        ))
                    })
                })
                .collect::<Result<_>>()?;
            let id = if i < old_vars {
                VarId(i as u32)
            } else {
                self.add_variable(&var.name, var.dtype, &dims)?
            };
            for a in &var.attributes {
                self.put_attribute(Some(id), &a.name, a.value.clone())?;
            }
        }
        if schema.group_ids().count() > 1 {
            return Err(self.define_err("classic files have no groups"));
        }
        Ok(())
    }

    /// Adds a fixed-length dimension (length at least 1).
    pub fn add_dimension(&mut self, name: &str, len: u64) -> Result<DimId> {
        if len == 0 {
            return Err(self.define_err(format!(
                "dimension {name:?}: a fixed dimension needs a length of at least 1"
            )));
        }
        let max = if self.header.version == Version::Cdf5 {
            i64::MAX as u64
        } else {
            u32::MAX as u64 - 3
        };
        if len > max {
            return Err(self.define_err(format!(
                "dimension {name:?}: length {len} is too large for {}",
                self.header.version
            )));
        }
        self.push_dim(name, len)
    }

    /// Adds the unlimited (record) dimension; a file has at most one.
    pub fn add_unlimited_dimension(&mut self, name: &str) -> Result<DimId> {
        if self.header.dims.iter().any(|d| d.len == 0) {
            return Err(self.define_err(format!(
                "dimension {name:?}: the file already has an unlimited dimension \
                 (netCDF-C: NC_UNLIMITED size already in use)"
            )));
        }
        self.push_dim(name, 0)
    }

    fn push_dim(&mut self, n: &str, len: u64) -> Result<DimId> {
        self.need_define()?;
        let n = self.check_name(n)?;
        self.check_unused(
            "dimension",
            self.header.dims.iter().map(|d| d.name.as_str()),
            &n,
        )?;
        self.header.dims.push(HeaderDim { name: n, len });
        self.refresh_schema()?;
        Ok(DimId(self.header.dims.len() as u32 - 1))
    }

    /// Adds a variable of `dtype` over `dims` (outermost first; only the
    /// first may be the unlimited dimension).
    pub fn add_variable(&mut self, n: &str, dtype: DataType, dims: &[DimId]) -> Result<VarId> {
        self.need_define()?;
        let n = self.check_name(n)?;
        if !self.header.version.supports(dtype) {
            return Err(ClassicError::TypeNotSupported {
                file: self.name.clone(),
                dtype,
                version: self.header.version,
            });
        }
        self.check_unused(
            "variable",
            self.header.vars.iter().map(|v| v.name.as_str()),
            &n,
        )?;
        for (i, d) in dims.iter().enumerate() {
            let Some(dim) = self.header.dims.get(d.0 as usize) else {
                return Err(self.define_err(format!(
                    "variable {n:?}: dimension id {} does not exist",
                    d.0
                )));
            };
            if dim.len == 0 && i != 0 {
                return Err(self.define_err(format!(
                    "variable {n:?}: the unlimited dimension must come first"
                )));
            }
        }
        self.header.vars.push(HeaderVar {
            name: n,
            dimids: dims.iter().map(|d| d.0 as u64).collect(),
            attrs: vec![],
            dtype,
            vsize: 0,
            begin: 0,
        });
        self.pending_fill.push(false);
        self.refresh_schema()?;
        Ok(VarId(self.header.vars.len() as u32 - 1))
    }

    /// Sets an attribute of `var`, or a global attribute when `var` is `None`
    /// (replacing one of the same name in place).
    pub fn put_attribute(&mut self, var: Option<VarId>, n: &str, value: Values) -> Result<()> {
        self.need_define()?;
        let n = self.check_name(n)?;
        if !self.header.version.supports(value.dtype()) {
            return Err(ClassicError::TypeNotSupported {
                file: self.name.clone(),
                dtype: value.dtype(),
                version: self.header.version,
            });
        }
        let list = match var {
            Some(v) => {
                if self.header.vars.get(v.0 as usize).is_none() {
                    return Err(self.define_err(format!("no variable with id {}", v.0)));
                }
                // netCDF-C's classic layer stores a _FillValue of another
                // type or length as it is (files written by netCDF-Java
                // have them, and nccopy, which writes without fill, copies
                // them unchanged); in fill mode `end_define` refuses them.
                &mut self.header.vars[v.0 as usize].attrs
            }
            None => &mut self.header.attrs,
        };
        let attr = Attribute::new(n, value);
        match list.iter_mut().find(|a| a.name == attr.name) {
            Some(slot) => *slot = attr,
            None => list.push(attr),
        }
        self.refresh_schema()
    }

    /// Goes back to define mode to add dimensions, variables or attributes.
    pub fn redefine(&mut self) -> Result<()> {
        self.need_data()?;
        self.fill_pending()?;
        let layout = self.layout.clone().expect("data mode has a layout");
        self.old = Some(Old {
            header: self.header.clone(),
            layout,
        });
        self.define = true;
        Ok(())
    }

    /// Leaves define mode: lays the file out as netCDF-C does, moves
    /// existing data when the header or the record size grew, writes fill
    /// values (in fill mode) and the header.
    pub fn end_define(&mut self) -> Result<()> {
        self.need_define()?;
        if self.fill == FillMode::Fill {
            // netCDF-C's fill_NC_var: NC_EBADTYPE at nc_enddef.
            for v in self.schema.var_ids() {
                self.schema
                    .check_fill_value(v)
                    .map_err(|e| self.define_err(format!("{e} (in fill mode)")))?;
            }
        }
        let version = self.header.version;
        let vars = var_layouts(&self.header).map_err(|(i, r)| {
            self.define_err(format!("variable {:?}: {r}", self.header.vars[i].name))
        })?;
        check_var_sizes(version, &vars).map_err(|i| ClassicError::VarSize {
            file: self.name.clone(),
            version,
            reason: format!(
                "variable {:?} exceeds the per-variable size limit, which only the last \
                 variable may (netCDF-C: One or more variable sizes violate format constraints)",
                self.header.vars[i].name
            ),
        })?;
        self.header.numrecs = NumRecs::Count(self.numrecs);
        let header_len = encoded_len(&self.header);
        let old_begins = self.old.as_ref().map(|o| OldBegins {
            begin_var: o.layout.begin_var,
            begin_rec: o.layout.begin_rec,
            fixed: o
                .layout
                .vars
                .iter()
                .filter(|v| !v.is_record)
                .map(|v| v.begin)
                .collect(),
            recs: o
                .layout
                .vars
                .iter()
                .filter(|v| v.is_record)
                .map(|v| v.begin)
                .collect(),
        });
        let layout = assign_begins(version, header_len, vars, self.align, old_begins.as_ref())
            .map_err(|(i, r)| ClassicError::VarSize {
                file: self.name.clone(),
                version,
                reason: format!("variable {:?}: {r}", self.header.vars[i].name),
            })?;
        for (hv, vl) in self.header.vars.iter_mut().zip(&layout.vars) {
            hv.begin = vl.begin;
            hv.vsize = if version == Version::Cdf5 {
                vl.len
            } else {
                vl.len.min(u32::MAX as u64)
            };
        }
        let header_bytes = encode_header(&self.header);
        match self.old.take() {
            None => {
                let fill = self.fill == FillMode::Fill;
                self.pending_fill = layout.vars.iter().map(|v| fill && !v.is_record).collect();
                self.sink.write_at(0, &header_bytes)?;
            }
            Some(old) => self.finish_redefinition(&old, &layout, &header_bytes)?,
        }
        self.layout = Some(layout);
        self.define = false;
        self.refresh_schema()
    }

    fn finish_redefinition(
        &mut self,
        old: &Old,
        layout: &FileLayout,
        header_bytes: &[u8],
    ) -> Result<()> {
        let n_old = old.header.vars.len();
        let moved = layout.recsize != old.layout.recsize
            || old
                .layout
                .vars
                .iter()
                .zip(&layout.vars)
                .any(|(o, n)| o.begin != n.begin);
        let fill = self.fill == FillMode::Fill;
        if !moved {
            if fill {
                self.fill_added(&*self.sink.clone(), layout, n_old)?;
            }
            self.sink.write_at(0, header_bytes)?;
            return Ok(());
        }
        // Build the new file apart, then swap it in.
        let replacement = self.sink.replacement()?;
        self.build_moved(replacement.sink(), old, layout, header_bytes)?;
        self.sink = replacement.commit(self.sink.clone())?;
        Ok(())
    }

    /// Writes the moved file into `t`: header, old data at new places (as
    /// netCDF-C's `move_vars_r`/`move_recs_r` copy it), fill for added variables.
    fn build_moved(
        &self,
        t: &dyn ByteSink,
        old: &Old,
        layout: &FileLayout,
        header_bytes: &[u8],
    ) -> Result<()> {
        t.write_at(0, header_bytes)?;
        let src = &*self.sink;
        let mut buf = Vec::new();
        let mut copy = |from: u64, to: u64, len: u64| -> Result<()> {
            let mut done = 0;
            while done < len {
                let n = (len - done).min(CHUNK as u64) as usize;
                buf.resize(n, 0);
                let got = src.read_full(from + done, &mut buf)?;
                buf[got..].fill(0);
                t.write_at(to + done, &buf)?;
                done += n as u64;
            }
            Ok(())
        };
        for (o, n) in old.layout.vars.iter().zip(&layout.vars).rev() {
            if !o.is_record {
                copy(o.begin, n.begin, o.len)?;
            }
        }
        for r in (0..self.numrecs).rev() {
            for (o, n) in old.layout.vars.iter().zip(&layout.vars).rev() {
                if o.is_record {
                    copy(
                        o.begin + r * old.layout.recsize,
                        n.begin + r * layout.recsize,
                        o.len,
                    )?;
                }
            }
        }
        if self.fill == FillMode::Fill {
            self.fill_added(t, layout, old.header.vars.len())?;
        }
        Ok(())
    }

    /// Fills variables added by a redefinition (netCDF-C's `fill_added` and
    /// `fill_added_recs`).
    fn fill_added(&self, t: &dyn ByteSink, layout: &FileLayout, n_old: usize) -> Result<()> {
        let nrec = layout.vars.iter().filter(|v| v.is_record).count();
        for (i, v) in layout.vars.iter().enumerate().skip(n_old) {
            let pat = self.fill_pattern(i);
            if !v.is_record {
                fill_region(t, v.begin, v.len, &pat)?;
            } else {
                let size = if nrec == 1 { layout.recsize } else { v.len };
                for r in 0..self.numrecs {
                    fill_region(t, v.begin + r * layout.recsize, size, &pat)?;
                }
            }
        }
        Ok(())
    }

    fn fill_pattern(&self, var: usize) -> Vec<u8> {
        let v = &self.header.vars[var];
        v.attrs
            .iter()
            .find(|a| a.name == "_FillValue" && a.value.dtype() == v.dtype && a.value.len() == 1)
            .map_or_else(|| v.dtype.default_fill(), |a| a.value.clone())
            .to_bytes(true)
    }

    fn fill_pending(&mut self) -> Result<()> {
        let Some(layout) = &self.layout else {
            return Ok(());
        };
        for i in 0..self.pending_fill.len() {
            if self.pending_fill[i] {
                let v = &layout.vars[i];
                fill_region(&*self.sink, v.begin, v.len, &self.fill_pattern(i))?;
                self.pending_fill[i] = false;
            }
        }
        Ok(())
    }

    fn check_var(&self, var: VarId) -> Result<()> {
        if (var.0 as usize) < self.header.vars.len() {
            Ok(())
        } else {
            Err(self.define_err(format!("no variable with id {}", var.0)))
        }
    }

    fn data_err(&self, var: VarId, source: nctk_model::ModelError) -> ClassicError {
        ClassicError::Data {
            file: self.name.clone(),
            var: self.header.vars[var.0 as usize].name.clone(),
            source,
        }
    }

    /// Writes `values` (converted to the variable's type with netCDF's
    /// rules; `NC_ERANGE` before anything is written) to the selection.
    /// Writing past the last record of a record variable adds records.
    pub fn write(&mut self, var: VarId, selection: &Selection, values: &Values) -> Result<()> {
        self.check_var(var)?;
        let dtype = self.header.vars[var.0 as usize].dtype;
        let v = convert(values, dtype).map_err(|e| self.data_err(var, e))?;
        let bytes = v.to_bytes(true);
        self.write_raw(var, selection, &bytes, v.len() as u64, false)
    }

    /// Writes a typed slice (converted with netCDF's rules when `T` is not
    /// the variable's own type; a same-type slice is byte-swapped in chunks
    /// without building a `Values`).
    pub fn write_from<T: NcValue>(
        &mut self,
        var: VarId,
        selection: &Selection,
        data: &[T],
    ) -> Result<()> {
        self.check_var(var)?;
        let dtype = self.header.vars[var.0 as usize].dtype;
        if let Some(bytes) = try_as_bytes(data).filter(|_| is_native::<T>(dtype)) {
            return self.write_raw(var, selection, bytes, data.len() as u64, true);
        }
        let v = vec_to_values(data, dtype).map_err(|e| self.data_err(var, e))?;
        let bytes = v.to_bytes(true);
        self.write_raw(var, selection, &bytes, v.len() as u64, false)
    }

    /// Writes `bytes` (big-endian, or native order when `native`) holding `n`
    /// values of the variable's type to the selection.
    fn write_raw(
        &mut self,
        var: VarId,
        selection: &Selection,
        bytes: &[u8],
        n: u64,
        native: bool,
    ) -> Result<()> {
        self.need_data()?;
        let i = var.0 as usize;
        let layout = self.layout.as_ref().expect("data mode has a layout");
        let vl = layout.vars[i].clone();
        let recsize = layout.recsize;
        let mut shape = self.schema.shape(var);
        selection
            .check(&shape, vl.is_record)
            .map_err(|e| self.data_err(var, e))?;
        let count = selection.num_elements().unwrap_or(u64::MAX);
        if count != n {
            return Err(self.data_err(
                var,
                nctk_model::ModelError::Selection(format!(
                    "{n} values given for a selection of {count}"
                )),
            ));
        }
        if count == 0 {
            return Ok(());
        }
        if vl.is_record {
            let end = selection.start[0] + (selection.count[0] - 1) * selection.stride[0] + 1;
            if end > self.numrecs {
                self.add_records(end)?;
            }
            shape[0] = shape[0].max(end);
        } else if self.pending_fill[i] {
            let whole = selection == &Selection::all(&shape);
            if whole {
                // Only the padding after the data needs its fill.
                let pat = self.fill_pattern(i);
                let pad_at = vl.begin + vl.data_len();
                let pad = vl.len - vl.data_len();
                if pad > 0 {
                    let mut p = Vec::with_capacity(pad as usize);
                    let skip = (vl.data_len() % pat.len() as u64) as usize;
                    p.extend(pat.iter().cycle().skip(skip).take(pad as usize));
                    self.sink.write_at(pad_at, &p)?;
                }
            } else {
                fill_region(&*self.sink, vl.begin, vl.len, &self.fill_pattern(i))?;
            }
            self.pending_fill[i] = false;
        }
        let size = vl.xsz as usize;
        let mut pos = 0usize;
        let mut buf = Vec::new();
        let mut end = 0;
        for (off, len) in pieces(&vl, recsize, &shape, selection) {
            end = end.max(off + len);
            let len = len as usize;
            if !native || size == 1 || cfg!(target_endian = "big") {
                self.sink.write_at(off, &bytes[pos..pos + len])?;
            } else {
                let mut done = 0;
                while done < len {
                    let k = (len - done).min(CHUNK);
                    buf.clear();
                    buf.extend_from_slice(&bytes[pos + done..pos + done + k]);
                    native_to_be(&mut buf, size);
                    self.sink.write_at(off + done as u64, &buf)?;
                    done += k;
                }
            }
            pos += len;
        }
        Ok(self.behind.written(&*self.sink, end)?)
    }

    /// Grows the file to `numrecs` records, filling them in fill mode as
    /// netCDF-C's `NCvnrecs` does.
    fn add_records(&mut self, numrecs: u64) -> Result<()> {
        let layout = self.layout.as_ref().expect("data mode has a layout");
        if self.fill == FillMode::Fill {
            let recs: Vec<usize> = (0..layout.vars.len())
                .filter(|&i| layout.vars[i].is_record)
                .collect();
            for r in self.numrecs..numrecs {
                for &i in &recs {
                    let v = &layout.vars[i];
                    let size = if recs.len() == 1 {
                        layout.recsize
                    } else {
                        v.len
                    };
                    fill_region(
                        &*self.sink,
                        v.begin + r * layout.recsize,
                        size,
                        &self.fill_pattern(i),
                    )?;
                }
            }
        }
        self.numrecs = numrecs;
        if let Some(d) = self.schema.unlimited_dim() {
            self.schema.dim_mut(d).len = numrecs;
        }
        Ok(())
    }

    /// Writes the record count into the header and flushes (`nc_sync`).
    pub fn sync(&mut self) -> Result<()> {
        if self.define {
            return Ok(());
        }
        self.fill_pending()?;
        self.write_numrecs()?;
        self.sink.flush()?;
        Ok(())
    }

    fn write_numrecs(&mut self) -> Result<()> {
        self.header.numrecs = NumRecs::Count(self.numrecs);
        let bytes = if self.header.version == Version::Cdf5 {
            self.numrecs.to_be_bytes().to_vec()
        } else {
            (self.numrecs as u32).to_be_bytes().to_vec()
        };
        self.sink.write_at(4, &bytes)?;
        Ok(())
    }

    /// Finishes the file: leaves define mode if needed, writes pending fill
    /// values and the record count, extends the file to the size its header
    /// implies (as netCDF-C does in no-fill mode), and flushes.
    pub fn close(mut self) -> Result<()> {
        self.finish()
    }

    /// Stops without finishing: nothing more is written (no record count,
    /// no padding). A file this writer created is emptied, so it does not
    /// open as a dataset; data already written to a file opened with
    /// [`open_in`](Self::open_in) stays (a classic file cannot be rolled back in
    /// place: write a copy under a temporary name for that).
    pub fn abort(mut self) -> Result<()> {
        self.closed = true;
        if self.created {
            self.sink.set_len(0)?;
            self.sink.flush()?;
        }
        Ok(())
    }

    fn finish(&mut self) -> Result<()> {
        if self.closed {
            return Ok(());
        }
        self.closed = true;
        if self.define {
            self.end_define()?;
        }
        self.fill_pending()?;
        self.write_numrecs()?;
        if let Some(layout) = &self.layout {
            let want = layout.implied_len(self.numrecs);
            if self.sink.len()? < want {
                self.sink.set_len(want)?;
            }
        }
        self.sink.flush()?;
        Ok(())
    }
}

impl Drop for ClassicWriter {
    fn drop(&mut self) {
        let _ = self.finish();
    }
}

/// Writes `len` bytes of the repeated `pattern` at `offset`.
fn fill_region(t: &dyn ByteSink, offset: u64, len: u64, pattern: &[u8]) -> Result<()> {
    if len == 0 {
        return Ok(());
    }
    let unit = pattern.len().max(1);
    let chunk_len = (CHUNK / unit * unit).min(len as usize);
    let buf: Vec<u8> = pattern.iter().copied().cycle().take(chunk_len).collect();
    let mut done = 0u64;
    while done < len {
        let n = (len - done).min(buf.len() as u64) as usize;
        t.write_at(offset + done, &buf[..n])?;
        done += n as u64;
    }
    Ok(())
}
