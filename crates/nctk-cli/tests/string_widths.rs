//! NCZarr string widths as netCDF-C sets them (`_nczarr_maxstrlen` on a
//! variable, `_nczarr_default_maxstrlen` on the root group, 128 bytes
//! otherwise), through the `nctk` binary:
//!
//! * `nctk gen` of netCDF-C's own test CDL (`nczarr_test/ref_string.cdl`,
//!   which cuts a 10-byte string to 4) dumps exactly as netCDF-C's expected
//!   output (`ref_string_nczarr.baseline`);
//! * netCDF-C 4.10.1 (the pip `netCDF4` wheel) writes the same definitions
//!   into a store of its own: both stores hold the same dtypes, attributes
//!   and values, read by netCDF-C and by nctk;
//! * `nctk copy` keeps strings longer than 128 bytes from a zarr-python
//!   `|S200` store, into NCZarr and pure Zarr, as zarr-python reads them.
//!
//! Each test skips with a note when the corpus or its Python peer is absent.

mod common;

use std::path::Path;

use common::nctk_ok as nctk;
use nctk_test_support::require;
use nctk_test_support::require::python_output as python;

fn nczarr_url(dir: &Path) -> String {
    format!("file://{}#mode=nczarr,file", dir.display())
}

/// Everything after the first line (which names the dataset).
fn body(text: &str) -> &str {
    text.split_once('\n').map_or("", |(_, rest)| rest)
}

#[test]
fn gen_cuts_strings_to_netcdf_c_widths_as_ncdump_expects() {
    let Some(corpus) = require::corpus() else {
        return;
    };
    let cdl = corpus.join("netcdf-c/nczarr_test/ref_string.cdl");
    let expected =
        std::fs::read_to_string(corpus.join("netcdf-c/nczarr_test/ref_string_nczarr.baseline"))
            .expect("baseline");
    let tmp = tempfile::tempdir().unwrap();
    let store = tmp.path().join("ref_string.zarr");
    let url = nczarr_url(&store);
    nctk(&["gen", "-4", "-o", &url, cdl.to_str().unwrap()]);
    let dumped = nctk(&["dump", &url]);
    assert_eq!(body(&dumped), body(&expected));
    // The widths are the stored dtypes, as netCDF-C sets them.
    let dtype = |var: &str| -> String {
        let text = std::fs::read_to_string(store.join(var).join(".zarray")).unwrap();
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        v["dtype"].as_str().unwrap().to_string()
    };
    assert_eq!(dtype("truncated"), "|S4");
    assert_eq!(dtype("v"), "|S6");
}

/// netCDF-C's side: writes (argv[1] given) the definitions of the test
/// below into a store, then prints, for the store at argv[2], each
/// variable's values and attributes and the root's attributes as netCDF-C
/// reads them, one JSON object.
const NETCDF_C: &str = r#"
import sys, json, numpy as np, netCDF4
if sys.argv[1] != '-':
    d = netCDF4.Dataset(sys.argv[1], 'w')
    d.setncattr('_nczarr_default_maxstrlen', np.int32(6))
    d.createDimension('n', 3)
    s = d.createVariable('s', str, ('n',))
    s.setncattr('_nczarr_maxstrlen', np.int32(4))
    t = d.createVariable('t', str, ('n',))
    wide = d.createVariable('wide', str, ('n',))
    wide.setncattr('_nczarr_maxstrlen', np.int32(300))
    words = np.array(['0123456789', 'ab', 'abcdef'], dtype=object)
    s[:] = words
    t[:] = words
    wide[:] = np.array(['x' * 250, 'é' * 100, ''], dtype=object)
    d.close()
d = netCDF4.Dataset(sys.argv[2])
out = {'global': {k: int(d.getncattr(k)) for k in d.ncattrs()}}
for name, v in d.variables.items():
    out[name] = {'values': [str(x) for x in v[:]],
                 'attrs': {k: int(v.getncattr(k)) for k in v.ncattrs()}}
print(json.dumps(out, sort_keys=True))
"#;

/// The CDL of the same definitions and values.
fn cdl_text() -> String {
    let wide = format!("\"{}\", \"{}\", \"\"", "x".repeat(250), "é".repeat(100));
    format!(
        r#"netcdf widths {{
dimensions:
	n = 3 ;
variables:
	string s(n) ;
		s:_nczarr_maxstrlen = 4 ;
	string t(n) ;
	string wide(n) ;
		wide:_nczarr_maxstrlen = 300 ;

// global attributes:
		:_nczarr_default_maxstrlen = 6 ;
data:

 s = "0123456789", "ab", "abcdef" ;

 t = "0123456789", "ab", "abcdef" ;

 wide = {wide} ;
}}
"#
    )
}

#[test]
fn widths_match_netcdf_c_both_ways() {
    let tmp = tempfile::tempdir().unwrap();
    let theirs = tmp.path().join("theirs.zarr");
    let ours = tmp.path().join("ours.zarr");
    let cdl = tmp.path().join("widths.cdl");
    std::fs::write(&cdl, cdl_text()).unwrap();
    nctk(&["gen", "-4", "-o", &nczarr_url(&ours), cdl.to_str().unwrap()]);
    let Some(read_theirs) = python(
        &["numpy", "netCDF4"],
        NETCDF_C,
        [&nczarr_url(&theirs), &nczarr_url(&theirs)],
    ) else {
        return;
    };
    let read_ours = python(&["numpy", "netCDF4"], NETCDF_C, ["-", &nczarr_url(&ours)]).unwrap();
    // netCDF-C reads nctk's store exactly as its own.
    assert_eq!(read_ours, read_theirs);
    let parsed: serde_json::Value = serde_json::from_str(&read_theirs).unwrap();
    assert_eq!(parsed["s"]["values"][0], "0123", "netCDF-C cuts to 4 bytes");
    assert_eq!(
        parsed["t"]["values"][0], "012345",
        "and to the default of 6"
    );
    // The stored dtypes agree.
    for var in ["s", "t", "wide"] {
        let dtype = |root: &Path| -> serde_json::Value {
            let text = std::fs::read_to_string(root.join(var).join(".zarray")).unwrap();
            serde_json::from_str::<serde_json::Value>(&text).unwrap()["dtype"].clone()
        };
        assert_eq!(dtype(&ours), dtype(&theirs), "{var}");
    }
    // nctk reads netCDF-C's store as it reads its own.
    let ours_dumped = nctk(&["dump", &nczarr_url(&ours)]);
    let theirs_dumped = nctk(&["dump", &nczarr_url(&theirs)]);
    assert_eq!(body(&ours_dumped), body(&theirs_dumped));
    assert!(theirs_dumped.contains("s:_nczarr_maxstrlen = 4 ;"));
    assert!(theirs_dumped.contains(":_nczarr_default_maxstrlen = 6 ;"));
}

/// zarr-python's side: writes (argv[1] = "write") a `|S200` array into the
/// store at argv[2], or prints the array of the store at argv[2] as JSON.
const ZARR_PYTHON: &str = r#"
import sys, json, numpy as np, zarr
words = [b'x' * 150, b'short', b'y' * 200]
if sys.argv[1] == 'write':
    g = zarr.open_group(sys.argv[2], mode='w', zarr_format=2)
    a = g.create_array('names', shape=(3,), chunks=(2,), dtype='|S200', fill_value=b'')
    a[:] = np.array(words, dtype='|S200')
    a.attrs['_ARRAY_DIMENSIONS'] = ['n']
    print(json.dumps([w.decode() for w in words]))
else:
    a = zarr.open_group(sys.argv[2], mode='r')['names']
    print(json.dumps([bytes(x).decode() for x in a[:]]))
"#;

#[test]
fn copy_keeps_strings_longer_than_the_default_width() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src.zarr");
    let Some(written) = python(
        &["numpy", "zarr"],
        ZARR_PYTHON,
        ["write", src.to_str().unwrap()],
    ) else {
        return;
    };
    let nczarr = tmp.path().join("copy_nczarr.zarr");
    let pure = tmp.path().join("copy_pure.zarr");
    nctk(&[
        "copy",
        "-k",
        "nc4",
        src.to_str().unwrap(),
        &nczarr_url(&nczarr),
    ]);
    nctk(&["copy", src.to_str().unwrap(), pure.to_str().unwrap()]);
    for out in [&nczarr, &pure] {
        let read = python(
            &["numpy", "zarr"],
            ZARR_PYTHON,
            ["read", out.to_str().unwrap()],
        )
        .unwrap();
        assert_eq!(read, written, "{}", out.display());
    }
    // netCDF-C's view of the NCZarr copy: the width is its attribute.
    let text = std::fs::read_to_string(nczarr.join("names/.zattrs")).unwrap();
    let attrs: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(attrs["_nczarr_maxstrlen"], 200);
}
