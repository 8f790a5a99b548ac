//! [`NcStreamReader`]: a [`DataSource`] over an ncstream in a
//! [`ByteSource`] (a `.ncs` file, a spooled stdin, a cdmremote header body).
//!
//! `open` reads the framing once (`scan`): the header messages (a later
//! one adds definitions) make the schema, the data messages are indexed
//! (their section, payload extent, compression, byte order). `read` decodes
//! only the messages its selection meets, in stream order (a later message
//! wins; the header's immediate data counts as the first); elements no
//! message covers are the variable's fill value. Uncompressed messages of
//! fixed-size numbers are read straight into the output (the caller's
//! buffer, with `read_into` and `read_native`), only in the part the
//! selection needs, and byte-swapped in place piece by piece. When no two
//! messages meet in the output, all of them are placed at once (rayon),
//! a large message cut into parts; otherwise message after message.

mod overlap;
mod place;
pub(crate) mod scan;

use std::collections::HashMap;
use std::ops::Range;
use std::sync::Arc;

use nctk_model::bytes::{try_as_bytes_mut, values_as_bytes, values_as_bytes_mut};
use nctk_model::{
    with_fixed_values, with_native_mut, DataSource, Format, NativeMut, Schema, Selection,
    SourceError, Values, VarId,
};
use nctk_store::bytes::ByteSource;

use crate::error::{NcStreamError, Result};
use crate::header::decode::{schema_with, StreamHeader};
use crate::payload::decode::{decode_datacol, decode_payload, DataInfo, Span};
use crate::proto;
use scan::{Item, SourceInput};

/// Where one message's values for a variable are.
#[derive(Debug, Clone)]
enum Piece {
    /// The header's immediate data (index into `StreamHeader::immediate`).
    Immediate(usize),
    /// A row data message.
    Row {
        info: DataInfo,
        payload: Range<u64>,
        raw: Option<u64>,
    },
    /// A column data message.
    Col { message: Range<u64> },
}

/// One message's values for a variable and the section they fill.
#[derive(Debug, Clone)]
struct Located {
    section: Vec<Span>,
    piece: Piece,
    /// Where the message starts (the header's, for immediate data).
    at: u64,
}

/// An ncstream read as a dataset: see the module documentation.
pub struct NcStreamReader {
    source: Arc<dyn ByteSource>,
    name: String,
    header: StreamHeader,
    pieces: HashMap<VarId, Vec<Located>>,
}

impl std::fmt::Debug for NcStreamReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NcStreamReader")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl NcStreamReader {
    /// Opens the stream in `source` (a full stream, with or without
    /// `MAGIC_START`/`MAGIC_END`, or a cdmremote header body); `name`
    /// (a path, `-` or a URL) names it in errors.
    pub fn open(source: Arc<dyn ByteSource>, name: &str) -> Result<NcStreamReader> {
        Self::open_inner(source, name).map_err(|e| e.in_stream(name))
    }

    fn open_inner(source: Arc<dyn ByteSource>, name: &str) -> Result<NcStreamReader> {
        let len = source
            .len()
            .map_err(|e| NcStreamError::io(0, std::io::Error::other(e)))?;
        let input = SourceInput {
            source: &*source,
            len,
        };
        let items = scan::scan(&input)?;
        let mut headers = vec![];
        for (at, item) in &items {
            match item {
                Item::Header(h) => headers.push((*at, &**h)),
                Item::Error(message) => {
                    return Err(NcStreamError::Remote {
                        stream: String::new(),
                        offset: *at,
                        message: message.clone(),
                    })
                }
                _ => {}
            }
        }
        if headers.is_empty() {
            return Err(NcStreamError::corrupt(
                0,
                "the stream has no header message",
            ));
        }
        let header_at = headers[0].0;
        let sizes = opaque_sizes(&input, &items)?;
        let mut header = schema_with(&headers, &sizes)?;
        let mut pieces: HashMap<VarId, Vec<Located>> = HashMap::new();
        for (i, (var, values)) in header.immediate.iter().enumerate() {
            let section = header
                .schema
                .shape(*var)
                .iter()
                .map(|&count| Span {
                    start: 0,
                    count,
                    stride: 1,
                })
                .collect();
            debug_assert_eq!(
                values.len() as u64,
                header.schema.shape(*var).iter().product()
            );
            pieces.entry(*var).or_default().push(Located {
                section,
                piece: Piece::Immediate(i),
                at: header_at,
            });
        }
        for (at, item) in items {
            let (var_name, section, piece) = match item {
                Item::Data { info, payload, raw } => (
                    info.var_name.clone(),
                    info.section.clone(),
                    Piece::Row { info, payload, raw },
                ),
                Item::Col {
                    name,
                    section,
                    message,
                    ..
                } => (name, section, Piece::Col { message }),
                _ => continue,
            };
            let var = crate::names::find_variable(&header.schema, &var_name).ok_or_else(|| {
                NcStreamError::corrupt(
                    at,
                    format!("data for {var_name:?}, which no header defines"),
                )
            })?;
            fit_section(&mut header.schema, var, &section, at, len)?;
            pieces
                .entry(var)
                .or_default()
                .push(Located { section, piece, at });
        }
        Ok(NcStreamReader {
            source,
            name: name.to_string(),
            header,
            pieces,
        })
    }

    /// An error as a [`SourceError`], naming the stream.
    fn source_error(&self, e: NcStreamError) -> SourceError {
        e.in_stream(&self.name).into()
    }

    /// What the headers say (schema, immediate data, location, title, id).
    pub fn header(&self) -> &StreamHeader {
        &self.header
    }

    /// Checks `sel` against `var`'s shape; the number of values it selects.
    fn check(&self, var: VarId, sel: &Selection) -> Result<usize> {
        let schema = &self.header.schema;
        sel.check(&schema.shape(var), false)
            .map_err(|e| NcStreamError::corrupt(0, format!("{}: {e}", schema.var_path(var))))?;
        usize::try_from(sel.num_elements().unwrap_or(u64::MAX))
            .map_err(|_| NcStreamError::corrupt(0, "selection too large"))
    }

    /// The messages for `var`, in stream order.
    fn pieces(&self, var: VarId) -> &[Located] {
        self.pieces.get(&var).map(Vec::as_slice).unwrap_or(&[])
    }

    fn read_values(&self, var: VarId, sel: &Selection) -> Result<Values> {
        let schema = &self.header.schema;
        let n = self.check(var, sel)?;
        let fill = schema.fill_value(var);
        if let Some(fill_bytes) = values_as_bytes(&fill) {
            // Fixed-size values: zeroed memory (the allocator's fresh pages,
            // each written once by `read_fixed`).
            let zero = Values::from_bytes(fill.dtype(), &vec![0; fill_bytes.len()], false);
            let mut out = Values::repeat(&zero, n);
            self.read_fixed(
                var,
                sel,
                &fill,
                values_as_bytes_mut(&mut out).expect("fixed size"),
            )?;
            return Ok(out);
        }
        // Values of no fixed size: which message gives each element, then
        // the output assembled from the decoded messages in runs.
        let pieces = self.pieces(var);
        let mut from: Vec<Option<(usize, u64)>> = vec![None; n];
        for (k, p) in pieces.iter().enumerate() {
            for r in overlap::runs(sel, &p.section) {
                for e in 0..r.len {
                    from[(r.out + e) as usize] = Some((k, r.msg + e));
                }
            }
        }
        let mut decoded: HashMap<usize, Values> = HashMap::new();
        let mut result = schema.empty_values(schema.var(var).dtype, n);
        let mut e = 0usize;
        while e < n {
            let mut end = e + 1;
            while end < n
                && match (from[e], from[end]) {
                    (None, None) => true,
                    (Some((a, x)), Some((b, y))) => a == b && y == x + (end - e) as u64,
                    _ => false,
                }
            {
                end += 1;
            }
            match from[e] {
                None => result.extend_from(&Values::repeat(&fill, end - e)),
                Some((k, first)) => {
                    let v = match decoded.entry(k) {
                        std::collections::hash_map::Entry::Occupied(o) => o.into_mut(),
                        std::collections::hash_map::Entry::Vacant(slot) => {
                            slot.insert(self.decode(var, &pieces[k])?)
                        }
                    };
                    let range = first as usize..first as usize + (end - e);
                    let sizes_differ = matches!((&*v, &result),
                        (Values::Opaque { size: a, .. }, Values::Opaque { size: b, .. }) if a != b);
                    if range.end > v.len() || v.dtype() != result.dtype() || sizes_differ {
                        return Err(unfilled(schema, var, pieces[k].at));
                    }
                    result.extend_from(&v.slice(range));
                }
            }
            e = end;
        }
        Ok(result)
    }

    /// A message's values, whole.
    fn decode(&self, var: VarId, p: &Located) -> Result<Values> {
        let schema = &self.header.schema;
        match &p.piece {
            Piece::Immediate(i) => Ok(self.header.immediate[*i].1.clone()),
            Piece::Row { info, payload, .. } => {
                let bytes = self.bytes(payload.clone())?;
                Ok(decode_payload(schema, var, info, &bytes, payload.start)?.0)
            }
            Piece::Col { message } => {
                let bytes = self.bytes(message.clone())?;
                let col: proto::DataCol = prost::Message::decode(&bytes[..])
                    .map_err(|e| NcStreamError::message(message.start, "DataCol", e))?;
                decode_datacol(schema, schema.var(var).dtype, &col, message.start)
            }
        }
    }

    fn bytes(&self, range: Range<u64>) -> Result<Vec<u8>> {
        let mut buf = vec![0u8; (range.end - range.start) as usize];
        self.source
            .read_exact_at(range.start, &mut buf)
            .map_err(|e| NcStreamError::io(range.start, std::io::Error::other(e)))?;
        Ok(buf)
    }
}

/// The error of a message whose values do not fill its section.
fn unfilled(schema: &Schema, var: VarId, at: u64) -> NcStreamError {
    NcStreamError::corrupt(
        at,
        format!(
            "{}: a message's values do not fill its section",
            schema.var_path(var)
        ),
    )
}

/// Checks a message's section against its variable's shape; an unlimited
/// dimension grows to hold it, up to the stream's length in bytes (a
/// longer one would be mostly fill no writer sends: a damaged section).
fn fit_section(
    schema: &mut Schema,
    var: VarId,
    section: &[Span],
    at: u64,
    stream_len: u64,
) -> Result<()> {
    let dims = schema.var(var).dims.clone();
    let is_sequence = section.is_empty() && dims.is_empty();
    if section.len() != dims.len() && !is_sequence {
        return Err(NcStreamError::corrupt(
            at,
            format!(
                "data for {} has {} dimensions, the variable {}",
                schema.var_path(var),
                section.len(),
                dims.len()
            ),
        ));
    }
    for (s, &d) in section.iter().zip(&dims) {
        if s.count == 0 {
            continue;
        }
        let end = (s.count - 1)
            .checked_mul(s.stride)
            .and_then(|x| x.checked_add(s.start))
            .and_then(|x| x.checked_add(1))
            .ok_or_else(|| NcStreamError::corrupt(at, "section overflows"))?;
        let dim = schema.dim_mut(d);
        if end > dim.len {
            if !dim.unlimited || end > stream_len.max(1) {
                return Err(NcStreamError::corrupt(
                    at,
                    format!(
                        "section ends at {end}, past dimension {:?} of {}",
                        dim.name, dim.len
                    ),
                ));
            }
            dim.len = end;
        }
    }
    Ok(())
}

/// The size of each opaque variable's values, by full name, from its first
/// data message.
fn opaque_sizes(input: &SourceInput<'_>, items: &[(u64, Item)]) -> Result<HashMap<String, u64>> {
    let mut out = HashMap::new();
    for (_, item) in items {
        let (name, size) = match item {
            Item::Data { info, payload, .. }
                if info.dtype == proto::DataType::Opaque && info.deflated.is_none() =>
            {
                let mut head = vec![0u8; (payload.end - payload.start).min(20) as usize];
                scan::Input::fill(input, payload.start, &mut head)?;
                let (count, used) = crate::wire::get_varint(&head, payload.start)?;
                if count == 0 {
                    continue;
                }
                let (len, _) = crate::wire::get_varint(&head[used..], payload.start)?;
                (info.var_name.clone(), len)
            }
            Item::Col {
                name,
                message,
                dtype,
                ..
            } if *dtype == proto::DataType::Opaque as i32 => {
                let mut bytes = vec![0u8; (message.end - message.start) as usize];
                scan::Input::fill(input, message.start, &mut bytes)?;
                let col: proto::DataCol = prost::Message::decode(&bytes[..])
                    .map_err(|e| NcStreamError::message(message.start, "DataCol", e))?;
                match col.opaquedata.first() {
                    Some(first) => (name.clone(), first.len() as u64),
                    None => continue,
                }
            }
            _ => continue,
        };
        let key = crate::names::canonical(&name);
        out.entry(key).or_insert(size);
    }
    Ok(out)
}

impl DataSource for NcStreamReader {
    fn schema(&self) -> &Schema {
        &self.header.schema
    }

    fn read(&self, var: VarId, selection: &Selection) -> Result<Values, SourceError> {
        self.read_values(var, selection)
            .map_err(|e| self.source_error(e))
    }

    /// Reads values of a fixed size straight into `out`'s vector (resized,
    /// its allocation reused when it holds the variable's type).
    fn read_into(
        &self,
        var: VarId,
        selection: &Selection,
        out: &mut Values,
    ) -> Result<(), SourceError> {
        let fill = self.header.schema.fill_value(var);
        if values_as_bytes(&fill).is_none() {
            *out = self.read(var, selection)?;
            return Ok(());
        }
        let n = self
            .check(var, selection)
            .map_err(|e| self.source_error(e))?;
        if out.dtype() != fill.dtype() {
            *out = Values::with_capacity(fill.dtype(), n);
        }
        with_fixed_values!(&mut *out, v => v.resize(n, Default::default()),
            _ => unreachable!("a fixed-size fill has a fixed-size type"));
        let bytes = values_as_bytes_mut(out).expect("fixed-size values");
        self.read_fixed(var, selection, &fill, bytes)
            .map_err(|e| self.source_error(e))
    }

    /// Reads straight into `out` when it holds the variable's own type and
    /// exactly the selection's values.
    fn read_native(
        &self,
        var: VarId,
        selection: &Selection,
        out: NativeMut<'_>,
    ) -> Result<(), SourceError> {
        let fill = self.header.schema.fill_value(var);
        let n = self
            .check(var, selection)
            .map_err(|e| self.source_error(e))?;
        if values_as_bytes(&fill).is_none() || out.dtype() != fill.dtype() || out.len() != n {
            out.copy_from(&self.read(var, selection)?)?;
            return Ok(());
        }
        with_native_mut!(out, s => {
            let bytes = try_as_bytes_mut(s).expect("numbers");
            self.read_fixed(var, selection, &fill, bytes)
                .map_err(|e| self.source_error(e))
        })
    }

    fn format(&self) -> Format {
        Format::Netcdf4
    }
}
