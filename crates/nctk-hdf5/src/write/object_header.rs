//! Version-2 object headers (`OHDR`): one checksummed chunk holding every
//! message, attribute creation order tracked and indexed (as netCDF-C
//! asks for every group and dataset), each message with its creation
//! order field.

use super::encode::{width_code, Enc};

/// One header message: its type number, flags and body.
#[derive(Debug, Clone)]
pub struct Message {
    /// The message type (see [`crate::object_header::kind`]).
    pub kind: u16,
    /// The message flags (bit 0: constant).
    pub flags: u8,
    /// The creation order of an attribute message (0 for others).
    pub order: u16,
    /// The encoded body.
    pub body: Vec<u8>,
}

impl Message {
    /// A message of `kind` with `body` and no flags.
    pub fn new(kind: u16, body: Vec<u8>) -> Message {
        Message {
            kind,
            flags: 0,
            order: 0,
            body,
        }
    }

    /// The same message marked constant (flag bit 0), as HDF5 marks the
    /// datatype and fill value messages of a dataset.
    pub fn constant(mut self) -> Message {
        self.flags |= 1;
        self
    }

    /// The same message marked constant and shared (flag bits 0 and 1):
    /// a datatype message referring to a committed datatype.
    pub fn shared(mut self) -> Message {
        self.flags |= 3;
        self
    }
}

/// Attribute creation order tracked (flag bit 2) and indexed (bit 3).
const ATTR_ORDER: u8 = 0x04 | 0x08;
/// Non-default attribute phase change values stored (flag bit 4).
const PHASE_CHANGE: u8 = 0x10;
/// HDF5's default most compact attributes; more need the phase change
/// values stored for the header to stay compact.
const DEFAULT_MAX_COMPACT: usize = 8;

/// Encodes an object header holding `messages`; `attributes` is how many
/// of them are attribute messages (they stay compact however many there
/// are), `None` for an object that tracks no attribute creation order (a
/// committed datatype).
pub fn encode(messages: &[Message], attributes: Option<usize>) -> Vec<u8> {
    // Each message's creation order field is there only when tracked.
    let order_len = if attributes.is_some() { 2 } else { 0 };
    let body_len: usize = messages.iter().map(|m| 4 + order_len + m.body.len()).sum();
    let code = width_code(body_len as u64);
    let mut flags = code;
    if attributes.is_some() {
        flags |= ATTR_ORDER;
    }
    let attributes = attributes.unwrap_or(0);
    if attributes > DEFAULT_MAX_COMPACT {
        flags |= PHASE_CHANGE;
    }
    let mut e = Enc::new();
    e.bytes(b"OHDR").u8(2).u8(flags);
    if flags & PHASE_CHANGE != 0 {
        let max_compact = u16::try_from(attributes).unwrap_or(u16::MAX);
        e.u16(max_compact).u16(6);
    }
    e.uint(body_len as u64, 1 << code);
    for m in messages {
        e.u8(m.kind as u8).u16(m.body.len() as u16).u8(m.flags);
        if order_len > 0 {
            e.u16(m.order);
        }
        e.bytes(&m.body);
    }
    e.checksum();
    e.into_bytes()
}
