use std::fmt;

/// The netCDF atomic types. The numeric codes are those of netCDF-C
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
}

impl DataType {
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

    /// netCDF-C's type code (`NC_BYTE` = 1, ..., `NC_STRING` = 12).
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
        }
    }

    /// The type with netCDF-C's code `code`, if any.
    pub fn from_code(code: u32) -> Option<DataType> {
        DataType::ALL.get(code.checked_sub(1)? as usize).copied()
    }

    /// Size in bytes of one value on disk; `None` for `string`.
    pub fn size(self) -> Option<usize> {
        Some(match self {
            DataType::Byte | DataType::Char | DataType::UByte => 1,
            DataType::Short | DataType::UShort => 2,
            DataType::Int | DataType::UInt | DataType::Float => 4,
            DataType::Double | DataType::Int64 | DataType::UInt64 => 8,
            DataType::String => return None,
        })
    }

    /// The CDL keyword for the type (`byte`, `char`, ..., `uint64`, `string`).
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
        }
    }

    /// True for the types CDF-1 and CDF-2 can hold (the original six).
    pub fn is_classic(self) -> bool {
        self.code() <= 6
    }

    /// True for the integer types (not char).
    pub fn is_integer(self) -> bool {
        !matches!(
            self,
            DataType::Char | DataType::Float | DataType::Double | DataType::String
        )
    }

    /// True for integer and floating-point types (not char, not string).
    pub fn is_numeric(self) -> bool {
        !matches!(self, DataType::Char | DataType::String)
    }
}

impl fmt::Display for DataType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.cdl_name())
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
    }
}
