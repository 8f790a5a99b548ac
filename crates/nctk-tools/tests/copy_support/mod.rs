//! Shared by the copy tests: a small classic sample file, a data source
//! that records (and can fail) reads, directory listings, dumps.

#![allow(dead_code)] // each test crate uses its own share of these

use std::path::Path;
use std::sync::Mutex;

use nctk::Format;
use nctk_cdl::print::{dump, Options};
use nctk_classic::{ClassicReader, ClassicWriter, FillMode, Version};
use nctk_model::{
    Attribute, DataSource, DataType, GroupId, Schema, Selection, SourceError, Values, VarId,
};
use nctk_tools::copy::CopyOptions;

/// `time` (unlimited, 5 records), `x` = 7: fixed `s(x)` short, record
/// `t(time, x)` float and `n(time)` int, in `version`.
pub fn sample(path: &Path, version: Version, extra: Option<DataType>) {
    let mut s = Schema::new();
    let time = s.add_dim(GroupId::ROOT, "time", 0, true).unwrap();
    let x = s.add_dim(GroupId::ROOT, "x", 7, false).unwrap();
    s.set_attr(
        GroupId::ROOT,
        None,
        Attribute::new("title", Values::text("sample")),
    );
    let sv = s
        .add_var(GroupId::ROOT, "s", DataType::Short, &[x])
        .unwrap();
    let t = s
        .add_var(GroupId::ROOT, "t", DataType::Float, &[time, x])
        .unwrap();
    s.set_attr(
        GroupId::ROOT,
        Some(t),
        Attribute::new("units", Values::text("K")),
    );
    let n = s
        .add_var(GroupId::ROOT, "n", DataType::Int, &[time])
        .unwrap();
    let u = extra.map(|dt| s.add_var(GroupId::ROOT, "u", dt, &[x]).unwrap());
    let mut w = ClassicWriter::create_in_with_schema(
        std::sync::Arc::new(nctk_store::bytes::FileSink::create(path).unwrap()),
        &s,
        version,
        FillMode::Fill,
    )
    .unwrap();
    w.write_from(sv, &Selection::all(&[7]), &[1i16, 2, 3, 4, 5, 6, 7])
        .unwrap();
    let tv: Vec<f32> = (0..35).map(|i| i as f32 * 0.5).collect();
    w.write_from(t, &Selection::block(&[0, 0], &[5, 7]), &tv)
        .unwrap();
    w.write_from(n, &Selection::block(&[0], &[5]), &[10i32, 20, 30, 40, 50])
        .unwrap();
    if let Some(u) = u {
        w.write_from(u, &Selection::all(&[7]), &[1i32; 7]).unwrap();
    }
    w.close().unwrap();
}

pub fn kind(k: Format) -> CopyOptions {
    CopyOptions {
        kind: Some(k),
        ..CopyOptions::default()
    }
}

pub fn entries(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// A data source that delegates to a classic reader, records every read
/// and can fail the n-th one.
pub struct Watched {
    pub inner: ClassicReader,
    pub reads: Mutex<Vec<(VarId, Selection)>>,
    pub fail_at: Option<usize>,
}

impl DataSource for Watched {
    fn schema(&self) -> &Schema {
        self.inner.schema()
    }

    fn read(&self, var: VarId, selection: &Selection) -> Result<Values, SourceError> {
        let mut reads = self.reads.lock().unwrap();
        reads.push((var, selection.clone()));
        if Some(reads.len()) == self.fail_at {
            return Err("injected failure".into());
        }
        self.inner.read(var, selection)
    }

    fn format(&self) -> Format {
        self.inner.format()
    }
}

pub fn watched(path: &Path, fail_at: Option<usize>) -> Watched {
    Watched {
        inner: nctk_store::bytes::FileSource::open(path)
            .map_err(nctk_classic::ClassicError::from)
            .and_then(|s| ClassicReader::from_source(std::sync::Arc::new(s)))
            .unwrap(),
        reads: Mutex::new(vec![]),
        fail_at,
    }
}

/// The dump of `path` (nctk's, as ncdump prints it) from its second line
/// on: the first names the file.
pub fn dump_body(path: &Path) -> String {
    dump_body_as(path, None)
}

/// A data source that reports another format, so that a classic file
/// dumps as ncdump prints a netCDF-4 dataset with the same content (text
/// attributes are not cut at newlines there, for one).
struct AsFormat<'a> {
    inner: &'a dyn DataSource,
    format: Format,
}

impl DataSource for AsFormat<'_> {
    fn schema(&self) -> &Schema {
        self.inner.schema()
    }

    fn read(&self, var: VarId, selection: &Selection) -> Result<Values, SourceError> {
        self.inner.read(var, selection)
    }

    fn format(&self) -> Format {
        self.format
    }
}

/// [`dump_body`], printed as for a dataset of `format` (`netCDF-4`) when
/// one is given.
pub fn dump_body_as(path: &Path, format: Option<Format>) -> String {
    let ds = nctk::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut out = vec![];
    let opts = Options {
        name: Some("x".into()),
        ..Options::default()
    };
    let source = AsFormat {
        inner: ds.source(),
        format: format.unwrap_or(ds.source().format()),
    };
    dump(&source, &path.display().to_string(), &opts, &mut out)
        .unwrap_or_else(|e| panic!("dump {}: {e}", path.display()));
    let text = String::from_utf8_lossy(&out).into_owned();
    text.split_once('\n')
        .map_or(text.clone(), |(_, rest)| rest.to_string())
}

/// netCDF-C's `ncdump args path` from its second line on (the first
/// names the file), without `_NCProperties` (which names the writer).
pub fn peer_dump_body(args: &[&str], path: &Path) -> String {
    let out = nctk_test_support::peer::run(
        "ncdump",
        args.iter()
            .copied()
            .map(String::from)
            .chain([path.display().to_string()]),
    )
    .unwrap_or_else(|e| panic!("ncdump {args:?} {}: {e}", path.display()));
    out.lines()
        .skip(1)
        .filter(|l| !l.contains(":_NCProperties = "))
        .collect::<Vec<_>>()
        .join("\n")
}
