//! A data-only cdmremote response (`req=data`: data messages, no header)
//! decoded against the header of the same dataset, as the cdmremote client
//! does.

use nctk_model::{Values, VarId};

use crate::error::{NcStreamError, Result};
use crate::header::decode::StreamHeader;
use crate::payload::decode::{decode_datacol, decode_payload, Span};
use crate::proto;
use crate::reader::scan::{scan, Item};

/// The values of one data message and where they go in their variable.
#[derive(Debug, Clone, PartialEq)]
pub struct DataPiece {
    /// The variable.
    pub var: VarId,
    /// First index in each dimension.
    pub start: Vec<u64>,
    /// Number of indices in each dimension.
    pub count: Vec<u64>,
    /// Step in each dimension (at least 1).
    pub stride: Vec<u64>,
    /// The values, row-major over the section.
    pub values: Values,
}

/// Decodes the data messages of a response `body` against `header`; `name`
/// (the request's URL) names the stream in errors. An error message in the
/// body is [`NcStreamError::Remote`]; a header message is ignored.
pub fn decode_data(header: &StreamHeader, body: &[u8], name: &str) -> Result<Vec<DataPiece>> {
    decode_inner(header, body).map_err(|e| e.in_stream(name))
}

fn decode_inner(header: &StreamHeader, body: &[u8]) -> Result<Vec<DataPiece>> {
    let schema = &header.schema;
    let mut out = vec![];
    for (at, item) in scan(body)? {
        let (var_name, section, values) = match item {
            Item::Header(_) => continue,
            Item::Error(message) => {
                return Err(NcStreamError::Remote {
                    stream: String::new(),
                    offset: at,
                    message,
                })
            }
            Item::Data { info, payload, .. } => {
                let var = find(header, &info.var_name, at)?;
                let bytes = &body[payload.start as usize..payload.end as usize];
                let (values, _) = decode_payload(schema, var, &info, bytes, payload.start)?;
                (info.var_name, info.section, values)
            }
            Item::Col {
                name,
                section,
                message,
                ..
            } => {
                let var = find(header, &name, at)?;
                let col: proto::DataCol =
                    prost::Message::decode(&body[message.start as usize..message.end as usize])
                        .map_err(|e| NcStreamError::message(message.start, "DataCol", e))?;
                let values = decode_datacol(schema, schema.var(var).dtype, &col, message.start)?;
                (name, section, values)
            }
        };
        out.push(DataPiece {
            var: find(header, &var_name, at)?,
            start: section.iter().map(|s: &Span| s.start).collect(),
            count: section.iter().map(|s| s.count).collect(),
            stride: section.iter().map(|s| s.stride).collect(),
            values,
        });
    }
    Ok(out)
}

fn find(header: &StreamHeader, name: &str, at: u64) -> Result<VarId> {
    crate::names::find_variable(&header.schema, name).ok_or_else(|| {
        NcStreamError::corrupt(
            at,
            format!("data for {name:?}, which the header does not define"),
        )
    })
}
