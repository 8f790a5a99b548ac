//! Store-to-store copies keep the data's shape, through the `nctk` binary,
//! with zarr-python as the independent reader:
//!
//! * a sparse store of a 1e9-element `ubyte` variable in 4096-element
//!   chunks (three chunks written) copies with the same chunks, the same
//!   chunk keys (still sparse), the same fill value and values, at a
//!   bounded peak RSS (`/usr/bin/time -v` on the child);
//! * chunks holding only the fill value are left out as zarr-python's
//!   `write_empty_chunks=False` leaves them out (same key set), by `nctk
//!   gen` and by `nctk copy`; `nctk copy -Z` writes every chunk, as
//!   `write_empty_chunks=True` does.
//!
//! Each test needs its peers as `nctk_test_support::require` rules.

mod common;

use std::path::Path;
use std::process::Command;

use common::nctk_ok as nctk;
use nctk_test_support::require;
use nctk_test_support::require::python_output as python;

/// The memory `nctk` with `args` works with: its peak RSS in bytes less
/// the peak RSS of the same binary doing nothing (`--version`: its code
/// and libraries, about 8 MiB for the debug build the tests run, and
/// growing with what the binary links, not with what a copy holds), or
/// `None` (the skip rule) when `/usr/bin/time` is missing.
fn nctk_working_memory(args: &[&str]) -> Option<u64> {
    let idle = nctk_peak_rss(&["--version"])?;
    Some(nctk_peak_rss(args)?.saturating_sub(idle))
}

/// Runs `nctk` with `args` under `/usr/bin/time -v`; its peak RSS in
/// bytes, or `None` (the skip rule) when `/usr/bin/time` is missing.
fn nctk_peak_rss(args: &[&str]) -> Option<u64> {
    if !Path::new("/usr/bin/time").exists() {
        require::missing("/usr/bin/time not installed");
        return None;
    }
    let out = Command::new("/usr/bin/time")
        .arg("-v")
        .arg(env!("CARGO_BIN_EXE_nctk"))
        .args(args)
        .output()
        .expect("run /usr/bin/time");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "nctk {args:?}: {err}");
    let kb = err
        .lines()
        .find_map(|l| l.trim().strip_prefix("Maximum resident set size (kbytes):"))
        .and_then(|v| v.trim().parse::<u64>().ok())
        .expect("time -v reports the peak RSS");
    Some(kb * 1024)
}

/// The chunk keys of array `name` in directory store `store`.
fn chunk_keys(store: &Path, name: &str) -> Vec<String> {
    let mut keys: Vec<String> = std::fs::read_dir(store.join(name))
        .expect("array directory")
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|k| !k.starts_with('.'))
        .collect();
    keys.sort();
    keys
}

/// zarr-python writes a group with `v`, 1e9 `u1` elements in 4096-element
/// chunks, xarray's dimension name, and three chunks written.
const MAKE_SPARSE: &str = r#"
import sys, numpy as np, zarr
g = zarr.open_group(sys.argv[1], mode='w', zarr_format=2)
a = g.create_array('v', shape=(10**9,), chunks=(4096,), dtype='u1')
a.attrs['_ARRAY_DIMENSIONS'] = ['x']
a[0:4096] = np.arange(4096) % 251
a[5 * 4096 + 10:5 * 4096 + 20] = 7
a[10**9 - 5:] = 3
"#;

/// zarr-python reads both stores: shape, chunks, fill value and every
/// stored chunk's values (the rest reads as the fill value in both).
const COMPARE: &str = r#"
import sys, json, zarr, numpy as np
a = zarr.open_group(sys.argv[1], mode='r')['v']
b = zarr.open_group(sys.argv[2], mode='r')['v']
keys = json.loads(sys.argv[3])
same = True
for k in keys:
    i = int(k) * 4096
    same = same and np.array_equal(a[i:i + 4096], b[i:i + 4096])
print(json.dumps({
    "shape": [list(a.shape), list(b.shape)],
    "chunks": [list(a.chunks), list(b.chunks)],
    "fill": [int(a.fill_value), int(b.fill_value)],
    "same_values": bool(same),
}))
"#;

/// The memory a copy may work with under the default options
/// (`docs/copy.md`).
const MEMORY_BOUND: u64 = 64 << 20;

#[test]
fn sparse_gigabyte_store_copies_with_its_chunks_sparse_and_bounded() {
    let tmp = tempfile::tempdir().unwrap();
    let (input, output) = (tmp.path().join("in.zarr"), tmp.path().join("out.zarr"));
    let (i, o) = (input.to_str().unwrap(), output.to_str().unwrap());
    if python(&["zarr", "numpy"], MAKE_SPARSE, [i]).is_none() {
        return;
    }
    let out_url = format!("file://{o}#mode=zarr,file");
    let Some(rss) = nctk_working_memory(&["copy", i, &out_url]) else {
        return;
    };
    assert!(
        rss <= MEMORY_BOUND,
        "working memory {} MiB above the 64 MiB bound",
        rss >> 20
    );
    let keys = chunk_keys(&input, "v");
    assert_eq!(keys, ["0", "244140", "5"], "zarr-python's input");
    assert_eq!(chunk_keys(&output, "v"), keys, "the copy stays sparse");
    let keys_json = serde_json::to_string(&keys).unwrap();
    let got = python(&["zarr", "numpy"], COMPARE, [i, o, &keys_json]).unwrap();
    let got: serde_json::Value = serde_json::from_str(&got).unwrap();
    for field in ["shape", "chunks", "fill"] {
        assert_eq!(got[field][0], got[field][1], "{field}: {got}");
    }
    assert_eq!(got["same_values"], true, "{got}");
}

/// `v(x)` in chunks of 4 with fill -1: chunk 1 holds only the fill value
/// (given as `_`), chunk 2 one value, chunk 0 none.
const CDL: &str = r#"netcdf fills {
dimensions:
	x = 12 ;
variables:
	int v(x) ;
		v:_FillValue = -1 ;
		v:_ChunkSizes = 4 ;
data:

 v = 1, 2, 3, 4, _, _, _, _, 5, _, _, _ ;
}
"#;

/// zarr-python rewrites store `argv[1]`'s `v` into `argv[2]`, same chunks,
/// dtype and fill value, with `write_empty_chunks` as `argv[3]` says.
const REWRITE: &str = r#"
import sys, zarr
src = zarr.open_group(sys.argv[1], mode='r')['v']
g = zarr.open_group(sys.argv[2], mode='w', zarr_format=2)
dst = g.create_array('v', shape=src.shape, chunks=src.chunks, dtype=src.dtype,
                     fill_value=src.fill_value,
                     config={'write_empty_chunks': sys.argv[3] == 'True'})
dst[...] = src[...]
"#;

#[test]
fn fill_only_chunks_are_left_out_as_zarr_python_leaves_them() {
    let tmp = tempfile::tempdir().unwrap();
    let cdl = tmp.path().join("fills.cdl");
    std::fs::write(&cdl, CDL).unwrap();
    let path = |n: &str| tmp.path().join(n);
    let s = |p: &Path| p.to_str().unwrap().to_string();
    // Pure Zarr, which zarr-python reads (NCZarr's `<u1`-style dtypes it
    // refuses).
    let url = |p: &Path| format!("file://{}#mode=zarr,file", p.display());
    let generated = path("gen.zarr");
    nctk(&["gen", "-4", "-o", &url(&generated), &s(&cdl)]);
    let (zp_sparse, zp_full) = (path("zp-sparse.zarr"), path("zp-full.zarr"));
    for (out, flag) in [(&zp_sparse, "False"), (&zp_full, "True")] {
        if python(&["zarr"], REWRITE, [&s(&generated), &s(out), flag]).is_none() {
            return;
        }
    }
    // A copy of the store holding every chunk leaves the fill-only one out.
    let copied = path("copy.zarr");
    nctk(&["copy", &s(&zp_full), &url(&copied)]);
    let every = path("every.zarr");
    nctk(&["copy", "-Z", &s(&generated), &url(&every)]);
    let want = chunk_keys(&zp_sparse, "v");
    assert_eq!(
        want,
        ["0", "2"],
        "zarr-python leaves the fill-only chunk out"
    );
    assert_eq!(chunk_keys(&generated, "v"), want, "nctk gen");
    assert_eq!(chunk_keys(&copied, "v"), want, "nctk copy");
    assert_eq!(chunk_keys(&every, "v"), chunk_keys(&zp_full, "v"), "-Z");
    // The same values, missing chunks read as fill by zarr-python.
    let read = "import sys, zarr\nprint(zarr.open_group(sys.argv[1], mode='r')['v'][...].tolist())";
    let values = |p: &Path| python(&["zarr"], read, [&s(p)]).unwrap();
    let reference = values(&zp_full);
    for store in [&generated, &copied, &every] {
        assert_eq!(values(store), reference, "{}", store.display());
    }
}

/// netCDF4 writes argv[1]: a CDF-5 file with `v(6, 1024, 1024)` float of
/// noise (compresses little, so encoding needs its whole working memory).
const MAKE_NOISE: &str = r#"
import sys, numpy as np, netCDF4
d = netCDF4.Dataset(sys.argv[1], 'w', format='NETCDF3_64BIT_DATA')
for n, l in (('t', 6), ('y', 1024), ('x', 1024)):
    d.createDimension(n, l)
v = d.createVariable('v', 'f4', ('t', 'y', 'x'))
v[:] = np.random.default_rng(7).random((6, 1024, 1024), dtype=np.float32)
d.close()
"#;

/// Chunks of 8 MiB compressed on two workers: the encoders' working memory
/// counts against the bound, so the copy stays within 64 MiB (two chunks
/// encoding at once with their working copies took 80 MiB), and the
/// values read back as netCDF4 reads the input.
#[test]
fn compressed_copies_of_large_chunks_stay_within_the_bound() {
    let tmp = tempfile::tempdir().unwrap();
    let (input, output) = (tmp.path().join("in.nc"), tmp.path().join("out.zarr"));
    let (i, o) = (input.to_str().unwrap(), output.to_str().unwrap());
    if python(&["netCDF4", "numpy"], MAKE_NOISE, [i]).is_none() {
        return;
    }
    let args = [
        "copy",
        "-k",
        "nc4",
        "-d",
        "1",
        "-s",
        "-c",
        "v:2,1024,1024",
        i,
        o,
    ];
    let Some(rss) = nctk_working_memory(&args) else {
        return;
    };
    assert!(
        rss <= MEMORY_BOUND,
        "working memory {} MiB above the 64 MiB bound",
        rss >> 20
    );
    assert_eq!(chunk_keys(&output, "v").len(), 3);
    let same = python(
        &["netCDF4", "numpy", "zarr"],
        "import sys, numpy as np, netCDF4, zarr\n\
         a = netCDF4.Dataset(sys.argv[1])['v'][:]\n\
         b = zarr.open_group(sys.argv[2], mode='r')['v'][:]\n\
         print(np.array_equal(a, b))",
        [i, o],
    )
    .unwrap();
    assert_eq!(same.trim(), "True");
}
