//! What nctk's tests share (not published, a dev-dependency only, and
//! free of other nctk crates so that every crate can use it):
//!
//! * [`alloc`]: the allocator of bad-input tests (the largest allocation);
//! * [`blocks`]: the block size the block-compressed classic writer
//!   should choose for a variable, by brute force;
//! * [`corpus`]: where the conformance corpus is (`NCTK_CORPUS`, else
//!   `../shared/corpus` beside the repository), a file walker for it and
//!   the slow sweeps' samples (`NCTK_FULL_SWEEP=1` for every file);
//! * [`peer`]: whether a peer (`ncdump`, `ncgen`, `nccopy`, `ncvalidator`,
//!   Python modules such as `netCDF4`, `zarr`, `xarray`, `numcodecs`) is
//!   installed, each probed once per process, and runners for them;
//! * [`hdf5_fixtures()`]: HDF5 files written by h5py, netCDF4-python,
//!   h5netcdf and xarray with what those libraries read back, made once per
//!   test process;
//! * [`bounded`]: damaged-input cases run under a time bound and an
//!   allocation cap, never a panic;
//! * [`require`]: the one skip rule. A test asks for what it needs,
//!
//!   ```no_run
//!   # fn test() {
//!   let Some(corpus) = nctk_test_support::require::corpus() else { return };
//!   if !nctk_test_support::require::tools(&["ncdump"]) { return; }
//!   # }
//!   ```
//!
//!   and when it is missing the test prints a visible
//!   `SKIPPED <test>: <reason>` line and returns, or, under CI (`CI=true`
//!   or `NCTK_REQUIRE_PEERS=1`), fails with the reason.

pub mod alloc;
pub mod blocks;
pub mod bounded;
pub mod corpus;
pub mod hdf5_fixtures;
pub mod names;
pub mod peer;
pub mod require;

pub use hdf5_fixtures::hdf5_fixtures;
