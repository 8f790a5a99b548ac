//! Pure-Rust netCDF.
//!
//! Start with [`open`], which detects the format (classic netCDF by its
//! magic bytes, NCZarr/Zarr by path or netCDF-C URL) and returns a
//! [`Dataset`]. Look variables up by name and read them with
//! [`Variable::get`] (an `ndarray`) or [`Variable::get_values`] (a `Vec`),
//! naming the part you want with Rust ranges:
//!
//! ```no_run
//! let ds = nctk::open("in.nc")?;
//! let temp = ds.variable("temp").expect("no variable temp");
//! let series: Vec<f32> = temp.get_values((.., 360, 720))?;
//! # Ok::<(), nctk::Error>(())
//! ```

pub mod copy;
mod create_zarr;
mod dataset;
mod detect;
mod error;
mod extent;
mod open;
mod write;

pub use create_zarr::{
    create_store, is_store_target, store_string_width, StoreLayout, StoreOptions, StoreVarOptions,
    StoreWriter, STORE_DEFAULT_STRING_WIDTH,
};
pub use dataset::{Dataset, Variable};
pub use detect::{detect_magic, kind, Format, ProbeError};
pub use error::Error;
pub use extent::{Extent, Extents, IntoExtent, IntoExtents};
pub use nctk_model as model;
pub use open::{open, open_mem};
pub use write::{append, create, create_with_fill, AttrValue, DatasetDef, DatasetMut, VarDef};
