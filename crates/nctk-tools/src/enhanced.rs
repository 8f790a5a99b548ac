//! The one rule both `gen` and `copy` apply to the enhanced data model's
//! user types: netCDF-C 4.9.0 writes them only to netCDF-4/HDF5 files.
//! Its NCZarr refuses `nc_def_compound`, `nc_def_vlen`, `nc_def_enum` and
//! `nc_def_opaque` (as its netCDF-3 formats do) with `NC_ENOTNC4`, and
//! ncgen and nccopy stop on the first type, used or not.

use nctk_model::{DataType, Schema};

/// netCDF-C's message for a user type in an NCZarr store or a netCDF-3 file.
pub(crate) const NOT_NETCDF4: &str = "NetCDF: Attempting netcdf-4 operation on netcdf-3 file";

/// The schema's first user type, described for a message
/// (`compound type "/g/obs_t"`), when it has any.
pub(crate) fn first_user_type(schema: &Schema) -> Option<String> {
    let id = schema.type_ids().next()?;
    Some(describe(schema, DataType::User(id)))
}

/// A user type described for a message: its class and its full name.
pub(crate) fn describe(schema: &Schema, dtype: DataType) -> String {
    let DataType::User(id) = dtype else {
        return format!("type {dtype}");
    };
    let t = schema.user_type(id);
    let group = schema.group_path(t.group);
    let sep = if group == "/" { "" } else { "/" };
    format!("{} type \"{group}{sep}{}\"", t.kind.class_name(), t.name)
}
