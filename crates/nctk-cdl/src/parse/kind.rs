//! Output format kinds, as ncgen's `-k` flag and `_Format` attribute name them.

use std::fmt;

/// The netCDF file format ("kind") a CDL file is generated into.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// CDF-1, `-k nc3` / `-3` / `classic`.
    Classic,
    /// CDF-2, `-k nc6` / `-6` / `64-bit offset`.
    Offset64,
    /// CDF-5, `-k nc5` / `-5` / `64-bit data`.
    Cdf5,
    /// netCDF-4 (HDF5), `-k nc4` / `-4` / `netCDF-4`.
    Netcdf4,
    /// netCDF-4 restricted to the classic model, `-k nc7` / `-7`.
    Netcdf4Classic,
}

impl Kind {
    /// The kind for one of ncgen's `-k` names or `_Format` values
    /// (`classic`, `nc3`, `1`, `64-bit offset`, `nc6`, `2`, `cdf5`, `nc5`,
    /// `5`, `netCDF-4`, `nc4`, `3`, `netCDF-4 classic model`, `nc7`, `4`, and
    /// their aliases).
    pub fn from_name(name: &str) -> Option<Kind> {
        Some(match name {
            "classic" | "nc3" | "1" => Kind::Classic,
            "64-bit offset" | "64-bit-offset" | "nc6" | "2" => Kind::Offset64,
            "64-bit data" | "64-bit-data" | "cdf5" | "cdf-5" | "nc5" | "5" => Kind::Cdf5,
            "netCDF-4" | "netCDF4" | "nc4" | "3" | "hdf5" | "enhanced" => Kind::Netcdf4,
            "netCDF-4 classic model"
            | "netCDF-4-classic"
            | "netCDF-4_classic"
            | "netCDF4_classic"
            | "nc7"
            | "4"
            | "hdf5-nc3"
            | "enhanced-nc3" => Kind::Netcdf4Classic,
            _ => return None,
        })
    }

    /// ncgen's short name (`nc3`, `nc6`, `nc5`, `nc4`, `nc7`).
    pub fn short_name(self) -> &'static str {
        match self {
            Kind::Classic => "nc3",
            Kind::Offset64 => "nc6",
            Kind::Cdf5 => "nc5",
            Kind::Netcdf4 => "nc4",
            Kind::Netcdf4Classic => "nc7",
        }
    }

    /// True for the three classic (CDF) binary formats.
    pub fn is_cdf(self) -> bool {
        matches!(self, Kind::Classic | Kind::Offset64 | Kind::Cdf5)
    }

    /// True for the kinds that hold only the classic six types
    /// (CDF-1, CDF-2 and netCDF-4 classic model).
    pub fn classic_types_only(self) -> bool {
        matches!(self, Kind::Classic | Kind::Offset64 | Kind::Netcdf4Classic)
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Kind::Classic => "classic",
            Kind::Offset64 => "64-bit offset",
            Kind::Cdf5 => "cdf5",
            Kind::Netcdf4 => "netCDF-4",
            Kind::Netcdf4Classic => "netCDF-4 classic model",
        })
    }
}
