//! `nctk copy` to and from NCZarr / Zarr stores: safe output for directory
//! and zip stores, slabs along the output's chunks, the storage flags
//! (`-c -d -s -F -M`) as nccopy applies them, store inputs, and refusals
//! naming what does not fit.

mod copy_support;

use std::path::{Path, PathBuf};

use copy_support::{dump_body, dump_body_as, entries, kind, sample, watched};
use nctk::Format;
use nctk_classic::Version;
use nctk_model::{DataSource, DataType, GroupId, Layout, Schema, Selection, Values, VarStorage};
use nctk_tools::copy::{copy, copy_source, CopyError, CopyOptions, NoProgress};

/// Every file under `dir` with its bytes, sorted by path.
fn tree(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = vec![];
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push((p.clone(), std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

fn zarray(store: &Path, var: &str) -> serde_json::Value {
    let text = std::fs::read_to_string(store.join(var).join(".zarray")).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn nc4() -> CopyOptions {
    kind(Format::Netcdf4)
}

#[test]
fn a_failed_copy_leaves_the_old_store_and_no_temporary() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.nc");
    sample(&input, Version::Cdf1, None);
    for name in ["out.zarr", "out.zip"] {
        let out = dir.path().join(name);
        copy(&input, &out, &CopyOptions::default(), &mut NoProgress).unwrap();
        let before = if out.is_dir() {
            tree(&out)
        } else {
            vec![(out.clone(), std::fs::read(&out).unwrap())]
        };
        // Variable by variable, one slab each: the third read fails.
        let src = watched(&input, Some(3));
        let err = copy_source(&src, &out, &nc4(), &mut NoProgress).unwrap_err();
        assert!(err.to_string().contains("injected failure"), "{err}");
        let after = if out.is_dir() {
            tree(&out)
        } else {
            vec![(out.clone(), std::fs::read(&out).unwrap())]
        };
        assert!(before == after, "{name} changed");
        assert_eq!(dump_body(&out), dump_body_as(&input, Some(Format::Netcdf4)));
    }
    assert_eq!(entries(dir.path()), ["in.nc", "out.zarr", "out.zip"]);
}

#[test]
fn a_new_store_replaces_the_old_one_whole() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.nc");
    sample(&input, Version::Cdf1, None);
    let out = dir.path().join("out.zarr");
    std::fs::create_dir(&out).unwrap();
    std::fs::write(out.join("stale"), b"from before").unwrap();
    // Only a store is replaced (a Zarr v2 group's metadata, as the spec has it).
    std::fs::write(out.join(".zgroup"), br#"{"zarr_format": 2}"#).unwrap();
    copy(&input, &out, &CopyOptions::default(), &mut NoProgress).unwrap();
    assert!(!out.join("stale").exists());
    assert_eq!(entries(dir.path()), ["in.nc", "out.zarr"]);
}

/// `big(y=40, x=50)` int written 0, 1, 2, ... and `t(time, x)` with 3 records.
fn grid(path: &Path) {
    let mut s = Schema::new();
    let r = GroupId::ROOT;
    let time = s.add_dim(r, "time", 3, true).unwrap();
    let y = s.add_dim(r, "y", 40, false).unwrap();
    let x = s.add_dim(r, "x", 50, false).unwrap();
    let big = s.add_var(r, "big", DataType::Int, &[y, x]).unwrap();
    let t = s.add_var(r, "t", DataType::Float, &[time, x]).unwrap();
    let mut w = nctk_classic::ClassicWriter::create_in_with_schema(
        std::sync::Arc::new(nctk_store::bytes::FileSink::create(path).unwrap()),
        &s,
        Version::Cdf1,
        nctk_classic::FillMode::NoFill,
    )
    .unwrap();
    let vals: Vec<i32> = (0..2000).collect();
    w.write_from(big, &Selection::all(&[40, 50]), &vals)
        .unwrap();
    let tv: Vec<f32> = (0..150).map(|i| i as f32).collect();
    w.write_from(t, &Selection::block(&[0, 0], &[3, 50]), &tv)
        .unwrap();
    w.close().unwrap();
}

#[test]
fn slabs_follow_the_output_chunks() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.nc");
    grid(&input);
    // Chunks of 7 x 50 ints (1400 bytes); with -M 0 they stay that small.
    for (buffer, whole_chunks) in [(1400 * 3, true), (1000, false)] {
        let src = watched(&input, None);
        let opts = CopyOptions {
            chunkspecs: vec!["big:7,50".into()],
            min_chunk_bytes: Some(0),
            buffer_size: buffer,
            // No room for a band of chunks (-h as small as -m).
            chunk_cache_size: Some(buffer),
            ..nc4()
        };
        let out = dir.path().join(format!("{buffer}.zarr"));
        copy_source(&src, &out, &opts, &mut NoProgress).unwrap();
        let reads = src.reads.lock().unwrap();
        let big = src.schema().var_by_path("big").unwrap();
        let mut seen_chunks = vec![];
        for (_, sel) in reads.iter().filter(|(v, _)| *v == big) {
            let bytes = sel.num_elements().unwrap() * 4;
            assert!(bytes <= buffer as u64, "{sel:?}");
            let first = sel.start[0] / 7;
            let last = (sel.start[0] + sel.count[0] - 1) / 7;
            if whole_chunks {
                // Whole chunks, as many as fit: 3 chunks of 7 rows.
                assert_eq!(sel.start[0] % 7, 0, "{sel:?}");
                assert!(sel.count[0] == 21 || sel.start[0] + sel.count[0] == 40);
            } else {
                // Inside one chunk, chunks one after the other.
                assert_eq!(first, last, "{sel:?}");
                if seen_chunks.last() != Some(&first) {
                    assert!(!seen_chunks.contains(&first), "chunk {first} revisited");
                    seen_chunks.push(first);
                }
            }
        }
        assert_eq!(zarray(&out, "big")["chunks"], serde_json::json!([7, 50]));
        assert_eq!(dump_body(&out), dump_body_as(&input, Some(Format::Netcdf4)));
    }
}

#[test]
fn storage_flags_reach_the_store_as_nccopy_applies_them() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.nc");
    grid(&input);
    let want = dump_body_as(&input, Some(Format::Netcdf4));
    let case = |name: &str, opts: CopyOptions| {
        let out = dir.path().join(name);
        copy(&input, &out, &opts, &mut NoProgress).unwrap();
        assert_eq!(dump_body(&out), want, "{name}");
        (zarray(&out, "big"), zarray(&out, "t"))
    };
    // No flags: netCDF-C's default chunks (the whole of these small
    // variables; one record along the unlimited dimension), no codecs.
    let (big, t) = case("plain.zarr", nc4());
    assert_eq!(big["chunks"], serde_json::json!([40, 50]));
    assert_eq!(t["chunks"], serde_json::json!([1, 50]));
    assert!(big["compressor"].is_null() && big["filters"].is_null());
    // -d 1 -s: shuffle then zlib level 1.
    let (big, _) = case(
        "zlib.zarr",
        CopyOptions {
            deflate: Some(1),
            shuffle: true,
            ..nc4()
        },
    );
    assert_eq!(
        big["compressor"],
        serde_json::json!({"id": "zlib", "level": 1})
    );
    assert_eq!(
        big["filters"],
        serde_json::json!([{"id": "shuffle", "elementsize": 4}])
    );
    // -F in netCDF-C's syntax, and as numcodecs JSON; -c by dimension.
    let (big, t) = case(
        "filters.zarr",
        CopyOptions {
            filters: vec![
                "big,32001,0,0,4,0,5,1,1".into(),
                r#"t,{"id":"zstd","level":3}"#.into(),
            ],
            chunkspecs: vec!["y/20,x/25".into()],
            min_chunk_bytes: Some(1000),
            ..nc4()
        },
    );
    assert_eq!(big["compressor"]["id"], "blosc");
    assert_eq!(big["compressor"]["cname"], "lz4");
    assert_eq!(big["chunks"], serde_json::json!([20, 25]));
    assert_eq!(t["compressor"]["id"], "zstd");
    assert_eq!(t["chunks"], serde_json::json!([1, 25]));
    // -c with chunks under -M bytes (default 8192): one chunk.
    let (big, _) = case(
        "small.zarr",
        CopyOptions {
            chunkspecs: vec!["big:2,2".into()],
            ..nc4()
        },
    );
    assert_eq!(big["chunks"], serde_json::json!([40, 50]));
    // Bad -F: refused before anything is made.
    let err = copy(
        &input,
        dir.path().join("bad.zarr"),
        &CopyOptions {
            filters: vec!["big,nosuch".into()],
            ..nc4()
        },
        &mut NoProgress,
    )
    .unwrap_err();
    assert!(err.to_string().contains("nosuch"), "{err}");
    assert!(!dir.path().join("bad.zarr").exists());
}

/// zarr-python reads what `-d 1 -s` and blosc wrote: the same values.
#[test]
fn compressed_copies_read_back_through_zarr_python() {
    if !nctk_test_support::require::python(&["zarr"]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.nc");
    grid(&input);
    for (name, opts) in [
        (
            "zlib.zarr",
            CopyOptions {
                deflate: Some(1),
                shuffle: true,
                ..nc4()
            },
        ),
        (
            "blosc.zarr",
            CopyOptions {
                filters: vec!["*,32001,0,0,4,0,5,1,1".into()],
                ..nc4()
            },
        ),
    ] {
        let out = dir.path().join(name);
        copy(&input, &out, &opts, &mut NoProgress).unwrap();
        let script = "import sys, zarr\nz = zarr.open_group(sys.argv[1], mode='r')\n\
                      print(int(z['big'][:].sum()), float(z['t'][:].sum()))";
        let run = nctk_test_support::peer::python(script, [&out]).unwrap_or_else(|e| panic!("{e}"));
        // sum(0..2000) and sum(0..150).
        assert_eq!(run.trim(), "1999000 11175.0");
    }
}

/// A store made by nctk with `v(x)` uint, `s(x)` string, `z(x)` blosc in
/// chunks of 4.
fn netcdf4_store(path: &Path) {
    let mut s = Schema::new();
    let r = GroupId::ROOT;
    let x = s.add_dim(r, "x", 3000, false).unwrap();
    let v = s.add_var(r, "v", DataType::UInt, &[x]).unwrap();
    let st = s.add_var(r, "s", DataType::String, &[x]).unwrap();
    let z = s.add_var(r, "z", DataType::Double, &[x]).unwrap();
    s.var_mut(z).storage = VarStorage {
        layout: Layout::Chunked(vec![1500]),
        codecs: Some(
            r#"[{"id":"blosc","cname":"zstd","clevel":3,"shuffle":2,"blocksize":0}]"#.into(),
        ),
        ..VarStorage::default()
    };
    let mut def = nctk::create(path, nctk::Format::Netcdf4).unwrap();
    def.define_all(&s).unwrap();
    let mut w = def.end_define().unwrap();
    w.write(
        v,
        &Selection::all(&[3000]),
        &Values::UInt((0..3000).collect()),
    )
    .unwrap();
    let strings = Values::strings((0..3000).map(|i| format!("s{i}")));
    w.write(st, &Selection::all(&[3000]), &strings).unwrap();
    let zs = (0..3000).map(|i| i as f64 / 7.0).collect();
    w.write(z, &Selection::all(&[3000]), &Values::Double(zs))
        .unwrap();
    w.close().unwrap();
}

#[test]
fn store_inputs_keep_their_storage_and_misfits_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.zarr");
    netcdf4_store(&input);
    let want = dump_body(&input);
    // Store to store: chunks and codecs kept; -d 0 drops them.
    let out = dir.path().join("out.zip");
    copy(&input, &out, &CopyOptions::default(), &mut NoProgress).unwrap();
    assert_eq!(dump_body(&out), want);
    let kept = dir.path().join("kept.zarr");
    copy(&input, &kept, &CopyOptions::default(), &mut NoProgress).unwrap();
    assert_eq!(zarray(&kept, "z")["chunks"], serde_json::json!([1500]));
    assert_eq!(zarray(&kept, "z")["compressor"]["cname"], "zstd");
    let plain = dir.path().join("plain.zarr");
    let opts = CopyOptions {
        deflate: Some(0),
        ..CopyOptions::default()
    };
    copy(&input, &plain, &opts, &mut NoProgress).unwrap();
    assert!(zarray(&plain, "z")["compressor"].is_null());
    // To classic: uint fits CDF-5 only, the strings no classic format nor
    // the classic model.
    let nc = dir.path().join("out.nc");
    let nc7 = dir.path().join("nc7.zarr");
    for (k, out, var, why) in [
        (Format::Classic, &nc, "v", "type uint is not in CDF-1"),
        (
            Format::Cdf5,
            &nc,
            "s",
            "type string exists only in netCDF-4",
        ),
        (
            Format::Netcdf4Classic,
            &nc7,
            "v",
            "not in the classic model",
        ),
    ] {
        let err = copy(&input, out, &kind(k), &mut NoProgress).unwrap_err();
        let msg = err.to_string();
        assert!(matches!(err, CopyError::DoesNotFit { .. }), "{msg}");
        assert!(
            msg.contains(&format!("variable \"{var}\"")) && msg.contains(why),
            "{msg}"
        );
    }
    assert!(!nc.exists() && !nc7.exists());
    let no_strings = |k| CopyOptions {
        vars: Some(nctk_tools::copy::VarList {
            names: vec!["v".into(), "z".into()],
            definitions_too: true,
        }),
        ..kind(k)
    };
    copy(&input, &nc, &no_strings(Format::Cdf5), &mut NoProgress).unwrap();
    let err = copy(&input, &nc, &no_strings(Format::Classic), &mut NoProgress).unwrap_err();
    assert!(err.to_string().contains("variable \"v\""), "{err}");
    let err = copy(
        &input,
        &nc7,
        &no_strings(Format::Netcdf4Classic),
        &mut NoProgress,
    )
    .unwrap_err();
    assert!(err.to_string().contains("classic model"), "{err}");
    assert!(!nc7.exists());
    // Without -k, a store input goes to a netCDF-4/HDF5 file (its
    // strings and its blosc filter too), replacing the file there.
    let summary = copy(&input, &nc, &CopyOptions::default(), &mut NoProgress).unwrap();
    assert_eq!(summary.kind, Format::Netcdf4);
    assert_eq!(nctk::open(&nc).unwrap().format(), Format::Netcdf4);
}

#[test]
fn urls_name_layouts_and_classic_kinds_refuse_stores() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.nc");
    sample(&input, Version::Cdf1, None);
    let store = dir.path().join("z.zarr");
    let url = format!("file://{}#mode=zarr,file", store.display());
    copy(&input, &url, &CopyOptions::default(), &mut NoProgress).unwrap();
    let zattrs = std::fs::read_to_string(store.join(".zattrs")).unwrap_or_default();
    assert!(!zattrs.contains("_nczarr"), "{zattrs}");
    assert!(store.join("t/.zarray").exists());
    let err = copy(&input, &url, &kind(Format::Cdf5), &mut NoProgress).unwrap_err();
    assert!(
        err.to_string()
            .contains("cannot be written as an NCZarr/Zarr store"),
        "{err}"
    );
    let err = copy(&url, &url, &nc4(), &mut NoProgress).unwrap_err();
    assert_eq!(err.to_string(), "output would overwrite input");
}

/// A store with groups: `/a`, `/g1/b`, `/g1/g2/c`, `/h/d`, each `x` = 3 ints.
fn grouped_store(path: &Path) {
    let mut s = Schema::new();
    let r = GroupId::ROOT;
    let x = s.add_dim(r, "x", 3, false).unwrap();
    let g1 = s.add_group(r, "g1").unwrap();
    let g2 = s.add_group(g1, "g2").unwrap();
    let h = s.add_group(r, "h").unwrap();
    let vars: Vec<_> = [(r, "a"), (g1, "b"), (g2, "c"), (h, "d")]
        .into_iter()
        .map(|(g, n)| s.add_var(g, n, DataType::Int, &[x]).unwrap())
        .collect();
    let mut def = nctk::create(path, nctk::Format::Netcdf4).unwrap();
    def.define_all(&s).unwrap();
    let mut w = def.end_define().unwrap();
    for (i, v) in vars.into_iter().enumerate() {
        let base = 10 * (i as i32 + 1);
        w.write(
            v,
            &Selection::all(&[3]),
            &Values::Int(vec![base, base + 1, base + 2]),
        )
        .unwrap();
    }
    w.close().unwrap();
}

/// `-G` keeps the listed groups (with their subgroups and ancestors);
/// `-g` defines every group and copies the data of the listed ones.
#[test]
fn group_lists_select_groups() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.zarr");
    grouped_store(&input);
    let read = |p: &Path, var: &str| -> Option<Values> {
        let ds = nctk::open(p).unwrap();
        let s = ds.source().schema();
        let v = s.var_by_path(var)?;
        Some(ds.source().read(v, &Selection::all(&[3])).unwrap())
    };
    let groups = |name: &str, definitions_too| CopyOptions {
        groups: Some(nctk_tools::copy::GroupList {
            names: vec![name.into()],
            definitions_too,
        }),
        ..CopyOptions::default()
    };
    let only = dir.path().join("only.zarr");
    copy(&input, &only, &groups("g1", true), &mut NoProgress).unwrap();
    assert_eq!(read(&only, "/g1/g2/c"), Some(Values::Int(vec![30, 31, 32])));
    assert_eq!(read(&only, "/g1/b"), Some(Values::Int(vec![20, 21, 22])));
    assert_eq!(read(&only, "/h/d"), None);
    let data = dir.path().join("data.zarr");
    copy(&input, &data, &groups("/h", false), &mut NoProgress).unwrap();
    assert_eq!(read(&data, "/h/d"), Some(Values::Int(vec![40, 41, 42])));
    // Defined, not copied: netCDF's default int fill.
    assert_eq!(
        read(&data, "/g1/b"),
        Some(Values::Int(vec![-2147483647; 3]))
    );
    let x = dir.path().join("x.zarr");
    let err = copy(&input, &x, &groups("nosuch", true), &mut NoProgress).unwrap_err();
    assert_eq!(err.to_string(), "nosuch: No such group");
}
