use std::fmt;

/// Index of a user-defined type (compound, vlen, enum, opaque) in a
/// [`Schema`](crate::Schema), made by [`Schema::add_type`](crate::Schema::add_type).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TypeId(pub u32);

impl TypeId {
    /// What [`Values::dtype`](crate::Values::dtype) reports for compound,
    /// vlen and opaque values, which do not carry their type: a value's
    /// user type is the variable's or attribute's type, checked against the
    /// values with [`Schema::check_values`](crate::Schema::check_values).
    /// Never the id of a type in a schema.
    pub const UNKNOWN: TypeId = TypeId(u32::MAX);
}

/// The netCDF types: the twelve atomic types and the user-defined types. The numeric codes are those of netCDF-C
/// (`NC_BYTE` = 1 ... `NC_STRING` = 12) and of the classic header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum DataType {
    /// `byte`: signed 8-bit integer.
    Byte,
    /// `char`: 8-bit character (text).
    Char,
    /// `short`: signed 16-bit integer.
    Short,
    /// `int`: signed 32-bit integer.
    Int,
    /// `float`: IEEE 754 single precision.
    Float,
    /// `double`: IEEE 754 double precision.
    Double,
    /// `ubyte`: unsigned 8-bit integer (CDF-5, netCDF-4).
    UByte,
    /// `ushort`: unsigned 16-bit integer (CDF-5, netCDF-4).
    UShort,
    /// `uint`: unsigned 32-bit integer (CDF-5, netCDF-4).
    UInt,
    /// `int64`: signed 64-bit integer (CDF-5, netCDF-4).
    Int64,
    /// `uint64`: unsigned 64-bit integer (CDF-5, netCDF-4).
    UInt64,
    /// `string`: variable-length UTF-8 string (netCDF-4 only).
    String,
    /// A user-defined type of the schema (netCDF-4 only): compound, vlen,
    /// enum or opaque; [`Schema::user_type`](crate::Schema::user_type) says which.
    User(TypeId),
}

impl DataType {
    /// The integer type of `size` bytes (1, 2, 4 or 8) and the given
    /// signedness; `None` for other sizes.
    pub fn integer(size: u64, signed: bool) -> Option<DataType> {
        Some(match (size, signed) {
            (1, true) => DataType::Byte,
            (1, false) => DataType::UByte,
            (2, true) => DataType::Short,
            (2, false) => DataType::UShort,
            (4, true) => DataType::Int,
            (4, false) => DataType::UInt,
            (8, true) => DataType::Int64,
            (8, false) => DataType::UInt64,
            _ => return None,
        })
    }

    /// All types in code order.
    pub const ALL: [DataType; 12] = [
        DataType::Byte,
        DataType::Char,
        DataType::Short,
        DataType::Int,
        DataType::Float,
        DataType::Double,
        DataType::UByte,
        DataType::UShort,
        DataType::UInt,
        DataType::Int64,
        DataType::UInt64,
        DataType::String,
    ];

    /// The first type code netCDF-C gives a user-defined type (`NC_FIRSTUSERTYPEID`).
    pub const FIRST_USER_CODE: u32 = 32;

    /// netCDF-C's type code (`NC_BYTE` = 1, ..., `NC_STRING` = 12); a user
    /// type's code is [`FIRST_USER_CODE`](Self::FIRST_USER_CODE) plus its
    /// index (netCDF-C numbers user types per file in definition order too).
    pub fn code(self) -> u32 {
        match self {
            DataType::Byte => 1,
            DataType::Char => 2,
            DataType::Short => 3,
            DataType::Int => 4,
            DataType::Float => 5,
            DataType::Double => 6,
            DataType::UByte => 7,
            DataType::UShort => 8,
            DataType::UInt => 9,
            DataType::Int64 => 10,
            DataType::UInt64 => 11,
            DataType::String => 12,
            DataType::User(id) => Self::FIRST_USER_CODE.saturating_add(id.0),
        }
    }

    /// The atomic type with netCDF-C's code `code`, if any.
    pub fn from_code(code: u32) -> Option<DataType> {
        DataType::ALL.get(code.checked_sub(1)? as usize).copied()
    }

    /// Size in bytes of one value on disk; `None` for `string` and for user
    /// types (their size is the schema's: [`Schema::type_size`](crate::Schema::type_size)).
    pub fn size(self) -> Option<usize> {
        Some(match self {
            DataType::Byte | DataType::Char | DataType::UByte => 1,
            DataType::Short | DataType::UShort => 2,
            DataType::Int | DataType::UInt | DataType::Float => 4,
            DataType::Double | DataType::Int64 | DataType::UInt64 => 8,
            DataType::String | DataType::User(_) => return None,
        })
    }

    /// True for a user-defined type.
    pub fn is_user(self) -> bool {
        matches!(self, DataType::User(_))
    }

    /// The CDL keyword for the type (`byte`, `char`, ..., `uint64`,
    /// `string`); `"user-defined"` for a user type, whose name is the
    /// schema's ([`Schema::type_name`](crate::Schema::type_name)).
    pub fn cdl_name(self) -> &'static str {
        match self {
            DataType::Byte => "byte",
            DataType::Char => "char",
            DataType::Short => "short",
            DataType::Int => "int",
            DataType::Float => "float",
            DataType::Double => "double",
            DataType::UByte => "ubyte",
            DataType::UShort => "ushort",
            DataType::UInt => "uint",
            DataType::Int64 => "int64",
            DataType::UInt64 => "uint64",
            DataType::String => "string",
            DataType::User(_) => "user-defined",
        }
    }

    /// True for the types CDF-1 and CDF-2 can hold (the original six).
    pub fn is_classic(self) -> bool {
        self.code() <= 6
    }

    /// True for the atomic integer types (not char; an enum type is not
    /// an integer type, though its values travel as its base type's).
    pub fn is_integer(self) -> bool {
        !matches!(
            self,
            DataType::Char
                | DataType::Float
                | DataType::Double
                | DataType::String
                | DataType::User(_)
        )
    }

    /// True for atomic integer and floating-point types (not char, not
    /// string, not user types).
    pub fn is_numeric(self) -> bool {
        !matches!(self, DataType::Char | DataType::String | DataType::User(_))
    }
}

impl fmt::Display for DataType {
    /// The CDL keyword; a user type shows as `user type #<index>` (its
    /// name is the schema's).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DataType::User(id) if *id == TypeId::UNKNOWN => f.write_str("user-defined type"),
            DataType::User(id) => write!(f, "user type #{}", id.0),
            t => f.write_str(t.cdl_name()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip() {
        for t in DataType::ALL {
            assert_eq!(DataType::from_code(t.code()), Some(t));
        }
        assert_eq!(DataType::from_code(0), None);
        assert_eq!(DataType::from_code(13), None);
        let user = DataType::User(TypeId(2));
        assert_eq!(DataType::from_code(user.code()), None);
        assert!(!user.is_classic() && !user.is_integer() && !user.is_numeric());
    }
}
