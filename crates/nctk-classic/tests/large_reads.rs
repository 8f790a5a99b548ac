//! Reads large enough to be made in parts on several threads (more than
//! 16 MiB): whole variables, offset and strided selections of a fixed
//! variable and of a record variable interleaved with another, read with
//! `read_values`, `read_into` and `DataSource::read_into`, give the
//! values written, which are a function of each element's position.

use std::path::Path;
use std::sync::Arc;

use nctk_classic::{ClassicReader, ClassicWriter, FillMode, Version};
use nctk_model::{DataSource, DataType, GroupId, Schema, Selection, Values, VarId};
use nctk_store::bytes::{FileSink, FileSource};

/// Rows (the first dimension) and values per row: 40 MiB of doubles.
const ROWS: u64 = 80;
const COLS: u64 = 1 << 16;

/// The value written at row `r`, column `c` of variable `v`.
fn value(v: u64, r: u64, c: u64) -> f64 {
    (v * 1_000_000_000 + r * COLS + c) as f64
}

/// Writes `fixed(rows, cols)` and the record variables `rec(time, cols)`
/// and `small(time)` (interleaved in each record), doubles.
fn write(path: &Path) {
    let mut s = Schema::new();
    let t = s.add_dim(GroupId::ROOT, "time", 0, true).unwrap();
    let r = s.add_dim(GroupId::ROOT, "rows", ROWS, false).unwrap();
    let c = s.add_dim(GroupId::ROOT, "cols", COLS, false).unwrap();
    s.add_var(GroupId::ROOT, "fixed", DataType::Double, &[r, c])
        .unwrap();
    s.add_var(GroupId::ROOT, "rec", DataType::Double, &[t, c])
        .unwrap();
    s.add_var(GroupId::ROOT, "small", DataType::Double, &[t])
        .unwrap();
    let sink = Arc::new(FileSink::create(path).unwrap());
    let mut w =
        ClassicWriter::create_in_with_schema(sink, &s, Version::Cdf5, FillMode::NoFill).unwrap();
    for v in 0..2u64 {
        let all: Vec<f64> = (0..ROWS)
            .flat_map(|r| (0..COLS).map(move |c| value(v, r, c)))
            .collect();
        w.write_from(VarId(v as u32), &Selection::all(&[ROWS, COLS]), &all)
            .unwrap();
    }
    let small: Vec<f64> = (0..ROWS).map(|r| value(2, r, 0)).collect();
    w.write_from(VarId(2), &Selection::all(&[ROWS]), &small)
        .unwrap();
    w.close().unwrap();
}

/// The values `sel` selects of variable `v` (rank 2), as written.
fn expected(v: u64, sel: &Selection) -> Vec<f64> {
    let mut out = Vec::new();
    for i in 0..sel.count[0] {
        for j in 0..sel.count[1] {
            let r = sel.start[0] + i * sel.stride[0];
            let c = sel.start[1] + j * sel.stride[1];
            out.push(value(v, r, c));
        }
    }
    out
}

#[test]
fn reads_made_in_parts_give_the_values_written() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("large.nc");
    write(&path);
    let reader = ClassicReader::from_source(Arc::new(FileSource::open(&path).unwrap())).unwrap();
    let selections = [
        Selection::all(&[ROWS, COLS]),
        Selection::block(&[5, 0], &[70, COLS]),
        Selection::block(&[3, 7], &[75, COLS - 9]),
        Selection {
            start: vec![1, 0],
            count: vec![39, COLS],
            stride: vec![2, 1],
        },
    ];
    for v in 0..2u64 {
        let var = VarId(v as u32);
        for sel in &selections {
            let want = expected(v, sel);
            let what = format!("variable {v}, {sel:?}");
            let Values::Double(got) = reader.read_values(var, sel).unwrap() else {
                panic!("{what}: not doubles");
            };
            assert!(got == want, "{what}: read_values");
            let mut into = vec![0f64; want.len()];
            reader.read_into(var, sel, &mut into).unwrap();
            assert!(into == want, "{what}: read_into");
            let mut reused = Values::Double(vec![-1.0; 3]);
            DataSource::read_into(&reader, var, sel, &mut reused).unwrap();
            assert!(
                reused == Values::Double(want),
                "{what}: DataSource::read_into"
            );
        }
    }
    let past = Selection::block(&[70, 0], &[11, COLS]);
    assert!(
        reader.read_values(VarId(0), &past).is_err(),
        "a selection past the end is an error"
    );
}
