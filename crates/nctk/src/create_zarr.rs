//! NCZarr / Zarr outputs: which names are stores ([`is_store_target`])
//! and the store writer's options, as [`crate::create_with`] takes them.

use std::path::Path;

/// The store writer's check of one variable's storage, for the define API.
pub(crate) use nctk_zarr::write::check_storage as check_store_storage;
pub use nctk_zarr::WriteLayout as StoreLayout;
/// The store writer's options, as the output side fills them in.
pub(crate) use nctk_zarr::WriteOptions as ZarrWriteOptions;
/// The store writer behind [`crate::create`]'s NCZarr / Zarr outputs.
pub(crate) use nctk_zarr::ZarrWriter as StoreWriter;

/// True when an output named `target` is an NCZarr / Zarr store rather
/// than a single file: a URL (`file:///abs/x.zarr#mode=nczarr,file`), a
/// `#mode=` fragment, or a path ending in `.zarr` or `.zip`.
pub(crate) fn is_store_target(target: &Path) -> bool {
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
