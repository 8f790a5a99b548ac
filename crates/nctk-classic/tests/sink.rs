//! `ClassicWriter` as a `DataSink`: the model's contract checks, in memory
//! and in a file, and the finished file as netCDF-C's ncdump reads it.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use nctk_classic::{ClassicReader, ClassicWriter, FillMode, Version};
use nctk_model::conformance::{self, SinkTarget};
use nctk_model::convert::convert;
use nctk_model::{DataSink, DataSource, DataType, SourceError, Values};
use nctk_store::bytes::MemSink;
use nctk_test_support::{peer, require};

/// A classic file in memory.
struct InMemory {
    image: Arc<MemSink>,
    version: Version,
}

impl SinkTarget for InMemory {
    fn create(&mut self) -> Box<dyn DataSink> {
        self.image = Arc::new(MemSink::new());
        Box::new(
            ClassicWriter::create_in(self.image.clone(), self.version, FillMode::Fill).unwrap(),
        )
    }

    fn open(&mut self) -> Result<Box<dyn DataSource>, SourceError> {
        Ok(Box::new(ClassicReader::from_bytes(self.image.to_vec())?))
    }
}

/// A classic file on disk.
struct OnDisk {
    path: PathBuf,
    fill: FillMode,
}

impl SinkTarget for OnDisk {
    fn create(&mut self) -> Box<dyn DataSink> {
        let sink = std::sync::Arc::new(nctk_store::bytes::FileSink::create(&self.path).unwrap());
        Box::new(ClassicWriter::create_in(sink, Version::Cdf2, self.fill).unwrap())
    }

    fn open(&mut self) -> Result<Box<dyn DataSource>, SourceError> {
        let source = nctk_store::bytes::FileSource::open(&self.path)?;
        Ok(Box::new(ClassicReader::from_source(std::sync::Arc::new(
            source,
        ))?))
    }
}

#[test]
fn the_contract_holds_in_memory_for_every_version() {
    for version in [Version::Cdf1, Version::Cdf2, Version::Cdf5] {
        let mut target = InMemory {
            image: Arc::new(MemSink::new()),
            version,
        };
        conformance::sink_finishes(&mut target);
        conformance::sink_aborts(&mut target);
        conformance::sink_refuses_user_types(&mut target);
    }
}

#[test]
fn the_contract_holds_in_a_file_with_and_without_fill() {
    let dir = tempfile::tempdir().unwrap();
    for fill in [FillMode::Fill, FillMode::NoFill] {
        let mut target = OnDisk {
            path: dir.path().join("sink.nc"),
            fill,
        };
        conformance::sink_finishes(&mut target);
        conformance::sink_aborts(&mut target);
        assert_eq!(std::fs::metadata(&target.path).unwrap().len(), 0);
    }
}

/// The numbers of each variable in ncdump's data section.
fn ncdump_data(path: &Path) -> Vec<(String, Vec<f64>)> {
    let text = peer::run("ncdump", [path]).unwrap();
    let data = text.split_once("data:").expect("a data section").1;
    data.split(';')
        .filter_map(|item| {
            let (name, values) = item.split_once('=')?;
            let numbers = values
                .split(|c: char| c == ',' || c.is_whitespace())
                .filter(|s| !s.is_empty())
                .map(|s| s.parse::<f64>().unwrap_or_else(|_| panic!("number {s:?}")))
                .collect();
            Some((name.trim().to_string(), numbers))
        })
        .collect()
}

#[test]
fn ncdump_reads_what_the_sink_wrote() {
    if !require::tools(&["ncdump"]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut target = OnDisk {
        path: dir.path().join("sink.nc"),
        fill: FillMode::NoFill,
    };
    conformance::sink_finishes(&mut target);
    let dumped = ncdump_data(&target.path);
    for (name, values) in conformance::sink_expected() {
        let Ok(Values::Double(want)) = convert(&values, DataType::Double) else {
            panic!("{name:?} as doubles");
        };
        let got = dumped
            .iter()
            .find(|(n, _)| n == name)
            .unwrap_or_else(|| panic!("ncdump shows no {name:?}"));
        assert_eq!(got.1, want, "{name:?} as ncdump reads it");
    }
}
