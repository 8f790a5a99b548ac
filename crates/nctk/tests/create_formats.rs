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
        write(target, Format::Netcdf4);
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
        ("b.zarr", Format::Netcdf4),
        ("c.zip", Format::Netcdf4),
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

#[test]
fn netcdf4_is_written_as_an_nczarr_store_when_the_target_names_one() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("n4.zarr");
    let mut def = nctk::create(&store, Format::Netcdf4).unwrap();
    let x = def.add_dimension("x", 2).unwrap();
    def.add_variable::<u64>("big", &[x]).unwrap();
    let mut ds = def.end_define().unwrap();
    ds.put_values("big", .., &[u64::MAX, 1]).unwrap();
    ds.close().unwrap();
    let url = format!("file://{}#mode=nczarr,file", store.display());
    let script =
        "import sys, netCDF4\nd = netCDF4.Dataset(sys.argv[1])\nprint(d['big'][:].tolist())";
    if let Some(out) = require::python_output(&["netCDF4"], script, [&url]) {
        assert_eq!(out.trim(), format!("[{}, 1]", u64::MAX));
    }
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, ["n4.zarr"]);
}

#[test]
fn netcdf4_is_written_as_an_hdf5_file_when_the_target_names_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("n4.nc");
    let mut def = nctk::create(&file, Format::Netcdf4).unwrap();
    let x = def.add_dimension("x", 2).unwrap();
    def.add_variable::<u64>("big", &[x]).unwrap();
    let mut ds = def.end_define().unwrap();
    ds.put_values("big", .., &[u64::MAX, 1]).unwrap();
    ds.close().unwrap();
    let script = "import sys, netCDF4\nd = netCDF4.Dataset(sys.argv[1])\n\
                  print(d.data_model, d['big'][:].tolist())";
    if let Some(out) = require::python_output(&["netCDF4"], script, [&file]) {
        assert_eq!(out.trim(), format!("NETCDF4 [{}, 1]", u64::MAX));
    }
    // Groups are written; the classic model is marked so netCDF-C reads
    // the file as one.
    let other = dir.path().join("g.nc");
    let mut def = nctk::create(&other, Format::Netcdf4).unwrap();
    def.add_group(nctk_model::GroupId(0), "g").unwrap();
    def.end_define().unwrap().close().unwrap();
    let strict = dir.path().join("c7.nc");
    nctk::create(&strict, Format::Netcdf4Classic)
        .unwrap()
        .end_define()
        .unwrap()
        .close()
        .unwrap();
    if require::tools(&["ncdump"]) {
        let out = peer::run("ncdump", ["-h".as_ref(), other.as_os_str()]).unwrap();
        assert!(out.contains("group: g {"), "{out}");
        let out = peer::run("ncdump", ["-k".as_ref(), strict.as_os_str()]).unwrap();
        assert_eq!(out.trim(), "netCDF-4 classic model");
    }
}

/// netCDF-C's rules: a classic file has no 64-bit integers (CDF-1) and
/// one unlimited dimension; netCDF-4 (a store) has both. Errors name the
/// dataset. A store takes no new definitions once it has variables.
#[test]
fn each_format_checks_definitions_with_its_rules() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("c.nc");
    let mut def = nctk::create(&file, Format::Classic).unwrap();
    let err = def.add_variable::<u64>("v", &[]).unwrap_err().to_string();
    assert!(err.starts_with(&file.display().to_string()), "{err}");
    def.add_unlimited_dimension("t").unwrap();
    let err = def.add_unlimited_dimension("t2").unwrap_err().to_string();
    assert!(err.contains("already has an unlimited dimension"), "{err}");
    drop(def);

    let store = dir.path().join("s.zarr");
    let mut def = nctk::create(&store, Format::Netcdf4).unwrap();
    let t = def.add_unlimited_dimension("t").unwrap();
    let u = def.add_unlimited_dimension("u").unwrap();
    def.add_variable::<u64>("v", &[t, u]).unwrap();
    let mut ds = def.end_define().unwrap();
    ds.put_values("v", (0..1, 0..2), &[5u64, 6]).unwrap();
    ds.close().unwrap();
    let url = format!("file://{}#mode=nczarr,file", store.display());
    let script = "import sys, netCDF4\nd = netCDF4.Dataset(sys.argv[1])\n\
                  print([(n, len(x), x.isunlimited()) for n, x in d.dimensions.items()], d['v'][:].tolist())";
    if let Some(out) = require::python_output(&["netCDF4"], script, [&url]) {
        assert_eq!(out.trim(), "[('t', 1, True), ('u', 2, True)] [[5, 6]]");
    }

    let other = dir.path().join("r.zarr");
    let mut def = nctk::create(&other, Format::Netcdf4).unwrap();
    let x = def.add_dimension("x", 2).unwrap();
    def.add_variable::<i32>("a", &[x]).unwrap();
    let mut def = def.end_define().unwrap().redefine().unwrap();
    def.add_variable::<i32>("b", &[x]).unwrap();
    let err = def.end_define().unwrap_err().to_string();
    assert!(err.contains("redefinition"), "{err}");
    assert!(!other.exists(), "a failed store is not left behind");
}
