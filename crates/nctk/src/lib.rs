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
//!
//! Dimensions, groups and attributes read as netCDF4-python shows them
//! (`ds.dimensions`, `ds.groups`, `ds.ncattrs()`); attribute values come
//! out as text or numbers without matching on the value enum:
//!
//! ```no_run
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let ds = nctk::open("file:///data/run.zarr#mode=nczarr,file")?;
//! for dim in ds.dimensions() {
//!     println!("{} = {}{}", dim.name(), dim.len(), if dim.is_unlimited() { " (unlimited)" } else { "" });
//! }
//! let title = ds.attribute("title").and_then(|a| a.as_str()).unwrap_or("untitled");
//! let forecast = ds.group("/forecast").expect("no group /forecast");
//! let temp = forecast.variable("temp").expect("no /forecast/temp"); // = ds.variable("/forecast/temp")
//! let scale: f64 = temp.attribute("scale_factor").map(f64::try_from).transpose()?.unwrap_or(1.0);
//! let units = temp.attribute("units").and_then(|a| a.as_str());
//! println!("{title}: {} in {units:?}, scale {scale}", temp.name());
//! # Ok(()) }
//! ```
//!
//! Write any format with [`create`] (or [`create_with`] for fill mode and
//! store options): the same define and put calls make a classic file
//! ([`Format::Classic`], [`Format::Offset64`], [`Format::Cdf5`]) or an
//! NCZarr / Zarr store ([`Format::Netcdf4`] with a `.zarr` or `.zip` path or a netCDF-C
//! URL), built under a temporary name and renamed into place on
//! [`DatasetMut::close`]; [`append`] reopens a classic file.

mod container;
mod create_zarr;
mod dataset;
mod door;
mod error;
mod extent;
mod formats;
mod group;
mod open;
mod output;
mod validate;
mod write;

pub use container::Container;
pub use create_zarr::StoreLayout;
pub(crate) use create_zarr::StoreWriter;
pub use dataset::{Dataset, Variable};
/// The netCDF-C URL parser, public only to the fuzz target `url_parse`
/// (cargo-fuzz builds with `--cfg fuzzing`).
#[cfg(fuzzing)]
#[doc(hidden)]
pub use door::url as fuzz_url;
pub use door::{local_path, s3_target};
pub use error::{Error, ErrorKind, HasErrorKind};
pub use extent::{Extent, Extents, IntoExtent, IntoExtents};
pub use group::{Dimension, Group};
/// Block-compressed classic files: how they are compressed
/// ([`ClassicOptions::compress`], [`compress_classic`]).
pub use nctk_classic::compressed::{CodecId, CompressOptions, CompressSummary};
/// The classic formats' versions (CDF-1, CDF-2, CDF-5) and the types each
/// holds ([`ClassicVersion::supports`]).
pub use nctk_classic::Version as ClassicVersion;
/// The numcodecs-compatible codecs of NCZarr / Zarr stores, and the
/// filter specifications (`-F`) that name them.
pub use nctk_codec as codec;
pub use nctk_model as model;
pub use nctk_model::Format;
/// Settings of requests to object stores and HTTP servers
/// ([`OpenOptions::remote`]).
#[cfg(feature = "cloud")]
pub use nctk_store_object::RemoteOptions;
pub use open::{kind, open, open_bytes, open_mem, open_with, OpenOptions};
pub use output::{
    compress_classic, compress_classic_dataset, remove_temporaries, write_dir_safely,
    write_file_safely, ClassicOptions, CreateOptions, FormatOptions, NcStreamOptions, OutputError,
    StoreOptions,
};
pub use validate::{validate, validate_report, Finding, Severity, ValidationReport};
pub use write::{
    append, classic_format_for, create, create_with, create_with_fill, AttrValue, DatasetDef,
    DatasetMut, VarDef,
};
