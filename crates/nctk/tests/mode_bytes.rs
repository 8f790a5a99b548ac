//! `#mode=bytes`: classic files and zip stores read by HTTP range requests
//! from real servers (moto's S3 server serving public objects, and
//! `nctk-test-servers`' range server, which counts requests and can
//! misbehave),
//! against netCDF-C's own dumps and the pip `netCDF4` (libnetcdf 4.10.1)
//! reading the same URLs.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use nctk_cdl::print::{dump, Options};
use nctk_test_servers::{moto, Behaviour, RangeFileServer};
use nctk_test_support::{corpus::files_under, require};

/// nctk's dump of what `target` opens as, named `name` (as ncdump names a
/// dataset after its file).
fn dump_of(target: &str, name: &str) -> String {
    let ds = nctk::open(target).unwrap_or_else(|e| panic!("{target}: {e}"));
    let mut out = vec![];
    dump(ds.source(), name, &Options::default(), &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

/// A sample of the corpus's classic files with netCDF-C's full dump
/// (`X.cdl.expected`), CDF-1, CDF-2 and CDF-5 alike.
fn classic_sample(corpus: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = files_under(&corpus.join("generated/from-cdl"), |_| true)
        .into_iter()
        .filter(|p| {
            let s = p.to_string_lossy();
            s.ends_with(".nc") && PathBuf::from(format!("{s}.cdl.expected")).is_file()
        })
        .collect();
    files.sort();
    files.into_iter().step_by(15).collect()
}

fn file_name(p: &Path) -> String {
    p.file_name().unwrap().to_string_lossy().into_owned()
}

/// Classic files and zip stores uploaded public-read to moto and opened as
/// `http://127.0.0.1:PORT/bucket/key#mode=bytes` dump exactly as the local
/// files: the classic ones as netCDF-C's `ncdump` dumped them.
#[test]
fn corpus_over_http_dumps_as_ncdump() {
    let Some(corpus) = require::corpus() else {
        return;
    };
    let Some(moto) = moto() else { return };
    moto.create_bucket("corpus").unwrap();
    let mut files = classic_sample(&corpus);
    assert!(files.len() >= 10, "{files:?}");
    for zip in [
        "xarray-zarr2/sample_nocomp.zip",
        "zarr-python-v2/nested_groups.zip",
    ] {
        files.push(corpus.join("generated/other-writers").join(zip));
    }
    let mut kinds = std::collections::BTreeSet::new();
    for f in &files {
        let name = file_name(f);
        moto.put_object("corpus", &name, std::fs::read(f).unwrap(), true)
            .unwrap();
        let url = format!("{}/corpus/{name}#mode=bytes", moto.endpoint());
        // Classic files against ncdump's dump; zip stores against nctk's
        // own dump of the local file (tested against ncdump elsewhere).
        let expected = if name.ends_with(".zip") {
            dump_of(&f.to_string_lossy(), &name)
        } else {
            std::fs::read_to_string(format!("{}.cdl.expected", f.display())).unwrap()
        };
        assert_eq!(dump_of(&url, &name), expected, "{url}");
        kinds.insert(format!("{:?}", nctk::open(&url).unwrap().format()));
    }
    assert!(kinds.len() >= 4, "classic kinds and a store: {kinds:?}");
}

/// `#mode=bytes,s3` reads the same object through moto's S3 API
/// (unsigned: profile `none`) as plain HTTP reads it.
#[test]
fn mode_s3_reads_through_the_s3_api() {
    let Some(file) = require::corpus_path("generated/from-cdl/netcdf-c/ncgen/c5.nc5.nc") else {
        return;
    };
    let Some(moto) = moto() else { return };
    moto.create_bucket("api").unwrap();
    moto.put_object("api", "d/c5.nc5.nc", std::fs::read(&file).unwrap(), true)
        .unwrap();
    let url = format!(
        "{}/api/d/c5.nc5.nc#mode=bytes,s3&aws.profile=none",
        moto.endpoint()
    );
    let expected = std::fs::read_to_string(format!("{}.cdl.expected", file.display())).unwrap();
    assert_eq!(dump_of(&url, "c5.nc5.nc"), expected);
    let missing = format!(
        "{}/api/d/none.nc#mode=bytes,s3&aws.profile=none",
        moto.endpoint()
    );
    let e = nctk::open(&missing).unwrap_err().to_string();
    assert!(
        e.contains("api/d/none.nc") && e.contains("not found"),
        "{e}"
    );
}

/// Every numeric variable's values as little-endian f64 bytes in hex, as
/// nctk reads them from `target`.
fn nctk_values(target: &str) -> BTreeMap<String, String> {
    let ds = nctk::open(target).unwrap();
    ds.variables()
        .filter(|v| v.dtype().is_numeric())
        .map(|v| {
            let values: Vec<f64> = v.get_values(..).unwrap();
            let hex: String = values
                .iter()
                .flat_map(|x| x.to_le_bytes())
                .map(|b| format!("{b:02x}"))
                .collect();
            (v.name().to_string(), hex)
        })
        .collect()
}

/// The same, as the pip netCDF4 (libnetcdf 4.10.1) reads `url`.
const NETCDF4_VALUES: &str = r#"
import sys, json, netCDF4, numpy as np
ds = netCDF4.Dataset(sys.argv[1])
ds.set_auto_maskandscale(False)
out = {}
for name, v in ds.variables.items():
    if v.dtype.kind in 'iuf':
        out[name] = np.asarray(v[...]).astype('<f8').tobytes().hex()
print(json.dumps(out))
"#;

/// netCDF-C (the pip netCDF4's libnetcdf 4.10.1) opens the same
/// `#mode=bytes` URLs and reads the same values as nctk; the first files
/// of each classic kind of the sample.
#[test]
fn netcdf_c_reads_the_same_values_over_http() {
    let Some(corpus) = require::corpus() else {
        return;
    };
    if !require::python(&["netCDF4", "numpy"]) {
        return;
    }
    let Some(moto) = moto() else { return };
    moto.create_bucket("values").unwrap();
    let mut seen = std::collections::BTreeSet::new();
    for f in classic_sample(&corpus) {
        let kind = std::fs::read(&f).unwrap()[3];
        if !seen.insert(kind) {
            continue;
        }
        let name = file_name(&f);
        moto.put_object("values", &name, std::fs::read(&f).unwrap(), true)
            .unwrap();
        let url = format!("{}/values/{name}#mode=bytes", moto.endpoint());
        let out = require::python_output(&["netCDF4"], NETCDF4_VALUES, [&url]).unwrap();
        let theirs: BTreeMap<String, String> = serde_json::from_str(&out).unwrap();
        assert_eq!(nctk_values(&url), theirs, "{url}");
    }
    assert_eq!(seen.len(), 3, "CDF-1, CDF-2 and CDF-5");
}

/// netCDF-4/HDF5 files over `#mode=bytes`: netCDF-C (libnetcdf 4.10.1,
/// whose byte-range driver reads HDF5 over HTTP) reads the same values
/// from the same URL as nctk, and nctk reads the same object through the
/// S3 API alike: a corpus file of every numeric type with an unlimited
/// dimension, and a classic corpus file turned by `nccopy` into a chunked
/// zlib + shuffle netCDF-4 file.
#[test]
fn netcdf4_files_read_as_netcdf_c_reads_them_over_http_and_s3() {
    let Some(corpus) = require::corpus() else {
        return;
    };
    if !require::python(&["netCDF4", "numpy"]) || !require::tools(&["nccopy"]) {
        return;
    }
    let Some(moto) = moto() else { return };
    moto.create_bucket("nc4").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let classic = &classic_sample(&corpus)[0];
    let compressed = dir.path().join("compressed.nc");
    let made = std::process::Command::new("nccopy")
        .args(["-k", "nc4", "-d1", "-s"])
        .arg(classic)
        .arg(&compressed)
        .status()
        .unwrap();
    assert!(made.success(), "nccopy -k nc4 {}", classic.display());
    let files = [
        corpus.join("netcdf-c/ncdump/ref_nc_test_netcdf4_4_0.nc"),
        compressed,
    ];
    for f in &files {
        let name = file_name(f);
        moto.put_object("nc4", &name, std::fs::read(f).unwrap(), true)
            .unwrap();
        let url = format!("{}/nc4/{name}#mode=bytes", moto.endpoint());
        let out = require::python_output(&["netCDF4"], NETCDF4_VALUES, [&url]).unwrap();
        let theirs: BTreeMap<String, String> = serde_json::from_str(&out).unwrap();
        assert!(!theirs.is_empty(), "{url}: no numeric variables");
        assert_eq!(nctk_values(&url), theirs, "{url}");
        let s3 = format!(
            "{}/nc4/{name}#mode=bytes,s3&aws.profile=none",
            moto.endpoint()
        );
        assert_eq!(nctk_values(&s3), theirs, "{s3}");
    }
}

/// A CDF-5 file written by netCDF4-python: `temp(time, lat, lon)` with
/// `temp[t, i, j] = t * 100000 + i * 400 + j` (exact as `float`).
const WRITE_CDF5: &str = r#"
import sys, netCDF4, numpy as np
ds = netCDF4.Dataset(sys.argv[1], 'w', format='NETCDF3_64BIT_DATA')
nt, ny, nx = 30, 180, 360
ds.createDimension('time', nt); ds.createDimension('lat', ny); ds.createDimension('lon', nx)
v = ds.createVariable('temp', 'f4', ('time', 'lat', 'lon'))
t, i, j = np.meshgrid(np.arange(nt), np.arange(ny), np.arange(nx), indexing='ij')
v[:] = t * 100000 + i * 400 + j
ds.close()
"#;

/// The point series `temp[:, i, j]` of a CDF-5 file takes a handful of
/// requests (the range server counts them): the HEAD, one block for the
/// header, and the series's ranges merged (gaps under 1 MiB read through)
/// into a few concurrent parts.
#[test]
fn a_point_series_takes_a_handful_of_requests() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("field.nc");
    if require::python_output(&["netCDF4", "numpy"], WRITE_CDF5, [&path]).is_none() {
        return;
    }
    let server = RangeFileServer::start(Behaviour::Honest).unwrap();
    server.add_blob("field.nc", std::fs::read(&path).unwrap());
    let url = format!("{}/field.nc#mode=bytes", server.endpoint());
    let ds = nctk::open(&url).unwrap();
    assert_eq!(ds.format(), nctk::Format::Cdf5);
    let series: Vec<f64> = ds
        .variable("temp")
        .unwrap()
        .get_values((.., 40..41, 100..101))
        .unwrap();
    let expected: Vec<f64> = (0..30)
        .map(|t| t as f64 * 1e5 + 40.0 * 400.0 + 100.0)
        .collect();
    assert_eq!(series, expected);
    let stats = server.stats();
    assert!(stats.requests() <= 6, "{stats:?}");
}

/// A server that ignores `Range` still gives the right dump; one that
/// sends a wrong `Content-Range` gives an error naming the URL.
#[test]
fn misbehaving_servers_give_right_values_or_a_clear_error() {
    let Some(file) = require::corpus_path("generated/from-cdl/netcdf-c/ncgen/c5.nc5.nc") else {
        return;
    };
    let expected = std::fs::read_to_string(format!("{}.cdl.expected", file.display())).unwrap();
    let bytes = std::fs::read(&file).unwrap();
    let ignoring = RangeFileServer::start(Behaviour::IgnoreRange).unwrap();
    ignoring.add_blob("c5.nc5.nc", bytes.clone());
    let url = format!("{}/c5.nc5.nc#mode=bytes", ignoring.endpoint());
    assert_eq!(dump_of(&url, "c5.nc5.nc"), expected);
    let wrong = RangeFileServer::start(Behaviour::WrongContentRange).unwrap();
    wrong.add_blob("c5.nc5.nc", bytes);
    let url = format!("{}/c5.nc5.nc", wrong.endpoint());
    let e = nctk::open(format!("{url}#mode=bytes"))
        .unwrap_err()
        .to_string();
    assert!(e.contains(&url), "{e}");
}
