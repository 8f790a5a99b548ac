//! One pass over a stream's framing: every message found, its kind and
//! where its payload lies, without decoding any values.
//!
//! A stream may start with `MAGIC_START` (a file), and then ends with
//! `MAGIC_END` (or an error message), or directly with a message (a
//! cdmremote response), and then ends cleanly between two messages. Every length is checked against the bytes left before anything
//! is read for it.

use std::ops::Range;

use nctk_store::bytes::ByteSource;

use crate::error::{NcStreamError, Result};
use crate::payload::decode::{spans, DataInfo, Span};
use crate::proto;
use crate::wire::{Magic, MAX_VARINT_LEN};

/// Where a stream's bytes come from: a byte source or memory.
pub(crate) trait Input {
    /// The stream's length.
    fn size(&self) -> u64;
    /// Fills `buf` from `offset` (within [`size`](Self::size)).
    fn fill(&self, offset: u64, buf: &mut [u8]) -> Result<()>;
}

impl Input for [u8] {
    fn size(&self) -> u64 {
        self.len() as u64
    }

    fn fill(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
        let start = offset as usize;
        buf.copy_from_slice(&self[start..start + buf.len()]);
        Ok(())
    }
}

/// A byte source with its length read once.
pub(crate) struct SourceInput<'a> {
    /// The bytes.
    pub(crate) source: &'a dyn ByteSource,
    /// Their length.
    pub(crate) len: u64,
}

impl Input for SourceInput<'_> {
    fn size(&self) -> u64 {
        self.len
    }

    fn fill(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
        self.source
            .read_exact_at(offset, buf)
            .map_err(|e| NcStreamError::io(offset, std::io::Error::other(e)))
    }
}

/// One message of a stream.
#[derive(Debug)]
pub(crate) enum Item {
    /// A header message.
    Header(Box<proto::Header>),
    /// A row data message: its facts and its payload's extent.
    Data {
        /// What the `Data` message says.
        info: DataInfo,
        /// Where the payload (after the message) lies.
        payload: Range<u64>,
        /// For an uncompressed payload of fixed-size values: where the raw
        /// values start (after the byte count).
        raw: Option<u64>,
    },
    /// A column data message (`DataCol`), at this extent.
    Col {
        /// The variable's full name.
        name: String,
        /// The section its values fill.
        section: Vec<Span>,
        /// Its `dataType` code.
        dtype: i32,
        /// Where the message lies (its protobuf bytes).
        message: Range<u64>,
    },
    /// An error message.
    Error(String),
}

/// A small read-ahead window over an [`Input`], for the many short reads
/// of framing.
struct Cursor<'a, I: Input + ?Sized> {
    input: &'a I,
    pos: u64,
    window: Vec<u8>,
    window_at: u64,
}

/// Bytes read ahead at a time.
const WINDOW: u64 = 64 * 1024;

impl<'a, I: Input + ?Sized> Cursor<'a, I> {
    fn left(&self) -> u64 {
        self.input.size() - self.pos
    }

    /// The next `n` bytes (at most the window's size) without moving.
    fn peek(&mut self, n: u64) -> Result<&[u8]> {
        if n > self.left() {
            return Err(NcStreamError::truncated(self.pos, "a message"));
        }
        let have = self.window_at + self.window.len() as u64;
        if self.pos < self.window_at || self.pos + n > have {
            let len = WINDOW.max(n).min(self.left());
            self.window.resize(len as usize, 0);
            self.input.fill(self.pos, &mut self.window)?;
            self.window_at = self.pos;
        }
        let s = (self.pos - self.window_at) as usize;
        Ok(&self.window[s..s + n as usize])
    }

    fn varint(&mut self, what: &str) -> Result<u64> {
        let at = self.pos;
        let n = (MAX_VARINT_LEN as u64).min(self.left());
        let bytes = self.peek(n)?;
        let (v, used) = crate::wire::get_varint(bytes, at).map_err(|e| match e {
            NcStreamError::Truncated { .. } => NcStreamError::truncated(at, what),
            e => e,
        })?;
        self.pos += used as u64;
        Ok(v)
    }

    /// Moves past `n` bytes that must be there.
    fn skip(&mut self, n: u64, what: &str) -> Result<()> {
        if n > self.left() {
            return Err(NcStreamError::truncated(
                self.pos,
                format!("{what} of {n} bytes ({} left)", self.left()),
            ));
        }
        self.pos += n;
        Ok(())
    }

    /// A varint length and that many bytes, read.
    fn block(&mut self, what: &str) -> Result<(Vec<u8>, u64)> {
        let n = self.varint(what)?;
        let at = self.pos;
        if n > self.left() {
            return Err(NcStreamError::truncated(
                at,
                format!("{what} of {n} bytes ({} left)", self.left()),
            ));
        }
        let mut out = vec![0u8; n as usize];
        self.input.fill(at, &mut out)?;
        self.pos += n;
        Ok((out, at))
    }

    fn magic(&mut self) -> Result<[u8; 4]> {
        let b = self.peek(4)?;
        let m = [b[0], b[1], b[2], b[3]];
        self.pos += 4;
        Ok(m)
    }
}

/// Every message of `input`, each with the offset of its mark, in order.
pub(crate) fn scan<I: Input + ?Sized>(input: &I) -> Result<Vec<(u64, Item)>> {
    let mut c = Cursor {
        input,
        pos: 0,
        window: vec![],
        window_at: 0,
    };
    let mut items = vec![];
    let mut first = true;
    let mut started = false;
    let mut ended = false;
    while c.left() > 0 {
        let at = c.pos;
        if c.left() < 4 {
            return Err(NcStreamError::truncated(at, "a message mark"));
        }
        let magic = c.magic()?;
        match Magic::from_bytes(magic) {
            Some(Magic::Start) if first => started = true,
            Some(Magic::End) => {
                ended = true;
                if c.left() > 0 {
                    return Err(NcStreamError::corrupt(
                        c.pos,
                        format!("{} bytes after MAGIC_END", c.left()),
                    ));
                }
            }
            Some(Magic::Header) => {
                let (bytes, m_at) = c.block("a header message")?;
                let h: proto::Header = prost::Message::decode(&bytes[..])
                    .map_err(|e| NcStreamError::message(m_at, "Header", e))?;
                items.push((at, Item::Header(Box::new(h))));
            }
            Some(Magic::Data) => {
                let (bytes, m_at) = c.block("a data message")?;
                let d: proto::Data = prost::Message::decode(&bytes[..])
                    .map_err(|e| NcStreamError::message(m_at, "Data", e))?;
                let info = DataInfo::of_data(&d, m_at)?;
                let start = c.pos;
                let raw = payload(&mut c, &info)?;
                items.push((
                    at,
                    Item::Data {
                        info,
                        payload: start..c.pos,
                        raw,
                    },
                ));
            }
            Some(Magic::Data2) => {
                let n = c.varint("a DataCol message")?;
                let m_at = c.pos;
                c.skip(n, "a DataCol message")?;
                let (name, section, dtype) = col_head(input, m_at..c.pos)?;
                items.push((
                    at,
                    Item::Col {
                        name,
                        section,
                        dtype,
                        message: m_at..c.pos,
                    },
                ));
            }
            Some(Magic::Error) => {
                let (bytes, m_at) = c.block("an error message")?;
                let e: proto::Error = prost::Message::decode(&bytes[..])
                    .map_err(|e| NcStreamError::message(m_at, "Error", e))?;
                items.push((at, Item::Error(e.message.unwrap_or_default())));
            }
            _ => {
                return Err(NcStreamError::corrupt(
                    at,
                    format!("{magic:02x?} is not a message mark here"),
                ))
            }
        }
        first = false;
    }
    // A file stream (it has MAGIC_START) cut exactly between two messages
    // would otherwise read as complete, the rest as fill; a writer that
    // failed ends with its error message instead, which the reader reports.
    let failed = items.iter().any(|(_, i)| matches!(i, Item::Error(_)));
    if started && !ended && !failed {
        return Err(NcStreamError::truncated(
            c.pos,
            "a stream that starts with MAGIC_START: MAGIC_END is missing",
        ));
    }
    Ok(items)
}

/// The name, section and type of the `DataCol` message at `range`: those
/// fields read alone, so the values are not decoded (nor held) during the
/// scan.
fn col_head<I: Input + ?Sized>(input: &I, range: Range<u64>) -> Result<(String, Vec<Span>, i32)> {
    #[derive(Clone, PartialEq, prost::Message)]
    struct Head {
        #[prost(string, optional, tag = "1")]
        name: Option<String>,
        #[prost(int32, optional, tag = "2")]
        dtype: Option<i32>,
        #[prost(message, optional, tag = "3")]
        section: Option<proto::Section>,
    }
    let mut bytes = vec![0u8; (range.end - range.start) as usize];
    input.fill(range.start, &mut bytes)?;
    let m: Head = prost::Message::decode(&bytes[..])
        .map_err(|e| NcStreamError::message(range.start, "DataCol", e))?;
    Ok((
        m.name.unwrap_or_default(),
        spans(m.section.as_ref()),
        m.dtype.unwrap_or(0),
    ))
}

/// Moves past a data payload; for raw fixed-size values, where they start.
fn payload<I: Input + ?Sized>(c: &mut Cursor<'_, I>, info: &DataInfo) -> Result<Option<u64>> {
    if info.dtype == proto::DataType::Sequence {
        loop {
            let at = c.pos;
            match Magic::from_bytes(c.magic()?) {
                Some(Magic::VEnd) => return Ok(None),
                Some(Magic::VData) => {
                    let n = c.varint("a StructureData")?;
                    c.skip(n, "a StructureData")?;
                }
                _ => {
                    return Err(NcStreamError::corrupt(
                        at,
                        "neither MAGIC_VDATA nor MAGIC_VEND inside a sequence",
                    ))
                }
            }
        }
    }
    let listed = info.vdata
        || matches!(
            info.dtype,
            proto::DataType::String | proto::DataType::Opaque
        );
    let at = c.pos;
    let elems = info.num_elements(at)?;
    let disagree = |what: String| {
        NcStreamError::corrupt(at, format!("{what} for a section of {elems} values"))
    };
    // Bytes per value when the values are fixed-size numbers or characters.
    let size = crate::header::decode::atomic_type(info.dtype, false)
        .and_then(|t| t.size())
        .filter(|_| !listed);
    if let (Some(size), Some(inflated)) = (size, info.deflated) {
        if inflated != elems.saturating_mul(size as u64) {
            return Err(disagree(format!("{inflated} bytes inflated")));
        }
    }
    if listed && info.deflated.is_none() {
        let n = c.varint("a count of values")?;
        if n > c.left() {
            return Err(NcStreamError::truncated(
                c.pos,
                format!("{n} values in {} bytes", c.left()),
            ));
        }
        if n != elems {
            return Err(disagree(format!("{n} values")));
        }
        for _ in 0..n {
            let len = c.varint("a value's length")?;
            c.skip(len, "a value")?;
        }
        return Ok(None);
    }
    let n = c.varint("a payload length")?;
    let start = c.pos;
    c.skip(n, "a payload")?;
    if let (Some(size), None) = (size, info.deflated) {
        if n != elems.saturating_mul(size as u64) {
            return Err(disagree(format!("{n} bytes of {size}-byte values")));
        }
    }
    let fixed = info.deflated.is_none() && !listed && info.dtype != proto::DataType::Structure;
    Ok(fixed.then_some(start))
}
