//! Block-compressed files damaged on purpose (`compressed_cases`): the
//! index refuses each damaged index, superblock or lying header with an
//! error naming the variable, the block and the stored file's offset;
//! `validate` reports each (and every block's checksum and decoded
//! length); nothing panics or allocates past a bound. Only bounded cases
//! run in this binary: the allocation tracker sees the whole process.

mod compressed_cases;

use std::time::Duration;

use compressed_cases::{all_cases, Case};
use nctk_classic::compressed::{validate_report, Index};
use nctk_classic::Severity;
use nctk_store::bytes::MemSource;
use nctk_test_support::bounded::{run_case, Bounds, Tracking};

#[global_allocator]
static GLOBAL: Tracking = Tracking;

/// The bounds of a case: the sample is a few KiB, its blocks 1000 bytes;
/// nothing may allocate more than a codec's own context (zstd's
/// decompression context is about 380 KB) whatever sizes the damaged file
/// declares.
const BOUNDS: Bounds = Bounds {
    time: Duration::from_secs(30),
    allocation: 1 << 20,
};

/// Runs `check` on every case of every codec under [`BOUNDS`].
fn for_all_cases(check: fn(&Case) -> Result<(), String>) {
    let mut failures = vec![];
    let mut count = 0;
    for (codec, cases) in all_cases() {
        for case in cases {
            count += 1;
            let label = format!("{}: {}", codec.name(), case.label);
            if let Some(f) = run_case(label, BOUNDS, move || check(&case)) {
                failures.push(f);
            }
        }
    }
    assert!(count >= 5 * 20, "{count} cases");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_index_refuses_damage_naming_variable_block_and_offset() {
    for_all_cases(
        |case| match Index::open(&MemSource::new(case.bytes.clone())) {
            Ok(_) if case.expect.opens => Ok(()),
            Ok(_) => Err("the index opened".into()),
            Err(e) if case.expect.opens => Err(format!("the index did not open: {e}")),
            Err(e) => case.expect.check(&e.to_string()),
        },
    );
}

#[test]
fn validate_reports_each_damage_at_its_offset() {
    for_all_cases(|case| {
        let report = validate_report(&MemSource::new(case.bytes.clone()));
        let errors: Vec<String> = report
            .findings
            .iter()
            .filter(|f| f.severity == Severity::Error)
            .map(|f| f.to_string())
            .collect();
        let hit = report.findings.iter().any(|f| {
            f.severity == Severity::Error
                && f.offset == case.expect.offset
                && case.expect.check(&f.to_string()).is_ok()
        });
        if hit {
            Ok(())
        } else {
            Err(format!(
                "no error at offset {} naming {:?}: {errors:?}",
                case.expect.offset, case.expect
            ))
        }
    });
}
