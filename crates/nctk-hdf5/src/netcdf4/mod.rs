//! netCDF-4 on HDF5: the netCDF data model read from an HDF5 file as
//! netCDF-C's `libhdf5` reads it (dimension scales, phony dimensions,
//! hidden attributes, user types, the classic model).

mod build;
mod convert;
mod dims;
mod error;
mod facts;
mod hidden;
mod reader;
mod refs;
mod stored;
mod types;
mod walk;

pub use error::Nc4Error;
pub use reader::{format_of, Nc4Reader};
