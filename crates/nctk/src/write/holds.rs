//! What a dataset being defined can hold, by its container and netCDF
//! format: the define API refuses the rest at the call, naming the format
//! and the item, as netCDF-C's `nc_def_*` refuse it (`NC_ENOTNC4` for a
//! netCDF-4 feature in a classic file, `NC_ESTRICTNC3` in the netCDF-4
//! classic model).
//!
//! | | classic files | NCZarr store | NCZarr store, classic model | ncstream | netCDF-4/HDF5 file |
//! | --- | --- | --- | --- | --- | --- |
//! | groups, strings | no | yes | no | yes (netCDF-4) | not written yet |
//! | user-defined types | no | no (netCDF-C's NCZarr has none) | no | yes (netCDF-4) | not written yet |
//! | chunking, filters, byte order, string width | no | yes | yes | no | yes (the writer names those it lacks) |
//! | per-variable no-fill | no | yes (recorded) | yes (recorded) | no | yes |

use std::path::Path;

use crate::{Container, Error, Format};

/// A netCDF-4 feature a definition asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Feature {
    /// A group other than the root.
    Groups,
    /// A user-defined type (compound, vlen, enum, opaque).
    UserTypes,
    /// A `string` variable.
    Strings,
    /// A storage setting of a variable (chunking, compression, codecs,
    /// byte order, string width, fletcher32), named.
    Storage(&'static str),
    /// A variable written without fill.
    NoFill,
}

impl Feature {
    fn what(self) -> &'static str {
        match self {
            Feature::Groups => "groups",
            Feature::UserTypes => "user-defined types",
            Feature::Strings => "string variables",
            Feature::Storage(what) => what,
            Feature::NoFill => "a per-variable no-fill setting",
        }
    }
}

/// What a dataset of `format` in `container` holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Holds {
    container: Container,
    format: Format,
}

impl Holds {
    pub(crate) fn new(container: Container, format: Format) -> Holds {
        Holds { container, format }
    }

    /// The dataset's container.
    pub(crate) fn container(self) -> Container {
        self.container
    }

    fn holds(self, feature: Feature) -> bool {
        let enhanced = self.format == Format::Netcdf4;
        match (self.container, feature) {
            (Container::Zarr, Feature::Groups | Feature::Strings) => enhanced,
            (Container::Hdf5, Feature::Groups | Feature::Strings | Feature::UserTypes) => enhanced,
            (Container::Zarr | Container::Hdf5, Feature::Storage(_) | Feature::NoFill) => true,
            (Container::NcStream, Feature::Groups | Feature::Strings | Feature::UserTypes) => {
                enhanced
            }
            _ => false,
        }
    }

    /// The dataset's kind, as an error names it.
    fn name(self) -> String {
        let format = self.format.name();
        match self.container {
            Container::Zarr => format!("an NCZarr store ({format})"),
            Container::NcStream => format!("an ncstream ({format})"),
            _ => format!("a {format} file"),
        }
    }

    /// `Ok` when the dataset at `target` holds `feature`; else an
    /// [`Error::Unsupported`] naming `item` (`variable "t"`, `group "g"`),
    /// the format and why.
    pub(crate) fn check(self, target: &Path, item: &str, feature: Feature) -> Result<(), Error> {
        if self.holds(feature) {
            return Ok(());
        }
        let why = match (self.container, feature) {
            (Container::Zarr, Feature::UserTypes) => "netCDF-C's NCZarr stores none",
            _ if self.format.is_cdf() => "netCDF-C: NC_ENOTNC4, not a netCDF-4 file",
            (_, Feature::Groups | Feature::Strings | Feature::UserTypes)
                if self.format == Format::Netcdf4Classic =>
            {
                "netCDF-C: NC_ESTRICTNC3, the classic model"
            }
            _ => "the format records none",
        };
        Err(Error::Unsupported {
            path: target.display().to_string(),
            reason: format!(
                "{item}: {} cannot hold {} ({why})",
                self.name(),
                feature.what()
            ),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn as_netcdf_c_refuses() {
        let at = Path::new("x");
        let classic = Holds::new(Container::Classic(Format::Classic), Format::Classic);
        let store = Holds::new(Container::Zarr, Format::Netcdf4);
        let strict = Holds::new(Container::Zarr, Format::Netcdf4Classic);
        let stream = Holds::new(Container::NcStream, Format::Netcdf4);
        for f in [
            Feature::Groups,
            Feature::Strings,
            Feature::Storage("chunking"),
        ] {
            let e = classic.check(at, "variable \"v\"", f).unwrap_err();
            assert!(e.to_string().contains("a classic file cannot hold"), "{e}");
            assert!(e.to_string().contains("NC_ENOTNC4"), "{e}");
        }
        assert!(store.check(at, "g", Feature::Groups).is_ok());
        assert!(store.check(at, "t", Feature::UserTypes).is_err());
        assert!(strict.check(at, "g", Feature::Groups).is_err());
        assert!(strict.check(at, "v", Feature::Storage("chunking")).is_ok());
        assert!(stream.check(at, "t", Feature::UserTypes).is_ok());
        assert!(stream.check(at, "v", Feature::Storage("chunking")).is_err());
        let hdf5 = Holds::new(Container::Hdf5, Format::Netcdf4);
        assert!(hdf5.check(at, "v", Feature::Storage("chunking")).is_ok());
        assert!(hdf5.check(at, "g", Feature::Groups).is_ok());
        assert!(hdf5.check(at, "s", Feature::Strings).is_ok());
        assert!(hdf5.check(at, "t", Feature::UserTypes).is_ok());
        let strict_hdf5 = Holds::new(Container::Hdf5, Format::Netcdf4Classic);
        let e = strict_hdf5.check(at, "t", Feature::UserTypes).unwrap_err();
        assert!(e.to_string().contains("NC_ESTRICTNC3"), "{e}");
    }
}
