//! `nctk copy` of netCDF-4/HDF5 inputs, against netCDF-C 4.9.0's `nccopy`
//! and the Python libraries: user types and the types classic files lack
//! are refused with nccopy's messages, leaving nothing behind; a copy to
//! NCZarr keeps the input's chunks, deflate, shuffle and fletcher32
//! (netCDF4-python reads the input's, zarr-python the output's) and its
//! values, strings included.

mod enhanced_support;

use std::path::Path;
use std::process::Command;

use enhanced_support::netcdf4;
use nctk_test_support::require;
use nctk_tools::copy::{copy, CopyOptions, NoProgress};

/// nccopy's first line of complaint for copying `input` to `output` as `kind`.
fn nccopy_error(kind: Option<&str>, input: &Path, output: &str) -> String {
    let mut cmd = Command::new("nccopy");
    if let Some(k) = kind {
        cmd.args(["-k", k]);
    }
    let out = cmd.arg(input).arg(output).output().expect("nccopy runs");
    assert!(!out.status.success(), "nccopy accepted {}", input.display());
    String::from_utf8_lossy(&out.stderr)
        .lines()
        .next()
        .unwrap_or_default()
        .to_string()
}

const USER_TYPES: &str = r#"netcdf user {
types:
  compound pair_t { int a ; double b ; } ;
  int(*) vi_t ;
  ubyte enum e_t { A = 1, B = 2 } ;
dimensions:
  n = 2 ;
variables:
  pair_t p(n) ;
  vi_t v(n) ;
  e_t e(n) ;
data:
  p = {1, 0.5}, {2, 0.25} ;
  v = {1, 2}, {3} ;
  e = A, B ;
}
"#;

const WIDE_TYPES: &str = r#"netcdf wide {
dimensions:
  n = 2 ;
variables:
  string s(n) ;
  int64 i(n) ;
data:
  s = "a", "b" ;
  i = 1, 2 ;
}
"#;

#[test]
fn types_outputs_cannot_hold_are_refused_as_nccopy_refuses_them() {
    if !require::tools(&["ncgen", "nccopy"]) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let user = netcdf4(tmp.path(), "user", USER_TYPES);
    let wide = netcdf4(tmp.path(), "wide", WIDE_TYPES);
    let store = format!("file://{}/out.zarr#mode=nczarr,file", tmp.path().display());
    let file = tmp.path().join("out.nc").display().to_string();
    let cases = [
        (&user, Some("nc3"), &file),
        (&user, Some("nc6"), &file),
        (&user, Some("nc5"), &file),
        (&user, None, &store),
        (&user, Some("nc7"), &store),
        (&wide, Some("nc3"), &file),
        (&wide, Some("nc5"), &file),
        (&wide, Some("nc7"), &store),
    ];
    for (input, kind, output) in cases {
        let theirs = nccopy_error(kind, input, output);
        assert!(theirs.starts_with("NetCDF: "), "nccopy said {theirs:?}");
        let _ = std::fs::remove_dir_all(tmp.path().join("out.zarr"));
        let _ = std::fs::remove_file(tmp.path().join("out.nc"));
        let opts = CopyOptions {
            kind: kind.map(|k| nctk_tools::copy::parse_kind(k).unwrap()),
            ..CopyOptions::default()
        };
        let ours = copy(input, output, &opts, &mut NoProgress)
            .map(|_| ())
            .expect_err("nctk copied what nccopy refuses");
        let ours = ours.to_string();
        assert!(
            ours.contains(&theirs),
            "{} -k {kind:?}: nctk: {ours}\nnccopy: {theirs}",
            input.display()
        );
        for left in ["out.zarr", "out.nc"] {
            assert!(
                !tmp.path().join(left).exists(),
                "{left} left behind: {ours}"
            );
        }
    }
}

const STORAGE: &str = r#"netcdf storage {
dimensions:
  t = 4 ;
  x = 6 ;
  y = 1000 ;
variables:
  int s ;
  float c(x) ;
  double z(t, x) ;
    z:_ChunkSizes = 2, 3 ;
    z:_DeflateLevel = 4 ;
    z:_Shuffle = "true" ;
  double f(t, x) ;
    f:_ChunkSizes = 1, 6 ;
    f:_Fletcher32 = "true" ;
  short big(y) ;
    big:_ChunkSizes = 250 ;
    big:_DeflateLevel = 1 ;
  string str(x) ;
data:
  s = 7 ;
  c = 1, 2, 3, 4, 5, 6 ;
  z = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 ;
  f = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13 ;
  str = "a", "bb", "", "dddd", "e", "f" ;
}
"#;

/// Compares the input (netCDF4-python) with the store (zarr-python and
/// its `.zarray` metadata): values, chunk lengths of chunked variables,
/// and the set of filters; prints one line per difference.
const COMPARE: &str = r#"
import json, sys, os
import numpy as np, netCDF4, zarr
src, dst = sys.argv[1], sys.argv[2]
d = netCDF4.Dataset(src)
d.set_auto_mask(False)
g = zarr.open_group(dst, mode="r", zarr_format=2)
for name, v in d.variables.items():
    meta = json.load(open(os.path.join(dst, name, ".zarray")))
    x = v[:]
    y = g[name][:]
    if v.dtype == str:
        x = np.asarray(x, dtype=object).astype(str)
        y = np.char.decode(np.asarray(y), "utf-8") if y.dtype.kind == "S" else y.astype(str)
    if not np.array_equal(np.ravel(x), np.ravel(y)):
        print(name, "values", x, y)
    if v.chunking() != "contiguous" and list(meta["chunks"]) != list(v.chunking()):
        print(name, "chunks", v.chunking(), meta["chunks"])
    f = v.filters() or {}
    want = {k for k in ("zlib", "shuffle", "fletcher32") if f.get(k)}
    codecs = (meta.get("filters") or []) + ([meta["compressor"]] if meta.get("compressor") else [])
    got = {c["id"] for c in codecs}
    if want != got:
        print(name, "filters", sorted(want), sorted(got))
    for c in codecs:
        if c["id"] == "zlib" and c.get("level") != f.get("complevel"):
            print(name, "level", f.get("complevel"), c.get("level"))
print("compared", len(d.variables))
"#;

#[test]
fn netcdf4_to_nczarr_keeps_chunks_filters_and_values() {
    if !require::tools(&["ncgen"]) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let input = netcdf4(tmp.path(), "storage", STORAGE);
    let store = tmp.path().join("out.zarr");
    copy(&input, &store, &CopyOptions::default(), &mut NoProgress).unwrap();
    let Some(report) = require::python_output(
        &["netCDF4", "zarr", "numpy"],
        COMPARE,
        [input.as_os_str(), store.as_os_str()],
    ) else {
        return;
    };
    assert_eq!(report.trim(), "compared 6", "differences:\n{report}");
}
