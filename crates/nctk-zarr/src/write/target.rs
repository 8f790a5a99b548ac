//! Creating a store from a path or a netCDF-C URL.

use std::path::Path;

use nctk_model::Schema;

use super::options::{WriteLayout, WriteOptions};
use super::{WriteError, ZarrWriter};
use crate::url::{self, StoreLocation, Target};

/// The layout URL mode flags ask for: `zarr` (pure Zarr, with
/// `_ARRAY_DIMENSIONS` unless `noxarray`), `nczarr490` (netCDF-C 4.9.0's
/// layout), else `None` (the caller's choice, by default the newest NCZarr).
pub fn layout_for_modes(modes: &[String]) -> Option<WriteLayout> {
    let has = |m: &str| modes.iter().any(|x| x == m);
    if has("nczarr490") {
        Some(WriteLayout::NcZarr490)
    } else if has("zarr") {
        Some(WriteLayout::PureZarr {
            xarray: !has("noxarray"),
        })
    } else {
        None
    }
}

/// Creates a store named by a path or a netCDF-C URL:
///
/// * `file:///abs/x.zarr#mode=nczarr,file` (directory), `...#mode=nczarr,zip`
///   (zip), with `zarr`, `noxarray` or `nczarr490` choosing the layout
///   (which overrides `opts.layout`);
/// * a plain path: a zip when it ends in `.zip`, else a directory, in
///   `opts.layout`.
///
/// S3 and HTTP URLs are refused.
pub fn create_target(
    text: &str,
    schema: &Schema,
    mut opts: WriteOptions,
) -> Result<ZarrWriter, WriteError> {
    let parsed = url::parse(text).map_err(|e| WriteError::target(text, e.to_string()))?;
    let is_zip = |p: &Path| p.extension().is_some_and(|e| e.eq_ignore_ascii_case("zip"));
    match parsed.target {
        Target::Path(p) | Target::File(p) => {
            if is_zip(&p) {
                ZarrWriter::create_zip(&p, schema, &opts)
            } else {
                ZarrWriter::create_dir(&p, schema, &opts)
            }
        }
        Target::Zarr(z) => {
            if let Some(l) = layout_for_modes(&z.modes) {
                opts.layout = l;
            }
            opts.consolidated |= z.modes.iter().any(|m| m == "consolidated");
            match z.location {
                StoreLocation::Directory(p) => ZarrWriter::create_dir(&p, schema, &opts),
                StoreLocation::Zip(p) => ZarrWriter::create_zip(&p, schema, &opts),
                StoreLocation::S3(_) => {
                    Err(WriteError::target(text, "S3 storage is not available yet"))
                }
            }
        }
        Target::Bytes(_) => Err(WriteError::target(text, "mode=bytes is read-only")),
    }
}
