//! The printer against netCDF-C 4.9.0's `ncdump` on every classic binary
//! of the shared corpus that has an expected dump: output must be
//! byte-identical (`F.cdl.expected` = `ncdump F`, `F.h.cdl.expected` =
//! `ncdump -h F`).

use std::path::{Path, PathBuf};

use nctk_cdl::print::{dump, Options};
use nctk_classic::ClassicReader;
use nctk_test_support::{corpus::files_under, require};

/// Expected dumps that are known to differ, with the reason.
const EXCEPTIONS: &[(&str, &str)] = &[];

fn is_classic(path: &Path) -> bool {
    let Ok(b) = std::fs::read(path) else {
        return false;
    };
    b.len() >= 4 && &b[..3] == b"CDF" && matches!(b[3], 1 | 2 | 5)
}

/// (binary, expected, header_only) for every classic binary with an expected dump.
pub fn cases(corpus: &Path) -> Vec<(PathBuf, PathBuf, bool)> {
    let gen = corpus.join("generated");
    let mut expected = files_under(&gen.join("from-cdl"), |_| true);
    expected.extend(files_under(&gen.join("refdumps"), |_| true));
    expected.retain(|p| p.to_string_lossy().ends_with(".cdl.expected"));
    let mut cases = vec![];
    for e in expected {
        let s = e.to_string_lossy().into_owned();
        let (stem, header_only) = match s.strip_suffix(".h.cdl.expected") {
            Some(stem) => (stem.to_string(), true),
            None => (s.strip_suffix(".cdl.expected").unwrap().to_string(), false),
        };
        let bin = if let Ok(rel) = Path::new(&stem).strip_prefix(gen.join("refdumps")) {
            corpus.join(rel)
        } else {
            PathBuf::from(&stem)
        };
        if bin.is_file() && is_classic(&bin) {
            cases.push((bin, e, header_only));
        }
    }
    cases.sort();
    cases
}

#[test]
fn corpus_dumps_are_byte_identical() {
    let Some(corpus) = require::corpus() else {
        return;
    };
    let cases = cases(&corpus);
    assert!(!cases.is_empty());
    let mut failures = vec![];
    let mut passed = 0;
    for (bin, exp, header_only) in &cases {
        let expected = std::fs::read(exp).unwrap();
        let opts = Options {
            header_only: *header_only,
            ..Options::default()
        };
        let got = match nctk_store::bytes::FileSource::open(bin)
            .map_err(nctk_classic::ClassicError::from)
            .and_then(|s| ClassicReader::from_source(std::sync::Arc::new(s)))
        {
            Ok(r) => {
                let mut out = vec![];
                match dump(&r, &bin.to_string_lossy(), &opts, &mut out) {
                    Ok(()) => out,
                    Err(e) => format!("dump error: {e}").into_bytes(),
                }
            }
            Err(e) => format!("open error: {e}").into_bytes(),
        };
        let rel = exp
            .strip_prefix(&corpus)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        if got == expected {
            passed += 1;
        } else if !EXCEPTIONS.iter().any(|(p, _)| *p == rel) {
            let line = first_diff(&got, &expected);
            failures.push(format!("{rel}: {line}"));
        }
    }
    eprintln!("corpus: {passed}/{} byte-identical", cases.len());
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

fn first_diff(got: &[u8], exp: &[u8]) -> String {
    let g = String::from_utf8_lossy(got);
    let e = String::from_utf8_lossy(exp);
    for (i, (a, b)) in g.lines().zip(e.lines()).enumerate() {
        if a != b {
            return format!("line {}: got {a:?}, expected {b:?}", i + 1);
        }
    }
    format!(
        "lengths differ: got {} lines, expected {}",
        g.lines().count(),
        e.lines().count()
    )
}
