//! Creating NCZarr / Zarr stores: [`create_store`].

use std::path::Path;

use nctk_model::Schema;
pub use nctk_zarr::strlen::{
    width_set_by_attributes as store_string_width, DEFAULT_MAX_STRLEN as STORE_DEFAULT_STRING_WIDTH,
};
pub use nctk_zarr::{
    VarOptions as StoreVarOptions, WriteLayout as StoreLayout, WriteOptions as StoreOptions,
    ZarrWriter as StoreWriter,
};

use crate::{door, Error};

/// Creates an NCZarr or Zarr store from a complete schema and returns the
/// writer: call [`StoreWriter::write`] for each hyperslab, then
/// [`StoreWriter::finish`].
///
/// `url_or_path` is a netCDF-C URL (`file:///abs/x.zarr#mode=nczarr,file`,
/// `...#mode=zarr,zip`, `...#mode=nczarr,file,nczarr490` for netCDF-C
/// 4.9.0's layout) or a plain path (a zip when it ends in `.zip`, else a
/// directory). URL mode flags choose the layout; otherwise
/// `options.layout` does (by default the newest NCZarr layout).
///
/// ```no_run
/// use nctk::model::{DataType, GroupId, Schema, Selection, Values};
/// let mut schema = Schema::new();
/// let x = schema.add_dim(GroupId::ROOT, "x", 3, false)?;
/// let v = schema.add_var(GroupId::ROOT, "v", DataType::Int, &[x])?;
/// let mut w = nctk::create_store("out.zarr", &schema, nctk::StoreOptions::default())?;
/// w.write(v, &Selection::all(&[3]), &Values::Int(vec![1, 2, 3])).map_err(|e| nctk::Error::Format(e.into()))?;
/// w.finish().map_err(|e| nctk::Error::Format(e.into()))?;
/// # Ok::<(), nctk::Error>(())
/// ```
pub fn create_store(
    url_or_path: &str,
    schema: &Schema,
    mut options: StoreOptions,
) -> Result<StoreWriter, Error> {
    let target = door::store_target(url_or_path)?;
    if let Some(layout) = target.layout {
        options.layout = layout;
    }
    options.consolidated |= target.consolidated;
    let store = door::create_store(&target.path, target.zip, options.layout)?;
    StoreWriter::create(store, schema, &options).map_err(|e| Error::Format(Box::new(e)))
}

/// True when an output named `target` is an NCZarr / Zarr store rather
/// than a single file: a URL (`file:///abs/x.zarr#mode=nczarr,file`), a
/// `#mode=` fragment, or a path ending in `.zarr` or `.zip`.
pub fn is_store_target(target: &Path) -> bool {
    let Some(text) = target.to_str() else {
        return false;
    };
    if text.contains("://") || text.contains("#mode=") {
        return true;
    }
    Path::new(text.trim_end_matches('/'))
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("zarr") || e.eq_ignore_ascii_case("zip"))
}
