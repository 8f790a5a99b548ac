//! The netCDF data model shared by every nctk crate.
//!
//! This crate is pure vocabulary: it does no I/O. It holds
//!
//! * [`DataType`]: the twelve netCDF atomic types (the classic six, the five
//!   CDF-5/netCDF-4 integer types and `string`);
//! * [`Values`]: a typed, one-dimensional vector of values of one type, used
//!   for attribute values and for data read from or written to variables;
//! * [`Schema`]: dimensions, variables, attributes and groups, kept in
//!   definition order and referenced by typed ids ([`DimId`], [`VarId`],
//!   [`GroupId`]);
//! * [`Selection`]: a start/count/stride hyperslab and the odometer that walks it;
//! * netCDF's numeric conversion rules with range errors ([`convert`]), and
//!   attribute values read without matching on [`Values`]
//!   ([`Attribute::as_str`], [`Attribute::as_f64`], `TryFrom<&Attribute>`);
//! * default fill values ([`DataType::default_fill`]) and name rules ([`name`]).
//!
//! Format crates (classic, Zarr) translate their bytes to and from these types;
//! the `nctk` facade crate is what applications use.

mod attr_access;
pub mod bytes;
pub mod convert;
mod error;
pub mod name;
mod schema;
mod selection;
mod source;
mod types;
mod values;

pub use attr_access::AttributeError;
pub use convert::NcValue;
pub use error::ModelError;
pub use schema::{
    Attribute, DimId, Dimension, Endianness, Group, GroupId, Layout, Schema, VarId, VarStorage,
    Variable,
};
pub use selection::{Selection, SelectionRuns};
pub use source::{DataSource, SourceError};
pub use types::DataType;
pub use values::Values;
