//! The values of data messages: the payload after a `Data` message (every
//! type, both byte orders, deflate, `StructureData`, sequences) and the
//! columns of a `DataCol` message (netCDF-Java 5).
//!
//! Every count and length is checked against the bytes that follow before
//! anything is allocated for it.

use std::io::Read;

use nctk_model::{CompoundField, DataType, Schema, UserTypeKind, Values, VarId};

use crate::error::{NcStreamError, Result};
use crate::header::decode::{carries, proto_type};
use crate::proto;
use crate::wire::get_varint;

/// The most bytes a deflated payload may state it inflates to, whatever its
/// compressed length (netCDF-Java states a 32-bit size).
pub const MAX_INFLATED: u64 = 1 << 32;

/// zlib inflates at most about 1032 bytes from one compressed byte: a
/// stated size beyond this multiple of the compressed length is a lie.
const MAX_DEFLATE_RATIO: u64 = 1032;

/// One dimension of a data message's section, with the compatibility rules
/// applied (stride 0 means 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    /// First index.
    pub start: u64,
    /// Number of indices (0: empty).
    pub count: u64,
    /// Step between indices (at least 1).
    pub stride: u64,
}

/// What a `Data` (or `DataCol`) message says about its payload.
#[derive(Debug, Clone, PartialEq)]
pub struct DataInfo {
    /// The variable's full escaped name.
    pub var_name: String,
    /// The ncstream type of the values.
    pub dtype: proto::DataType,
    /// The section the values fill (empty for a scalar or a sequence).
    pub section: Vec<Span>,
    /// True when numbers are big-endian (`bigend`, or by `version` when absent).
    pub big_endian: bool,
    /// `Data.version` (0 when absent).
    pub version: u32,
    /// The inflated size when the payload is deflated.
    pub deflated: Option<u64>,
    /// True for a variable-length payload (`vdata`).
    pub vdata: bool,
}

impl DataInfo {
    /// The facts of a `Data` message at `offset`.
    pub fn of_data(d: &proto::Data, offset: u64) -> Result<DataInfo> {
        let deflated = match d.compress.unwrap_or(0) {
            0 => None,
            1 => Some(u64::from(d.uncompressed_size.unwrap_or(0))),
            c => {
                return Err(NcStreamError::unsupported(
                    offset,
                    format!("compression code {c}"),
                ))
            }
        };
        Ok(DataInfo {
            var_name: d.var_name.clone().unwrap_or_default(),
            dtype: proto_type(d.data_type.unwrap_or(0), offset)?,
            section: spans(d.section.as_ref()),
            big_endian: big_endian(d.bigend, d.version),
            version: d.version.unwrap_or(0),
            deflated,
            vdata: d.vdata.unwrap_or(false),
        })
    }

    /// Number of elements the section holds, checked.
    pub fn num_elements(&self, offset: u64) -> Result<u64> {
        self.section
            .iter()
            .try_fold(1u64, |n, s| n.checked_mul(s.count))
            .ok_or_else(|| NcStreamError::corrupt(offset, "section size overflows"))
    }
}

/// The compatibility rule for byte order: `bigend` when present, else
/// big-endian for `version < 3` (proto2 writers), little-endian after.
pub fn big_endian(bigend: Option<bool>, version: Option<u32>) -> bool {
    bigend.unwrap_or(version.unwrap_or(0) < 3)
}

/// A section's spans (stride 0 means 1; no section: a scalar). A range of
/// size -1 as netCDF-Java writes it (`Range.VLEN`, a Java `-1` sent as an
/// unsigned number: 2^64 - 1) stands for a variable-length dimension, which
/// the model's shape does not have: it is left out.
pub fn spans(section: Option<&proto::Section>) -> Vec<Span> {
    section
        .map(|s| {
            s.range
                .iter()
                .filter(|r| r.size != Some(u64::MAX))
                .map(|r| Span {
                    start: r.start.unwrap_or(0),
                    count: r.size.unwrap_or(0),
                    stride: r.stride.unwrap_or(1).max(1),
                })
                .collect()
        })
        .unwrap_or_default()
}

/// A reader over a payload's bytes that checks every length against what
/// is left and names stream offsets in its errors.
pub(crate) struct Bytes<'a> {
    data: &'a [u8],
    at: usize,
    base: u64,
}

impl<'a> Bytes<'a> {
    /// The bytes `data`, the first at stream offset `base`.
    pub(crate) fn new(data: &'a [u8], base: u64) -> Self {
        Bytes { data, at: 0, base }
    }

    /// The stream offset of the next byte.
    pub(crate) fn offset(&self) -> u64 {
        self.base + self.at as u64
    }

    /// Bytes not read yet.
    pub(crate) fn left(&self) -> usize {
        self.data.len() - self.at
    }

    /// True when everything was read.
    pub(crate) fn is_done(&self) -> bool {
        self.at == self.data.len()
    }

    /// The next varint.
    pub(crate) fn varint(&mut self) -> Result<u64> {
        let (v, n) = get_varint(&self.data[self.at..], self.offset())?;
        self.at += n;
        Ok(v)
    }

    /// A count of objects that each take at least `min_size` bytes after
    /// it: refused when the bytes left cannot hold them.
    pub(crate) fn count(&mut self, min_size: u64, what: &str) -> Result<usize> {
        let at = self.offset();
        let n = self.varint()?;
        if n.saturating_mul(min_size) > self.left() as u64 {
            return Err(NcStreamError::truncated(
                at,
                format!("{what}: {n} objects in {} bytes", self.left()),
            ));
        }
        Ok(n as usize)
    }

    /// The next `n` bytes.
    pub(crate) fn take(&mut self, n: u64, what: &str) -> Result<&'a [u8]> {
        if n > self.left() as u64 {
            return Err(NcStreamError::truncated(
                self.offset(),
                format!("{what} of {n} bytes"),
            ));
        }
        let s = &self.data[self.at..self.at + n as usize];
        self.at += n as usize;
        Ok(s)
    }

    /// A counted list of `n` length-prefixed values (strings, opaque and
    /// vlen payloads), each with its stream offset; a count other than `n`
    /// is refused.
    pub(crate) fn values(&mut self, n: usize, what: &str) -> Result<Vec<(u64, &'a [u8])>> {
        let at = self.offset();
        let count = self.count(1, what)?;
        if count != n {
            return Err(NcStreamError::corrupt(
                at,
                format!("{count} values for a section of {n}"),
            ));
        }
        let mut out = Vec::with_capacity(count);
        for _ in 0..count {
            out.push((self.offset(), self.block(what)?));
        }
        Ok(out)
    }

    /// A varint length and that many bytes.
    pub(crate) fn block(&mut self, what: &str) -> Result<&'a [u8]> {
        let n = self.varint()?;
        self.take(n, what)
    }
}

/// Inflates a zlib stream that must give exactly `size` bytes, refusing a
/// stated size beyond [`MAX_INFLATED`] or beyond what the compressed length
/// can give before allocating it.
pub fn inflate(compressed: &[u8], size: u64, offset: u64) -> Result<Vec<u8>> {
    let bound = (compressed.len() as u64)
        .saturating_mul(MAX_DEFLATE_RATIO)
        .saturating_add(64)
        .min(MAX_INFLATED);
    if size > bound {
        return Err(NcStreamError::corrupt(
            offset,
            format!(
                "deflated payload of {} bytes states {size} bytes inflated (at most {bound})",
                compressed.len()
            ),
        ));
    }
    let mut out = Vec::with_capacity(size as usize);
    let mut z = flate2::read::ZlibDecoder::new(compressed).take(size + 1);
    z.read_to_end(&mut out).map_err(|e| {
        NcStreamError::corrupt(offset, format!("deflated payload does not inflate: {e}"))
    })?;
    if out.len() as u64 != size {
        return Err(NcStreamError::corrupt(
            offset,
            format!(
                "deflated payload inflates to {}{} bytes, not the stated {size}",
                if out.len() as u64 > size {
                    "more than "
                } else {
                    ""
                },
                out.len().min(size as usize)
            ),
        ));
    }
    Ok(out)
}

/// Decodes the payload that follows a `Data` message (`payload` starts
/// right after the message, at stream offset `offset`) as values of
/// variable `var`, `n` of them (the section's size; a sequence gives one
/// vlen value whatever `n`). Returns the values and the bytes the payload
/// took.
pub fn decode_payload(
    schema: &Schema,
    var: VarId,
    info: &DataInfo,
    payload: &[u8],
    offset: u64,
) -> Result<(Values, usize)> {
    let mut b = Bytes::new(payload, offset);
    let dtype = schema.var(var).dtype;
    if info.dtype == proto::DataType::Sequence {
        let v = sequence(schema, dtype, info, &mut b)?;
        return Ok((v, b.at));
    }
    let n = usize::try_from(info.num_elements(offset)?)
        .map_err(|_| NcStreamError::corrupt(offset, "section too large"))?;
    let values = match info.deflated {
        Some(size) => {
            let at = b.offset();
            let compressed = b.block("a deflated payload")?;
            let inflated = inflate(compressed, size, at)?;
            let mut inner = Bytes::new(&inflated, at);
            let v = if fixed_row_type(info) {
                rows(schema, dtype, info, inflated.len() as u64, &mut inner, n)?
            } else {
                body(schema, dtype, info, &mut inner, n)?
            };
            if !inner.is_done() {
                return Err(NcStreamError::corrupt(
                    at,
                    format!("{} bytes left after the inflated values", inner.left()),
                ));
            }
            v
        }
        None => body(schema, dtype, info, &mut b, n)?,
    };
    Ok((values, b.at))
}

/// True when the payload is a length and that many bytes (so a deflated
/// one inflates to the bytes alone); strings, opaque and vlen payloads are
/// counted lists (a deflated one inflates to the whole list).
fn fixed_row_type(info: &DataInfo) -> bool {
    !info.vdata
        && !matches!(
            info.dtype,
            proto::DataType::String | proto::DataType::Opaque
        )
}

/// The payload's values after any inflating.
fn body(
    schema: &Schema,
    dtype: DataType,
    info: &DataInfo,
    b: &mut Bytes<'_>,
    n: usize,
) -> Result<Values> {
    let at = b.offset();
    let mismatch = |what: String| NcStreamError::corrupt(at, what);
    match info.dtype {
        proto::DataType::String => {
            let mut out = Vec::with_capacity(n);
            for (s_at, bytes) in b.values(n, "a string")? {
                out.push(
                    String::from_utf8(bytes.to_vec())
                        .map_err(|_| NcStreamError::corrupt(s_at, "a string that is not UTF-8"))?,
                );
            }
            Ok(Values::strings(out))
        }
        proto::DataType::Opaque => {
            let blobs = b.values(n, "an opaque value")?;
            opaque_values(schema, dtype, &blobs, at)
        }
        _ if info.vdata => {
            let Some(UserTypeKind::Vlen { base }) = schema.user_kind(dtype) else {
                return Err(mismatch(format!(
                    "variable-length data for a variable of type {}",
                    schema.type_name(dtype)
                )));
            };
            let base = schema.value_type(*base);
            if !carries(info.dtype, base) {
                return Err(mismatch(format!(
                    "variable-length {} data for a variable of type {}",
                    info.dtype.as_str_name(),
                    schema.type_name(dtype)
                )));
            }
            let size = base
                .size()
                .filter(|_| base != DataType::String)
                .ok_or_else(|| {
                    NcStreamError::unsupported(at, format!("variable-length {base} data"))
                })?;
            let mut out = Vec::with_capacity(n);
            for (e_at, bytes) in b.values(n, "a variable-length value")? {
                if bytes.len() % size != 0 {
                    return Err(NcStreamError::corrupt(
                        e_at,
                        format!("{} bytes of {size}-byte values", bytes.len()),
                    ));
                }
                out.push(Values::from_bytes(base, bytes, info.big_endian));
            }
            Ok(Values::Vlen(out))
        }
        _ => {
            let len = b.varint()?;
            rows(schema, dtype, info, len, b, n)
        }
    }
}

/// Opaque values of type `dtype` from blobs (each with its stream offset),
/// all of the type's size; when that size is 1, the placeholder of a header
/// read alone (netCDF-Java does not carry the size), all of the first
/// blob's length.
fn opaque_values(
    schema: &Schema,
    dtype: DataType,
    blobs: &[(u64, &[u8])],
    at: u64,
) -> Result<Values> {
    let Some(UserTypeKind::Opaque { size }) = schema.user_kind(dtype) else {
        return Err(NcStreamError::corrupt(
            at,
            format!(
                "opaque data for a variable of type {}",
                schema.type_name(dtype)
            ),
        ));
    };
    let size = match (*size, blobs.first()) {
        (1, Some((_, first))) if !first.is_empty() => first.len(),
        (size, _) => size as usize,
    };
    let mut bytes = Vec::with_capacity(blobs.len().saturating_mul(size));
    for (o_at, blob) in blobs {
        if blob.len() != size {
            return Err(NcStreamError::corrupt(
                *o_at,
                format!("opaque value of {} bytes, the type has {size}", blob.len()),
            ));
        }
        bytes.extend_from_slice(blob);
    }
    Ok(Values::Opaque { size, bytes })
}

/// `len` bytes of fixed-size values: primitives, CHAR, enums, or
/// structure rows (raw with `version` 0, a `StructureData` after).
fn rows(
    schema: &Schema,
    dtype: DataType,
    info: &DataInfo,
    len: u64,
    b: &mut Bytes<'_>,
    n: usize,
) -> Result<Values> {
    let at = b.offset();
    let bytes = b.take(len, "data values")?;
    if info.dtype == proto::DataType::Structure {
        if info.version == 0 {
            return compound_rows(schema, dtype, bytes, &[], info.big_endian, n, at);
        }
        let sd: proto::StructureData = prost::Message::decode(bytes)
            .map_err(|e| NcStreamError::message(at, "StructureData", e))?;
        return structure_data(schema, dtype, &sd, info.big_endian, Some(n), at);
    }
    let vt = schema.value_type(dtype);
    let size = vt
        .size()
        .filter(|_| carries(info.dtype, vt))
        .ok_or_else(|| {
            NcStreamError::corrupt(
                at,
                format!(
                    "{} data for a variable of type {}",
                    info.dtype.as_str_name(),
                    schema.type_name(dtype)
                ),
            )
        })?;
    if len != (n as u64).saturating_mul(size as u64) {
        return Err(NcStreamError::corrupt(
            at,
            format!("{len} bytes of data for {n} values of {size} bytes"),
        ));
    }
    Ok(match vt {
        DataType::Char => Values::Char(bytes.to_vec()),
        vt => Values::from_bytes(vt, bytes, info.big_endian),
    })
}

/// The rows of a `StructureData` (all members; `nrows` 0 means 1).
fn structure_data(
    schema: &Schema,
    dtype: DataType,
    sd: &proto::StructureData,
    big_endian: bool,
    want: Option<usize>,
    at: u64,
) -> Result<Values> {
    if !sd.member.is_empty() {
        return Err(NcStreamError::unsupported(
            at,
            "StructureData with a subset of members",
        ));
    }
    let nrows = sd.nrows.filter(|&n| n > 0).unwrap_or(1);
    let data = sd.data.as_deref().unwrap_or(&[]);
    let size = schema.type_size(dtype).unwrap_or(0);
    if let Some(len) = sd.row_length.filter(|&l| u64::from(l) != size) {
        return Err(NcStreamError::corrupt(
            at,
            format!("rows of {len} bytes for a structure of {size}"),
        ));
    }
    let nrows = usize::try_from(nrows)
        .ok()
        .filter(|&n| want.is_none_or(|w| w == n))
        .ok_or_else(|| NcStreamError::corrupt(at, format!("{nrows} rows for {want:?}")))?;
    let mut heap = Vec::with_capacity(sd.heap_count.len().min(sd.sdata.len()));
    let mut next = 0usize;
    for &c in &sd.heap_count {
        let end = next
            .checked_add(c as usize)
            .filter(|&e| e <= sd.sdata.len())
            .ok_or_else(|| NcStreamError::corrupt(at, "heap counts exceed the strings"))?;
        heap.push(&sd.sdata[next..end]);
        next = end;
    }
    compound_rows(schema, dtype, data, &heap, big_endian, nrows, at)
}

/// `n` packed rows of compound `dtype`, field by field (a string field is
/// the 4-byte index of its heap entry).
fn compound_rows(
    schema: &Schema,
    dtype: DataType,
    data: &[u8],
    heap: &[&[String]],
    big_endian: bool,
    n: usize,
    at: u64,
) -> Result<Values> {
    let Some(UserTypeKind::Compound { size, fields }) = schema.user_kind(dtype) else {
        return Err(NcStreamError::corrupt(
            at,
            format!(
                "structure data for a variable of type {}",
                schema.type_name(dtype)
            ),
        ));
    };
    let size = *size as usize;
    if data.len() as u64 != (n as u64).saturating_mul(size as u64) {
        return Err(NcStreamError::corrupt(
            at,
            format!("{} bytes for {n} rows of {size} bytes", data.len()),
        ));
    }
    let mut out = Vec::with_capacity(fields.len());
    for f in fields {
        out.push(field_column(
            schema, f, data, size, heap, big_endian, n, at,
        )?);
    }
    Ok(Values::Compound {
        len: n,
        fields: out,
    })
}

/// One field's values in every row.
#[allow(clippy::too_many_arguments)]
fn field_column(
    schema: &Schema,
    f: &CompoundField,
    data: &[u8],
    row: usize,
    heap: &[&[String]],
    big_endian: bool,
    n: usize,
    at: u64,
) -> Result<Values> {
    let off = f.offset as usize;
    let count = f.count();
    if f.dtype == DataType::String {
        let mut out = Vec::with_capacity(n.saturating_mul(count).min(1 << 20));
        for r in 0..n {
            let i = &data[r * row + off..r * row + off + 4];
            let i = if big_endian {
                u32::from_be_bytes(i.try_into().expect("4 bytes"))
            } else {
                u32::from_le_bytes(i.try_into().expect("4 bytes"))
            } as usize;
            let strings = heap.get(i).filter(|s| s.len() == count).ok_or_else(|| {
                NcStreamError::corrupt(
                    at,
                    format!(
                        "field {:?}: heap entry {i} missing or not {count} strings",
                        f.name
                    ),
                )
            })?;
            out.extend_from_slice(strings);
        }
        return Ok(Values::strings(out));
    }
    let width = crate::header::decode::row_size(schema, f.dtype)
        .map(|s| s as usize * count)
        .ok_or_else(|| {
            NcStreamError::unsupported(at, format!("field {:?} of variable length", f.name))
        })?;
    let mut bytes = Vec::with_capacity(n.saturating_mul(width));
    for r in 0..n {
        bytes.extend_from_slice(&data[r * row + off..r * row + off + width]);
    }
    if schema
        .user_kind(f.dtype)
        .is_some_and(|k| matches!(k, UserTypeKind::Compound { .. }))
    {
        return compound_rows(schema, f.dtype, &bytes, heap, big_endian, n * count, at);
    }
    Ok(match schema.value_type(f.dtype) {
        DataType::Char => Values::Char(bytes),
        t if schema.user_kind(t).is_some() => Values::Opaque {
            size: schema.type_size(t).unwrap_or(1) as usize,
            bytes,
        },
        t => Values::from_bytes(t, &bytes, big_endian),
    })
}

/// A sequence's payload: (VDATA, length, `StructureData`) until VEND; one
/// vlen value holding every row.
fn sequence(
    schema: &Schema,
    dtype: DataType,
    info: &DataInfo,
    b: &mut Bytes<'_>,
) -> Result<Values> {
    use crate::wire::Magic;
    let at = b.offset();
    let Some(UserTypeKind::Vlen { base }) = schema.user_kind(dtype) else {
        return Err(NcStreamError::corrupt(
            at,
            format!(
                "sequence data for a variable of type {}",
                schema.type_name(dtype)
            ),
        ));
    };
    let mut all = schema.empty_values(*base, 0);
    loop {
        let m_at = b.offset();
        let magic: [u8; 4] = b.take(4, "a sequence mark")?.try_into().expect("4 bytes");
        match Magic::from_bytes(magic) {
            Some(Magic::VEnd) => break,
            Some(Magic::VData) => {
                let sd_at = b.offset();
                let bytes = b.block("a StructureData")?;
                let sd: proto::StructureData = prost::Message::decode(bytes)
                    .map_err(|e| NcStreamError::message(sd_at, "StructureData", e))?;
                all.extend_from(&structure_data(
                    schema,
                    *base,
                    &sd,
                    info.big_endian,
                    None,
                    sd_at,
                )?);
            }
            _ => {
                return Err(NcStreamError::corrupt(
                    m_at,
                    format!("{magic:02x?} where MAGIC_VDATA or MAGIC_VEND belongs"),
                ))
            }
        }
    }
    Ok(Values::Vlen(vec![all]))
}

/// The values of a `DataCol` message (netCDF-Java 5) for `dtype`.
pub fn decode_datacol(
    schema: &Schema,
    dtype: DataType,
    col: &proto::DataCol,
    offset: u64,
) -> Result<Values> {
    column(schema, dtype, col, offset, None)
}

/// A column's values; `parent_big` is the byte order of the structure
/// column holding it, which a member column stating neither `bigend` nor
/// `version` has (netCDF-Java 5 writes them on the outer column only).
fn column(
    schema: &Schema,
    dtype: DataType,
    col: &proto::DataCol,
    offset: u64,
    parent_big: Option<bool>,
) -> Result<Values> {
    let ct = proto_type(col.data_type.unwrap_or(0), offset)?;
    let nelems = col.nelems.unwrap_or(0) as usize;
    let big = match (col.bigend, col.version, parent_big) {
        (None, None, Some(parent)) => parent,
        (bigend, version, _) => big_endian(bigend, version),
    };
    let bad = |what: String| NcStreamError::corrupt(offset, what);
    let counted = |got: usize| {
        if got != nelems {
            Err(bad(format!(
                "column {:?}: {got} values, nelems says {nelems}",
                col.name()
            )))
        } else {
            Ok(())
        }
    };
    match ct {
        proto::DataType::String => {
            counted(col.stringdata.len())?;
            Ok(Values::strings(col.stringdata.iter().cloned()))
        }
        proto::DataType::Opaque => {
            counted(col.opaquedata.len())?;
            let blobs: Vec<(u64, &[u8])> = col
                .opaquedata
                .iter()
                .map(|b| (offset, b.as_slice()))
                .collect();
            opaque_values(schema, dtype, &blobs, offset)
        }
        proto::DataType::Structure => {
            let Some(UserTypeKind::Compound { fields, .. }) = schema.user_kind(dtype) else {
                return Err(bad(format!(
                    "structure column for type {}",
                    schema.type_name(dtype)
                )));
            };
            let members = col
                .structdata
                .as_ref()
                .map(|s| &s.member_data[..])
                .unwrap_or(&[]);
            let mut out = Vec::with_capacity(fields.len());
            for f in fields {
                let m = members
                    .iter()
                    .find(|m| m.name() == f.name)
                    .ok_or_else(|| bad(format!("structure column lacks member {:?}", f.name)))?;
                let v = column(schema, f.dtype, m, offset, Some(big))?;
                if v.len() != nelems.saturating_mul(f.count()) {
                    return Err(bad(format!(
                        "member {:?}: {} values for {nelems} rows",
                        f.name,
                        v.len()
                    )));
                }
                out.push(v);
            }
            Ok(Values::Compound {
                len: nelems,
                fields: out,
            })
        }
        _ => {
            let (elem, vlen) = match schema.user_kind(dtype) {
                Some(UserTypeKind::Vlen { base }) if col.is_vlen.unwrap_or(false) => (*base, true),
                _ => (dtype, false),
            };
            let vt = schema.value_type(elem);
            let size = vt.size().filter(|_| carries(ct, vt)).ok_or_else(|| {
                bad(format!(
                    "{} column for type {}",
                    ct.as_str_name(),
                    schema.type_name(dtype)
                ))
            })?;
            let data = col.primdata.as_deref().unwrap_or(&[]);
            if data.len() as u64 != (nelems as u64).saturating_mul(size as u64) {
                return Err(bad(format!(
                    "column {:?}: {} bytes for {nelems} values of {size} bytes",
                    col.name(),
                    data.len()
                )));
            }
            let all = match vt {
                DataType::Char => Values::Char(data.to_vec()),
                vt => Values::from_bytes(vt, data, big),
            };
            if !vlen {
                return Ok(all);
            }
            let total: u64 = col.vlens.iter().map(|&c| u64::from(c)).sum();
            if total != nelems as u64 {
                return Err(bad(format!(
                    "column {:?}: vlen counts sum to {total}, nelems is {nelems}",
                    col.name()
                )));
            }
            let mut at = 0usize;
            let out = col
                .vlens
                .iter()
                .map(|&c| {
                    let v = all.slice(at..at + c as usize);
                    at += c as usize;
                    v
                })
                .collect();
            Ok(Values::Vlen(out))
        }
    }
}
