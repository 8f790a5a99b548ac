//! The attributes netCDF-C never lists: its table of reserved names
//! (`NC_reserved` in `libsrc4/nc4internal.c`, which `att_read_callbk`
//! skips), of which `_NCProperties` is shown only by `ncdump -s` and
//! `_nc3_strict` marks the classic model.

/// The classic-model mark on the root group.
pub(crate) const NC3_STRICT: &str = "_nc3_strict";
/// The provenance attribute on the root group.
pub(crate) const NC_PROPERTIES: &str = "_NCProperties";
/// A scale's dimension id.
pub(crate) const DIMID: &str = "_Netcdf4Dimid";
/// A variable's dimension ids.
pub(crate) const COORDINATES: &str = "_Netcdf4Coordinates";
/// The HDF5 dimension-scale class attribute.
pub(crate) const CLASS: &str = "CLASS";
/// The HDF5 dimension-scale name attribute.
pub(crate) const NAME: &str = "NAME";
/// The scales attached to a dataset.
pub(crate) const DIMENSION_LIST: &str = "DIMENSION_LIST";

/// Names netCDF-C hides: attributes by these names are not listed (its
/// reserved names of 4.9.0, and those newer versions add).
const HIDDEN: &[&str] = &[
    CLASS,
    DIMENSION_LIST,
    NAME,
    "REFERENCE_LIST",
    "_ARRAY_DIMENSIONS",
    "_Codecs",
    "_Format",
    "_IsNetcdf4",
    NC_PROPERTIES,
    "_NCZARR_ATTR",
    COORDINATES,
    DIMID,
    "_SuperblockVersion",
    NC3_STRICT,
    "_nczarr_attr",
    "_nczarr_group",
    "_nczarr_array",
    "_nczarr_superblock",
];

/// The number of [`HIDDEN`] names netCDF-C 4.9.0's table holds (its
/// first fourteen, `NC_reserved` in `nc4internal.c`).
const RESERVED_4_9_0: usize = 14;

/// True when netCDF-C hides an attribute named `name`.
pub(crate) fn is_hidden(name: &str) -> bool {
    HIDDEN.contains(&name)
}

/// True when `name` is in netCDF-C 4.9.0's table of reserved names, whose
/// presence on datasets marks a file as netCDF-4 (`_IsNetcdf4`).
pub(crate) fn is_reserved(name: &str) -> bool {
    HIDDEN[..RESERVED_4_9_0].contains(&name)
}
