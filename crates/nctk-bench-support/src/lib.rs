//! Test data and peer plumbing shared by nctk's benchmarks (not published):
//! the cached data directory, the smooth float32 temperature field
//! `temp(time, lat=721, lon=1440)` as a CDF-5 file, and helpers to run
//! Python peers and build the C peers against libnetcdf.

use std::path::{Path, PathBuf};

use nctk_classic::{ClassicWriter, FillMode, Version};
use nctk_model::{DataType, GroupId, Schema, Selection};
pub use nctk_test_support::peer::build_c_peer;

/// Latitudes in the field.
pub const NLAT: u64 = 721;
/// Longitudes in the field.
pub const NLON: u64 = 1440;

/// Where benchmark data is cached: `$NCTK_BENCH_DATA`, else `bench-data/`
/// at the repository root (gitignored).
pub fn data_dir() -> PathBuf {
    std::env::var_os("NCTK_BENCH_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bench-data"))
}

/// Writes `temp(time=nt, lat, lon)` through nctk's classic writer (CDF-5,
/// no fill), to a temporary name renamed into place when complete.
pub fn write_temp_field(path: &Path, nt: u64) {
    eprintln!("generating {} ...", path.display());
    let mut s = Schema::new();
    let t = s.add_dim(GroupId::ROOT, "time", nt, false).unwrap();
    let y = s.add_dim(GroupId::ROOT, "lat", NLAT, false).unwrap();
    let x = s.add_dim(GroupId::ROOT, "lon", NLON, false).unwrap();
    let var = s
        .add_var(GroupId::ROOT, "temp", DataType::Float, &[t, y, x])
        .unwrap();
    let tmp = path.with_extension("tmp");
    let mut w = create_cdf5(&tmp, &s);
    let mut slab = vec![0f32; (NLAT * NLON) as usize];
    for t in 0..nt {
        for i in 0..NLAT {
            let lat = (i as f32 / (NLAT - 1) as f32 - 0.5) * std::f32::consts::PI;
            for j in 0..NLON {
                let lon = j as f32 / NLON as f32 * 2.0 * std::f32::consts::PI;
                slab[(i * NLON + j) as usize] = 273.15
                    + 30.0 * lat.cos()
                    + 5.0 * (2.0 * lon + 0.1 * t as f32).sin() * lat.cos();
            }
        }
        w.write_from(var, &Selection::block(&[t, 0, 0], &[1, NLAT, NLON]), &slab)
            .unwrap();
    }
    w.close().unwrap();
    std::fs::rename(tmp, path).unwrap();
}

/// Whether `cmd` is on the `PATH` (benchmarks leave out a missing peer's
/// row; they have no strict mode).
pub use nctk_test_support::peer::tool as have;

/// Runs a Python script with `args`; its stdout, or `None` (with the
/// reason reported) when it fails or python3 is absent.
pub fn python(script: &str, args: &[&Path]) -> Option<String> {
    nctk_test_support::peer::python(script, args)
        .map_err(|e| eprintln!("python failed: {e}"))
        .ok()
}

/// A CDF-5 file at `path` with every definition of `schema`, written
/// without fill (each benchmark writes every value).
pub fn create_cdf5(path: &Path, schema: &Schema) -> ClassicWriter {
    ClassicWriter::create_in_with_schema(
        std::sync::Arc::new(nctk_store::bytes::FileSink::create(path).unwrap()),
        schema,
        Version::Cdf5,
        FillMode::NoFill,
    )
    .unwrap()
}
