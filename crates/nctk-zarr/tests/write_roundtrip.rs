//! The writer's stores read back through `ZarrReader` with the same
//! schema and values, in every layout and backend.

mod stores;

use std::sync::Arc;

use nctk_model::{
    Attribute, DataSource, DataType, GroupId, Layout, Schema, Selection, Values, VarId, VarStorage,
};
use nctk_store::kv::MemoryStore;
use nctk_zarr::{WriteLayout, WriteOptions, ZarrOptions, ZarrReader, ZarrWriter};

const LAYOUTS: [WriteLayout; 4] = [
    WriteLayout::NcZarr,
    WriteLayout::NcZarr490,
    WriteLayout::PureZarr { xarray: true },
    WriteLayout::PureZarr { xarray: false },
];

/// A dataset with groups, an unlimited dimension, every type, strings,
/// fill values and compression.
fn sample() -> (Schema, Vec<(VarId, Values)>) {
    sample_with(true)
}

/// [`sample`], with or without its string variable (netCDF-C 4.9.0's
/// layout has no strings).
fn sample_with(strings: bool) -> (Schema, Vec<(VarId, Values)>) {
    let mut s = Schema::new();
    let r = GroupId::ROOT;
    let time = s.add_dim(r, "time", 0, true).unwrap();
    let x = s.add_dim(r, "x", 5, false).unwrap();
    let n = s.add_dim(r, "n", 4, false).unwrap();
    s.set_attr(r, None, Attribute::new("title", Values::text("round trip")));
    s.set_attr(r, None, Attribute::new("ints", Values::Int(vec![1, -2, 3])));
    s.set_attr(
        r,
        None,
        Attribute::new("tiny", Values::Double(vec![1e-300, f64::NAN])),
    );
    s.set_attr(r, None, Attribute::new("f", Values::Float(vec![0.1])));
    let mut data = vec![];
    let types = [
        DataType::Byte,
        DataType::Short,
        DataType::Int,
        DataType::Float,
        DataType::Double,
        DataType::UByte,
        DataType::UShort,
        DataType::UInt,
        DataType::Int64,
        DataType::UInt64,
    ];
    for (i, t) in types.into_iter().enumerate() {
        let v = s.add_var(r, &format!("v_{t}"), t, &[time, x]).unwrap();
        let vals: Vec<f64> = (0..15).map(|k| (k * 7 % 11) as f64 + i as f64).collect();
        let values = nctk_model::convert::vec_to_values(&vals, t).unwrap();
        data.push((v, values));
        let o = &mut s.var_mut(v).storage;
        if i % 3 == 1 {
            o.deflate_level = Some(4);
            o.shuffle = true;
        }
        if i % 4 == 2 {
            o.layout = Layout::Chunked(vec![2, 2]);
            o.endianness = Some(nctk_model::Endianness::Big);
        }
        if i == 5 {
            o.fletcher32 = true;
        }
    }
    let c = s.add_var(r, "c", DataType::Char, &[x, n]).unwrap();
    data.push((c, Values::Char(b"ab\0\0cdefg\0\0\0hijklmno".to_vec())));
    if strings {
        let st = s.add_var(r, "s", DataType::String, &[x]).unwrap();
        data.push((
            st,
            Values::strings([
                "one".into(),
                "".into(),
                "três".into(),
                "x".repeat(100),
                "5".into(),
            ]),
        ));
    }
    let sc = s.add_var(r, "scalar", DataType::Double, &[]).unwrap();
    data.push((sc, Values::Double(vec![3.25])));
    let f = s.add_var(r, "filled", DataType::Float, &[x]).unwrap();
    s.set_attr(
        r,
        Some(f),
        Attribute::new("_FillValue", Values::Float(vec![-1.5])),
    );
    s.set_attr(r, Some(f), Attribute::new("units", Values::text("m")));
    let g = s.add_group(r, "grp").unwrap();
    let y = s.add_dim(g, "y", 3, false).unwrap();
    s.set_attr(g, None, Attribute::new("in_group", Values::Short(vec![7])));
    let w = s.add_var(g, "w", DataType::UShort, &[y, x]).unwrap();
    data.push((w, Values::UShort((0..15).collect())));
    s.var_mut(w).storage = VarStorage {
        layout: Layout::Chunked(vec![2, 3]),
        deflate_level: Some(1),
        ..VarStorage::default()
    };
    let sub = s.add_group(g, "sub").unwrap();
    let z = s.add_var(sub, "z", DataType::Int, &[time]).unwrap();
    data.push((z, Values::Int(vec![10, 20, 30])));
    (s, data)
}

fn write_all(w: &mut ZarrWriter, data: &[(VarId, Values)]) {
    for (v, values) in data {
        let var = w.schema().var(*v).clone();
        let mut shape = w.schema().shape(*v);
        if !var.dims.is_empty() && w.schema().dim(var.dims[0]).unlimited {
            shape[0] = values.len() as u64 / shape[1..].iter().product::<u64>();
        }
        // Write in two halves along the first dimension to exercise
        // partial chunks.
        if shape.len() == 2 && shape[0] > 1 {
            let rows = shape[0];
            let half = rows / 2;
            let per = shape[1] as usize;
            w.write(
                *v,
                &Selection::block(&[0, 0], &[half, shape[1]]),
                &values.slice(0..half as usize * per),
            )
            .unwrap();
            w.write(
                *v,
                &Selection::block(&[half, 0], &[rows - half, shape[1]]),
                &values.slice(half as usize * per..values.len()),
            )
            .unwrap();
        } else {
            w.write(*v, &Selection::all(&shape), values).unwrap();
        }
    }
}

fn check(reader: &ZarrReader, expect: &Schema, data: &[(VarId, Values)], layout: WriteLayout) {
    let got = reader.schema();
    for (v, values) in data {
        let path = format!(
            "{}/{}",
            expect
                .group_path(expect.var(*v).group)
                .trim_end_matches('/'),
            expect.var(*v).name
        );
        let rv = got
            .var_by_path(&path)
            .unwrap_or_else(|| panic!("{layout:?}: {path} missing"));
        let shape = got.shape(rv);
        let mut read = reader.read(rv, &Selection::all(&shape)).unwrap();
        if matches!(layout, WriteLayout::PureZarr { .. }) && expect.var(*v).dtype == DataType::Char
        {
            // Pure Zarr has no char type: S1 reads as strings.
            continue;
        }
        if expect.var(*v).dims.is_empty() && read.len() == 1 {
            read = read.slice(0..1);
        }
        assert_eq!(&read, values, "{layout:?}: {path}");
    }
    if !matches!(layout, WriteLayout::PureZarr { .. }) {
        let f = got.var_by_path("filled").unwrap();
        assert_eq!(
            got.var(f).attribute("_FillValue").unwrap().value,
            Values::Float(vec![-1.5])
        );
        let read = reader.read(f, &Selection::all(&[5])).unwrap();
        assert_eq!(read, Values::Float(vec![-1.5; 5]));
        let root = got.root();
        let attr = |n: &str| {
            root.attributes
                .iter()
                .find(|a| a.name == n)
                .unwrap()
                .value
                .clone()
        };
        assert_eq!(attr("title"), Values::text("round trip"));
        assert_eq!(attr("ints"), Values::Int(vec![1, -2, 3]));
        assert_eq!(attr("f"), Values::Float(vec![0.1]));
        match attr("tiny") {
            Values::Double(d) => assert!(d[0] == 1e-300 && d[1].is_nan()),
            other => panic!("{other:?}"),
        }
        let time = got.dim_by_name(GroupId::ROOT, "time").unwrap();
        assert_eq!(got.dim(time).len, 3);
        if layout == WriteLayout::NcZarr {
            assert!(got.dim(time).unlimited);
        }
    }
}

#[test]
fn memory_store_round_trip_every_layout() {
    for layout in LAYOUTS {
        let legacy = layout == WriteLayout::NcZarr490;
        if legacy {
            let (schema, _) = sample();
            let opts = WriteOptions {
                layout,
                ..WriteOptions::default()
            };
            let err = ZarrWriter::create(Arc::new(MemoryStore::new()), &schema, &opts).unwrap_err();
            assert!(
                err.to_string().starts_with("/s: variable of type string"),
                "{err}"
            );
        }
        let (schema, data) = sample_with(!legacy);
        let store = Arc::new(MemoryStore::new());
        let opts = WriteOptions {
            layout,
            cache_bytes: 64, // force evictions and read-modify-write
            consolidated: true,
            write_empty_chunks: false,
        };
        let mut w = ZarrWriter::create(store.clone(), &schema, &opts).unwrap();
        write_all(&mut w, &data);
        w.finish().unwrap();
        let pure = matches!(layout, WriteLayout::PureZarr { .. });
        let reader = ZarrReader::open(
            store,
            ZarrOptions {
                pure_zarr: pure,
                xarray: layout != WriteLayout::PureZarr { xarray: false },
                consolidated: true,
            },
        )
        .unwrap();
        check(&reader, &schema, &data, layout);
    }
}

#[test]
fn directory_and_zip_round_trip() {
    let (schema, data) = sample();
    let dir = tempfile::tempdir().unwrap();
    for (name, layout) in [
        ("a.zarr", WriteLayout::NcZarr),
        ("b.zip", WriteLayout::NcZarr),
        ("c.zip", WriteLayout::PureZarr { xarray: true }),
    ] {
        let path = dir.path().join(name);
        let opts = WriteOptions {
            layout,
            ..WriteOptions::default()
        };
        let mut w = if name.ends_with(".zip") {
            stores::create_zip(&path, &schema, &opts).unwrap()
        } else {
            stores::create_dir(&path, &schema, &opts).unwrap()
        };
        write_all(&mut w, &data);
        w.finish().unwrap();
        let pure = matches!(layout, WriteLayout::PureZarr { .. });
        let reader = stores::open_path(
            &path,
            ZarrOptions {
                pure_zarr: pure,
                xarray: true,
                consolidated: false,
            },
        )
        .unwrap();
        check(&reader, &schema, &data, layout);
    }
}

#[test]
fn strided_and_scattered_writes() {
    let mut s = Schema::new();
    let a = s.add_dim(GroupId::ROOT, "a", 7, false).unwrap();
    let b = s.add_dim(GroupId::ROOT, "b", 9, false).unwrap();
    let v = s
        .add_var(GroupId::ROOT, "v", DataType::Int, &[a, b])
        .unwrap();
    s.var_mut(v).storage = VarStorage {
        layout: Layout::Chunked(vec![3, 4]),
        deflate_level: Some(6),
        ..VarStorage::default()
    };
    let store = Arc::new(MemoryStore::new());
    let opts = WriteOptions {
        cache_bytes: 1,
        ..WriteOptions::default()
    };
    let mut w = ZarrWriter::create(store.clone(), &s, &opts).unwrap();
    let mut expect = vec![-2147483647i32; 63];
    // Strided block, then single points.
    let sel = Selection {
        start: vec![1, 0],
        count: vec![3, 3],
        stride: vec![2, 4],
    };
    let vals: Vec<i32> = (0..9).collect();
    w.write(v, &sel, &Values::Int(vals.clone())).unwrap();
    for (i, r) in [1, 3, 5].into_iter().enumerate() {
        for (j, c) in [0, 4, 8].into_iter().enumerate() {
            expect[r * 9 + c] = vals[i * 3 + j];
        }
    }
    for k in 0..63u64 {
        if k % 5 == 0 {
            w.write(
                v,
                &Selection::block(&[k / 9, k % 9], &[1, 1]),
                &Values::Int(vec![100 + k as i32]),
            )
            .unwrap();
            expect[k as usize] = 100 + k as i32;
        }
    }
    assert!(w
        .write(
            v,
            &Selection::block(&[7, 0], &[1, 1]),
            &Values::Int(vec![1])
        )
        .is_err());
    assert!(w
        .write(
            v,
            &Selection::block(&[0, 0], &[1, 2]),
            &Values::Int(vec![1])
        )
        .is_err());
    w.finish().unwrap();
    let r = ZarrReader::open(store, ZarrOptions::default()).unwrap();
    assert_eq!(
        r.read(v, &Selection::all(&[7, 9])).unwrap(),
        Values::Int(expect)
    );
}

/// String widths: a `string_width` given is a hard limit (longer strings are
/// refused, naming the variable, whatever the attributes say); a width set
/// by `_nczarr_maxstrlen` (or the root's `_nczarr_default_maxstrlen`) cuts
/// longer strings as netCDF-C does; with neither, 128 bytes is a hard limit.
#[test]
fn string_widths_cut_or_refuse() {
    let write = |attr: Option<(&str, i32)>, option: Option<usize>, value: &str| {
        let mut s = Schema::new();
        let r = GroupId::ROOT;
        let n = s.add_dim(r, "n", 1, false).unwrap();
        let v = s.add_var(r, "s", DataType::String, &[n]).unwrap();
        if let Some((name, width)) = attr {
            let target = (name == "_nczarr_maxstrlen").then_some(v);
            s.set_attr(r, target, Attribute::new(name, Values::Int(vec![width])));
        }
        s.var_mut(v).storage.string_width = option;
        let opts = WriteOptions::default();
        let store = Arc::new(MemoryStore::new());
        let mut w = ZarrWriter::create(store.clone(), &s, &opts).unwrap();
        let sel = Selection::all(&[1]);
        w.write(v, &sel, &Values::strings([value]))
            .map_err(|e| e.to_string())?;
        w.finish().unwrap();
        let reader = ZarrReader::open(store, ZarrOptions::default()).unwrap();
        let rv = reader.schema().var_by_path("s").unwrap();
        Ok::<_, String>(reader.read(rv, &sel).unwrap())
    };
    let text = |s: &str| Ok(Values::strings([s]));
    let ten = "0123456789";
    assert_eq!(
        write(Some(("_nczarr_maxstrlen", 4)), None, ten),
        text("0123")
    );
    assert_eq!(
        write(Some(("_nczarr_default_maxstrlen", 6)), None, ten),
        text("012345")
    );
    assert_eq!(
        write(Some(("_nczarr_maxstrlen", 4)), Some(12), ten),
        text(ten)
    );
    let refused = write(Some(("_nczarr_maxstrlen", 40)), Some(5), ten).unwrap_err();
    assert!(
        refused.contains("s: string of 10 bytes") && refused.contains("5"),
        "{refused}"
    );
    let long = "x".repeat(129);
    let refused = write(None, None, &long).unwrap_err();
    assert!(refused.contains("string of 129 bytes"), "{refused}");
    assert_eq!(write(None, None, &long[..128]), text(&long[..128]));
}
