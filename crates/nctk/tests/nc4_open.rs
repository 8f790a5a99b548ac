//! The door opens netCDF-4/HDF5 files (a path, memory, a `#mode=bytes`
//! URL) through the netCDF-4 reader, and what it reads dumps as netCDF-C's
//! `ncdump` dumps the same file: h5py files (phony dimensions, dimension
//! scales, filters, links, committed types), netCDF4-python groups; the
//! corpus's HDF5 files opened three ways read alike. (The corpus's HDF5
//! files and the `ncgen -k nc4` files of its CDL are compared with ncdump
//! through the binary: `nctk-cli/tests/nc4_dump.rs`.)

use std::path::{Path, PathBuf};
use std::process::Command;

use nctk_cdl::print::{dump, Options};
use nctk_test_servers::{Behaviour, RangeFileServer};
use nctk_test_support::{corpus::files_under, peer, require};

fn is_hdf5(path: &Path) -> bool {
    std::fs::read(path).is_ok_and(|b| b.starts_with(b"\x89HDF\r\n\x1a\n"))
}

/// The corpus's netCDF-4/HDF5 files.
fn corpus_hdf5(corpus: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = files_under(&corpus.join("netcdf-c"), |_| true)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "nc") && is_hdf5(p))
        .collect();
    files.sort();
    files
}

/// What is dumped: the header, the header with the special attributes
/// (`-hs`), or everything.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Mode {
    Header,
    Special,
    Full,
}

impl Mode {
    fn ncdump_flag(self) -> Option<&'static str> {
        match self {
            Mode::Header => Some("-h"),
            Mode::Special => Some("-hs"),
            Mode::Full => None,
        }
    }
}

/// nctk's dump of the dataset `ds`, named after `path` as ncdump names it.
fn dump_of(ds: &nctk::Dataset, path: &str, mode: Mode) -> String {
    let opts = Options {
        header_only: mode != Mode::Full,
        special: mode == Mode::Special,
        ..Options::default()
    };
    let mut out = vec![];
    match dump(ds.source(), path, &opts, &mut out) {
        Ok(()) => String::from_utf8_lossy(&out).into_owned(),
        Err(e) => format!("dump error: {e}"),
    }
}

/// nctk's dump of `path` opened through the door.
fn nctk_dump(path: &str, mode: Mode) -> String {
    match nctk::open(path) {
        Ok(ds) => dump_of(&ds, path, mode),
        Err(e) => format!("open error: {e}"),
    }
}

/// `ncdump [-h|-hs] path`, or its error.
fn ncdump(path: &str, mode: Mode) -> Result<String, String> {
    let mut cmd = Command::new("ncdump");
    cmd.args(mode.ncdump_flag());
    peer::output(cmd.arg(path)).map_err(|e| e.to_string())
}

/// Compares nctk's dumps of `files` with ncdump's; returns the failures
/// (file and both outputs) and how many matched. Files ncdump refuses
/// (or stops dumping) must be refused by nctk too.
fn compare(files: &[PathBuf], mode: Mode) -> (Vec<String>, usize) {
    let mut failures = vec![];
    let mut matched = 0;
    for f in files {
        let path = f.to_string_lossy();
        let ours = nctk_dump(&path, mode);
        match ncdump(&path, mode) {
            Ok(theirs) if theirs == ours => matched += 1,
            Ok(theirs) => failures.push(format!("{path}:\n--- ncdump\n{theirs}\n--- nctk\n{ours}")),
            Err(e) if ours.starts_with("open error") || ours.starts_with("dump error") => {
                eprintln!("{path}: both refuse ({e}; {ours})");
                matched += 1;
            }
            Err(e) => failures.push(format!("{path}: ncdump refuses ({e}), nctk dumps\n{ours}")),
        }
    }
    (failures, matched)
}

fn excepted(failure: &str, exceptions: &[(&str, &str)]) -> bool {
    exceptions
        .iter()
        .any(|(name, _)| failure.split(':').next().is_some_and(|p| p.ends_with(name)))
}

/// Asserts that `files` dump in `mode` as ncdump dumps them, but for the
/// files `header_exceptions` names in any mode and `full_exceptions`
/// names in full dumps.
fn assert_dumps_match(
    files: &[PathBuf],
    mode: Mode,
    header_exceptions: &[(&str, &str)],
    full_exceptions: &[(&str, &str)],
) {
    let (failures, matched) = compare(files, mode);
    let real: Vec<&str> = failures
        .iter()
        .filter(|f| !excepted(f, header_exceptions))
        .filter(|f| mode != Mode::Full || !excepted(f, full_exceptions))
        .map(String::as_str)
        .collect();
    assert!(
        real.is_empty(),
        "{} of {} differ ({mode:?}):\n{}",
        real.len(),
        files.len(),
        real.join("\n")
    );
    let excepted = header_exceptions.len() + full_exceptions.len();
    assert!(
        matched + excepted >= files.len(),
        "{matched} of {} match ({mode:?})",
        files.len()
    );
}

/// Asserts that the file at `path`, written by a peer, dumps (`-hs` and
/// in full) as ncdump dumps it; nothing when ncdump is missing.
fn assert_file_dumps_match(path: &Path) {
    if !require::tools(&["ncdump"]) {
        return;
    }
    let files = [path.to_path_buf()];
    for mode in [Mode::Special, Mode::Full] {
        assert_dumps_match(&files, mode, &[], &[]);
    }
}

/// An h5py file with no dimension scales gets netCDF-C's phony
/// dimensions (one per distinct length, a second one for a repeated
/// length, unlimited ones apart, in a subgroup too).
#[test]
fn h5py_datasets_without_scales_get_phony_dims() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("phony.h5");
    let script = r#"
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "w") as f:
    f.create_dataset("a", data=np.arange(12, dtype="i4").reshape(3, 4))
    f.create_dataset("b", data=np.ones((4, 4), dtype="f8"))
    f.create_dataset("c", data=np.arange(3, dtype="i2"))
    f.create_dataset("d", data=np.arange(5, dtype="u8"), maxshape=(None,), chunks=(2,))
    g = f.create_group("g")
    g.create_dataset("e", data=np.arange(4, dtype="i1"))
    f.attrs["title"] = "phony"
"#;
    if require::python_output(&["h5py", "numpy"], script, [&path]).is_some() {
        assert_file_dumps_match(&path);
    }
}

/// h5py dimension scales become dimensions (named by their link, the
/// scale's `NAME` aside), attached through `DIMENSION_LIST`, in a child
/// group too; a dataset whose first axis has no scale gets phony
/// dimensions for every axis, as netCDF-C counts scales on axis 0 only.
#[test]
fn h5py_dimension_scales_become_dimensions() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("scales.h5");
    let script = r#"
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "w", track_order=True) as f:
    x = f.create_dataset("x", data=np.arange(4, dtype="f8"))
    x.make_scale("the x axis")
    t = f.create_dataset("t", shape=(2,), maxshape=(None,), dtype="i4", data=[1, 2])
    t.make_scale()
    v = f.create_dataset("v", data=np.arange(8, dtype="f4").reshape(2, 4))
    v.dims[0].attach_scale(t)
    v.dims[1].attach_scale(x)
    w = f.create_dataset("w", data=np.zeros((3, 4), dtype="i2"))
    w.dims[1].attach_scale(x)
    g = f.create_group("g")
    u = g.create_dataset("u", data=np.ones(4, dtype="u1"))
    u.dims[0].attach_scale(x)
"#;
    if require::python_output(&["h5py", "numpy"], script, [&path]).is_some() {
        assert_file_dumps_match(&path);
    }
}

/// HDF5 filters show as `ncdump -s` shows them (`_DeflateLevel`,
/// `_Shuffle`, `_Fletcher32`, `_Filter` for the others) and their data
/// decodes as netCDF-C decodes it (zstd through hdf5plugin's HDF5 plugin,
/// which ncdump finds on `HDF5_PLUGIN_PATH`).
#[test]
fn h5py_filters_dump_as_ncdump() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("filters.h5");
    let script = r#"
import sys, h5py, numpy as np, hdf5plugin
with h5py.File(sys.argv[1], "w") as f:
    f.create_dataset("z", data=np.arange(100, dtype="i4"), chunks=(10,), **hdf5plugin.Zstd(clevel=3))
    f.create_dataset("g", data=np.arange(100, dtype="f8"), chunks=(25,), compression="gzip",
                     compression_opts=4, shuffle=True, fletcher32=True)
print(hdf5plugin.PLUGIN_PATH)
"#;
    let Some(plugins) = require::python_output(&["h5py", "numpy", "hdf5plugin"], script, [&path])
    else {
        return;
    };
    // Only ncdump, a child process, reads it.
    std::env::set_var("HDF5_PLUGIN_PATH", plugins.trim());
    assert_file_dumps_match(&path);
}

/// A group linked twice is read twice, as ncdump reads it; a group linked
/// below itself is an error naming the file (netCDF-C walks it forever).
#[test]
fn groups_linked_twice_and_cycles() {
    let dir = tempfile::tempdir().unwrap();
    let (dag, cycle) = (dir.path().join("dag.h5"), dir.path().join("cycle.h5"));
    let script = r#"
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "w") as f:
    g = f.create_group("g")
    g.create_dataset("v", data=np.arange(3, dtype="i4"))
    f["h"] = g
with h5py.File(sys.argv[2], "w") as f:
    g = f.create_group("g")
    g.create_dataset("v", data=np.arange(3, dtype="i4"))
    g["loop"] = g
"#;
    if require::python_output(&["h5py", "numpy"], script, [&dag, &cycle]).is_none() {
        return;
    }
    let Err(e) = nctk::open(&cycle) else {
        panic!("a cycle of groups opened");
    };
    let text = e.to_string();
    assert!(
        text.contains("cycle.h5") && text.contains("below itself"),
        "{text}"
    );
    if !require::tools(&["ncdump"]) {
        return;
    }
    assert_dumps_match(&[dag], Mode::Full, &[], &[]);
}

/// Soft links (absolute, relative, to a group) are followed as netCDF-C
/// follows them (the object appears under each name); a dangling one is
/// an error naming the file and the link, as netCDF-C refuses the file.
#[test]
fn soft_links_are_followed() {
    let dir = tempfile::tempdir().unwrap();
    let (soft, dangling) = (dir.path().join("soft.h5"), dir.path().join("dangling.h5"));
    let script = r#"
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "w", track_order=True) as f:
    f.create_dataset("data", data=np.arange(3, dtype="i4"))
    g = f.create_group("g")
    g.create_dataset("w", data=np.arange(2, dtype="f4"))
    f["alias"] = h5py.SoftLink("/data")
    g["rel"] = h5py.SoftLink("w")
    f["galias"] = h5py.SoftLink("/g")
with h5py.File(sys.argv[2], "w") as f:
    f.create_dataset("data", data=np.arange(3, dtype="i4"))
    f["alias"] = h5py.SoftLink("/nothing")
"#;
    if require::python_output(&["h5py", "numpy"], script, [&soft, &dangling]).is_none() {
        return;
    }
    let Err(e) = nctk::open(&dangling) else {
        panic!("a dangling soft link opened");
    };
    let text = e.to_string();
    assert!(
        text.contains("dangling.h5") && text.contains("alias"),
        "{text}"
    );
    if !require::tools(&["ncdump"]) {
        return;
    }
    assert!(ncdump(&dangling.to_string_lossy(), Mode::Header).is_err());
    assert_dumps_match(&[soft], Mode::Full, &[], &[]);
}

/// A dataset with a null dataspace is a scalar variable whose values
/// cannot be read, and a null attribute is empty, as netCDF-C 4.9.0 has
/// them (its full dump stops at that variable; so does nctk's).
#[test]
fn null_dataspaces_as_netcdf_c() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("null.h5");
    let script = r#"
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "w") as f:
    f.create_dataset("e", data=h5py.Empty("f4"))
    f.create_dataset("v", data=np.arange(3, dtype="i4"))
    f.attrs["ea"] = h5py.Empty("f4")
"#;
    if require::python_output(&["h5py", "numpy"], script, [&path]).is_some() {
        assert_file_dumps_match(&path);
    }
}

/// h5py's committed types are user types, and a dataset or attribute of
/// an equal anonymous type uses them; a dataset linked (in name order)
/// before its committed type, or of a type never committed (h5py's bool),
/// is no variable, as in netCDF-C 4.9.0. Attributes of many kinds and
/// byte orders, names with blanks, two unlimited dimensions.
#[test]
fn h5py_committed_types_and_attributes_as_netcdf_c() {
    let dir = tempfile::tempdir().unwrap();
    let (before, after) = (dir.path().join("before.h5"), dir.path().join("after.h5"));
    let script = r#"
import sys, h5py, numpy as np
ct = np.dtype([("a", "<i4"), ("b", "<f8")])
with h5py.File(sys.argv[1], "w") as f:
    f.create_dataset("flags", data=np.array([True, False, True]))
    f["color"] = h5py.enum_dtype({"R": 0, "G": 1, "B": 2}, basetype="i1")
    f.create_dataset("c", data=np.array([0, 2, 1], dtype="i1"), dtype=f["color"])
    f["pair"] = ct
    f.create_dataset("p", data=np.array([(1, 2.5), (3, 4.5)], dtype=ct), dtype=f["pair"])
    d = f.create_dataset("with space", data=np.arange(4, dtype=">f8"), maxshape=(None,), chunks=(3,))
    d.attrs["ints"] = np.array([1, 2, 3], dtype=">i2")
    d.attrs["dbl"] = 2.5
    d.attrs["vstrs"] = ["a", "bcd"]
    d.attrs["fstrs"] = np.array([b"xy", b"z"], dtype="S2")
    d.attrs["fstr"] = np.bytes_(b"hello")
    d.attrs["b"] = True
    d.attrs["u64"] = np.uint64(2**63)
    u = f.create_dataset("u2d", shape=(2, 3), maxshape=(None, None), chunks=(1, 2), dtype="u2")
    u[...] = np.arange(6).reshape(2, 3)
with h5py.File(sys.argv[2], "w") as f:
    f["color"] = h5py.enum_dtype({"R": 0, "G": 1, "B": 2}, basetype="i1")
    f.create_dataset("zc", data=np.array([0, 2, 1], dtype="i1"), dtype=f["color"])
    f["pair"] = ct
    f.create_dataset("zp", data=np.array([(1, 2.5), (3, 4.5)], dtype=ct), dtype=f["pair"])
    f.create_dataset("zq", data=np.array([(1, 2.5)], dtype=ct))
    f["zp"].attrs["pa"] = np.array([(7, 8.5)], dtype=ct)
    f["vl"] = h5py.vlen_dtype(np.dtype("i4"))
    v = f.create_dataset("zv", shape=(2,), dtype=f["vl"])
    v[0] = [1, 2, 3]
    v[1] = [4]
"#;
    if require::python_output(&["h5py", "numpy"], script, [&before, &after]).is_some() {
        assert_file_dumps_match(&before);
        assert_file_dumps_match(&after);
    }
}

/// netCDF4-python's groups: an unlimited dimension of the root used in
/// groups below with other lengths (its length the longest), a variable
/// named like a dimension but not its coordinate (`_nc4_non_coord_`), a
/// dimension with no variable, dimensions of parent groups.
#[test]
fn netcdf4_python_groups_and_unlimited_lengths() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("groups.nc");
    let script = r#"
import sys, netCDF4, numpy as np
d = netCDF4.Dataset(sys.argv[1], "w")
d.createDimension("t", None)
d.createDimension("x", 3)
d.createVariable("t", "f8", ("t",))[0:2] = [1, 2]
d.createVariable("x", "i4", ("t", "x"))[0:4] = np.arange(12).reshape(4, 3)
g = d.createGroup("g")
g.createDimension("y", 2)
g.createVariable("v", "f4", ("t", "y"))[0:5] = np.ones((5, 2))
h = g.createGroup("h")
h.createVariable("w", "i2", ("x", "y", "t"))[:, :, 0:6] = np.zeros((3, 2, 6))
d.createDimension("lonely", 7)
d.close()
"#;
    if require::python_output(&["netCDF4", "numpy"], script, [&path]).is_some() {
        assert_file_dumps_match(&path);
    }
}

/// Everything a dataset holds, for comparing two openings: the schema
/// and every variable's values.
fn contents(ds: &nctk::Dataset) -> String {
    let mut out = format!("{:?}\n", ds.schema());
    for v in ds.variables() {
        let all = nctk_model::Selection::all(&v.shape());
        out.push_str(&format!("{}: {:?}\n", v.name(), v.read_values(&all)));
    }
    out
}

/// The same file in memory (`open_mem`) and over HTTP range requests
/// (`#mode=bytes`) reads as from its path.
#[test]
fn memory_and_mode_bytes_read_as_the_file() {
    let Some(corpus) = require::corpus() else {
        return;
    };
    let files = corpus_hdf5(&corpus);
    let server = RangeFileServer::start(Behaviour::default()).unwrap();
    let mut compared = 0;
    for f in &files {
        let path = f.to_string_lossy();
        let Ok(from_path) = nctk::open(f) else {
            continue;
        };
        let expected = contents(&from_path);
        let bytes = std::fs::read(f).unwrap();
        let mem = nctk::open_bytes(&path, bytes.clone().into()).unwrap();
        assert_eq!(contents(&mem), expected, "{path} in memory");
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        server.add_blob(&name, bytes);
        let url = format!("{}#mode=bytes", server.url(&name));
        let remote = nctk::open(&url).unwrap_or_else(|e| panic!("{url}: {e}"));
        assert_eq!(contents(&remote), expected, "{url}");
        compared += 1;
    }
    assert!(compared >= 8, "{compared} files compared");
}

/// An HDF5 file cut short is an error naming the file (at open, or when
/// the missing part is read), never a panic or made-up values.
#[test]
fn truncated_hdf5_is_an_error_naming_the_file() {
    let Some(corpus) = require::corpus() else {
        return;
    };
    let f = &corpus_hdf5(&corpus)[0];
    let bytes = std::fs::read(f).unwrap();
    let Err(e) = nctk::open_bytes("cut.nc", bytes[..64].to_vec().into()) else {
        panic!("a file cut at 64 bytes opened");
    };
    assert!(e.to_string().contains("cut.nc"), "{e}");
    assert_eq!(e.kind(), nctk::ErrorKind::InvalidData, "{e}");
    let half = nctk::open_bytes("half.nc", bytes[..bytes.len() / 2].to_vec().into());
    let failed = match half {
        Err(e) => Some(e),
        Ok(ds) => ds.variables().find_map(|v| {
            let all = nctk_model::Selection::all(&v.shape());
            v.read_values(&all).err()
        }),
    };
    let e = failed.expect("half a file read whole");
    assert!(e.to_string().contains("half.nc"), "{e}");
}
