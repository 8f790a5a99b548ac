//! ncstream, netCDF-Java's streaming format (`../shared/specs/002_...`,
//! `ncstream-messages.md`): the protobuf messages ([`proto`], generated from
//! `proto/ncstream.proto`), the framing ([`wire`]: magic numbers and
//! varints), and the errors ([`NcStreamError`]), each naming the stream and
//! the byte offset.

pub mod error;
/// Header messages <-> schemas.
pub mod header;
/// Whole messages on the wire (magic, length, message, payload).
pub mod message;
pub mod names;
/// Data payloads <-> values.
pub mod payload;
#[rustfmt::skip]
pub mod proto;
pub mod reader;
pub mod remote;
pub mod response;
pub mod wire;
/// [`NcStreamWriter`](writer::NcStreamWriter): a `DataSink` writing a full stream.
pub mod writer;

pub use error::{NcStreamError, Result};
pub use message::DataOptions;
pub use reader::NcStreamReader;
pub use writer::NcStreamWriter;
