//! The reader: [`ClassicReader`] implements [`DataSource`] and a typed fast path.

use crate::error::{ClassicError, Result};
use crate::header::{decode_header, DecodeError, Decoded, Header, NumRecs, Tolerated};
use crate::layout::{check_offsets, check_var_sizes, var_layouts, FileLayout};
use crate::native::{be_to_native, is_native};
use crate::Version;
use nctk_model::bytes::try_as_bytes_mut;
use nctk_model::convert::values_to_vec;
use nctk_model::{
    DataSource, DataType, Endianness, GroupId, Layout, NcValue, Schema, Selection, SourceError,
    Values, VarId, VarStorage,
};
use nctk_store::bytes::{ByteSource, MemSource};
use rayon::prelude::*;
use std::sync::Arc;

/// Reads of more bytes than this are read in parts on several threads
/// ([`ClassicReader::read_swapped`]).
const PARALLEL_BYTES: u64 = 16 << 20;

/// The bytes each thread reads at a time in a read made in parts.
const PART_BYTES: u64 = 8 << 20;

/// The most ranges handed to the source in one batch.
const BATCH_RANGES: usize = 4096;

/// A classic netCDF file open for reading.
///
/// Shared by threads as `&ClassicReader` or `Arc<ClassicReader>`: reads are
/// positioned, with no lock. Use [`DataSource::read`] for values in the
/// variable's own type, [`ClassicReader::read_into`] for a typed buffer
/// (the fast path: a contiguous selection is one read straight into the
/// buffer; the runs of any other go to the source in batches, each run
/// read into its place in the buffer unless the source merges it with
/// near ones).
pub struct ClassicReader {
    source: Arc<dyn ByteSource>,
    name: String,
    header: Header,
    layout: FileLayout,
    numrecs: u64,
    schema: Schema,
    /// Per variable: one fill value, encoded big-endian.
    fills: Vec<Vec<u8>>,
    tolerated: Vec<Tolerated>,
    file_len: u64,
}

impl std::fmt::Debug for ClassicReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClassicReader")
            .field("name", &self.name)
            .field("version", &self.header.version)
            .field("numrecs", &self.numrecs)
            .finish_non_exhaustive()
    }
}

/// Reads and decodes the header of `source`, asking for more bytes as the
/// decoder needs them.
pub(crate) fn read_header(source: &dyn ByteSource) -> Result<(Decoded, u64)> {
    let file_len = source.len()?;
    let mut want = file_len.min(8192);
    loop {
        let buf = source.read_range(0..want)?;
        let short = (buf.len() as u64) < want;
        match decode_header(&buf, file_len) {
            Ok(d) => return Ok((d, file_len)),
            Err(DecodeError::NeedMore { len }) if !short && len <= file_len => {
                want = len.max(want.saturating_mul(2)).min(file_len);
            }
            Err(DecodeError::NeedMore { len }) => {
                return Err(ClassicError::Header {
                    file: source.name(),
                    offset: buf.len() as u64,
                    reason: format!(
                        "header needs {len} bytes but the data ends at byte {}",
                        buf.len()
                    ),
                })
            }
            Err(DecodeError::Invalid { offset, reason }) => {
                return Err(ClassicError::Header {
                    file: source.name(),
                    offset,
                    reason,
                })
            }
        }
    }
}

/// Builds the model schema of a header with `numrecs` records.
pub(crate) fn schema_of(
    header: &Header,
    numrecs: u64,
    file: &str,
    var_offsets: &[u64],
) -> Result<Schema> {
    let mut schema = Schema::new();
    let root = GroupId::ROOT;
    let mut seen_unlimited = false;
    let bad = |offset: u64, reason: String| ClassicError::Header {
        file: file.to_string(),
        offset,
        reason,
    };
    for d in &header.dims {
        let unlimited = d.len == 0 && !seen_unlimited;
        seen_unlimited |= d.len == 0;
        let len = if d.len == 0 { numrecs } else { d.len };
        schema
            .add_dim(root, &d.name, len, unlimited)
            .map_err(|e| bad(8, format!("dimension {:?}: {e}", d.name)))?;
    }
    for a in &header.attrs {
        schema
            .add_attr(root, None, a.clone())
            .map_err(|e| bad(8, format!("global attribute {:?}: {e}", a.name)))?;
    }
    for (i, v) in header.vars.iter().enumerate() {
        let dims: Vec<nctk_model::DimId> = v
            .dimids
            .iter()
            .map(|&d| nctk_model::DimId(d as u32))
            .collect();
        let at = var_offsets.get(i).copied().unwrap_or(0);
        let id = schema
            .add_var(root, &v.name, v.dtype, &dims)
            .map_err(|e| bad(at, format!("variable {:?}: {e}", v.name)))?;
        for a in &v.attrs {
            schema.add_attr(root, Some(id), a.clone()).map_err(|e| {
                bad(
                    at,
                    format!("attribute {:?} of variable {:?}: {e}", a.name, v.name),
                )
            })?;
        }
        schema.var_mut(id).storage = VarStorage {
            layout: Layout::Contiguous,
            endianness: Some(Endianness::Big),
            ..VarStorage::default()
        };
    }
    Ok(schema)
}

/// Validates the header's shapes, sizes (netCDF-C's `NC_check_vlens`, as
/// netCDF-C checks them on open) and offsets and computes the layout.
pub(crate) fn layout_of(d: &Decoded, file: &str) -> Result<FileLayout> {
    let at = |i: usize| d.var_offsets.get(i).copied().unwrap_or(0);
    let vars = var_layouts(&d.header).map_err(|(i, reason)| ClassicError::Header {
        file: file.to_string(),
        offset: at(i),
        reason: format!("variable {:?}: {reason}", d.header.vars[i].name),
    })?;
    check_var_sizes(d.header.version, &vars).map_err(|i| ClassicError::Header {
        file: file.to_string(),
        offset: at(i),
        reason: format!(
            "variable {:?} exceeds the {} per-variable size limit, which only the last \
             variable may (netCDF-C: One or more variable sizes violate format constraints)",
            d.header.vars[i].name, d.header.version
        ),
    })?;
    check_offsets(d.len, vars).map_err(|(i, reason)| ClassicError::Header {
        file: file.to_string(),
        offset: at(i),
        reason: format!("variable {:?}: {reason}", d.header.vars[i].name),
    })
}

impl ClassicReader {
    /// Opens a file held in memory.
    pub fn from_bytes(bytes: impl Into<bytes::Bytes>) -> Result<ClassicReader> {
        Self::from_source(Arc::new(MemSource::new(bytes.into())))
    }

    /// Opens a file from any byte source.
    pub fn from_source(source: Arc<dyn ByteSource>) -> Result<ClassicReader> {
        let name = source.name();
        let (decoded, file_len) = read_header(source.as_ref())?;
        let layout = layout_of(&decoded, &name)?;
        let numrecs = match decoded.header.numrecs {
            NumRecs::Count(n) => n,
            NumRecs::Streaming => layout.records_in(file_len),
        };
        let schema = schema_of(&decoded.header, numrecs, &name, &decoded.var_offsets)?;
        let fills = schema
            .var_ids()
            .map(|v| schema.fill_value(v).to_bytes(true))
            .collect();
        Ok(ClassicReader {
            source,
            name,
            header: decoded.header,
            layout,
            numrecs,
            schema,
            fills,
            tolerated: decoded.tolerated,
            file_len,
        })
    }

    /// The format version.
    pub fn version(&self) -> Version {
        self.header.version
    }

    /// The decoded header, as stored.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The data layout (offsets, sizes, record size).
    pub fn layout(&self) -> &FileLayout {
        &self.layout
    }

    /// The number of records (counted from the file length for `STREAMING`).
    pub fn numrecs(&self) -> u64 {
        self.numrecs
    }

    /// Header oddities that were tolerated, with their byte offsets.
    pub fn tolerated(&self) -> &[Tolerated] {
        &self.tolerated
    }

    /// When the file is shorter than its header implies, the byte offset
    /// where its data stops (the file's length): values from there on read
    /// as the fill value.
    pub fn data_ends_at(&self) -> Option<u64> {
        (self.file_len < self.layout.implied_len(self.numrecs)).then_some(self.file_len)
    }

    /// The byte source.
    pub fn source(&self) -> &Arc<dyn ByteSource> {
        &self.source
    }

    fn data_err(&self, var: VarId, source: nctk_model::ModelError) -> ClassicError {
        ClassicError::Data {
            file: self.name.clone(),
            var: self.schema.var(var).name.clone(),
            source,
        }
    }

    fn check_var(&self, var: VarId) -> Result<()> {
        if (var.0 as usize) < self.layout.vars.len() {
            Ok(())
        } else {
            Err(ClassicError::Define {
                file: self.name.clone(),
                reason: format!("no variable with id {}", var.0),
            })
        }
    }

    /// Reads the selected values of `var` as their big-endian on-disk bytes
    /// into `out` (exactly `n * type size` bytes). Values beyond the end of
    /// the file read as the fill value.
    pub fn read_raw(&self, var: VarId, selection: &Selection, out: &mut [u8]) -> Result<()> {
        self.check_var(var)?;
        let shape = self.schema.shape(var);
        selection
            .check(&shape, false)
            .map_err(|e| self.data_err(var, e))?;
        let vl = &self.layout.vars[var.0 as usize];
        let n = selection.num_elements().unwrap_or(0);
        if out.len() as u64 != n * vl.xsz {
            return Err(self.data_err(
                var,
                nctk_model::ModelError::Selection(format!(
                    "buffer holds {} bytes but the selection needs {}",
                    out.len(),
                    n * vl.xsz
                )),
            ));
        }
        let pieces = pieces(vl, self.layout.recsize, &shape, selection);
        self.read_pieces(&pieces, out, &self.fills[var.0 as usize])
    }

    /// Reads bytes `start..start + out.len()` of `var`'s data stream (its
    /// elements in row-major order over all records, big-endian, with no
    /// padding) into `out`; bytes past the end of the file read as the
    /// fill value. This is the stream a block-compressed file cuts into
    /// blocks.
    pub fn read_stream(&self, var: VarId, start: u64, out: &mut [u8]) -> Result<()> {
        self.check_var(var)?;
        let vl = &self.layout.vars[var.0 as usize];
        let pieces = vl.stream_pieces(self.layout.recsize, start, out.len() as u64);
        self.read_pieces(&pieces, out, &self.fills[var.0 as usize])
    }

    /// Reads `pieces` (file offset and length, in output order) into
    /// `out`, one after another; bytes past the end of the file read as
    /// `fill`. A single piece is read straight into `out`; several go to
    /// the source in batches of at most its
    /// [`batch_bytes`](ByteSource::batch_bytes) and [`BATCH_RANGES`], and
    /// the source decides which to merge.
    fn read_pieces(&self, pieces: &[(u64, u64)], out: &mut [u8], fill: &[u8]) -> Result<()> {
        if let [(off, _)] = pieces {
            let got = self.source.read_full(*off, out)?;
            fill_tail(out, got, fill);
            return Ok(());
        }
        let batch_bytes = self.source.batch_bytes();
        let mut rest = out;
        let mut i = 0;
        while i < pieces.len() {
            let mut reads: Vec<(u64, &mut [u8])> = Vec::new();
            let mut bytes = 0u64;
            while i < pieces.len() && reads.len() < BATCH_RANGES && bytes < batch_bytes {
                let (off, len) = pieces[i];
                let (dst, tail) = std::mem::take(&mut rest).split_at_mut(len as usize);
                reads.push((off, dst));
                rest = tail;
                bytes += len;
                i += 1;
            }
            let got = self.source.read_ranges_into(&mut reads)?;
            for ((_, dst), n) in reads.iter_mut().zip(got) {
                fill_tail(dst, n, fill);
            }
        }
        Ok(())
    }

    /// Reads the selected values of `var` into `out`, converting to `T` with
    /// netCDF's rules (`NC_ERANGE` for values that do not fit). When `T` is
    /// the variable's own type this reads straight into `out` and swaps
    /// bytes in place.
    pub fn read_into<T: NcValue>(
        &self,
        var: VarId,
        selection: &Selection,
        out: &mut [T],
    ) -> Result<()> {
        self.check_var(var)?;
        let dtype = self.layout.vars[var.0 as usize].dtype;
        let n = selection.num_elements().unwrap_or(u64::MAX);
        if out.len() as u64 != n {
            return Err(self.data_err(
                var,
                nctk_model::ModelError::Selection(format!(
                    "buffer holds {} values but the selection selects {n}",
                    out.len()
                )),
            ));
        }
        if let Some(bytes) = try_as_bytes_mut(out).filter(|_| is_native::<T>(dtype)) {
            return self.read_swapped(var, selection, bytes, dtype.size().unwrap_or(1));
        }
        let values = self.read_values(var, selection)?;
        let v = values_to_vec::<T>(values).map_err(|e| self.data_err(var, e))?;
        out.copy_from_slice(&v);
        Ok(())
    }

    /// Reads the selection's bytes into `bytes` and puts its values of
    /// `size` bytes in this machine's byte order. A selection of more than
    /// [`PARALLEL_BYTES`] and more than one index along its first dimension
    /// is read in parts of about [`PART_BYTES`] on rayon's threads, each
    /// part read and swapped by one thread while its bytes are in cache.
    fn read_swapped(
        &self,
        var: VarId,
        selection: &Selection,
        bytes: &mut [u8],
        size: usize,
    ) -> Result<()> {
        let rows = selection.count.first().copied().unwrap_or(1);
        let row_bytes = bytes.len() as u64 / rows.max(1);
        if (bytes.len() as u64) < PARALLEL_BYTES || rows < 2 || row_bytes == 0 {
            self.read_raw(var, selection, bytes)?;
            be_to_native(bytes, size);
            return Ok(());
        }
        let per_part = (PART_BYTES / row_bytes).max(1);
        bytes
            .par_chunks_mut((per_part * row_bytes) as usize)
            .enumerate()
            .try_for_each(|(i, part)| {
                let mut sub = selection.clone();
                sub.start[0] += i as u64 * per_part * sub.stride[0];
                sub.count[0] = part.len() as u64 / row_bytes;
                self.read_raw(var, &sub, part)?;
                be_to_native(part, size);
                Ok(())
            })
    }

    /// Reads the selected values of `var` into a new vector of `T`.
    pub fn read_vec<T: NcValue>(&self, var: VarId, selection: &Selection) -> Result<Vec<T>> {
        self.check_var(var)?;
        let n = selection.num_elements().unwrap_or(u64::MAX);
        let shape = self.schema.shape(var);
        selection
            .check(&shape, false)
            .map_err(|e| self.data_err(var, e))?;
        let dtype = self.layout.vars[var.0 as usize].dtype;
        if !is_native::<T>(dtype) {
            let values = self.read_values(var, selection)?;
            return values_to_vec::<T>(values).map_err(|e| self.data_err(var, e));
        }
        let mut out = Vec::with_capacity(n as usize);
        let zero = T::from_num(nctk_model::convert::Num::Int(0)).expect("0 fits every type");
        out.resize(n as usize, zero);
        self.read_into(var, selection, &mut out)?;
        Ok(out)
    }

    /// Reads the selected values of `var` in its own type.
    pub fn read_values(&self, var: VarId, selection: &Selection) -> Result<Values> {
        let n = self.selected(var, selection)?;
        let mut out = self.zeroed(var, n)?;
        self.fill(var, selection, n, &mut out)?;
        Ok(out)
    }

    /// The number of values `selection` selects of `var`, once both are
    /// checked.
    fn selected(&self, var: VarId, selection: &Selection) -> Result<usize> {
        self.check_var(var)?;
        selection
            .check(&self.schema.shape(var), false)
            .map_err(|e| self.data_err(var, e))?;
        let xsz = self.layout.vars[var.0 as usize].xsz;
        selection
            .num_elements()
            .filter(|n| n.checked_mul(xsz).is_some())
            .and_then(|n| usize::try_from(n).ok())
            .ok_or_else(|| {
                self.data_err(
                    var,
                    nctk_model::ModelError::Selection("selection too large".into()),
                )
            })
    }

    /// `n` zero values of `var`'s type, in memory allocated for a read
    /// straight into it ([`nctk_codec::buffer::zeroed_values`]).
    fn zeroed(&self, var: VarId, n: usize) -> Result<Values> {
        nctk_codec::buffer::zeroed_values(self.dtype(var), n).ok_or_else(|| {
            self.data_err(
                var,
                nctk_model::ModelError::Selection(format!("no memory for {n} values")),
            )
        })
    }

    /// Reads the `n` values `selection` selects of `var` into `out` (of the
    /// variable's type, resized to them): the file's bytes land in the
    /// vector and are put in this machine's byte order where they lie.
    fn fill(&self, var: VarId, selection: &Selection, n: usize, out: &mut Values) -> Result<()> {
        nctk_model::with_fixed_values!(out, v => {
            v.resize(n, Default::default());
            self.read_into(var, selection, &mut v[..])
        }, other => Err(self.data_err(
            var,
            nctk_model::ModelError::Selection(format!(
                "{} values are not a classic type",
                other.dtype()
            )),
        )))
    }

    /// The variable's type.
    pub fn dtype(&self, var: VarId) -> DataType {
        self.schema.var(var).dtype
    }
}

/// Fills `dst[got..]` with the fill pattern, starting at the element that
/// contains byte `got` (a partially read element reads as fill).
fn fill_tail(dst: &mut [u8], got: usize, fill: &[u8]) {
    if got >= dst.len() {
        return;
    }
    let size = fill.len().max(1);
    let start = got / size * size;
    for c in dst[start..].chunks_mut(size) {
        c.copy_from_slice(&fill[..c.len()]);
    }
}

/// The file pieces `(offset, len)` that hold a selection, in output order,
/// with pieces adjacent in the file merged.
pub(crate) fn pieces(
    vl: &crate::layout::VarLayout,
    recsize: u64,
    shape: &[u64],
    selection: &Selection,
) -> Vec<(u64, u64)> {
    let mut out: Vec<(u64, u64)> = Vec::new();
    let mut push = |off: u64, len: u64| {
        if len == 0 {
            return;
        }
        if let Some(last) = out.last_mut() {
            if last.0 + last.1 == off {
                last.1 += len;
                return;
            }
        }
        out.push((off, len));
    };
    let xsz = vl.xsz;
    for (start, len) in selection.runs(shape) {
        if !vl.is_record {
            push(vl.begin + start * xsz, len * xsz);
            continue;
        }
        let per = vl.elems.max(1);
        let (mut s, mut left) = (start, len);
        while left > 0 {
            let rec = s / per;
            let within = s % per;
            let take = (per - within).min(left);
            push(vl.begin + rec * recsize + within * xsz, take * xsz);
            s += take;
            left -= take;
        }
    }
    out
}

impl DataSource for ClassicReader {
    fn schema(&self) -> &Schema {
        &self.schema
    }

    fn read(&self, var: VarId, selection: &Selection) -> Result<Values, SourceError> {
        Ok(self.read_values(var, selection)?)
    }

    /// Reads straight into the caller's slice with
    /// [`ClassicReader::read_into`].
    fn read_native(
        &self,
        var: VarId,
        selection: &Selection,
        out: nctk_model::NativeMut<'_>,
    ) -> Result<(), SourceError> {
        nctk_model::with_native_mut!(out, s => ClassicReader::read_into(self, var, selection, s)?);
        Ok(())
    }

    /// Reads straight into `out`'s vector (resized, allocation reused when
    /// it holds the variable's type) with [`ClassicReader::read_into`].
    fn read_into(
        &self,
        var: VarId,
        selection: &Selection,
        out: &mut Values,
    ) -> Result<(), SourceError> {
        let n = self.selected(var, selection)?;
        if out.dtype() != self.dtype(var) {
            *out = self.zeroed(var, n)?;
        }
        Ok(self.fill(var, selection, n, out)?)
    }

    fn format(&self) -> nctk_model::Format {
        self.header.version.into()
    }

    fn data_ends_at(&self) -> Option<u64> {
        ClassicReader::data_ends_at(self)
    }

    /// One chunk per fixed variable, one per record of a record variable
    /// (a record's part of the variable is one run of the file whatever
    /// the other record variables), big-endian, no codecs.
    fn chunk_refs(&self, var: VarId) -> Result<nctk_model::ChunkRefs, SourceError> {
        self.check_var(var)?;
        Ok(crate::refs::chunk_refs(
            &self.name,
            &self.schema.var(var).name,
            &self.schema.shape(var),
            &self.layout,
            &self.layout.vars[var.0 as usize],
            self.file_len,
        )?)
    }
}
