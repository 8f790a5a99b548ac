//! Whole messages as they go on the wire: a magic number, a varint length,
//! the protobuf message and, for data, the payload. What nctk writes is what
//! netCDF-Java 4 (proto2) writes: `MAGIC_DATA` row messages with
//! `version = 2` and `bigend` always set (`true`: numbers are big-endian,
//! which every reader, siphon included, reads), `Range.stride` set; a full
//! stream is [`START`], a header, data messages and [`END`]; a cdmremote
//! `req=header` answer is one [`header_message`], a `req=data` answer data
//! messages only.

use std::io::Write;

use flate2::write::ZlibEncoder;
use flate2::Compression;
use nctk_model::convert::convert;
use nctk_model::{Schema, Selection, Values, VarId};
use prost::Message;

use crate::error::{NcStreamError, Result};
use crate::header::encode::{header, stream_type};
use crate::payload::encode::{encode, Payload};
use crate::proto;
use crate::wire::{put_varint, Magic};

/// The `Data.version` nctk writes (netCDF-Java 4, proto2).
pub const DATA_VERSION: u32 = 2;

/// The mark that starts a full stream (`CDFS`).
pub const START: [u8; 4] = Magic::Start.bytes();

/// The mark that ends a full stream.
pub const END: [u8; 4] = Magic::End.bytes();

/// How data messages are written.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DataOptions {
    /// Deflate the payloads of numbers, chars and enums at this zlib level
    /// (1-9; 0 stores); strings, opaque, vlen and structure payloads are
    /// never compressed, as in netCDF-Java.
    pub deflate: Option<u32>,
}

/// `magic`, the varint length of `message` and `message`.
fn framed(magic: Magic, message: &impl Message) -> Vec<u8> {
    let body = message.encode_to_vec();
    let mut out = Vec::with_capacity(body.len() + 14);
    out.extend_from_slice(&magic.bytes());
    put_varint(&mut out, body.len() as u64);
    out.extend_from_slice(&body);
    out
}

/// `MAGIC_HEADER`, its length and the `Header` describing `schema`;
/// `location` names the dataset (a path or URL). An error names what of
/// the schema ncstream cannot carry.
pub fn header_message(schema: &Schema, location: &str) -> Result<Vec<u8>> {
    Ok(framed(Magic::Header, &header(schema, location)?))
}

/// `MAGIC_ERR`, its length and an `Error` carrying `text`.
pub fn error_message(text: &str) -> Vec<u8> {
    framed(
        Magic::Error,
        &proto::Error {
            message: Some(text.to_string()),
            code: None,
        },
    )
}

/// The data message of `values` for `selection` of `var` (row-major, the
/// selection's shape; numbers of any type are converted to the variable's
/// with netCDF's rules).
pub fn data_message(
    schema: &Schema,
    var: VarId,
    selection: &Selection,
    values: &Values,
    options: &DataOptions,
) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    write_data_message(&mut out, schema, var, selection, values, options)?;
    Ok(out)
}

/// [`data_message`] written to `out`; the bytes written.
pub fn write_data_message(
    out: &mut impl Write,
    schema: &Schema,
    var: VarId,
    selection: &Selection,
    values: &Values,
    options: &DataOptions,
) -> Result<u64> {
    let v = schema.var(var);
    let item = format!("variable {:?}", schema.var_path(var));
    let st = stream_type(schema, v.dtype, &item)?;
    let want = schema.value_type(v.dtype);
    let converted;
    let values = if values.dtype() != want && !want.is_user() {
        converted =
            convert(values, want).map_err(|e| NcStreamError::unwritable(&item, e.to_string()))?;
        &converted
    } else {
        values
    };
    let n = selection.num_elements();
    if selection.rank() != v.dims.len() || n != Some(values.len() as u64) {
        return Err(NcStreamError::unwritable(
            &item,
            format!(
                "{} values given for a selection of {:?} (rank {})",
                values.len(),
                selection.count,
                v.dims.len()
            ),
        ));
    }
    let payload = encode(schema, v.dtype, values, &item)?;
    let mut data = proto::Data {
        var_name: Some(crate::names::full_name(schema, var)),
        data_type: Some(st.dtype as i32),
        section: Some(section(selection)),
        bigend: Some(true),
        version: Some(DATA_VERSION),
        compress: None,
        vdata: Some(st.vlen),
        uncompressed_size: None,
    };
    // The body: a varint count and bytes (or, for objects, already framed).
    let (count, body) = match (payload, options.deflate) {
        (Payload::Block(bytes), Some(level)) => {
            let size = u32::try_from(bytes.len()).map_err(|_| {
                NcStreamError::unwritable(&item, "a deflated message of more than 4 GiB")
            })?;
            data.compress = Some(proto::Compress::Deflate as i32);
            data.uncompressed_size = Some(size);
            let z = deflate(&bytes, level);
            (Some(z.len()), z)
        }
        (Payload::Block(bytes), None) | (Payload::Structure(bytes), _) => {
            (Some(bytes.len()), bytes)
        }
        (Payload::Objects(bytes), _) => (None, bytes),
    };
    let mut head = framed(Magic::Data, &data);
    if let Some(n) = count {
        put_varint(&mut head, n as u64);
    }
    let io = |e| NcStreamError::io(0, e).in_stream(&item);
    out.write_all(&head).map_err(io)?;
    out.write_all(&body).map_err(io)?;
    Ok((head.len() + body.len()) as u64)
}

/// A zlib stream (RFC 1950, as Java's `DeflaterOutputStream` writes) of
/// `bytes` at `level` (capped at 9).
fn deflate(bytes: &[u8], level: u32) -> Vec<u8> {
    let mut z = ZlibEncoder::new(
        Vec::with_capacity(bytes.len() / 2 + 64),
        Compression::new(level.min(9)),
    );
    z.write_all(bytes).expect("writing to a Vec does not fail");
    z.finish().expect("writing to a Vec does not fail")
}

/// The `Section` of a selection: start, size and stride per dimension.
fn section(selection: &Selection) -> proto::Section {
    proto::Section {
        range: (0..selection.rank())
            .map(|i| proto::Range {
                start: Some(selection.start[i]),
                size: Some(selection.count[i]),
                stride: Some(selection.stride[i].max(1)),
            })
            .collect(),
    }
}
