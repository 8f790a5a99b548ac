//! The classic header: its elements as passive types, and a symmetric codec.
//!
//! Every header element ([`Header`], [`HeaderDim`], [`HeaderVar`], attributes,
//! names) has a decoder (`decode.rs`), an encoder and an encoded length
//! (`encode.rs`) next to each other, like netCDF-C's `v1hpg.c`. The decoder
//! never does I/O: given too few bytes it answers [`DecodeError::NeedMore`]
//! with the length it needs, and it never allocates from a count before
//! checking that the file is long enough to hold what the count implies.

mod decode;
mod encode;

pub use decode::{decode_header, DecodeError, Decoded, Tolerated};
pub use encode::{encode_header, encoded_len};

use crate::Version;
use nctk_model::{Attribute, DataType};

/// List tag of the dimension list (`NC_DIMENSION`).
pub const TAG_DIMENSION: u32 = 0x0A;
/// List tag of the variable list (`NC_VARIABLE`).
pub const TAG_VARIABLE: u32 = 0x0B;
/// List tag of attribute lists (`NC_ATTRIBUTE`).
pub const TAG_ATTRIBUTE: u32 = 0x0C;

/// The number of records as stored in the header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NumRecs {
    /// A record count.
    Count(u64),
    /// `STREAMING` (all bits set): count the records from the file length.
    Streaming,
}

/// A decoded classic header.
#[derive(Debug, Clone, PartialEq)]
pub struct Header {
    /// Format version (from the magic number).
    pub version: Version,
    /// The `numrecs` field.
    pub numrecs: NumRecs,
    /// Dimensions in header order (their index is the dimension id).
    pub dims: Vec<HeaderDim>,
    /// Global attributes.
    pub attrs: Vec<Attribute>,
    /// Variables in header order.
    pub vars: Vec<HeaderVar>,
}

/// A dimension as stored: a length of 0 marks the record dimension.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeaderDim {
    /// The name.
    pub name: String,
    /// The stored length (0 for the record dimension).
    pub len: u64,
}

/// A variable as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct HeaderVar {
    /// The name.
    pub name: String,
    /// Dimension ids (indices into [`Header::dims`]).
    pub dimids: Vec<u64>,
    /// The variable's attributes.
    pub attrs: Vec<Attribute>,
    /// The element type.
    pub dtype: DataType,
    /// The stored `vsize` field (readers recompute it; see [`crate::layout`]).
    pub vsize: u64,
    /// The stored `begin` offset of the variable's data.
    pub begin: u64,
}

impl Header {
    /// An empty header (no dimensions, attributes or variables) of `version`.
    pub fn empty(version: Version) -> Header {
        Header {
            version,
            numrecs: NumRecs::Count(0),
            dims: vec![],
            attrs: vec![],
            vars: vec![],
        }
    }
}

/// Rounds `n` up to a multiple of 4.
pub(crate) fn pad4(n: u64) -> u64 {
    n.div_ceil(4) * 4
}

#[cfg(test)]
mod tests;
