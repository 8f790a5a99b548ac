//! The key/value store seam (Zarr, NCZarr).
