//! `nctk dump` of a block-compressed classic file prints, byte for byte,
//! what netCDF-C's `ncdump` prints for the original classic file (run here
//! on the original), or where ncdump refuses, what `nctk dump` prints for
//! the original, with the usual flags (`-h`, `-c`, `-s`, `-k`, `-v`,
//! `-b c`, `-f f`): a sample of
//! the corpus's classic files, CDF-1, CDF-2 and CDF-5, with and without
//! records, compressed with every codec and several block sizes.

mod common;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use nctk_classic::compressed::{compress, CodecId, CompressOptions};
use nctk_classic::ClassicReader;
use nctk_store::bytes::{ByteSource, FileSink, FileSource};
use nctk_test_support::{corpus::files_under, peer, require};

/// A sample of the corpus's classic files (those netCDF-C dumped), at
/// most about 40, small enough to dump quickly.
fn classic_sample(corpus: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = files_under(&corpus.join("generated/from-cdl"), |_| true)
        .into_iter()
        .filter(|p| {
            let s = p.to_string_lossy();
            s.ends_with(".nc")
                && PathBuf::from(format!("{s}.cdl.expected")).is_file()
                && std::fs::metadata(p).is_ok_and(|m| m.len() < 4 << 20)
        })
        .collect();
    files.sort();
    let step = files.len().div_ceil(38).max(1);
    files.into_iter().step_by(step).collect()
}

/// Compresses the classic file `from` into `to`.
fn compress_file(from: &Path, to: &Path, options: &CompressOptions) {
    let source: Arc<dyn ByteSource> = Arc::new(FileSource::open(from).unwrap());
    let reader = ClassicReader::from_source(source).unwrap();
    let sink = FileSink::create(to).unwrap();
    compress(&reader, &sink, options).unwrap_or_else(|e| panic!("{}: {e}", from.display()));
}

/// `ncdump ARGS FILE`'s output; `None` where netCDF-C 4.9.0 refuses
/// (its `ncdump -s` of a CDF-5 file: "Attempting netcdf-4 operation on
/// netcdf-3 file").
fn ncdump(args: &[&str], file: &Path) -> Option<String> {
    let all: Vec<&str> = args
        .iter()
        .copied()
        .chain([file.to_str().unwrap()])
        .collect();
    peer::run("ncdump", &all).ok()
}

/// `nctk dump ARGS FILE`'s output.
fn nctk_dump(args: &[&str], file: &Path) -> String {
    let mut all = vec!["dump"];
    all.extend_from_slice(args);
    all.push(file.to_str().unwrap());
    common::nctk_ok(&all)
}

#[test]
fn compressed_dumps_equal_the_original_and_ncdump() {
    let Some(corpus) = require::corpus() else {
        return;
    };
    if !require::tools(&["ncdump"]) {
        return;
    }
    let files = classic_sample(&corpus);
    assert!((30..=45).contains(&files.len()), "{} files", files.len());
    let codecs = [CodecId::Zstd, CodecId::Lz4, CodecId::Zlib, CodecId::Blosc];
    let dir = tempfile::tempdir().unwrap();
    let (mut records, mut cdf5, mut failures) = (0, 0, vec![]);
    let (mut compared, mut refused) = (0, 0);
    for (n, original) in files.iter().enumerate() {
        // The same file name in another directory: ncdump names the
        // dataset after it.
        let sub = dir.path().join(n.to_string());
        std::fs::create_dir(&sub).unwrap();
        let packed = sub.join(original.file_name().unwrap());
        let options = CompressOptions {
            codec: codecs[n % codecs.len()],
            shuffle: n % 3 != 0,
            block_bytes: [4, 100, 1 << 20][n % 3],
            ..CompressOptions::default()
        };
        compress_file(original, &packed, &options);
        let first_var = ClassicReader::from_source(Arc::new(FileSource::open(original).unwrap()))
            .unwrap()
            .header()
            .vars
            .first()
            .map(|v| v.name.clone());
        let mut flag_sets: Vec<Vec<&str>> = vec![
            vec![],
            vec!["-h"],
            vec!["-c"],
            vec!["-s"],
            vec!["-k"],
            vec!["-b", "c"],
            vec!["-f", "f"],
        ];
        if let Some(v) = &first_var {
            flag_sets.push(vec!["-v", v]);
        }
        for flags in &flag_sets {
            let packed_dump = nctk_dump(flags, &packed);
            // Against ncdump of the original where it dumps, else against
            // nctk's dump of the original (one more process only there).
            let Some(theirs) = ncdump(flags, original) else {
                refused += 1;
                if packed_dump != nctk_dump(flags, original) {
                    failures.push(format!(
                        "{} {flags:?}: the compressed file dumps otherwise than the original",
                        original.display()
                    ));
                }
                continue;
            };
            compared += 1;
            if packed_dump != theirs {
                failures.push(format!(
                    "{} {flags:?}: the compressed file dumps otherwise than ncdump of the original",
                    original.display()
                ));
            }
        }
        let full = std::fs::read_to_string(format!("{}.cdl.expected", original.display())).unwrap();
        records += usize::from(full.contains("UNLIMITED"));
        cdf5 += usize::from(std::fs::read(original).unwrap()[3] == 5);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(records >= 5 && cdf5 >= 3, "records {records}, CDF-5 {cdf5}");
    assert!(
        refused <= cdf5 && compared >= 200,
        "ncdump compared {compared}, refused {refused}"
    );
}
