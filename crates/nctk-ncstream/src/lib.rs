//! ncstream, netCDF-Java's streaming format (`../shared/specs/002_...`,
//! `ncstream-messages.md`): the protobuf messages ([`proto`], generated from
//! `proto/ncstream.proto`), the framing ([`wire`]: magic numbers and
//! varints), and the errors ([`NcStreamError`]), each naming the stream and
//! the byte offset.

pub mod error;
pub mod header;
pub mod message;
pub mod names;
pub mod payload;
#[rustfmt::skip]
pub mod proto;
pub mod reader;
pub mod remote;
pub mod response;
pub mod wire;
pub mod writer;

pub use error::{NcStreamError, Result};
pub use message::DataOptions;
pub use reader::NcStreamReader;
pub use writer::NcStreamWriter;
