//! [`Format`]: the netCDF format of a dataset, one identity for every layer.
//!
//! This is the netCDF format (netCDF-C's `NC_FORMAT_*`), not the container
//! that holds it (a classic file, an HDF5 file, a Zarr store: netCDF-C's
//! dispatch, `NC_FORMATX_*`); a netCDF-4 dataset may sit in HDF5 or Zarr.

use std::fmt;

/// The netCDF format of a dataset, named as `ncdump -k` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Format {
    /// CDF-1, the original classic format (`classic`).
    Classic,
    /// CDF-2, the 64-bit offset format (`64-bit offset`).
    Offset64,
    /// CDF-5, the 64-bit data format (`cdf5`).
    Cdf5,
    /// netCDF-4, the enhanced data model (`netCDF-4`).
    Netcdf4,
    /// netCDF-4 restricted to the classic data model (`netCDF-4 classic model`).
    Netcdf4Classic,
}

/// Which tool's `-k` spellings a name is looked up in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KindNames {
    /// ncgen's `-k` values and the CDL `_Format` attribute.
    Ncgen,
    /// nccopy's `-k` values (nccopy's table, matched exactly).
    Nccopy,
}

/// The `-k` names and aliases both tools accept: netCDF-C's table
/// (`nccopy.c`'s `legalkinds`; ncgen's `main.c` has the same entries).
const NAMES: &[(&str, Format)] = &[
    ("classic", Format::Classic),
    ("nc3", Format::Classic),
    ("1", Format::Classic),
    ("64-bit offset", Format::Offset64),
    ("nc6", Format::Offset64),
    ("2", Format::Offset64),
    ("64-bit-offset", Format::Offset64),
    ("netCDF-4", Format::Netcdf4),
    ("nc4", Format::Netcdf4),
    ("3", Format::Netcdf4),
    ("netCDF4", Format::Netcdf4),
    ("hdf5", Format::Netcdf4),
    ("enhanced", Format::Netcdf4),
    ("netCDF-4 classic model", Format::Netcdf4Classic),
    ("nc7", Format::Netcdf4Classic),
    ("4", Format::Netcdf4Classic),
    ("netCDF-4-classic", Format::Netcdf4Classic),
    ("netCDF-4_classic", Format::Netcdf4Classic),
    ("netCDF4_classic", Format::Netcdf4Classic),
    ("hdf5-nc3", Format::Netcdf4Classic),
    ("enhanced-nc3", Format::Netcdf4Classic),
    ("5", Format::Cdf5),
    ("64-bit-data", Format::Cdf5),
    ("64-bit data", Format::Cdf5),
    ("nc5", Format::Cdf5),
    ("cdf5", Format::Cdf5),
];

/// Names only ncgen accepts (its table adds `cdf-5`).
const NCGEN_ONLY: &[(&str, Format)] = &[("cdf-5", Format::Cdf5)];

impl Format {
    /// The five formats, in netCDF-C's `NC_FORMAT_*` order.
    pub const ALL: [Format; 5] = [
        Format::Classic,
        Format::Offset64,
        Format::Netcdf4,
        Format::Netcdf4Classic,
        Format::Cdf5,
    ];

    /// The name `ncdump -k` prints and the `_Format` special attribute
    /// shows: `classic`, `64-bit offset`, `cdf5`, `netCDF-4`,
    /// `netCDF-4 classic model`.
    pub fn name(self) -> &'static str {
        match self {
            Format::Classic => "classic",
            Format::Offset64 => "64-bit offset",
            Format::Cdf5 => "cdf5",
            Format::Netcdf4 => "netCDF-4",
            Format::Netcdf4Classic => "netCDF-4 classic model",
        }
    }

    /// The format a `-k` name or alias stands for in `tool`'s table
    /// (matched exactly, case included, as netCDF-C does).
    pub fn from_kind_name(name: &str, tool: KindNames) -> Option<Format> {
        let extra: &[(&str, Format)] = match tool {
            KindNames::Ncgen => NCGEN_ONLY,
            KindNames::Nccopy => &[],
        };
        NAMES
            .iter()
            .chain(extra)
            .find(|(n, _)| *n == name)
            .map(|&(_, f)| f)
    }

    /// True for the three classic binary formats (CDF-1, CDF-2, CDF-5).
    pub fn is_cdf(self) -> bool {
        matches!(self, Format::Classic | Format::Offset64 | Format::Cdf5)
    }

    /// True for the two netCDF-4 formats (held in HDF5 or in a Zarr store).
    pub fn is_netcdf4(self) -> bool {
        matches!(self, Format::Netcdf4 | Format::Netcdf4Classic)
    }

    /// True for the formats that hold only the classic six types
    /// (CDF-1, CDF-2 and netCDF-4 classic model).
    pub fn classic_types_only(self) -> bool {
        matches!(
            self,
            Format::Classic | Format::Offset64 | Format::Netcdf4Classic
        )
    }
}

impl fmt::Display for Format {
    /// Writes [`Format::name`].
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_format_is_named_by_its_own_names() {
        for f in Format::ALL {
            for tool in [KindNames::Ncgen, KindNames::Nccopy] {
                assert_eq!(Format::from_kind_name(f.name(), tool), Some(f));
            }
        }
    }

    #[test]
    fn only_ncgen_takes_cdf_dash_5() {
        assert_eq!(
            Format::from_kind_name("cdf-5", KindNames::Ncgen),
            Some(Format::Cdf5)
        );
        assert_eq!(Format::from_kind_name("cdf-5", KindNames::Nccopy), None);
        assert_eq!(Format::from_kind_name("Classic", KindNames::Ncgen), None);
    }
}
