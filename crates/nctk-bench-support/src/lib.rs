//! Test data and peer plumbing shared by nctk's benchmarks (not published):
//! the cached data directory, the smooth float32 temperature field
//! `temp(time, lat=721, lon=1440)` as a CDF-5 file, and helpers to run
//! Python peers and build the C peers against libnetcdf.

use std::path::{Path, PathBuf};
use std::process::Command;

pub mod s3s;

use nctk_classic::{ClassicWriter, FillMode, Version};
use nctk_model::{DataType, GroupId, Schema, Selection};
pub use nctk_test_support::peer::build_c_peer;

/// Time steps in the benchmarks' field.
const NT: u64 = 100;

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

/// The field of the classic bench, written by zarr-python (used when the
/// classic file or nccopy is absent) with `compressor` (Python source).
const PY_WRITE: &str = r#"
import sys, numpy as np, zarr, numcodecs
out, src, comp = sys.argv[1], sys.argv[2], sys.argv[3]
compressor = eval(comp, {"numcodecs": numcodecs})
z = zarr.open_group(out, mode='w', zarr_format=2)
a = z.create_array('temp', shape=(100, 721, 1440), chunks=(1, 721, 1440), dtype='<f4',
                   compressors=compressor, fill_value=None)
a.attrs['_ARRAY_DIMENSIONS'] = ['time', 'lat', 'lon']
if src != '-':
    import netCDF4
    v = netCDF4.Dataset(src)['temp']
    v.set_auto_maskandscale(False)
for t in range(100):
    if src != '-':
        a[t] = v[t]
    else:
        lat = (np.arange(721, dtype=np.float32) / np.float32(720) - np.float32(0.5)) * np.float32(np.pi)
        lon = np.arange(1440, dtype=np.float32) / np.float32(1440) * np.float32(2 * np.pi)
        c = np.cos(lat)[:, None]
        a[t] = (np.float32(273.15) + np.float32(30) * c
                + np.float32(5) * np.sin(np.float32(2) * lon[None, :] + np.float32(0.1 * t)) * c).astype('<f4')
"#;

/// The field `temp(100, 721, 1440)` as a Zarr store with chunks
/// (1, 721, 1440) compressed by `compressor` (a numcodecs expression, or
/// `None`), made once under [`data_dir`] as `name` (by `nccopy` from the
/// classic file when uncompressed, else by zarr-python); `None` when it
/// cannot be made here.
pub fn zarr_store(name: &str, compressor: &str) -> Option<PathBuf> {
    let dir = data_dir();
    let path = dir.join(name);
    if path.join("temp/.zarray").exists() {
        return Some(path);
    }
    let classic = classic_field()?;
    eprintln!("generating {} ...", path.display());
    let tmp = dir.join(format!("{name}.tmp"));
    let _ = std::fs::remove_dir_all(&tmp);
    if compressor == "None" && classic.exists() && have("nccopy") {
        let url = format!(
            "file://{}#mode=nczarr,file",
            tmp.canonicalize().unwrap_or(tmp.clone()).display()
        );
        let ok = Command::new("nccopy")
            .args(["-k", "nc4", "-c", "temp:1,721,1440"])
            .arg(&classic)
            .arg(&url)
            .status()
            .is_ok_and(|s| s.success());
        let zarray = std::fs::read_to_string(tmp.join("temp/.zarray")).unwrap_or_default();
        if ok && (zarray.contains("\"compressor\": null") || zarray.contains("\"compressor\":null"))
        {
            std::fs::rename(&tmp, &path).ok()?;
            return Some(path);
        }
        eprintln!("nccopy did not give an uncompressed store; using zarr-python");
        let _ = std::fs::remove_dir_all(&tmp);
    }
    let src = if classic.exists() {
        classic.clone()
    } else {
        PathBuf::from("-")
    };
    python(PY_WRITE, &[&tmp, &src, Path::new(compressor)])?;
    std::fs::rename(&tmp, &path).ok()?;
    Some(path)
}

/// The classic (CDF-5) file of the field under [`data_dir`], written on
/// first use; `None` when the directory cannot be made.
fn classic_field() -> Option<PathBuf> {
    let dir = data_dir();
    std::fs::create_dir_all(&dir).ok()?;
    let classic = dir.join("classic_temp_cdf5.nc");
    if !classic.exists() {
        write_temp_field(&classic, NT);
    }
    Some(classic)
}

/// The field `temp(100, 721, 1440)` as a netCDF-4/HDF5 file with chunks
/// (1, 721, 1440), written by netCDF-C's `nccopy` from the classic file
/// with the extra `flags` (`&[]`: uncompressed; `&["-d1", "-s"]`: zlib
/// level 1 and shuffle), made once under [`data_dir`] as `name`; `None`
/// when `nccopy` is absent or fails.
pub fn netcdf4_file(name: &str, flags: &[&str]) -> Option<PathBuf> {
    let dir = data_dir();
    let path = dir.join(name);
    if path.exists() {
        return Some(path);
    }
    if !have("nccopy") {
        return None;
    }
    let classic = classic_field()?;
    eprintln!("generating {} ...", path.display());
    let tmp = dir.join(format!("{name}.tmp"));
    let ok = Command::new("nccopy")
        .args(["-k", "nc4", "-c", "temp:1,721,1440"])
        .args(flags)
        .arg(&classic)
        .arg(&tmp)
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        let _ = std::fs::remove_file(&tmp);
        return None;
    }
    std::fs::rename(&tmp, &path).ok()?;
    Some(path)
}

/// What netCDF-C's side of the read benchmarks printed: `name seconds`
/// lines (`full_read`, `time_series`, `write`, `checksum`).
pub struct PeerTimes(String);

impl PeerTimes {
    /// The number printed after `name`.
    pub fn get(&self, name: &str) -> Option<f64> {
        self.0.lines().find_map(|l| {
            l.strip_prefix(name)
                .and_then(|v| v.strip_prefix(' '))
                .and_then(|v| v.trim().parse().ok())
        })
    }
}

/// Runs netCDF-C's side of the read benchmarks
/// (`crates/nctk/benches/peer/classic_peer.c`, built once under
/// [`data_dir`]) on `input`, writing its CDF-5 copy to `output`; `None`
/// (with the reason reported) when it cannot be built or fails.
pub fn classic_peer(input: &Path, output: &Path) -> Option<PeerTimes> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../nctk/benches/peer/classic_peer.c");
    let exe = build_c_peer(&src, &data_dir().join("classic_peer"))?;
    let out = Command::new(&exe).arg(input).arg(output).output().ok()?;
    if !out.status.success() {
        eprintln!(
            "classic_peer failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        return None;
    }
    Some(PeerTimes(String::from_utf8_lossy(&out.stdout).into_owned()))
}

/// Prints the head of the nctk-beside-netCDF-C table of the read benchmarks.
pub fn print_speed_head() {
    println!("| measure | nctk | netCDF-C | nctk speed-up |");
    println!("| --- | --- | --- | --- |");
}

/// Prints one row of that table: nctk's seconds, netCDF-C's (when it ran),
/// each shown by `unit`, and the ratio.
pub fn print_speed_row(name: &str, ours: f64, theirs: Option<f64>, unit: &dyn Fn(f64) -> String) {
    let (t, ratio) = match theirs {
        Some(t) => (unit(t), format!("{:.2}x", t / ours)),
        None => ("n/a".into(), "n/a".into()),
    };
    println!("| {name} | {} | {t} | {ratio} |", unit(ours));
}
