//! The attribute message (type 12), version 3, and the attribute info
//! message (type 21) of an object whose attributes are all compact.

use super::encode::{Enc, UNDEFINED};
use super::error::{WriteError, WriteResult};
use super::{dataspace, datatype, ObjectId};
use crate::dataspace::Dataspace;
use crate::datatype::Datatype;

/// An attribute to write: its name, type, shape and value.
#[derive(Debug, Clone, PartialEq)]
pub struct AttributeSpec {
    /// The attribute's name.
    pub name: String,
    /// Its datatype.
    pub datatype: Datatype,
    /// Its shape.
    pub dataspace: Dataspace,
    /// Its value.
    pub value: AttrValue,
    /// The committed (named) datatype the attribute's type is, when it is
    /// one ([`Hdf5Writer::add_named_datatype`](super::Hdf5Writer::add_named_datatype)):
    /// the attribute then refers to it (a shared datatype).
    pub named_type: Option<ObjectId>,
}

/// An attribute's value: bytes, or references to objects of the file,
/// whose addresses are known when the file is finished.
#[derive(Debug, Clone, PartialEq)]
pub enum AttrValue {
    /// The stored bytes (file byte order).
    Bytes(Vec<u8>),
    /// Elements of a dimension scale's `REFERENCE_LIST`: the compound
    /// `{dataset: object reference, dimension: int32}` of 16 bytes.
    ReferenceList(Vec<(ObjectId, i32)>),
    /// Elements of a dataset's `DIMENSION_LIST`: variable-length
    /// sequences of object references (in the global heap).
    ReferenceSequences(Vec<Vec<ObjectId>>),
    /// Variable-length strings (their bytes, without a terminator; in the
    /// global heap); `None` is a null string (no heap object).
    VarStrings(Vec<Option<Vec<u8>>>),
}

impl AttrValue {
    /// The stored size in bytes.
    pub fn stored_len(&self) -> usize {
        match self {
            AttrValue::Bytes(b) => b.len(),
            AttrValue::ReferenceList(r) => 16 * r.len(),
            AttrValue::ReferenceSequences(s) => 16 * s.len(),
            AttrValue::VarStrings(s) => 16 * s.len(),
        }
    }
}

/// The largest message body an object header holds.
const MAX_BODY: usize = u16::MAX as usize;

/// The encoded attribute message body of `attr` whose value is stored as
/// `raw` (name in UTF-8, as netCDF-C names attributes); `named_at`: the
/// address of its committed datatype, when it has one.
pub fn encode(attr: &AttributeSpec, raw: &[u8], named_at: Option<u64>) -> WriteResult<Vec<u8>> {
    let dt = match named_at {
        Some(addr) => datatype::encode_shared(addr),
        None => datatype::encode(&attr.datatype)?,
    };
    let ds = dataspace::encode(&attr.dataspace);
    let name_size = attr.name.len() + 1;
    let mut e = Enc::new();
    e.u8(3)
        .u8(u8::from(named_at.is_some()))
        .u16(size16(name_size, &attr.name)?)
        .u16(size16(dt.len(), &attr.name)?)
        .u16(size16(ds.len(), &attr.name)?)
        .u8(1)
        .bytes(attr.name.as_bytes())
        .u8(0)
        .bytes(&dt)
        .bytes(&ds)
        .bytes(raw);
    if e.len() > MAX_BODY {
        return Err(WriteError::Unsupported(format!(
            "attribute {:?} of {} bytes (dense attribute storage, over 64 KiB)",
            attr.name,
            raw.len()
        )));
    }
    Ok(e.into_bytes())
}

fn size16(n: usize, name: &str) -> WriteResult<u16> {
    u16::try_from(n)
        .map_err(|_| WriteError::Unsupported(format!("attribute {name:?}: a field over 64 KiB")))
}

/// The attribute info message body of an object with `count` compact
/// attributes, creation order tracked and indexed.
pub fn encode_info(count: usize) -> Vec<u8> {
    let mut e = Enc::new();
    e.u8(0)
        .u8(3)
        .u16(count as u16) // the next creation order to give
        .u64(UNDEFINED) // fractal heap: none
        .u64(UNDEFINED) // name index: none
        .u64(UNDEFINED); // creation order index: none
    e.into_bytes()
}
