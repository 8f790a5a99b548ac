//! How many reads a selection costs: the point time series `temp[:, 360,
//! 720]` of the benchmark field issues one read per time step (the steps
//! lie a whole 4 MB field apart), and a time series whose values are
//! adjacent in the file issues one read. The expected counts come from the
//! file's own header (each variable's stored `begin`) and the format's
//! layout rules, not from the reader; the reads are counted by a
//! `ByteSource` wrapper over the real file.

use std::path::Path;
use std::sync::Arc;

use nctk_classic::{ClassicReader, ClassicWriter, FillMode, Version};
use nctk_model::{DataType, GroupId, Schema, Selection, VarId};
use nctk_store::bytes::FileSource;
use nctk_store::conformance::CountingSource;

/// Time steps of the benchmark field.
/// The benchmark field's grid (`nctk_bench_support::{NLAT, NLON}`, which a format
/// crate does not depend on).
const NLAT: u64 = 721;
const NLON: u64 = 1440;
const NT: u64 = 100;

/// Opens `path` through a counting source; the counters start at zero
/// once the header has been read.
fn open_counted(path: &Path) -> (ClassicReader, Arc<CountingSource<FileSource>>) {
    let src = Arc::new(CountingSource::new(FileSource::open(path).unwrap()));
    let reader = ClassicReader::from_source(src.clone()).unwrap();
    src.reset();
    (reader, src)
}

/// Reads needed for 4-byte values at `offsets` (ascending): one per run of
/// values adjacent in the file.
fn adjacent_runs(offsets: &[u64]) -> usize {
    1 + offsets.windows(2).filter(|w| w[1] != w[0] + 4).count()
}

/// The value written at time step `t`.
fn value(t: u64) -> f32 {
    200.0 + 1.5 * t as f32
}

/// Writes `name(time, dims...)` (float, no fill) with `value(t)` at `at`
/// of each time step, the time dimension unlimited or fixed.
fn write_series(path: &Path, dims: &[(&str, u64)], unlimited: bool, at: &[u64]) {
    let mut s = Schema::new();
    let mut ids = vec![s
        .add_dim(
            GroupId::ROOT,
            "time",
            if unlimited { 0 } else { NT },
            unlimited,
        )
        .unwrap()];
    for (name, len) in dims {
        ids.push(s.add_dim(GroupId::ROOT, name, *len, false).unwrap());
    }
    let var = s
        .add_var(GroupId::ROOT, "temp", DataType::Float, &ids)
        .unwrap();
    let sink = Arc::new(nctk_store::bytes::FileSink::create(path).unwrap());
    let mut w =
        ClassicWriter::create_in_with_schema(sink, &s, Version::Cdf5, FillMode::NoFill).unwrap();
    let ones = vec![1; at.len()];
    for t in 0..NT {
        let start: Vec<u64> = std::iter::once(t).chain(at.iter().copied()).collect();
        let count: Vec<u64> = std::iter::once(1).chain(ones.iter().copied()).collect();
        w.write_from(var, &Selection::block(&start, &count), &[value(t)])
            .unwrap();
    }
    w.close().unwrap();
}

/// Reads the time series at `at` through a counting source and checks the
/// values and that the reads equal the runs of adjacent values at
/// `offsets(begin)`.
fn check_series(path: &Path, at: &[u64], offsets: impl Fn(u64) -> Vec<u64>) {
    let (reader, src) = open_counted(path);
    let var = VarId(0);
    let start: Vec<u64> = std::iter::once(0).chain(at.iter().copied()).collect();
    let count: Vec<u64> = std::iter::once(NT).chain(at.iter().map(|_| 1)).collect();
    let mut got = vec![0f32; NT as usize];
    reader
        .read_into(var, &Selection::block(&start, &count), &mut got)
        .unwrap();
    let want: Vec<f32> = (0..NT).map(value).collect();
    assert_eq!(got, want, "{}: values", path.display());
    let expected = adjacent_runs(&offsets(reader.header().vars[0].begin));
    assert_eq!(
        src.reads(),
        expected,
        "{}: reads of the time series",
        path.display()
    );
    assert_eq!(src.lens(), 0, "no length queries");
}

#[test]
fn point_time_series_of_the_benchmark_field_reads_once_per_step() {
    let dir = tempfile::tempdir().unwrap();
    let at = [360, 720];
    let within = (360 * NLON + 720) * 4;
    let field = NLAT * NLON * 4;

    // As the benchmark writes it: `time` fixed, one 4 MB field per step.
    let fixed = dir.path().join("fixed.nc");
    write_series(&fixed, &[("lat", NLAT), ("lon", NLON)], false, &at);
    check_series(&fixed, &at, |begin| {
        (0..NT).map(|t| begin + t * field + within).collect()
    });

    // `time` unlimited: the only record variable, so a record is one field.
    let record = dir.path().join("record.nc");
    write_series(&record, &[("lat", NLAT), ("lon", NLON)], true, &at);
    check_series(&record, &at, |begin| {
        (0..NT).map(|t| begin + t * field + within).collect()
    });
}

#[test]
fn adjacent_time_series_reads_once() {
    // `temp(time)` alone: records of one value each, packed without
    // padding (the format's rule for a single record variable), so the
    // whole series is one run.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("series.nc");
    write_series(&path, &[], true, &[]);
    check_series(&path, &[], |begin| (0..NT).map(|t| begin + 4 * t).collect());
}
