//! The netCDF data model shared by every nctk crate.
//!
//! This crate is pure vocabulary: it does no I/O. It holds
//!
//! * [`DataType`]: the twelve netCDF atomic types (the classic six, the five
//!   CDF-5/netCDF-4 integer types and `string`) and the user-defined types
//!   of netCDF-4 ([`DataType::User`], defined in a group with
//!   [`Schema::add_type`]: compound, vlen, enum, opaque; see [`UserTypeKind`]);
//! * [`Values`]: a typed, one-dimensional vector of values of one type, used
//!   for attribute values and for data read from or written to variables;
//! * [`Schema`]: dimensions, variables, attributes and groups, kept in
//!   definition order and referenced by typed ids ([`DimId`], [`VarId`],
//!   [`GroupId`]);
//! * [`Selection`]: a start/count/stride hyperslab and the odometer that walks it;
//! * netCDF's numeric conversion rules with range errors ([`convert`]), and
//!   attribute values read without matching on [`Values`]
//!   ([`Attribute::as_str`], [`Attribute::as_f64`], `TryFrom<&Attribute>`);
//! * default fill values ([`DataType::default_fill`]) and name rules ([`name`]);
//! * the seams formats implement: [`DataSource`] (reading) and [`DataSink`]
//!   (writing), whose error [`SourceError`] carries an [`ErrorKind`] (every
//!   crate's errors say their kind through [`HasErrorKind`]).
//!
//! * [`Format`]: the netCDF format of a dataset (`ncdump -k`'s five kinds),
//!   with ncgen's and nccopy's `-k` names, one identity for every layer;
//! * [`DataSource`]: the reader seam every format implements (`read`,
//!   `read_into` a reused buffer, `format`).
//!
//! Format crates (classic, Zarr) translate their bytes to and from these types;
//! the `nctk` facade crate is what applications use.
//!
//! # Open for more types
//!
//! [`DataType`], [`Values`] and [`Format`] are `#[non_exhaustive]`: the
//! netCDF-4 enhanced types (compound, vlen, enum, opaque: [`DataType::User`],
//! [`Values::Compound`], [`Values::Vlen`], [`Values::Opaque`]) were added
//! here without touching every `match` in the workspace, and more may come.
//! Values of user types do not carry their type id: the variable's or
//! attribute's type says what they are, and [`Schema::check_values`]
//! checks them against it; enum values travel as the base type's values.
//! The rule for code outside this crate:
//!
//! * do not list the twelve atomic types where you do not need to: use the
//!   predicates ([`DataType::size`], [`DataType::is_numeric`], ...), the
//!   conversions in [`convert`] ([`NcValue`]), and [`with_fixed_values!`],
//!   which handles every fixed-width vector generically;
//! * where a `match` must list types, end it with one wildcard arm that gives
//!   a clear error naming the type ("type X is not supported by dump", "...
//!   by the Zarr writer"), or, where the function has no error to give, the
//!   behaviour of the closest non-numeric type (`string`'s) with a comment
//!   saying so.

mod attr_access;
pub mod bytes;
#[cfg(feature = "conformance")]
pub mod conformance;
pub mod convert;
mod default_chunks;
mod error;
mod error_kind;
mod format;
pub mod name;
mod native_mut;
mod native_ref;
mod refs;
mod schema;
mod selection;
mod sink;
mod source;
mod source_error;
mod stored;
pub mod string_width;
mod types;
mod user_types;
mod user_values;
mod values;

pub use attr_access::AttributeError;
pub use convert::NcValue;
pub use default_chunks::default_chunks;
pub use error::ModelError;
pub use error_kind::{ErrorKind, HasErrorKind};
pub use format::{Format, KindNames};
pub use native_mut::NativeMut;
pub use native_ref::NativeRef;
pub use refs::{grid_coordinates, ChunkRef, ChunkRefs};
pub use schema::{
    Attribute, DimId, Dimension, Endianness, Group, GroupId, Layout, Schema, VarId, VarStorage,
    Variable,
};
pub use selection::{Selection, SelectionRuns};
pub use sink::{redefinition_error, same_definitions, DataSink, SinkError};
pub use source::{DataSource, FileFacts};
pub use source_error::SourceError;
pub use stored::{is_zlib_stream, ChunkCodec};
pub use types::{DataType, TypeId};
pub use user_types::{CompoundField, EnumMember, UserType, UserTypeKind};
pub use values::Values;
