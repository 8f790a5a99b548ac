//! Opening datasets: [`open`], [`open_with`], [`open_mem`], [`open_bytes`]
//! and [`kind`], through the door (paths and URLs) and the format table.

use std::path::Path;

use nctk_model::Format;

use crate::door::{self, Opened};
use crate::formats;
use crate::{Dataset, Error};

/// How a dataset is opened ([`open_with`]); the default is [`open`]'s.
///
/// ```no_run
/// let ds = nctk::open_with("in.nc", nctk::OpenOptions::new().in_memory(true))?;
/// # Ok::<(), nctk::Error>(())
/// ```
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct OpenOptions {
    /// Read a single file (classic, block-compressed, HDF5, ncstream, a
    /// zip store) whole into memory first and open its bytes (`nccopy -r`;
    /// netCDF-C's `NC_DISKLESS`). Stores and remote servers read as usual.
    pub in_memory: bool,
    /// Settings of requests to object stores and HTTP servers (timeouts,
    /// retries, concurrency, the largest object read whole, the block
    /// cache of a `#mode=bytes` file); `None`: from the environment
    /// (`NCTK_*` variables, docs/cloud.md).
    #[cfg(feature = "cloud")]
    pub remote: Option<crate::RemoteOptions>,
}

impl OpenOptions {
    /// The default options: as [`open`].
    pub fn new() -> OpenOptions {
        OpenOptions::default()
    }

    /// Sets [`OpenOptions::in_memory`].
    pub fn in_memory(mut self, yes: bool) -> OpenOptions {
        self.in_memory = yes;
        self
    }

    /// Sets [`OpenOptions::remote`].
    #[cfg(feature = "cloud")]
    pub fn remote(mut self, options: crate::RemoteOptions) -> OpenOptions {
        self.remote = Some(options);
        self
    }
}

/// Opens a dataset for reading.
///
/// `target` is a local path or a netCDF-C URL:
/// * a classic netCDF file (CDF-1, CDF-2, CDF-5), detected by its magic bytes;
/// * a block-compressed classic file (`docs/formats/compressed-classic.md`),
///   read as the classic file it stands for (also from memory and over
///   `#mode=bytes` URLs);
/// * a netCDF-4 (HDF5) file, read as netCDF-C reads it (also from memory and
///   over `#mode=bytes` URLs; feature `hdf5`);
/// * a directory or zip holding an NCZarr or Zarr v2 store, read in NCZarr
///   mode (pure Zarr stores are read with xarray's `_ARRAY_DIMENSIONS`);
/// * `file:///abs/path#mode=nczarr,file`, `#mode=zarr,zip`, ... as netCDF-C
///   parses them (unknown modes are an error); `s3://`, `gs://`, `az://`
///   and `http(s)://` stores and `#mode=bytes` files (feature `cloud`);
/// * an ncstream (netCDF-Java's streaming format, `.ncs`): a whole stream or
///   the body of a cdmremote header answer, detected by its first bytes;
///   its format is [`Format::Netcdf4`] (feature `ncstream`);
/// * `cdmremote:http://host/path` (or `https`): a dataset on a cdmremote
///   server (THREDDS, `nctk serve`): the header is read at open, each read
///   asks the server for exactly the section read (feature `cdmremote`);
/// * `-`: standard input, spooled to an anonymous temporary file (any size,
///   bounded memory), then any of the single-file kinds above.
///
/// A build without the feature a target needs answers with an
/// [`ErrorKind::Unsupported`](crate::ErrorKind::Unsupported) error naming
/// the feature.
pub fn open(target: impl AsRef<Path>) -> Result<Dataset, Error> {
    open_with(target, OpenOptions::default())
}

/// As [`open`], as `options` ask.
pub fn open_with(target: impl AsRef<Path>, options: OpenOptions) -> Result<Dataset, Error> {
    let path = target.as_ref();
    let name = path.display().to_string();
    match door::open_target(path, &options)? {
        Opened::Store {
            store,
            options,
            root,
        } => formats::open_store(store, options, &name).map(|d| d.with_store_root(root)),
        Opened::File(source) => formats::open_source(source, &name, &options).map(|(d, _)| d),
        #[cfg(feature = "cdmremote")]
        Opened::Dataset(dataset) => Ok(dataset),
    }
}

/// Opens a dataset held in memory (a whole classic, block-compressed or
/// netCDF-4/HDF5 file's bytes, an ncstream, or a zip store).
pub fn open_mem(bytes: impl Into<bytes_crate::Bytes>) -> Result<Dataset, Error> {
    open_bytes("<memory>", bytes.into())
}

/// As [`open_mem`], naming the bytes `name` in errors.
pub fn open_bytes(name: &str, bytes: bytes_crate::Bytes) -> Result<Dataset, Error> {
    formats::open_bytes(name, bytes)
}

/// The netCDF format of `target`, the kind `ncdump -k` prints
/// ([`Format::name`]: `classic`, `64-bit offset`, `cdf5`, `netCDF-4` or
/// `netCDF-4 classic model`).
///
/// For an HDF5 file only the superblock and the root group are read (the
/// root's `_nc3_strict` attribute marks the classic model, as netCDF-C
/// decides); other targets are opened as [`open`] does (a
/// block-compressed classic file gives the format of the classic file it
/// stands for, from its stored header). An
/// ncstream (a `.ncs` file, a cdmremote URL) is `netCDF-4`: it carries
/// netCDF-Java's enhanced data model (groups, user types, strings), which
/// netCDF-C calls netCDF-4 whatever file holds it.
pub fn kind(target: impl AsRef<Path>) -> Result<Format, Error> {
    let path = target.as_ref();
    let name = path.display().to_string();
    match door::open_target(path, &OpenOptions::default())? {
        Opened::Store { store, options, .. } => {
            formats::open_store(store, options, &name).map(|d| d.format())
        }
        Opened::File(source) => formats::kind_of_source(source, &name),
        #[cfg(feature = "cdmremote")]
        Opened::Dataset(dataset) => Ok(dataset.format()),
    }
}
