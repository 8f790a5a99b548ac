//! `nctk copy` of netCDF-4 inputs to NCZarr moving compressed chunks as
//! they are stored: files written by netCDF4-python and by netCDF-C's
//! `nccopy -k nc4 -d1 -s -c` are copied; netCDF4-python (the input) and
//! zarr-python (the output) read equal values, every chunk the copy moved
//! is byte-identical to the input's stored chunk as h5py's
//! `read_direct_chunk` reads it, and the copy's count of moved chunks is
//! exactly the number of stored chunks h5py finds in the variables that
//! qualify (none from big-endian or fletcher32 variables, none under
//! `-d 5` or a changed `-c`).

use std::path::Path;
use std::process::Command;

use nctk_test_support::require;
use nctk_tools::copy::{copy, CopyOptions, NoProgress};

/// netCDF4-python writes variables of several types, codecs and byte
/// orders, with edge chunks and, along the unlimited dimension, records
/// and whole chunks never written.
const WRITE_PY: &str = r#"
import sys, numpy as np, netCDF4
d = netCDF4.Dataset(sys.argv[1], "w")
d.createDimension("t", None); d.createDimension("y", 7); d.createDimension("x", 10)
zs = d.createVariable("zs", "f4", ("t", "y", "x"), zlib=True, shuffle=True, complevel=1, chunksizes=(2, 4, 4))
zs[0:3] = np.arange(3 * 70, dtype="f4").reshape(3, 7, 10) / 7
zs[6:8] = -np.arange(2 * 70, dtype="f4").reshape(2, 7, 10)
z16 = d.createVariable("z16", "i2", ("y", "x"), zlib=True, shuffle=False, complevel=4, chunksizes=(3, 3))
z16[:] = (np.arange(70) * 397 - 9000).astype("i2").reshape(7, 10)
d64 = d.createVariable("d64", "f8", ("y", "x"), zlib=True, shuffle=True, complevel=1, chunksizes=(4, 4))
d64[:] = np.sin(np.arange(70.0)).reshape(7, 10)
raw = d.createVariable("raw", "i4", ("y", "x"), chunksizes=(3, 5))
raw[:] = np.arange(70, dtype="i4").reshape(7, 10) * 1000
big = d.createVariable("big", "f8", ("y", "x"), zlib=True, chunksizes=(3, 3), endian="big")
big[:] = np.arange(70.0).reshape(7, 10)
f32 = d.createVariable("f32", "f4", ("y", "x"), zlib=True, fletcher32=True, chunksizes=(3, 3))
f32[:] = np.arange(70.0, dtype="f4").reshape(7, 10)
d.close()
"#;

/// Checks a copy: argv = input, store, names of variables whose chunks
/// moved as stored (comma-separated, maybe empty). Every variable reads
/// equal through netCDF4-python and zarr-python; each stored chunk of a
/// moved variable (h5py) is byte-identical to the store's chunk object,
/// and the store holds no other chunk of it.
/// Prints the number of stored chunks in the moved variables.
const CHECK_PY: &str = r#"
import sys, os, numpy as np, netCDF4, h5py, zarr
src, store, moved = sys.argv[1], sys.argv[2], [n for n in sys.argv[3].split(",") if n]
d = netCDF4.Dataset(src); d.set_auto_mask(False)
z = zarr.open_group(store, mode="r")
for name, v in d.variables.items():
    a, b = v[:], z[name][:]
    assert a.shape == b.shape, (name, a.shape, b.shape)
    assert np.array_equal(a, b, equal_nan=True), name
count = 0
h = h5py.File(src, "r")
for name in moved:
    ds = h[name]
    keys = set()
    for i in range(ds.id.get_num_chunks()):
        info = ds.id.get_chunk_info(i)
        mask, stored = ds.id.read_direct_chunk(info.chunk_offset)
        assert mask == 0, (name, info)
        key = ".".join(str(o // c) for o, c in zip(info.chunk_offset, ds.chunks))
        with open(os.path.join(store, name, key), "rb") as f:
            assert f.read() == stored, (name, key)
        keys.add(key)
        count += 1
    # chunks never written stay unwritten
    objects = {k for k in os.listdir(os.path.join(store, name)) if not k.startswith(".")}
    assert objects == keys, (name, sorted(objects - keys))
print(count)
"#;

fn check(input: &Path, store: &Path, moved: &[&str]) -> Option<u64> {
    let out = require::python_output(
        &["netCDF4", "h5py", "zarr", "numpy"],
        CHECK_PY,
        [
            input.as_os_str(),
            store.as_os_str(),
            moved.join(",").as_ref(),
        ],
    )?;
    Some(out.trim().parse().expect("a count"))
}

/// Copies `nc` to a store beside it with the default options and checks
/// ([`check`]) that exactly the stored chunks of `moved` were moved.
fn copy_moves_the_chunks_of(nc: &Path, moved: &[&str]) {
    let store = nc.with_extension("zarr");
    let summary = copy(nc, &store, &CopyOptions::default(), &mut NoProgress).unwrap();
    let Some(expected) = check(nc, &store, moved) else {
        return;
    };
    assert!(expected > 0);
    assert_eq!(summary.stored_chunks, expected);
}

fn python_file(dir: &Path) -> Option<std::path::PathBuf> {
    let nc = dir.join("in.nc");
    require::python_output(&["netCDF4", "numpy"], WRITE_PY, [nc.as_os_str()])?;
    Some(nc)
}

#[test]
fn chunks_netcdf4_python_wrote_move_byte_identical() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(nc) = python_file(tmp.path()) else {
        return;
    };
    // big-endian and fletcher32 chunks are decoded and encoded again
    copy_moves_the_chunks_of(&nc, &["zs", "z16", "d64", "raw"]);
}

#[test]
fn options_that_change_codecs_or_chunks_move_no_chunk() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(nc) = python_file(tmp.path()) else {
        return;
    };
    let cases = [
        CopyOptions {
            deflate: Some(5),
            ..CopyOptions::default()
        },
        CopyOptions {
            chunkspecs: vec!["y/7,x/10".into()],
            ..CopyOptions::default()
        },
    ];
    for (i, opts) in cases.iter().enumerate() {
        let store = tmp.path().join(format!("out{i}.zarr"));
        let summary = copy(&nc, &store, opts, &mut NoProgress).unwrap();
        assert_eq!(summary.stored_chunks, 0, "case {i}");
        if check(&nc, &store, &[]).is_none() {
            return;
        }
    }
}

const CDL: &str = r#"netcdf field {
dimensions:
  time = UNLIMITED ; lat = 19 ; lon = 36 ;
variables:
  float temp(time, lat, lon) ;
  short level(time, lat, lon) ;
  double lat(lat) ;
  int count(lat, lon) ;
"#;

/// A classic file with values everywhere (ncgen), turned into netCDF-4 by
/// `nccopy -k nc4 -d1 -s -c ...` as the issue's benchmark file is.
fn nccopy_file(dir: &Path) -> Option<std::path::PathBuf> {
    if !require::tools(&["ncgen", "nccopy"]) {
        return None;
    }
    let cdl = dir.join("field.cdl");
    let mut text = CDL.to_string();
    let n = 5 * 19 * 36;
    let list = |f: &dyn Fn(usize) -> String, n: usize| (0..n).map(f).collect::<Vec<_>>().join(", ");
    text.push_str("data:\n");
    text.push_str(&format!(
        " temp = {} ;\n",
        list(&|i| format!("{}.25", i as i64 - 900), n)
    ));
    text.push_str(&format!(
        " level = {} ;\n",
        list(&|i| format!("{}", (i * 37) % 30000), n)
    ));
    text.push_str(&format!(
        " lat = {} ;\n",
        list(&|i| format!("{}.5", i * 10), 19)
    ));
    text.push_str(&format!(
        " count = {} ;\n}}\n",
        list(&|i| format!("{}", i * i), 19 * 36)
    ));
    std::fs::write(&cdl, text).unwrap();
    let classic = dir.join("field_classic.nc");
    let nc = dir.join("field.nc");
    let ok = |c: &mut Command| c.status().is_ok_and(|s| s.success());
    assert!(ok(Command::new("ncgen")
        .args(["-k", "nc3", "-o"])
        .arg(&classic)
        .arg(&cdl)));
    assert!(ok(Command::new("nccopy")
        .args(["-k", "nc4", "-d1", "-s", "-c", "time/2,lat/8,lon/36"])
        .arg(&classic)
        .arg(&nc)));
    Some(nc)
}

#[test]
fn chunks_nccopy_wrote_move_byte_identical() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(nc) = nccopy_file(tmp.path()) else {
        return;
    };
    copy_moves_the_chunks_of(&nc, &["temp", "level", "lat", "count"]);
}

/// Prints the file offset of the first stored chunk of variable argv[2].
const CHUNK_AT_PY: &str = r#"
import sys, h5py
print(h5py.File(sys.argv[1], "r")[sys.argv[2]].id.get_chunk_info(0).byte_offset)
"#;

#[test]
fn a_chunk_that_is_not_a_zlib_stream_is_decoded_and_its_damage_named() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(nc) = nccopy_file(tmp.path()) else {
        return;
    };
    let Some(at) =
        require::python_output(&["h5py"], CHUNK_AT_PY, [nc.as_os_str(), "temp".as_ref()])
    else {
        return;
    };
    let at: usize = at.trim().parse().unwrap();
    let mut bytes = std::fs::read(&nc).unwrap();
    // no zlib header: the chunk is not moved but decoded, which fails
    bytes[at..at + 2].copy_from_slice(&[0, 0]);
    let bad = tmp.path().join("bad.nc");
    std::fs::write(&bad, &bytes).unwrap();
    let store = tmp.path().join("bad.zarr");
    let err = copy(&bad, &store, &CopyOptions::default(), &mut NoProgress).unwrap_err();
    let text = err.to_string();
    assert!(text.contains("bad.nc") && text.contains("temp"), "{text}");
    assert!(!store.exists(), "a failed copy leaves no store");
}
