//! A cdmremote client: [`CdmRemoteReader`], a [`DataSource`] over a
//! cdmremote server, reached through a [`Transport`] (the facade's HTTP
//! client; no crate below the facade sees a URL).
//!
//! At open the reader asks for the header (`req=header`: one header
//! message) and keeps the values the header carries ("immediate" data,
//! coordinates). Each [`DataSource::read`] of another variable is one
//! request for exactly the section asked for,
//! `req=data&var=NAME(start:last:stride,...)` (netCDF-Java's section
//! syntax: inclusive ends; `NAME` the full escaped name, percent-encoded),
//! whose data messages are decoded with [`response::decode_data`] and put
//! in place; what no message covers reads as the fill value, as in a stream.

use std::sync::Arc;

use nctk_model::{
    DataSource, ErrorKind, Format, HasErrorKind, Schema, Selection, SourceError, UserTypeKind,
    Values, VarId,
};
use nctk_store::bytes::MemSource;

use crate::error::NcStreamError;
use crate::header::decode::StreamHeader;
use crate::names::full_name;
use crate::reader::scan::{scan, Item};
use crate::reader::NcStreamReader;
use crate::response::{self, DataPiece};
use crate::wire::Magic;

/// How a [`CdmRemoteReader`] reaches its server: a GET of the dataset's
/// endpoint with a query.
pub trait Transport: Send + Sync {
    /// The body of the server's successful answer to `ENDPOINT?query`
    /// (`query` is already percent-encoded: `req=header`, `req=data&var=...`).
    fn get(&self, query: &str) -> Result<Vec<u8>, TransportError>;

    /// The dataset's URL, for messages.
    fn name(&self) -> &str;
}

/// A request that got no usable answer.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TransportError {
    /// The server answered with an error status; `message` is the ncstream
    /// error message's text when the body is one, else the body's text.
    #[error("HTTP status {status}: {message}")]
    Status {
        /// The HTTP status code.
        status: u16,
        /// What the server said.
        message: String,
    },
    /// No answer: the connection failed, timed out or broke, or the answer
    /// was larger than the client accepts.
    #[error("{reason}")]
    Failed {
        /// What went wrong.
        reason: String,
        /// The client's error, if any.
        #[source]
        source: Option<Box<dyn std::error::Error + Send + Sync>>,
    },
}

/// An error of a [`CdmRemoteReader`]; each names the dataset's URL.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CdmRemoteError {
    /// A request failed.
    #[error("{url}?{query}: {source}")]
    Request {
        /// The dataset's URL.
        url: String,
        /// The query sent.
        query: String,
        /// Why it failed.
        #[source]
        source: TransportError,
    },
    /// An answer is not valid ncstream (or is an ncstream error message);
    /// the stream error names the URL and the query.
    #[error(transparent)]
    Stream(#[from] NcStreamError),
    /// An answer carries values that were not asked for.
    #[error("{url}?{query}: {reason}")]
    Answer {
        /// The dataset's URL.
        url: String,
        /// The query sent.
        query: String,
        /// What is wrong with the answer.
        reason: String,
    },
}

/// A status says its kind: 404 (or 410) not found, 401 or 403 permission
/// denied, any other 4xx a request the server refuses (invalid input); a
/// 5xx, any other status or no answer at all (a dead server, a timeout) is
/// I/O.
impl HasErrorKind for TransportError {
    fn kind(&self) -> ErrorKind {
        match self {
            TransportError::Status { status, .. } => match status {
                404 | 410 => ErrorKind::NotFound,
                401 | 403 => ErrorKind::PermissionDenied,
                400..=499 => ErrorKind::InvalidInput,
                _ => ErrorKind::Io,
            },
            TransportError::Failed { .. } => ErrorKind::Io,
        }
    }
}

/// A failed request has its transport's kind, a bad stream the stream's;
/// an answer with values that were not asked for is invalid data.
impl HasErrorKind for CdmRemoteError {
    fn kind(&self) -> ErrorKind {
        match self {
            CdmRemoteError::Request { source, .. } => source.kind(),
            CdmRemoteError::Stream(e) => e.kind(),
            CdmRemoteError::Answer { .. } => ErrorKind::InvalidData,
        }
    }
}

/// The text of the ncstream error message (`MAGIC_ERR`, a varint length,
/// an `Error` message) that starts `body`, if it starts with one.
pub fn error_text(body: &[u8]) -> Option<String> {
    if !body.starts_with(&Magic::Error.bytes()) {
        return None;
    }
    scan(body)
        .ok()?
        .into_iter()
        .find_map(|(_, item)| match item {
            Item::Error(message) => Some(message),
            _ => None,
        })
}

/// A dataset on a cdmremote server, read through `T`; its netCDF format
/// is [`Format::Netcdf4`], as for a stream.
pub struct CdmRemoteReader<T: Transport> {
    transport: T,
    header: StreamHeader,
}

impl<T: Transport> CdmRemoteReader<T> {
    /// Asks the server for the dataset's header (`req=header`). The header
    /// does not give the size of an opaque type: for each opaque variable
    /// the first value is asked for too, and its length is the size (as
    /// for a stream, whose first value gives it).
    pub fn open(transport: T) -> Result<Self, CdmRemoteError> {
        const QUERY: &str = "req=header";
        let mut body = get(&transport, QUERY)?;
        let name = format!("{}?{QUERY}", transport.name());
        if !body.starts_with(&Magic::Header.bytes()) && error_text(&body).is_none() {
            let reason = "the header answer does not start with a header message";
            return Err(NcStreamError::corrupt(0, reason).in_stream(&name).into());
        }
        let mut header = stream_header(body.clone(), &name)?;
        let opaque: Vec<VarId> = header
            .schema
            .var_ids()
            .filter(|&v| {
                let schema = &header.schema;
                let empty = schema.shape(v).contains(&0);
                !empty
                    && matches!(
                        schema.user_kind(schema.var(v).dtype),
                        Some(UserTypeKind::Opaque { .. })
                    )
            })
            .collect();
        if !opaque.is_empty() {
            // The header answer and one data answer per opaque variable
            // read as one stream, whose reader sizes the types.
            for &v in &opaque {
                let rank = header.schema.shape(v).len();
                let first = Selection::block(&vec![0; rank], &vec![1; rank]);
                body.extend(get(&transport, &query(&header.schema, v, &first))?);
            }
            header = stream_header(body, &name)?;
        }
        Ok(CdmRemoteReader { transport, header })
    }

    fn read_remote(&self, var: VarId, sel: &Selection) -> Result<Values, CdmRemoteError> {
        let query = query(&self.header.schema, var, sel);
        let url = self.transport.name().to_string();
        let body = get(&self.transport, &query)?;
        let name = format!("{url}?{query}");
        let pieces = response::decode_data(&self.header, &body, &name)?;
        assemble(&self.header.schema, var, sel, pieces).map_err(|reason| CdmRemoteError::Answer {
            url,
            query,
            reason,
        })
    }
}

/// The body of the answer to `query`.
fn get(transport: &impl Transport, query: &str) -> Result<Vec<u8>, CdmRemoteError> {
    transport
        .get(query)
        .map_err(|source| CdmRemoteError::Request {
            url: transport.name().to_string(),
            query: query.to_string(),
            source,
        })
}

/// What the stream `body` (named `name`) defines.
fn stream_header(body: Vec<u8>, name: &str) -> Result<StreamHeader, NcStreamError> {
    let source = Arc::new(MemSource::new(body).with_name(name));
    Ok(NcStreamReader::open(source, name)?.header().clone())
}

/// The query asking for `sel` of `var`: `req=data&var=NAME(start:last:stride,...)`
/// (`NAME` alone for a scalar), encoded.
fn query(schema: &Schema, var: VarId, sel: &Selection) -> String {
    let mut spec = full_name(schema, var);
    if sel.rank() > 0 {
        let ranges: Vec<String> = (0..sel.rank())
            .map(|d| {
                let last = sel.start[d] + (sel.count[d] - 1) * sel.stride[d];
                format!("{}:{last}:{}", sel.start[d], sel.stride[d])
            })
            .collect();
        spec = format!("{spec}({})", ranges.join(","));
    }
    format!("req=data&var={}", encode_query_value(&spec))
}

/// `text` percent-encoded for a query value as netCDF-Java's clients send
/// it (`var=%2Ftemperature%280%3A1%2C0%3A1%29`): every byte but the
/// unreserved characters (letters, digits, `-._~`) is encoded, so the
/// section syntax, `;`, `&`, `=`, `+`, `\`, spaces and UTF-8 reach the
/// server as they are.
pub fn encode_query_value(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for &b in text.as_bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The values of `sel` of `var` from the pieces of an answer: each piece's
/// elements go where they fall in the selection (several pieces of one
/// variable may cover it; what none covers reads as the fill value). A
/// piece of another variable, or elements outside the selection, or
/// elements given twice, are an error.
fn assemble(
    schema: &Schema,
    var: VarId,
    sel: &Selection,
    pieces: Vec<DataPiece>,
) -> Result<Values, String> {
    let total = sel.num_elements().ok_or("the selection's size overflows")?;
    if let [piece] = pieces.as_slice() {
        let same = piece.var == var
            && piece.start == sel.start
            && piece.count == sel.count
            && (piece
                .stride
                .iter()
                .map(|&s| s.max(1))
                .eq(sel.stride.iter().copied())
                || sel.count.iter().all(|&c| c <= 1));
        if same && piece.values.len() as u64 == total {
            return Ok(pieces.into_iter().next().expect("one piece").values);
        }
    }
    // (offset in the output, piece, offset in the piece, length)
    let mut runs: Vec<(u64, usize, u64, u64)> = Vec::new();
    for (p, piece) in pieces.iter().enumerate() {
        if piece.var != var {
            return Err(format!(
                "the answer carries variable {:?}, not the one asked for",
                schema.var_path(piece.var)
            ));
        }
        piece_runs(sel, piece, p, &mut runs)?;
    }
    runs.sort_by_key(|r| r.0);
    let fill = schema.fill_value(var);
    let mut out = schema.empty_values(schema.var(var).dtype, 0);
    let mut at = 0u64;
    for (offset, p, from, len) in runs {
        if offset < at {
            return Err(format!(
                "the answer gives element {offset} of the selection twice"
            ));
        }
        if offset > at {
            out.extend_from(&Values::repeat(&fill, (offset - at) as usize));
        }
        let from = from as usize;
        out.extend_from(&pieces[p].values.slice(from..from + len as usize));
        at = offset + len;
    }
    if at < total {
        out.extend_from(&Values::repeat(&fill, (total - at) as usize));
    }
    Ok(out)
}

/// Appends to `runs` where the elements of `piece` (the `p`th) fall in the
/// output of `sel`: runs of elements consecutive in both, as
/// `(output offset, p, piece offset, length)`.
fn piece_runs(
    sel: &Selection,
    piece: &DataPiece,
    p: usize,
    runs: &mut Vec<(u64, usize, u64, u64)>,
) -> Result<(), String> {
    let rank = sel.rank();
    if piece.start.len() != rank || piece.count.len() != rank || piece.stride.len() != rank {
        return Err(format!(
            "a data message has a section of rank {}, the variable has rank {rank}",
            piece.start.len()
        ));
    }
    let elements = piece.count.iter().try_fold(1u64, |n, &c| n.checked_mul(c));
    if elements != Some(piece.values.len() as u64) {
        return Err(format!(
            "a data message's section {:?} does not match its {} values",
            piece.count,
            piece.values.len()
        ));
    }
    if piece.values.is_empty() {
        return Ok(());
    }
    // Where each index of the piece falls in the output, per dimension.
    let mut maps: Vec<Vec<u64>> = Vec::with_capacity(rank);
    for d in 0..rank {
        let stride = piece.stride[d].max(1);
        let map = (0..piece.count[d])
            .map(|i| {
                let index = i
                    .checked_mul(stride)
                    .and_then(|x| x.checked_add(piece.start[d]));
                index
                    .and_then(|x| x.checked_sub(sel.start[d]))
                    .filter(|x| x % sel.stride[d] == 0 && x / sel.stride[d] < sel.count[d])
                    .map(|x| x / sel.stride[d])
                    .ok_or_else(|| {
                        format!(
                            "a data message gives index {} of dimension {d}, which was not asked for",
                            index.map_or("past 2^64".into(), |x| x.to_string())
                        )
                    })
            })
            .collect::<Result<Vec<u64>, String>>()?;
        maps.push(map);
    }
    let strides = |count: &[u64]| {
        let mut s = vec![1u64; rank];
        for d in (0..rank.saturating_sub(1)).rev() {
            s[d] = s[d + 1] * count[d + 1];
        }
        s
    };
    let (out_strides, piece_strides) = (strides(&sel.count), strides(&piece.count));
    let Some((inner, outer)) = maps.split_last() else {
        runs.push((0, p, 0, 1));
        return Ok(());
    };
    // The innermost dimension's runs: (piece index, length).
    let mut inner_runs: Vec<(usize, u64)> = Vec::new();
    for (i, &o) in inner.iter().enumerate() {
        match inner_runs.last_mut() {
            Some((first, len)) if inner[*first] + *len == o => *len += 1,
            _ => inner_runs.push((i, 1)),
        }
    }
    let mut index = vec![0usize; outer.len()];
    loop {
        let out_base: u64 = (0..outer.len())
            .map(|d| outer[d][index[d]] * out_strides[d])
            .sum();
        let piece_base: u64 = (0..outer.len())
            .map(|d| index[d] as u64 * piece_strides[d])
            .sum();
        for &(i, len) in &inner_runs {
            runs.push((out_base + inner[i], p, piece_base + i as u64, len));
        }
        // The odometer over the outer dimensions.
        let mut d = outer.len();
        loop {
            if d == 0 {
                return Ok(());
            }
            d -= 1;
            index[d] += 1;
            if index[d] < outer[d].len() {
                break;
            }
            index[d] = 0;
        }
    }
}

impl<T: Transport> DataSource for CdmRemoteReader<T> {
    fn schema(&self) -> &Schema {
        &self.header.schema
    }

    fn format(&self) -> Format {
        Format::Netcdf4
    }

    fn read(&self, var: VarId, selection: &Selection) -> Result<Values, SourceError> {
        let schema = &self.header.schema;
        selection.check(&schema.shape(var), false)?;
        if let Some((_, all)) = self.header.immediate.iter().find(|(v, _)| *v == var) {
            return Ok(select(all, &schema.shape(var), selection));
        }
        if selection.count.contains(&0) {
            return Ok(schema.empty_values(schema.var(var).dtype, 0));
        }
        Ok(self.read_remote(var, selection)?)
    }
}

/// `sel` of `all`, the values of a whole variable of `shape`.
fn select(all: &Values, shape: &[u64], sel: &Selection) -> Values {
    let mut out = all.slice(0..0);
    for (offset, len) in sel.runs(shape) {
        out.extend_from(&all.slice(offset as usize..(offset + len) as usize));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use nctk_model::{DataType, GroupId};

    /// A schema with `v(x, y)` of ints.
    fn schema(nx: u64, ny: u64) -> (Schema, VarId) {
        let mut s = Schema::new();
        let x = s.add_dim(GroupId::ROOT, "x", nx, false).unwrap();
        let y = s.add_dim(GroupId::ROOT, "y", ny, false).unwrap();
        let v = s
            .add_var(GroupId::ROOT, "v", DataType::Int, &[x, y])
            .unwrap();
        (s, v)
    }

    /// The whole variable: each value is its row-major index.
    fn whole(nx: u64, ny: u64) -> Values {
        Values::Int((0..(nx * ny) as i32).collect())
    }

    fn piece(
        var: VarId,
        start: &[u64],
        count: &[u64],
        stride: &[u64],
        all: &Values,
        shape: &[u64],
    ) -> DataPiece {
        let sel = Selection {
            start: start.to_vec(),
            count: count.to_vec(),
            stride: stride.to_vec(),
        };
        DataPiece {
            var,
            start: sel.start.clone(),
            count: sel.count.clone(),
            stride: sel.stride.clone(),
            values: select(all, shape, &sel),
        }
    }

    /// Pieces that split a selection in any way (rows, columns, strided
    /// interleaves, out of order) assemble into the values the selection
    /// reads directly from the whole variable.
    #[test]
    fn pieces_assemble_into_the_selection() {
        let (nx, ny) = (7u64, 9u64);
        let shape = [nx, ny];
        let (s, v) = schema(nx, ny);
        let all = whole(nx, ny);
        let sel = Selection {
            start: vec![1, 0],
            count: vec![5, 9],
            stride: vec![1, 1],
        };
        let expected = select(&all, &shape, &sel);
        let splits: Vec<Vec<DataPiece>> = vec![
            // One piece per row, last row first.
            (1..6u64)
                .rev()
                .map(|r| piece(v, &[r, 0], &[1, 9], &[1, 1], &all, &shape))
                .collect(),
            // Even and odd columns.
            vec![
                piece(v, &[1, 1], &[5, 4], &[1, 2], &all, &shape),
                piece(v, &[1, 0], &[5, 5], &[1, 2], &all, &shape),
            ],
            // Two row blocks.
            vec![
                piece(v, &[1, 0], &[2, 9], &[1, 1], &all, &shape),
                piece(v, &[3, 0], &[3, 9], &[1, 1], &all, &shape),
            ],
        ];
        for pieces in splits {
            assert_eq!(assemble(&s, v, &sel, pieces).unwrap(), expected);
        }
        // A strided selection answered by one message, stride 0 read as 1
        // where a dimension has one index.
        let sel = Selection {
            start: vec![0, 2],
            count: vec![4, 1],
            stride: vec![2, 3],
        };
        let mut one = piece(v, &[0, 2], &[4, 1], &[2, 1], &all, &shape);
        assert_eq!(
            assemble(&s, v, &sel, vec![one.clone()]).unwrap(),
            select(&all, &shape, &sel)
        );
        one.stride = vec![2, 0];
        assert_eq!(
            assemble(&s, v, &sel, vec![one]).unwrap(),
            select(&all, &shape, &sel)
        );
    }

    /// What no piece covers reads as the fill value; values outside the
    /// selection, given twice, of another variable or not matching their
    /// section are errors.
    #[test]
    fn gaps_fill_and_bad_pieces_are_refused() {
        let shape = [4u64, 3];
        let (mut s, v) = schema(4, 3);
        let all = whole(4, 3);
        let sel = Selection::all(&shape);
        let got = assemble(
            &s,
            v,
            &sel,
            vec![piece(v, &[1, 0], &[2, 3], &[1, 1], &all, &shape)],
        )
        .unwrap();
        let fill = s.fill_value(v);
        let mut expected = Values::repeat(&fill, 3);
        expected.extend_from(&all.slice(3..9));
        expected.extend_from(&Values::repeat(&fill, 3));
        assert_eq!(got, expected);

        let row = |r| piece(v, &[r, 0], &[1, 3], &[1, 1], &all, &shape);
        let sel = Selection::block(&[0, 0], &[2, 3]);
        let e = assemble(&s, v, &sel, vec![row(2)]).unwrap_err();
        assert!(e.contains("index 2 of dimension 0"), "{e}");
        let e = assemble(&s, v, &sel, vec![row(0), row(0)]).unwrap_err();
        assert!(e.contains("twice"), "{e}");
        let mut short = row(0);
        short.count = vec![1, 2];
        let e = assemble(&s, v, &sel, vec![short]).unwrap_err();
        assert!(e.contains("does not match"), "{e}");
        let w = s.add_var(GroupId::ROOT, "w", DataType::Int, &[]).unwrap();
        let mut other = row(0);
        other.var = w;
        let e = assemble(&s, v, &sel, vec![other]).unwrap_err();
        assert!(e.contains("\"w\""), "{e}");
    }

    /// Names and sections reach the server encoded as netCDF-Java's
    /// client encodes them (the corpus's recorded requests).
    #[test]
    fn queries_encode_as_netcdf_java_does() {
        assert_eq!(
            encode_query_value("/temperature(0:1,0:1)"),
            "%2Ftemperature%280%3A1%2C0%3A1%29"
        );
        assert_eq!(encode_query_value("g/a\\.b c;d"), "g%2Fa%5C.b%20c%3Bd");
        assert_eq!(encode_query_value("Tempé"), "Temp%C3%A9");
    }

    /// The text of an error message is found; anything else is none.
    #[test]
    fn error_messages_are_read() {
        let error = crate::proto::Error {
            message: Some("Unknown variable nope".into()),
            code: None,
        };
        let body = prost::Message::encode_to_vec(&error);
        let mut stream = Magic::Error.bytes().to_vec();
        crate::wire::put_varint(&mut stream, body.len() as u64);
        stream.extend_from_slice(&body);
        assert_eq!(
            error_text(&stream).as_deref(),
            Some("Unknown variable nope")
        );
        assert_eq!(error_text(&stream[..stream.len() - 1]), None);
        assert_eq!(error_text(b"Unrecognized request"), None);
    }
}
