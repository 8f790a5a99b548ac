//! `ZarrWriter` as a `DataSink`: the model's contract checks in a memory
//! store and in a directory store, and the finished store as zarr-python
//! reads it.

use std::path::PathBuf;
use std::sync::Arc;

use nctk_model::conformance::{self, SinkTarget};
use nctk_model::convert::convert;
use nctk_model::{DataSink, DataSource, DataType, Schema, SourceError, Values};
use nctk_store::kv::{DirectoryStore, MemoryStore};
use nctk_test_support::require;
use nctk_zarr::{WriteOptions, ZarrOptions, ZarrReader, ZarrWriter};

mod stores;
use stores::{create_zip, open_path};

/// A store in memory.
struct InMemory {
    store: Arc<MemoryStore>,
    opts: WriteOptions,
}

impl SinkTarget for InMemory {
    fn create(&mut self) -> Box<dyn DataSink> {
        self.store = Arc::new(MemoryStore::new());
        Box::new(ZarrWriter::create(self.store.clone(), &Schema::new(), &self.opts).unwrap())
    }

    fn open(&mut self) -> Result<Box<dyn DataSource>, SourceError> {
        Ok(Box::new(ZarrReader::open(
            self.store.clone(),
            ZarrOptions::default(),
        )?))
    }
}

/// A directory store (a zip when the path ends in `.zip`).
struct OnDisk {
    path: PathBuf,
}

impl SinkTarget for OnDisk {
    fn create(&mut self) -> Box<dyn DataSink> {
        if self.path.is_dir() {
            std::fs::remove_dir_all(&self.path).unwrap();
        } else if self.path.exists() {
            std::fs::remove_file(&self.path).unwrap();
        }
        let opts = WriteOptions::default();
        let is_zip = self.path.extension().is_some_and(|e| e == "zip");
        Box::new(if is_zip {
            create_zip(&self.path, &Schema::new(), &opts).unwrap()
        } else {
            std::fs::create_dir_all(&self.path).unwrap();
            ZarrWriter::create(
                Arc::new(DirectoryStore::new(&self.path)),
                &Schema::new(),
                &opts,
            )
            .unwrap()
        })
    }

    fn open(&mut self) -> Result<Box<dyn DataSource>, SourceError> {
        Ok(Box::new(open_path(&self.path, ZarrOptions::default())?))
    }
}

#[test]
fn the_contract_holds_in_memory_for_every_layout() {
    for layout in [
        nctk_zarr::WriteLayout::NcZarr,
        nctk_zarr::WriteLayout::NcZarr490,
        nctk_zarr::WriteLayout::PureZarr { xarray: true },
    ] {
        for consolidated in [false, true] {
            let mut target = InMemory {
                store: Arc::new(MemoryStore::new()),
                opts: WriteOptions {
                    layout,
                    consolidated,
                    ..WriteOptions::default()
                },
            };
            conformance::sink_finishes(&mut target);
            conformance::sink_aborts(&mut target);
            conformance::sink_refuses_user_types(&mut target);
        }
    }
}

#[test]
fn the_contract_holds_in_a_directory_and_a_zip() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["sink.zarr", "sink.zip"] {
        let mut target = OnDisk {
            path: dir.path().join(name),
        };
        conformance::sink_finishes(&mut target);
        conformance::sink_aborts(&mut target);
    }
    // The zip's scratch directory went with the abort.
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(
        !left.iter().any(|n| n.to_string_lossy().contains("partial")),
        "{left:?}"
    );
}

#[test]
fn a_store_with_variables_refuses_other_definitions() {
    let store = Arc::new(MemoryStore::new());
    let schema = conformance::sink_schema();
    let mut sink: Box<dyn DataSink> =
        Box::new(ZarrWriter::create(store, &schema, &WriteOptions::default()).unwrap());
    let mut more = schema.clone();
    more.add_dim(nctk_model::GroupId::ROOT, "z", 2, false)
        .unwrap();
    let err = sink.define(&more).unwrap_err().to_string();
    assert!(err.contains("redefinition"), "{err}");
}

#[test]
fn zarr_python_reads_what_the_sink_wrote() {
    let dir = tempfile::tempdir().unwrap();
    let mut target = OnDisk {
        path: dir.path().join("sink.zarr"),
    };
    conformance::sink_finishes(&mut target);
    let script = "import json, sys, zarr\n\
        g = zarr.open_group(sys.argv[1], mode='r', zarr_format=2)\n\
        print(json.dumps({n: [float(x) for x in a[...].ravel()] for n, a in g.arrays()}))";
    let Some(out) = require::python_output(&["zarr"], script, [&target.path]) else {
        return;
    };
    let read: serde_json::Value = serde_json::from_str(&out).unwrap();
    for (name, values) in conformance::sink_expected() {
        let Ok(Values::Double(want)) = convert(&values, DataType::Double) else {
            panic!("{name:?} as doubles");
        };
        let got: Vec<f64> = serde_json::from_value(read[name].clone())
            .unwrap_or_else(|e| panic!("zarr-python's {name:?}: {e} in {out}"));
        assert_eq!(got, want, "{name:?} as zarr-python reads it");
    }
}
