//! `Format::from_kind_name` against netCDF-C 4.9.0's own tools: for each
//! candidate `-k` value, `ncgen -k` and `nccopy -k` either refuse it or
//! write a file whose `ncdump -k` kind is the format's name; nctk must
//! accept exactly the same names, each for the same format.

use std::ffi::OsStr;
use std::path::Path;

use nctk_model::{Format, KindNames};
use nctk_test_support::{peer, require};

/// Every spelling netCDF-C's tables list, and near misses they refuse.
const CANDIDATES: &[&str] = &[
    "classic",
    "nc3",
    "1",
    "64-bit offset",
    "64-bit-offset",
    "nc6",
    "2",
    "64-bit data",
    "64-bit-data",
    "cdf5",
    "cdf-5",
    "nc5",
    "5",
    "netCDF-4",
    "netCDF4",
    "nc4",
    "3",
    "hdf5",
    "enhanced",
    "netCDF-4 classic model",
    "netCDF-4-classic",
    "netCDF-4_classic",
    "netCDF4_classic",
    "nc7",
    "4",
    "hdf5-nc3",
    "enhanced-nc3",
    "Classic",
    "CDF5",
    "netcdf4",
    "netcdf-4",
    "64-bit  offset",
    "nc2",
    "0",
    "6",
    "7",
    "",
];

/// Names ncgen 4.9.0 takes that nctk's ncgen table has never taken (nctk
/// keeps its accepted set as it was; nccopy refuses both).
const NCGEN_ONLY_NOT_TAKEN: &[&str] = &["netcdf4", "netcdf-4"];

/// The kind `ncdump -k` reports for `path`.
fn ncdump_kind(path: &Path) -> String {
    peer::run("ncdump", [OsStr::new("-k"), path.as_os_str()])
        .unwrap_or_else(|e| panic!("ncdump -k {}: {e}", path.display()))
        .trim_end()
        .to_string()
}

/// What netCDF-C's tool makes of `-k name`: `None` when it refuses the
/// name, else the kind of the file it wrote.
fn peer_kind(tool: KindNames, name: &str, dir: &Path) -> Option<String> {
    let out = dir.join("out.nc");
    let _ = std::fs::remove_file(&out);
    let (program, input) = match tool {
        KindNames::Ncgen => ("ncgen", dir.join("x.cdl")),
        KindNames::Nccopy => ("nccopy", dir.join("in.nc")),
    };
    let args: Vec<&OsStr> = match tool {
        KindNames::Ncgen => vec![
            "-k".as_ref(),
            name.as_ref(),
            "-o".as_ref(),
            out.as_os_str(),
            input.as_os_str(),
        ],
        KindNames::Nccopy => vec![
            "-k".as_ref(),
            name.as_ref(),
            input.as_os_str(),
            out.as_os_str(),
        ],
    };
    peer::run(program, args).ok().map(|_| ncdump_kind(&out))
}

#[test]
fn kind_names_as_ncgen_and_nccopy_take_them() {
    if !require::tools(&["ncgen", "nccopy", "ncdump"]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let cdl = dir.path().join("x.cdl");
    std::fs::write(
        &cdl,
        "netcdf x {\ndimensions: d = 1 ;\nvariables: int v(d) ;\ndata: v = 1 ;\n}\n",
    )
    .unwrap();
    let classic = dir.path().join("in.nc");
    peer::run(
        "ncgen",
        [OsStr::new("-o"), classic.as_os_str(), cdl.as_os_str()],
    )
    .unwrap();
    for tool in [KindNames::Ncgen, KindNames::Nccopy] {
        for &name in CANDIDATES {
            let ours = Format::from_kind_name(name, tool).map(|f| f.to_string());
            let theirs = peer_kind(tool, name, dir.path());
            if tool == KindNames::Ncgen && NCGEN_ONLY_NOT_TAKEN.contains(&name) {
                assert_eq!((ours, theirs.as_deref()), (None, Some("netCDF-4")));
                continue;
            }
            assert_eq!(ours, theirs, "{tool:?} -k {name:?}");
        }
    }
}
