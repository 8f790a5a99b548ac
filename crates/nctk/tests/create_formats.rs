//! `nctk::create` writes the same dataset as a classic file or an NCZarr /
//! Zarr store, each read back by netCDF-C's tools or netCDF4-python and
//! zarr-python; a dataset dropped before `close` leaves nothing behind.

use nctk::Format;
use nctk_test_support::{peer, require};

/// Defines and writes the small dataset: a record variable appended
/// record by record, a fixed one written in slabs, attributes.
fn write(target: &str, format: Format) {
    let mut def = nctk::create(target, format).unwrap();
    let time = def.add_unlimited_dimension("time").unwrap();
    let x = def.add_dimension("x", 4).unwrap();
    def.add_variable::<f32>("temp", &[time, x])
        .unwrap()
        .put_attribute("units", "K")
        .unwrap();
    def.add_variable::<i16>("level", &[x]).unwrap();
    def.add_variable::<f64>("scale", &[]).unwrap();
    def.put_attribute("title", "create test").unwrap();
    let mut ds = def.end_define().unwrap();
    ds.put_values("level", (0..2,), &[1i16, 2]).unwrap();
    ds.put_values("level", (2..,), &[3i16, 4]).unwrap();
    ds.put_values("scale", .., &[0.5f64]).unwrap();
    for r in 0..3usize {
        let row: Vec<f32> = (0..4).map(|i| (r * 4 + i) as f32).collect();
        ds.put_values("temp", (r..r + 1, ..), &row).unwrap();
    }
    ds.close().unwrap();
}

/// The same data as CDL, for ncgen.
const CDL: &str = "netcdf t {
dimensions:
	time = UNLIMITED ;
	x = 4 ;
variables:
	float temp(time, x) ;
		temp:units = \"K\" ;
	short level(x) ;
	double scale ;

// global attributes:
		:title = \"create test\" ;
data:
 temp = 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 ;
 level = 1, 2, 3, 4 ;
 scale = 0.5 ;
}
";

fn check_nctk(target: &str) {
    let ds = nctk::open(target).unwrap();
    let temp: Vec<f32> = ds.variable("temp").unwrap().get_values(..).unwrap();
    assert_eq!(temp, (0..12).map(|v| v as f32).collect::<Vec<_>>());
    let level: Vec<i16> = ds.variable("level").unwrap().get_values(..).unwrap();
    assert_eq!(level, [1, 2, 3, 4]);
}

#[test]
fn classic_files_match_ncgen() {
    let dir = tempfile::tempdir().unwrap();
    for (format, kind) in [(Format::Classic, "nc3"), (Format::Cdf5, "nc5")] {
        let ours = dir.path().join(format!("ours-{kind}.nc"));
        write(ours.to_str().unwrap(), format);
        check_nctk(ours.to_str().unwrap());
        if !require::tools(&["ncgen", "ncdump"]) {
            continue;
        }
        let cdl = dir.path().join("t.cdl");
        std::fs::write(&cdl, CDL).unwrap();
        let theirs = dir.path().join(format!("theirs-{kind}.nc"));
        peer::run(
            "ncgen",
            [
                "-k".as_ref(),
                kind.as_ref(),
                "-o".as_ref(),
                theirs.as_os_str(),
                cdl.as_os_str(),
            ],
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let dump = |p: &std::path::Path| {
            let text = peer::run("ncdump", [p.as_os_str()]).unwrap_or_else(|e| panic!("{e}"));
            text.split_once('{').unwrap().1.to_string()
        };
        assert_eq!(dump(&ours), dump(&theirs), "{kind}");
    }
}

#[test]
fn stores_are_read_by_netcdf4_python_and_zarr_python() {
    let dir = tempfile::tempdir().unwrap();
    let abs = dir.path().display().to_string();
    let nczarr_dir = format!("file://{abs}/a.zarr#mode=nczarr,file");
    let nczarr_zip = format!("file://{abs}/b.zip#mode=nczarr,zip");
    let pure = format!("file://{abs}/c.zarr#mode=zarr,file");
    for target in [&nczarr_dir, &nczarr_zip, &pure] {
        write(target, Format::Zarr);
        check_nctk(target);
    }
    // The netCDF4 wheel's libnetcdf is built without zip support: the zip
    // store is read back by nctk above.
    let script = "import sys, netCDF4
for url in sys.argv[1:]:
    d = netCDF4.Dataset(url)
    print(d.title, d['temp'].units, d['temp'][:].astype(int).ravel().tolist(), d['level'][:].tolist(), float(d['scale'][...]))";
    if let Some(out) = require::python_output(&["netCDF4"], script, [&nczarr_dir, &pure]) {
        let line = "create test K [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11] [1, 2, 3, 4] 0.5";
        assert_eq!(out.lines().collect::<Vec<_>>(), [line; 2], "{out}");
    }
    let script = "import sys, zarr
for p in sys.argv[1:]:
    g = zarr.open_group(p, mode='r', zarr_format=2)
    print(g['temp'][:].astype(int).ravel().tolist(), g['level'][:].tolist(), g['temp'].attrs['units'])";
    let paths = [format!("{abs}/a.zarr"), format!("{abs}/c.zarr")];
    if let Some(out) = require::python_output(&["zarr"], script, &paths) {
        let line = "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11] [1, 2, 3, 4] K";
        assert_eq!(out.lines().collect::<Vec<_>>(), [line; 2], "{out}");
    }
}

#[test]
fn a_dataset_dropped_before_close_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    for (name, format) in [
        ("a.nc", Format::Classic),
        ("b.zarr", Format::Zarr),
        ("c.zip", Format::Zarr),
    ] {
        let target = dir.path().join(name);
        let mut def = nctk::create(&target, format).unwrap();
        let x = def.add_dimension("x", 3).unwrap();
        def.add_variable::<i32>("v", &[x]).unwrap();
        let mut ds = def.end_define().unwrap();
        ds.put_values("v", .., &[1, 2, 3]).unwrap();
        drop(ds);
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert!(left.is_empty(), "{name}: {left:?}");
    }
}
