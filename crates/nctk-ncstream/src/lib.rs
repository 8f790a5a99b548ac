//! ncstream, netCDF-Java's streaming format (`../shared/specs/002_...`,
//! `ncstream-messages.md`): the protobuf messages ([`proto`], generated from
//! `proto/ncstream.proto`), the framing ([`wire`]: magic numbers and
//! varints), and the errors ([`NcStreamError`]), each naming the stream and
//! the byte offset.

pub mod error;
pub mod names;
#[rustfmt::skip]
pub mod proto;
pub mod wire;

pub use error::{NcStreamError, Result};
