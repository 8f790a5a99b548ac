//! Decoders of the header messages groups and attributes are made of
//! (datatype, dataspace and fill value messages live in their own modules).

pub mod attribute;
pub mod info;
pub mod link;
pub mod shared;
