//! `nctk copy -k nc4` to netCDF-4/HDF5 files, against netCDF-C 4.9.0's
//! `nccopy -k nc4` of the same input and flags: `ncdump` and `ncdump -s`
//! print the same (`_NCProperties` aside), `h5dump` reads every object and
//! h5py reads the same values from both files. A sample of the corpus's
//! classic files and a generated dataset (record variables, coordinate
//! variables, dimensions without one, every classic type).

mod copy_support;

use std::path::{Path, PathBuf};
use std::process::Command;

use copy_support::{peer_dump_body as dump, sample};
use nctk::Format;
use nctk_classic::Version;
use nctk_model::DataType;
use nctk_test_support::{corpus, peer, require};
use nctk_tools::copy::{copy, CopyOptions, NoProgress};

/// The largest corpus file sampled (the test stays fast).
const MAX_LEN: u64 = 64 << 10;

fn options(deflate: Option<u32>, shuffle: bool) -> CopyOptions {
    CopyOptions {
        kind: Some(Format::Netcdf4),
        deflate,
        shuffle,
        ..CopyOptions::default()
    }
}

/// Compares nctk's copy of `input` with nccopy's, with `flags` (nccopy's
/// spelling of `opts`); `Err` says how they differ.
fn compare(
    input: &Path,
    dir: &Path,
    tag: &str,
    opts: &CopyOptions,
    flags: &[&str],
) -> Result<(), String> {
    let theirs = dir.join(format!("{tag}.c.nc"));
    let ours = dir.join(format!("{tag}.n.nc"));
    let ok = Command::new("nccopy")
        .args(["-k", "nc4"])
        .args(flags)
        .arg(input)
        .arg(&theirs)
        .status()
        .unwrap()
        .success();
    assert!(ok, "nccopy -k nc4 {flags:?} {}", input.display());
    copy(input, &ours, opts, &mut NoProgress).map_err(|e| format!("nctk copy: {e}"))?;
    for args in [&[][..], &["-s"][..]] {
        let (a, b) = (dump(args, &ours), dump(args, &theirs));
        if a != b {
            return Err(format!(
                "ncdump {args:?} differs:\n--- nctk\n{a}\n--- nccopy\n{b}"
            ));
        }
    }
    peer::run("h5dump", [&ours]).map_err(|e| format!("h5dump: {e}"))?;
    let script = r#"
import sys, h5py, numpy as np
a, b = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
assert list(a) == list(b), (list(a), list(b))
for k in b:
    x, y = a[k], b[k]
    assert x.dtype == y.dtype and x.shape == y.shape and x.maxshape == y.maxshape, k
    assert x.chunks == y.chunks and x.compression == y.compression and x.shuffle == y.shuffle, k
    if "_Netcdf4Dimid" in y.attrs and "CLASS" in y.attrs:
        assert int(x.attrs["_Netcdf4Dimid"]) == int(y.attrs["_Netcdf4Dimid"]), k
    assert x.attrs.get("NAME") == y.attrs.get("NAME"), k
    assert np.array_equal(x[...], y[...], equal_nan=x.dtype.kind == "f"), k
    if y.dims is not None:
        assert [[s.name for s in d.values()] for d in x.dims] == [[s.name for s in d.values()] for d in y.dims], k
print("ok")
"#;
    if let Some(out) = require::python_output(&["h5py", "numpy"], script, [&ours, &theirs]) {
        if out.trim() != "ok" {
            return Err(format!("h5py: {out}"));
        }
    }
    Ok(())
}

fn peers() -> bool {
    require::tools(&["nccopy", "ncdump", "ncgen", "h5dump"])
}

fn classic_sample(dir: &Path) -> Vec<PathBuf> {
    let mut files = corpus::files_under(dir, |_| true);
    files.retain(|p| {
        std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.len() <= MAX_LEN)
            && std::fs::read(p).is_ok_and(|b| b.starts_with(b"CDF") && b.len() > 4 && b[3] <= 5)
            && nctk::open(p).is_ok()
    });
    files.sort();
    // Every thirtieth: a spread over the corpus's sources in seconds.
    files.into_iter().step_by(30).collect()
}

#[test]
fn corpus_classic_files_copy_as_nccopy_copies_them() {
    let Some(dir) = require::corpus() else { return };
    if !peers() {
        return;
    }
    let files = classic_sample(&dir);
    assert!(
        !files.is_empty(),
        "no classic files under {}",
        dir.display()
    );
    let tmp = tempfile::tempdir().unwrap();
    let (mut same, mut refused) = (0, vec![]);
    let mut failures = vec![];
    for (i, path) in files.iter().enumerate() {
        match compare(path, tmp.path(), &i.to_string(), &options(None, false), &[]) {
            Ok(()) => same += 1,
            // What the writer does not write yet is refused, named.
            Err(e) if e.contains("not written by nctk") => {
                refused.push(format!("{}: {e}", path.display()))
            }
            Err(e) => failures.push(format!("{}: {e}", path.display())),
        }
    }
    eprintln!("{same}/{} as nccopy; refused: {refused:#?}", files.len());
    assert!(failures.is_empty(), "{failures:#?}");
    assert!(
        same * 2 > files.len(),
        "most of the sample is written: {refused:#?}"
    );
}

#[test]
fn a_generated_dataset_copies_as_nccopy_copies_it_with_and_without_deflate() {
    if !peers() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let input = tmp.path().join("in.nc");
    sample(&input, Version::Cdf5, Some(DataType::UInt64));
    compare(&input, tmp.path(), "plain", &options(None, false), &[]).unwrap();
    compare(
        &input,
        tmp.path(),
        "d1s",
        &options(Some(1), true),
        &["-d", "1", "-s"],
    )
    .unwrap();
    compare(
        &input,
        tmp.path(),
        "d5",
        &options(Some(5), false),
        &["-d", "5"],
    )
    .unwrap();
    // Coordinate variables (one after the variables that use it), a
    // dimension without one, a _FillValue, text, every classic type.
    let cdl = tmp.path().join("coords.cdl");
    std::fs::write(&cdl, COORDS).unwrap();
    let input = tmp.path().join("coords.nc");
    peer::run(
        "ncgen",
        ["-k", "nc3", "-o"]
            .map(String::from)
            .into_iter()
            .chain([input.display().to_string(), cdl.display().to_string()]),
    )
    .unwrap();
    compare(&input, tmp.path(), "coords", &options(None, false), &[]).unwrap();
    compare(
        &input,
        tmp.path(),
        "coords.d1s",
        &options(Some(1), true),
        &["-d", "1", "-s"],
    )
    .unwrap();
}

#[test]
fn a_netcdf4_input_keeps_its_storage_as_nccopy_keeps_it() {
    if !peers() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let cdl = tmp.path().join("nc4.cdl");
    std::fs::write(&cdl, NC4_INPUT).unwrap();
    let input = tmp.path().join("nc4.nc");
    let args = ["-k", "nc4", "-o"].map(String::from);
    let paths = [input.display().to_string(), cdl.display().to_string()];
    peer::run("ncgen", args.into_iter().chain(paths)).unwrap();
    compare(&input, tmp.path(), "nc4", &options(None, false), &[]).unwrap();
    compare(
        &input,
        tmp.path(),
        "nc4.d0",
        &options(Some(0), false),
        &["-d", "0"],
    )
    .unwrap();
}

/// Scalars, an empty dimension, a variable never written, big-endian
/// storage, the netCDF-4 number types, chunks too small to keep (nccopy's
/// threshold), deflate with fletcher32, `_NoFill`, string attributes.
const NC4_INPUT: &str = r#"netcdf nc4 {
dimensions: z = 0 ; u = UNLIMITED ; k = 3 ; big = 5000 ;
variables:
  int s ; s:a = 1 ; string s:one = "abc" ; string s:two = "x", "yz", "" ;
  float nz(z) ;
  double never(k) ;
  int be(k) ; be:_Endianness = "big" ;
  uint64 q(k) ; ubyte ub(k) ; ushort us(u, k) ; int64 i8(u) ;
  float many(big) ; many:_ChunkSizes = 7 ; many:_DeflateLevel = 2 ; many:_Fletcher32 = "true" ;
  float kept(u, big) ; kept:_ChunkSizes = 1, 2500 ; kept:_DeflateLevel = 1 ; kept:_Shuffle = "true" ;
  short nofill(k) ; nofill:_NoFill = "true" ;
data:
  s = 5 ; be = 1, 2, 3 ; q = 18446744073709551615, 0, 1 ; ub = 255, 0, 1 ;
  us = 1, 2, 3, 4, 5, 6 ; i8 = -1, 9223372036854775807 ; nofill = 4, 5, 6 ;
}
"#;

const COORDS: &str = r#"netcdf coords {
dimensions: time = UNLIMITED ; lat = 2 ; lon = 3 ; nv = 2 ;
variables:
  double lat(lat) ; lat:units = "degrees_north" ;
  float temp(time, lat, lon) ; temp:_FillValue = -999.f ; temp:long_name = "t" ;
  int time(time) ;
  short bnds(lat, nv) ;
  char c(lon) ;
  byte b(nv) ; b:valid_range = 0b, 5b ;
  :title = "x" ; :n = 1, 2 ; :empty = "" ;
data:
  lat = 10, 20 ; temp = 1,2,3,4,5,6, 7,8,_,10,11,12 ; time = 0, 6 ; bnds = 1,2,3,4 ;
  c = "abc" ; b = 1, -2 ;
}
"#;

#[test]
fn flags_not_taken_yet_are_refused_and_leave_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let input = tmp.path().join("in.nc");
    sample(&input, Version::Cdf1, None);
    let out = tmp.path().join("out.nc");
    let opts = CopyOptions {
        shards: vec!["x/2".into()],
        ..options(None, false)
    };
    let err = copy(&input, &out, &opts, &mut NoProgress)
        .unwrap_err()
        .to_string();
    assert!(err.contains("shards is not taken yet"), "{err}");
    assert!(!out.exists());
}

/// netCDF-C's filter plugins (netCDF4-python's wheel ships them) on
/// `HDF5_PLUGIN_PATH`, for nccopy, ncdump, h5dump and h5py, which are
/// children of this process; false (after `require`) when absent.
fn netcdf_c_plugins() -> bool {
    let script =
        "import netCDF4, os; print(os.path.join(os.path.dirname(netCDF4.__file__), 'plugins'))";
    let Some(dir) = require::python_output(&["netCDF4"], script, [] as [&str; 0]) else {
        return false;
    };
    std::env::set_var("HDF5_PLUGIN_PATH", dir.trim());
    true
}

/// With -F (zstd, bzip2, blosc, chains with shuffle and fletcher32, a
/// numcodecs codec and `none`) and -c, nctk's file dumps as nccopy's:
/// the values, and `ncdump -s`'s `_Filter` (blosc's parameters as its
/// plugin's `set_local` records them), `_ChunkSizes`, `_Shuffle`, ...
#[test]
fn filters_and_chunks_copy_as_nccopy_copies_them() {
    if !peers() || !netcdf_c_plugins() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    // Chunks big enough for blosc, which fails on chunks it cannot shrink.
    let values: Vec<String> = (0..4000)
        .map(|i| format!("{}", (i % 97) as f32 * 0.25))
        .collect();
    let cdl = format!(
        "netcdf w {{ dimensions: time = UNLIMITED ; x = 1000 ; variables: float t(time, x) ; \
         short s(x) ; data: t = {} ; }}",
        values.join(",")
    );
    let input = tmp.path().join("in.nc");
    let cdl_path = tmp.path().join("in.cdl");
    std::fs::write(&cdl_path, cdl).unwrap();
    let args = ["-k", "nc5", "-o"].map(String::from);
    let paths = [input.display().to_string(), cdl_path.display().to_string()];
    peer::run("ncgen", args.into_iter().chain(paths)).unwrap();
    let cases: [(&str, &[&str]); 5] = [
        ("zstd", &["-F", "*,32015,3", "-c", "s:100"]),
        ("bzip2", &["-F", "t&s,307,9", "-c", "t:3,250"]),
        (
            "blosc",
            &["-F", "t,32001,0,0,4,0,5,1,1", "-c", "time/2,x/500"],
        ),
        ("chain", &["-F", "t,32015,1|2|3", "-F", "s,1,5|2"]),
        ("none", &["-d", "1", "-F", "t,none", "-c", "x/300"]),
    ];
    for (tag, flags) in cases {
        let mut opts = options(None, false);
        for pair in flags.chunks(2) {
            match pair[0] {
                "-F" => opts.filters.push(pair[1].into()),
                "-c" => opts.chunkspecs.push(pair[1].into()),
                "-d" => opts.deflate = pair[1].parse().ok(),
                other => unreachable!("{other}"),
            }
        }
        compare(&input, tmp.path(), tag, &opts, flags).unwrap_or_else(|e| panic!("{tag}: {e}"));
    }
}

/// `-c var:compact` stores a small variable (a scalar too) in its object
/// header: `ncdump -s` says `compact` and the values are the input's
/// (nccopy 4.9.0 writes such a variable contiguous, so only its values
/// are compared); a variable too large for an object header is refused,
/// named, and leaves no output.
#[test]
fn compact_variables_hold_the_inputs_values() {
    if !peers() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let cdl = tmp.path().join("c.cdl");
    std::fs::write(
        &cdl,
        "netcdf c { dimensions: x = 4 ; y = 40000 ; variables: int v(x) ; double sc ;          short big(y) ; data: v = 1, 2, 3, 4 ; sc = 2.5 ; }",
    )
    .unwrap();
    let input = tmp.path().join("c.nc");
    let args = ["-k", "nc5", "-o"].map(String::from);
    let paths = [input.display().to_string(), cdl.display().to_string()];
    peer::run("ncgen", args.into_iter().chain(paths)).unwrap();
    let out = tmp.path().join("out.nc");
    let opts = CopyOptions {
        chunkspecs: vec!["v:compact".into(), "sc:compact".into()],
        ..options(None, false)
    };
    copy(&input, &out, &opts, &mut NoProgress).unwrap();
    let theirs = tmp.path().join("theirs.nc");
    let flags = ["-k", "nc4", "-c", "v:compact", "-c", "sc:compact"];
    let ok = Command::new("nccopy")
        .args(flags)
        .arg(&input)
        .arg(&theirs)
        .status()
        .unwrap();
    assert!(ok.success());
    assert_eq!(dump(&[], &out), dump(&[], &theirs));
    let storage = dump(&["-hs"], &out);
    for var in ["v", "sc"] {
        assert!(
            storage.contains(&format!("{var}:_Storage = \"compact\"")),
            "{storage}"
        );
    }
    assert!(
        storage.contains("big:_Storage = \"contiguous\""),
        "{storage}"
    );
    let refused = tmp.path().join("refused.nc");
    let opts = CopyOptions {
        chunkspecs: vec!["big:compact".into()],
        ..options(None, false)
    };
    let err = copy(&input, &refused, &opts, &mut NoProgress).unwrap_err();
    assert!(err.to_string().contains("\"big\""), "{err}");
    assert!(!refused.exists());
}

/// A netCDF-4 input copied with its storage unchanged moves its stored
/// chunks into the new file without decoding them, and the file dumps as
/// nccopy's copy of it; with -d the chunks are encoded again.
#[test]
fn a_netcdf4_inputs_chunks_move_as_stored() {
    if !peers() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let classic = tmp.path().join("in.nc");
    sample(&classic, Version::Cdf1, None);
    let input = tmp.path().join("in4.nc");
    let made = Command::new("nccopy")
        .args(["-k", "nc4", "-d", "1", "-s", "-c", "time/1,x/7"])
        .arg(&classic)
        .arg(&input)
        .status()
        .unwrap();
    assert!(made.success());
    let out = tmp.path().join("moved.nc");
    let summary = copy(&input, &out, &options(None, false), &mut NoProgress).unwrap();
    // t(time, x) and n(time): one chunk per record each, 5 records; s(x)
    // one chunk.
    assert_eq!(summary.stored_chunks, 11);
    compare(&input, tmp.path(), "moved", &options(None, false), &[]).unwrap();
    let again = tmp.path().join("again.nc");
    let summary = copy(&input, &again, &options(Some(2), true), &mut NoProgress).unwrap();
    assert_eq!(summary.stored_chunks, 0);
    compare(
        &input,
        tmp.path(),
        "d2",
        &options(Some(2), true),
        &["-d", "2", "-s"],
    )
    .unwrap();
}

#[test]
fn netcdf_c_appends_records_and_attributes_to_nctks_file() {
    if !require::tools(&["ncgen"]) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let cdl = tmp.path().join("coords.cdl");
    std::fs::write(&cdl, COORDS).unwrap();
    let input = tmp.path().join("coords.nc");
    let args = ["-k", "nc3", "-o"].map(String::from);
    let paths = [input.display().to_string(), cdl.display().to_string()];
    peer::run("ncgen", args.into_iter().chain(paths)).unwrap();
    let out = tmp.path().join("out.nc");
    copy(&input, &out, &options(Some(1), true), &mut NoProgress).unwrap();
    let script = r#"
import sys, netCDF4, numpy as np
with netCDF4.Dataset(sys.argv[1], "a") as d:
    d["time"][2] = 12
    d["temp"][2] = np.full((2, 3), 7.5)
    d.added = "yes"
    d["lat"].more = 1.5
with netCDF4.Dataset(sys.argv[1]) as d:
    d.set_auto_mask(False)
    print(d["time"][:].tolist(), d["temp"][1].tolist(), d["temp"][2].tolist(),
          d.added, float(d["lat"].more), d.dimensions["time"].size)
"#;
    let Some(got) = require::python_output(&["netCDF4", "numpy"], script, [&out]) else {
        return;
    };
    assert_eq!(
        got.trim(),
        "[0, 6, 12] [[7.0, 8.0, -999.0], [10.0, 11.0, 12.0]] \
         [[7.5, 7.5, 7.5], [7.5, 7.5, 7.5]] yes 1.5 3"
    );
}
