use crate::DataType;

/// Errors raised by model operations: bad names, bad selections, range errors.
#[derive(Debug, thiserror::Error, Clone, PartialEq)]
#[non_exhaustive]
pub enum ModelError {
    /// A name breaks netCDF's name rules.
    #[error("invalid name {name:?}: {reason} (netCDF-C: Name contains illegal characters)")]
    InvalidName {
        /// The offending name.
        name: String,
        /// Why it is invalid.
        reason: &'static str,
    },
    /// A value does not fit the target type (netCDF's NC_ERANGE).
    #[error("value {value} at index {index} is out of range for type {to}")]
    Range {
        /// Position of the value in the buffer.
        index: usize,
        /// The value, as text.
        value: String,
        /// The target type.
        to: DataType,
    },
    /// Conversion between these types is not allowed (char and string only
    /// convert to themselves; netCDF's NC_ECHAR).
    #[error("cannot convert {from} values to {to}")]
    IncompatibleTypes {
        /// Source type.
        from: DataType,
        /// Target type.
        to: DataType,
    },
    /// A selection does not fit the variable's shape.
    #[error("invalid selection: {0}")]
    Selection(String),
    /// Two things share a name in one scope (netCDF-C's `NC_ENAMEINUSE`).
    #[error("name {0:?} is already used (netCDF-C: String match to name in use)")]
    DuplicateName(String),
    /// A variable's `_FillValue` is not one value of the variable's type
    /// (netCDF-C's `NC_EBADTYPE`).
    #[error(
        "variable {var:?}: _FillValue {reason} (netCDF-C: Not a valid data type or _FillValue type mismatch)"
    )]
    FillValue {
        /// The variable's name.
        var: String,
        /// What is wrong with the attribute.
        reason: String,
    },
    /// Something named does not exist.
    #[error("{kind} {name:?} not found")]
    NotFound {
        /// What was looked up ("dimension", "variable", ...).
        kind: &'static str,
        /// The name looked up.
        name: String,
    },
    /// A user type definition netCDF-C would refuse.
    #[error("type {name:?}: {reason}")]
    BadType {
        /// The type's name.
        name: String,
        /// What is wrong with the definition.
        reason: String,
    },
    /// Values do not fit a (user) type's structure.
    #[error("values for type {dtype}: {reason}")]
    ValuesMismatch {
        /// The type's name.
        dtype: String,
        /// How the values differ from the type.
        reason: String,
    },
}
