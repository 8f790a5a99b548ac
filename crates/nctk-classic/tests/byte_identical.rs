//! The writer reproduces netCDF-C's files byte for byte: every corpus file
//! made by `ncgen` (`generated/from-cdl/**/X.nc{3,5,6}.nc`) is read, written
//! again from its schema and data in fill mode, and compared.

mod common;

use nctk_classic::{ClassicReader, ClassicWriter, FillMode};
use nctk_model::{DataSource, Selection};
use nctk_store::bytes::MemSink;
use std::sync::Arc;

#[test]
fn ncgen_files_are_reproduced_byte_for_byte() {
    let Some(dir) = nctk_test_support::require::corpus() else {
        return;
    };
    let files: Vec<_> = common::classic_files(&dir.join("generated/from-cdl"))
        .into_iter()
        .filter(|p| {
            let n = p.to_string_lossy();
            n.ends_with(".nc3.nc") || n.ends_with(".nc5.nc") || n.ends_with(".nc6.nc")
        })
        .collect();
    assert!(files.len() > 150, "found only {} files", files.len());
    let mut failures = vec![];
    for f in &files {
        let original = std::fs::read(f).unwrap();
        let r = ClassicReader::from_bytes(original.clone()).unwrap();
        let sink = Arc::new(MemSink::new());
        let result = (|| -> nctk_classic::Result<()> {
            let mut w = ClassicWriter::create_in_with_schema(
                sink.clone(),
                r.schema(),
                r.version(),
                FillMode::Fill,
            )?;
            for v in r.schema().var_ids() {
                let sel = Selection::all(&r.schema().shape(v));
                let values = r.read_values(v, &sel)?;
                w.write(v, &sel, &values)?;
            }
            w.close()
        })();
        if let Err(e) = result {
            failures.push(format!("{}: {e}", f.display()));
            continue;
        }
        let ours = sink.to_vec();
        if ours != original {
            let first = ours
                .iter()
                .zip(&original)
                .position(|(a, b)| a != b)
                .unwrap_or(ours.len().min(original.len()));
            failures.push(format!(
                "{}: differs at byte {first} (ours {} bytes, netCDF-C {})",
                f.display(),
                ours.len(),
                original.len()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} differ:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}
