//! Damaged netCDF-4/HDF5 files: every HDF5 file of the corpus, cut short
//! at many offsets and with single bytes flipped at many places, opened
//! from memory and read variable by variable. Each case must end, within
//! a time bound, in values or in an error naming the file; never a panic,
//! a hang, or an allocation larger than [`MAX_ALLOCATION`].

use std::path::{Path, PathBuf};
use std::time::Duration;

use nctk::model::Selection;
use nctk_test_support::bounded::{Bounds, Rng};
use nctk_test_support::{corpus::files_under, require};

/// The largest single allocation a damaged file may cause (the corpus's
/// files and their variables are a few megabytes at most).
const MAX_ALLOCATION: usize = 256 << 20;

/// Variables with more elements than this (a flipped extent) are not read:
/// the reader may hold them legitimately; opening must still be bounded.
const MAX_READ_ELEMENTS: u64 = 1 << 22;

/// How long one case may take (a debug build, two shared cores).
const TIME_BOUND: Duration = Duration::from_secs(30);

#[global_allocator]
static GLOBAL: nctk_test_support::alloc::Tracking = nctk_test_support::alloc::Tracking;

/// The corpus's HDF5 files, by their signature.
fn corpus_hdf5_files(corpus: &Path) -> Vec<PathBuf> {
    files_under(&corpus.join("netcdf-c"), |_| true)
        .into_iter()
        .filter(|p| {
            p.extension().is_some_and(|e| e == "nc")
                && std::fs::read(p).is_ok_and(|b| b.starts_with(b"\x89HDF\r\n\x1a\n"))
        })
        .collect()
}

/// Opens `bytes` as `name` and reads every variable of a sane size;
/// errors must name `name`. `Err` says what went wrong with the case.
fn open_and_read(name: &str, bytes: Vec<u8>) -> Result<(), String> {
    let ds = match nctk::open_bytes(name, bytes.into()) {
        Ok(ds) => ds,
        Err(e) => {
            let text = e.to_string();
            return if text.contains(name) {
                Ok(())
            } else {
                Err(format!("open error does not name the file: {text}"))
            };
        }
    };
    for var in ds.variables() {
        let shape = var.shape();
        let n = shape.iter().try_fold(1u64, |a, &b| a.checked_mul(b));
        if n.is_none_or(|n| n > MAX_READ_ELEMENTS) {
            continue;
        }
        if let Err(e) = var.read_values(&Selection::all(&shape)) {
            let text = e.to_string();
            if !text.contains(name) {
                return Err(format!(
                    "read error of {} does not name the file: {text}",
                    var.name()
                ));
            }
        }
    }
    Ok(())
}

/// Runs one case under the bounds: a panic, a case past [`TIME_BOUND`],
/// an allocation past [`MAX_ALLOCATION`] or an error not naming the file
/// is a failure, described.
fn run_case(name: String, bytes: Vec<u8>) -> Option<String> {
    let bounds = Bounds {
        time: TIME_BOUND,
        allocation: MAX_ALLOCATION,
    };
    let label = name.clone();
    nctk_test_support::bounded::run_case(label, bounds, move || open_and_read(&name, bytes))
}

/// Runs `cases(file bytes)` of every corpus HDF5 file, and fails with all
/// the failures.
fn check_all(make: impl Fn(&str, &[u8]) -> Vec<(String, Vec<u8>)>) {
    let Some(corpus) = require::corpus() else {
        return;
    };
    let files = corpus_hdf5_files(&corpus);
    assert!(files.len() >= 10, "{files:?}");
    // The intact files read without error (the cases below start from a
    // file the reader accepts).
    let mut failures = vec![];
    let mut count = 0;
    for file in &files {
        let bytes = std::fs::read(file).unwrap();
        let stem = file.file_name().unwrap().to_string_lossy().into_owned();
        if let Err(e) = nctk::open_bytes(&stem, bytes.clone().into()) {
            failures.push(format!("{stem}: the intact file does not open: {e}"));
        }
        for (name, damaged) in make(&stem, &bytes) {
            count += 1;
            failures.extend(run_case(name, damaged));
        }
    }
    assert!(count > 1000, "only {count} cases");
    assert!(
        failures.is_empty(),
        "{} of {count} cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Cuts at every third offset of the first 4 KiB (superblock, root object
/// header, first heaps) and at 64 offsets spread over the rest.
#[test]
fn truncated_files_give_errors_naming_the_file() {
    check_all(|stem, bytes| {
        let mut cuts: Vec<usize> = (0..bytes.len().min(4096)).step_by(3).collect();
        cuts.extend((0..64).map(|i| bytes.len() * i / 64));
        cuts.sort_unstable();
        cuts.dedup();
        cuts.into_iter()
            .map(|at| (format!("{stem} cut at {at}"), bytes[..at].to_vec()))
            .collect()
    });
}

/// One byte changed (all bits flipped, or one bit) at 400 places per
/// file, two thirds of them in the first 4 KiB where the metadata is.
#[test]
fn byte_flips_give_values_or_errors_naming_the_file() {
    check_all(|stem, bytes| {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ bytes.len() as u64);
        (0..400)
            .map(|i| {
                let at = if i % 3 == 2 {
                    rng.below(bytes.len())
                } else {
                    rng.below(bytes.len().min(4096))
                };
                let mask = if i % 2 == 0 { 0xFF } else { 1 << rng.below(8) };
                let mut damaged = bytes.to_vec();
                damaged[at] ^= mask;
                (format!("{stem} byte {at} ^ {mask:#04x}"), damaged)
            })
            .collect()
    });
}
