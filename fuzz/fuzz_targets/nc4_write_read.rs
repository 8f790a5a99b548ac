//! The netCDF-4/HDF5 writer's output read back: fuzzed CDL text parsed for
//! netCDF-4 (groups, user types, strings, every storage the CDL names) is
//! written with `nctk::create_with(.., Format::Netcdf4, ..)`; when the
//! writer accepts the dataset, the file it made must open, hold every
//! variable, and read back exactly the values written, in nctk's reader.
//! The writer may refuse a dataset (an error), never panic, and never
//! leave a file that reads back different values.
//!
//! Seeds: the corpus's CDL files and those the tests generate,
//!
//! ```sh
//! mkdir -p fuzz/corpus/nc4_write_read
//! find "$NCTK_CORPUS" -name '*.cdl' -size -16k -exec cp {} fuzz/corpus/nc4_write_read/ \;
//! cd fuzz && RUSTC_BOOTSTRAP=1 cargo fuzz run -s none nc4_write_read -- -max_len=16384 -rss_limit_mb=2048
//! ```
#![no_main]

use libfuzzer_sys::fuzz_target;
use nctk::{CreateOptions, Format};
use nctk_cdl::parse::{parse_with, ParseOptions};
use nctk_model::Selection;

/// Datasets with more elements than this in all are not written (a
/// fuzzed dimension may legitimately be huge).
const MAX_ELEMENTS: u64 = 1 << 16;

fuzz_target!(|data: &[u8]| {
    let options = ParseOptions {
        kind: Some(Format::Netcdf4),
        keywords: Some(Format::Netcdf4),
        ..ParseOptions::default()
    };
    let Ok(cdl) = parse_with(data, &options) else {
        return;
    };
    let schema = &cdl.schema;
    let total = schema.var_ids().try_fold(0u64, |sum, v| {
        let n = schema
            .shape(v)
            .iter()
            .try_fold(1u64, |a, &b| a.checked_mul(b))?;
        sum.checked_add(n)
    });
    if total.is_none_or(|n| n > MAX_ELEMENTS) {
        return;
    }
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("w.nc");
    let written = (|| -> Result<(), nctk::Error> {
        let mut def = nctk::create_with(&path, Format::Netcdf4, CreateOptions::new())?;
        def.define_all(schema)?;
        let mut out = def.end_define()?;
        for v in schema.var_ids() {
            let shape = schema.shape(v);
            if let Some(values) = cdl.var_data(v).filter(|_| !shape.contains(&0)) {
                out.write(v, &Selection::all(&shape), values)?;
            }
        }
        out.close()
    })();
    if written.is_err() {
        assert!(!path.exists(), "a failed write left {}", path.display());
        return;
    }
    let back = nctk::open(&path).expect("the written file opens");
    let names: Vec<String> = schema.var_ids().map(|v| schema.var_path(v)).collect();
    for (v, name) in schema.var_ids().zip(&names) {
        let var = back
            .variable(name)
            .unwrap_or_else(|| panic!("variable {name} was written"));
        let shape = schema.shape(v);
        assert_eq!(var.shape(), shape, "{name}");
        let Some(expected) = cdl.var_data(v).filter(|_| !shape.contains(&0)) else {
            continue;
        };
        let got = var
            .read_values(&Selection::all(&shape))
            .unwrap_or_else(|e| panic!("{name} reads back: {e}"));
        // Floating-point values compare bit for bit (NaNs are data too).
        let same = got.len() == expected.len()
            && (0..got.len()).all(|i| {
                expected
                    .get(i)
                    .is_some_and(|value| got.same_value_at(i, &value))
            });
        assert!(same, "{name}: wrote {expected:?}, read {got:?}");
    }
});
