use std::fmt;

use nctk_model::Format;

/// The three classic format versions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Version {
    /// CDF-1, the classic format: 32-bit offsets and counts.
    Cdf1,
    /// CDF-2, 64-bit offset format: 64-bit offsets, 32-bit counts.
    Cdf2,
    /// CDF-5, 64-bit data format: 64-bit offsets and counts, unsigned and 64-bit types.
    Cdf5,
}

impl Version {
    /// The version byte after `CDF` (1, 2 or 5).
    pub fn byte(self) -> u8 {
        match self {
            Version::Cdf1 => 1,
            Version::Cdf2 => 2,
            Version::Cdf5 => 5,
        }
    }

    /// The version with this byte.
    pub fn from_byte(b: u8) -> Option<Version> {
        match b {
            1 => Some(Version::Cdf1),
            2 => Some(Version::Cdf2),
            5 => Some(Version::Cdf5),
            _ => None,
        }
    }

    /// Size in bytes of counts, lengths and `vsize` (4, or 8 in CDF-5).
    pub fn count_size(self) -> u64 {
        if self == Version::Cdf5 {
            8
        } else {
            4
        }
    }

    /// Size in bytes of `begin` offsets (4 in CDF-1, else 8).
    pub fn offset_size(self) -> u64 {
        if self == Version::Cdf1 {
            4
        } else {
            8
        }
    }

    /// True when the version can hold values of `dtype` (never `string`
    /// or a user-defined type).
    pub fn supports(self, dtype: nctk_model::DataType) -> bool {
        dtype != nctk_model::DataType::String
            && !dtype.is_user()
            && (self == Version::Cdf5 || dtype.is_classic())
    }
}

impl From<Version> for Format {
    fn from(v: Version) -> Format {
        match v {
            Version::Cdf1 => Format::Classic,
            Version::Cdf2 => Format::Offset64,
            Version::Cdf5 => Format::Cdf5,
        }
    }
}

impl TryFrom<Format> for Version {
    /// A format that is not a classic binary format comes back.
    type Error = Format;

    fn try_from(f: Format) -> Result<Version, Format> {
        match f {
            Format::Classic => Ok(Version::Cdf1),
            Format::Offset64 => Ok(Version::Cdf2),
            Format::Cdf5 => Ok(Version::Cdf5),
            other => Err(other),
        }
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Version::Cdf1 => "CDF-1",
            Version::Cdf2 => "CDF-2",
            Version::Cdf5 => "CDF-5",
        })
    }
}
