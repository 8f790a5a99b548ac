//! Writer -> reader round trips: random schemas and data (property test),
//! and files written by nctk read by netCDF-C (Python netCDF4).

mod common;

use nctk_classic::{ClassicReader, ClassicWriter, FillMode, Version};
use nctk_model::{DataSource, DataType, GroupId, Schema, Selection, Values};
use nctk_store::bytes::MemSink;
use proptest::prelude::*;
use std::sync::Arc;

fn values_for(dtype: DataType, n: usize, seed: u64) -> Values {
    let mut s = seed | 1;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    let raw: Vec<u8> = (0..n * dtype.size().unwrap())
        .map(|_| next() as u8)
        .collect();
    let v = Values::from_bytes(dtype, &raw, true);
    // Keep floats finite so equality is plain.
    match v {
        Values::Float(x) => Values::Float(
            x.into_iter()
                .map(|f| if f.is_finite() { f } else { 1.5 })
                .collect(),
        ),
        Values::Double(x) => Values::Double(
            x.into_iter()
                .map(|f| if f.is_finite() { f } else { 2.5 })
                .collect(),
        ),
        other => other,
    }
}

/// A schema with one optional unlimited dimension and a few variables.
fn random_schema(
    version: Version,
    dims: &[u64],
    unlimited: bool,
    vars: &[(u8, Vec<usize>)],
) -> Schema {
    let mut s = Schema::new();
    let mut ids = vec![];
    if unlimited {
        ids.push(s.add_dim(GroupId::ROOT, "rec", 0, true).unwrap());
    }
    for (i, &len) in dims.iter().enumerate() {
        ids.push(
            s.add_dim(GroupId::ROOT, &format!("d{i}"), len, false)
                .unwrap(),
        );
    }
    let types: Vec<DataType> = DataType::ALL
        .into_iter()
        .filter(|&t| version.supports(t))
        .collect();
    for (i, (t, dsel)) in vars.iter().enumerate() {
        let mut d: Vec<_> = dsel.iter().map(|&k| ids[k % ids.len()]).collect();
        d.dedup();
        // Only the first dimension may be the unlimited one.
        if unlimited {
            let first_rec = d.first() == Some(&ids[0]);
            d.retain(|&x| x != ids[0]);
            if first_rec {
                d.insert(0, ids[0]);
            }
        }
        let v = s
            .add_var(
                GroupId::ROOT,
                &format!("v{i}"),
                types[*t as usize % types.len()],
                &d,
            )
            .unwrap();
        if i % 2 == 0 {
            s.set_attr(
                GroupId::ROOT,
                Some(v),
                nctk_model::Attribute::new("note", Values::text("x")),
            );
        }
    }
    s
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn random_files_round_trip(
        v in 0usize..3,
        dims in proptest::collection::vec(1u64..5, 1..4),
        unlimited in any::<bool>(),
        nrecs in 0u64..4,
        vars in proptest::collection::vec((any::<u8>(), proptest::collection::vec(0usize..5, 0..4)), 1..6),
        fill in any::<bool>(),
        seed in any::<u64>(),
    ) {
        let version = [Version::Cdf1, Version::Cdf2, Version::Cdf5][v];
        let schema = random_schema(version, &dims, unlimited, &vars);
        let sink = Arc::new(MemSink::new());
        let mode = if fill { FillMode::Fill } else { FillMode::NoFill };
        let mut w = ClassicWriter::create_in_with_schema(sink.clone(), &schema, version, mode).unwrap();
        let mut expect = vec![];
        for id in schema.var_ids() {
            let mut shape = schema.shape(id);
            if schema.is_record_var(id) {
                shape[0] = nrecs;
            }
            let n = shape.iter().product::<u64>() as usize;
            let vals = values_for(schema.var(id).dtype, n, seed ^ id.0 as u64);
            w.write(id, &Selection::all(&shape), &vals).unwrap();
            expect.push(vals);
        }
        w.close().unwrap();
        let r = ClassicReader::from_bytes(sink.to_vec()).unwrap();
        let numrecs = if schema.var_ids().any(|v| schema.is_record_var(v)) { nrecs } else { 0 };
        prop_assert_eq!(r.numrecs(), numrecs);
        for id in schema.var_ids() {
            let got = r.read(id, &Selection::all(&r.schema().shape(id))).unwrap();
            if schema.is_record_var(id) && got.len() != expect[id.0 as usize].len() {
                // Records written by other variables only: all fill.
                prop_assert!(expect[id.0 as usize].is_empty());
                continue;
            }
            prop_assert_eq!(&got, &expect[id.0 as usize]);
        }
    }
}

#[test]
fn netcdf_c_reads_what_nctk_writes() {
    if !nctk_test_support::require::python(common::PYTHON_DUMP_NEEDS) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut files = vec![];
    let mut expected = vec![];
    for (k, version) in [Version::Cdf1, Version::Cdf2, Version::Cdf5]
        .into_iter()
        .enumerate()
    {
        let schema = random_schema(
            version,
            &[3, 2, 4],
            true,
            &[
                (0, vec![0, 1]),
                (1, vec![2]),
                (2, vec![0, 2, 3]),
                (3, vec![]),
                (4, vec![1, 3]),
                (5, vec![0]),
                (6, vec![1]),
                (9, vec![0, 1]),
            ],
        );
        let path = dir.path().join(format!("w{k}.nc"));
        let mut w = ClassicWriter::create_in_with_schema(
            std::sync::Arc::new(nctk_store::bytes::FileSink::create(&path).unwrap()),
            &schema,
            version,
            FillMode::Fill,
        )
        .unwrap();
        for id in schema.var_ids() {
            let mut shape = schema.shape(id);
            if schema.is_record_var(id) {
                shape[0] = 3;
            }
            let n = shape.iter().product::<u64>() as usize;
            w.write(
                id,
                &Selection::all(&shape),
                &values_for(schema.var(id).dtype, n, 99 + id.0 as u64),
            )
            .unwrap();
        }
        w.close().unwrap();
        let r = nctk_store::bytes::FileSource::open(&path)
            .map_err(nctk_classic::ClassicError::from)
            .and_then(|s| ClassicReader::from_source(std::sync::Arc::new(s)))
            .unwrap();
        let data: Vec<(String, String)> = r
            .schema()
            .var_ids()
            .map(|v| {
                let vals = r.read(v, &Selection::all(&r.schema().shape(v))).unwrap();
                (
                    r.schema().var(v).name.clone(),
                    common::hex(&vals.to_bytes(true)),
                )
            })
            .collect();
        expected.push(data);
        files.push(path);
    }
    let dump = common::python_dump(&files);
    for (f, data) in files.iter().zip(&expected) {
        let t = &dump[f.to_str().unwrap()];
        assert!(t.get("error").is_none(), "{t}");
        for (name, hex) in data {
            assert_eq!(
                t["vars"][name]["hex"].as_str(),
                Some(hex.as_str()),
                "{} {name}",
                f.display()
            );
        }
    }
}
