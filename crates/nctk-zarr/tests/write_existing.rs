//! `ZarrWriter::open_existing`: writers filling disjoint regions of a store
//! an earlier writer made, at once, leave its metadata as it was and the
//! values where they wrote them; a store whose arrays differ is refused.

use std::sync::Arc;

use nctk_model::{DataSource, GroupId, Layout, Schema, Selection, Values, VarId};
use nctk_store::kv::{MemoryStore, ReadableStore};
use nctk_zarr::{WriteLayout, WriteOptions, ZarrOptions, ZarrReader, ZarrWriter};

/// One `int` variable `v(x)` of length `n`, in chunks of 3.
fn schema(n: u64) -> Schema {
    let mut s = Schema::new();
    let x = s.add_dim(GroupId::ROOT, "x", n, false).unwrap();
    let v = s
        .add_var(GroupId::ROOT, "v", nctk_model::DataType::Int, &[x])
        .unwrap();
    s.var_mut(v).storage.layout = Layout::Chunked(vec![3]);
    s
}

fn metadata(store: &MemoryStore) -> Vec<(String, Vec<u8>)> {
    store
        .keys()
        .into_iter()
        .filter(|k| {
            !k.as_str()
                .chars()
                .last()
                .is_some_and(|c| c.is_ascii_digit())
        })
        .map(|k| {
            (
                k.as_str().to_string(),
                store.get(&k).unwrap().unwrap().to_vec(),
            )
        })
        .collect()
}

#[test]
fn writers_fill_disjoint_regions_of_an_existing_store() {
    for layout in [
        WriteLayout::NcZarr,
        WriteLayout::PureZarr { xarray: true },
        WriteLayout::ZarrV3 { nczarr: false },
    ] {
        let opts = WriteOptions {
            layout,
            ..WriteOptions::default()
        };
        let store = Arc::new(MemoryStore::new());
        ZarrWriter::create(store.clone(), &schema(6), &opts)
            .unwrap()
            .finish()
            .unwrap();
        let before = metadata(&store);
        std::thread::scope(|scope| {
            for start in [0u64, 3] {
                let (store, opts) = (store.clone(), opts.clone());
                scope.spawn(move || {
                    let mut w = ZarrWriter::open_existing(store, &schema(6), &opts).unwrap();
                    let sel = Selection {
                        start: vec![start],
                        count: vec![3],
                        stride: vec![1],
                    };
                    let values = Values::Int((start as i32..start as i32 + 3).collect());
                    w.write(VarId(0), &sel, &values).unwrap();
                    w.finish().unwrap();
                });
            }
        });
        assert_eq!(metadata(&store), before, "{layout:?}: the metadata changed");
        let reader = ZarrReader::open(store.clone(), ZarrOptions::default()).unwrap();
        let all = Selection {
            start: vec![0],
            count: vec![6],
            stride: vec![1],
        };
        assert_eq!(
            reader.read(VarId(0), &all).unwrap(),
            Values::Int(vec![0, 1, 2, 3, 4, 5]),
            "{layout:?}"
        );
        let err = ZarrWriter::open_existing(store.clone(), &schema(7), &opts).unwrap_err();
        assert!(err.to_string().contains("differs"), "{layout:?}: {err}");
        let empty = Arc::new(MemoryStore::new());
        let err = ZarrWriter::open_existing(empty, &schema(6), &opts).unwrap_err();
        assert!(
            err.to_string().contains("does not hold"),
            "{layout:?}: {err}"
        );
    }
}
