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
pub(crate) mod scan;

use std::collections::HashMap;
use std::ops::Range;
use std::sync::Arc;

use nctk_model::bytes::{try_as_bytes_mut, values_as_bytes, values_as_bytes_mut};
use nctk_model::{
    with_fixed_values, with_native_mut, DataSource, DataType, Format, NativeMut, Schema, Selection,
    SourceError, Values, VarId,
};
use nctk_store::bytes::ByteSource;
use rayon::prelude::*;

use crate::error::{NcStreamError, Result};
use crate::header::decode::{carries, schema_with, StreamHeader};
use crate::payload::decode::{decode_datacol, decode_payload, DataInfo, Span};
use crate::proto;
use overlap::Run;
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

/// The bytes of raw values read and byte-swapped as one task (a multiple
/// of every element size): a larger message is read in parts on several
/// threads, each part swapped while it is still in the cache.
const TASK_BYTES: usize = 1 << 20;

/// What a read of fixed-size values fills: the variable, the type of its
/// values and their size in bytes.
#[derive(Debug, Clone, Copy)]
struct Target {
    var: VarId,
    dtype: DataType,
    size: u64,
}

/// One task of placing messages' values in the output.
enum Task<'a> {
    /// Raw values read straight from the stream into the output (stream
    /// offset, output bytes), then put in native byte order.
    Raw {
        big_endian: bool,
        reads: Vec<(u64, &'a mut [u8])>,
    },
    /// A message (index into the variable's pieces) decoded whole, its
    /// runs copied into the output.
    Decode {
        piece: usize,
        slots: Vec<(Run, &'a mut [u8])>,
    },
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
        Box::new(e.in_stream(&self.name))
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

    /// Reads the selected values of `var`, of a fixed size, into `out`
    /// (exactly the selection's values, in `fill`'s type; whatever it held
    /// is overwritten): the fill where no message lands, then each
    /// message's runs.
    fn read_fixed(&self, var: VarId, sel: &Selection, fill: &Values, out: &mut [u8]) -> Result<()> {
        let fill_bytes = values_as_bytes(fill).expect("fixed-size fill");
        let target = Target {
            var,
            dtype: fill.dtype(),
            size: fill_bytes.len() as u64,
        };
        let runs: Vec<Vec<Run>> = self
            .pieces(var)
            .iter()
            .map(|p| overlap::runs(sel, &p.section))
            .collect();
        let covered = overlap::covered(&runs);
        fill_gaps(out, fill_bytes, &covered);
        let tagged = |k: usize, rs: Vec<Run>| rs.into_iter().map(move |r| (k, r));
        if overlap::disjoint(&covered) {
            let all = runs
                .into_iter()
                .enumerate()
                .flat_map(|(k, rs)| tagged(k, rs));
            return self.place(target, all.collect(), out);
        }
        // Messages that meet in the output: one after another, so a later
        // one wins.
        for (k, rs) in runs.into_iter().enumerate() {
            self.place(target, tagged(k, rs).collect(), out)?;
        }
        Ok(())
    }

    /// Fills the output bytes of `runs` (each tagged with the index of its
    /// message; no two intersecting) from their messages, in parallel.
    fn place(&self, target: Target, runs: Vec<(usize, Run)>, out: &mut [u8]) -> Result<()> {
        let pieces = self.pieces(target.var);
        let mut slots: Vec<Vec<(Run, &mut [u8])>> = pieces.iter().map(|_| vec![]).collect();
        for (k, r, slot) in overlap::split(out, target.size, runs) {
            slots[k].push((r, slot));
        }
        let mut tasks = vec![];
        for (k, slots) in slots.into_iter().enumerate() {
            if slots.is_empty() {
                continue;
            }
            match self.raw_payload(target, &pieces[k]) {
                Some((raw, big_endian)) => {
                    raw_tasks(raw, big_endian, target.size, slots, &mut tasks);
                }
                None => tasks.push(Task::Decode { piece: k, slots }),
            }
        }
        tasks
            .into_par_iter()
            .try_for_each(|task| self.run_task(target, task))
    }

    /// Where a message's values start in the stream and their byte order,
    /// when they are stored there as they are (uncompressed numbers of the
    /// variable's type that fill the message's section exactly).
    fn raw_payload(&self, target: Target, p: &Located) -> Option<(u64, bool)> {
        let schema = &self.header.schema;
        let vt = schema.value_type(schema.var(target.var).dtype);
        let Piece::Row {
            info,
            payload,
            raw: Some(raw),
        } = &p.piece
        else {
            return None;
        };
        let msg_elems: u64 = p.section.iter().map(|s| s.count).product();
        (carries(info.dtype, vt) && payload.end - raw == msg_elems * target.size)
            .then_some((*raw, info.big_endian))
    }

    /// Does one task of [`place`](Self::place).
    fn run_task(&self, target: Target, task: Task<'_>) -> Result<()> {
        match task {
            Task::Raw {
                big_endian,
                mut reads,
            } => {
                let at = reads.first().map_or(0, |(at, _)| *at);
                let got = self
                    .source
                    .read_ranges_into(&mut reads)
                    .map_err(|e| NcStreamError::io(at, std::io::Error::other(e)))?;
                for ((at, slot), got) in reads.into_iter().zip(got) {
                    if got < slot.len() {
                        return Err(NcStreamError::truncated(
                            at,
                            format!("the values of a data message ({} bytes)", slot.len()),
                        ));
                    }
                    to_native(slot, target.size, big_endian);
                }
                Ok(())
            }
            Task::Decode { piece, slots } => {
                self.copy_decoded(target, &self.pieces(target.var)[piece], slots)
            }
        }
    }

    /// Decodes message `p` whole and copies its runs into their slots.
    fn copy_decoded(
        &self,
        target: Target,
        p: &Located,
        slots: Vec<(Run, &mut [u8])>,
    ) -> Result<()> {
        let schema = &self.header.schema;
        let msg_elems: u64 = p.section.iter().map(|s| s.count).product();
        let v = self.decode(target.var, p)?;
        let Some(src) = values_as_bytes(&v).filter(|b| b.len() as u64 == msg_elems * target.size)
        else {
            return Err(unfilled(schema, target.var, p.at));
        };
        if v.dtype() != target.dtype {
            return Err(NcStreamError::corrupt(
                p.at,
                format!(
                    "{}: a message of type {} for a variable of type {}",
                    schema.var_path(target.var),
                    v.dtype(),
                    target.dtype
                ),
            ));
        }
        for (r, slot) in slots {
            let m = (r.msg * target.size) as usize;
            slot.copy_from_slice(&src[m..m + slot.len()]);
        }
        Ok(())
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

/// Writes the fill value into the elements of `out` that no interval of
/// `covered` (sorted, see [`overlap::covered`]) holds.
fn fill_gaps(out: &mut [u8], fill: &[u8], covered: &[(u64, u64)]) {
    let size = fill.len();
    let n = (out.len() / size) as u64;
    let mut fill_to = |from: u64, to: u64| {
        if from < to {
            for c in out[from as usize * size..to as usize * size].chunks_exact_mut(size) {
                c.copy_from_slice(fill);
            }
        }
    };
    let mut next = 0u64;
    for &(start, end) in covered {
        fill_to(next, start);
        next = next.max(end);
    }
    fill_to(next, n);
}

/// Puts values of `size` bytes stored in the given byte order into native
/// order, in place.
fn to_native(bytes: &mut [u8], size: u64, big_endian: bool) {
    if big_endian == cfg!(target_endian = "big") {
        return;
    }
    macro_rules! swap {
        ($t:ty) => {
            for c in bytes.chunks_exact_mut(std::mem::size_of::<$t>()) {
                let x = <$t>::from_ne_bytes(c.try_into().expect("whole values"));
                c.copy_from_slice(&x.swap_bytes().to_ne_bytes());
            }
        };
    }
    match size {
        2 => swap!(u16),
        4 => swap!(u32),
        8 => swap!(u64),
        // One-byte values have no order.
        _ => {}
    }
}

/// Cuts one raw message's slots (in output order) into [`Task::Raw`]s of
/// [`TASK_BYTES`]: a long slot in parts, short ones together (one batch,
/// whose nearby ranges the source may merge).
fn raw_tasks<'a>(
    raw: u64,
    big_endian: bool,
    size: u64,
    slots: Vec<(Run, &'a mut [u8])>,
    tasks: &mut Vec<Task<'a>>,
) {
    let mut reads: Vec<(u64, &'a mut [u8])> = vec![];
    let mut bytes = 0usize;
    for (r, mut slot) in slots {
        let mut at = raw + r.msg * size;
        while !slot.is_empty() {
            let take = slot.len().min(TASK_BYTES - bytes);
            let (head, tail) = std::mem::take(&mut slot).split_at_mut(take);
            reads.push((at, head));
            slot = tail;
            at += take as u64;
            bytes += take;
            if bytes == TASK_BYTES {
                let reads = std::mem::take(&mut reads);
                tasks.push(Task::Raw { big_endian, reads });
                bytes = 0;
            }
        }
    }
    if !reads.is_empty() {
        tasks.push(Task::Raw { big_endian, reads });
    }
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
