//! Block-compressed classic files through the facade: `nctk::open` (a
//! path), `open_mem` and `open_bytes` read them as the classic file they
//! stand for, and `nctk::kind` gives its format. Truth: netCDF-C's own
//! dump of the original corpus file (`X.cdl.expected`) and the format
//! byte of the original.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use nctk::model::Format;
use nctk_cdl::print::{dump, Options};
use nctk_classic::compressed::{compress, CodecId, CompressOptions};
use nctk_classic::ClassicReader;
use nctk_store::bytes::{FileSource, MemSink};
use nctk_test_support::{corpus::files_under, require};

/// A sample of the corpus's classic files with netCDF-C's full dump,
/// CDF-1, CDF-2 and CDF-5 alike.
fn classic_sample(corpus: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = files_under(&corpus.join("generated/from-cdl"), |_| true)
        .into_iter()
        .filter(|p| {
            let s = p.to_string_lossy();
            s.ends_with(".nc") && PathBuf::from(format!("{s}.cdl.expected")).is_file()
        })
        .collect();
    files.sort();
    files.into_iter().step_by(8).collect()
}

/// The compressed bytes of the classic file `path`.
fn compressed(path: &Path, options: &CompressOptions) -> Vec<u8> {
    let source = Arc::new(FileSource::open(path).unwrap());
    let reader = ClassicReader::from_source(source).unwrap();
    let sink = MemSink::new();
    compress(&reader, &sink, options).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    sink.into_vec()
}

/// nctk's dump of `ds`, named after the file `name` (as ncdump names a
/// dataset: the file name minus its last extension).
fn dump_of(ds: &nctk::Dataset, name: &str) -> String {
    let mut out = vec![];
    dump(ds.source(), name, &Options::default(), &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

/// The file name of `path`.
fn file_name(path: &Path) -> String {
    path.file_name().unwrap().to_string_lossy().into_owned()
}

/// A compressed file opened from a path, from memory and from named bytes
/// dumps exactly as netCDF-C dumped the original; `kind` and the
/// dataset's format are the original's (from its version byte).
#[test]
fn compressed_files_open_as_the_classic_file() {
    let Some(corpus) = require::corpus() else {
        return;
    };
    let files = classic_sample(&corpus);
    assert!(files.len() >= 20, "{} files", files.len());
    let codecs = [CodecId::Zstd, CodecId::Lz4, CodecId::Zlib, CodecId::Blosc];
    let dir = tempfile::tempdir().unwrap();
    let mut kinds = std::collections::BTreeSet::new();
    for (n, f) in files.iter().enumerate() {
        let options = CompressOptions {
            codec: codecs[n % codecs.len()],
            block_bytes: [7, 64, 1 << 20][n % 3],
            ..CompressOptions::default()
        };
        let bytes = compressed(f, &options);
        let name = file_name(f);
        let expected = std::fs::read_to_string(format!("{}.cdl.expected", f.display())).unwrap();
        let path = dir.path().join(&name);
        std::fs::write(&path, &bytes).unwrap();

        let ds = nctk::open(&path).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        assert_eq!(dump_of(&ds, &name), expected, "{} from a path", f.display());
        let ds = nctk::open_mem(bytes.clone()).unwrap();
        assert_eq!(dump_of(&ds, &name), expected, "{} from memory", f.display());
        let ds = nctk::open_bytes("named", bytes.into()).unwrap();
        assert_eq!(dump_of(&ds, &name), expected, "{} from bytes", f.display());

        let want = match std::fs::read(f).unwrap()[3] {
            1 => Format::Classic,
            2 => Format::Offset64,
            5 => Format::Cdf5,
            other => panic!("{}: version byte {other}", f.display()),
        };
        assert_eq!(nctk::kind(&path).unwrap(), want, "{}", f.display());
        assert_eq!(ds.format(), want, "{}", f.display());
        kinds.insert(want.name());
    }
    assert_eq!(kinds.len(), 3, "CDF-1, CDF-2 and CDF-5: {kinds:?}");
}

/// A compressed file whose block is damaged fails to open or to read
/// (the classic reader's first read covers the first blocks) with an
/// error naming the variable, the block and its offset in the stored
/// file.
#[test]
fn a_damaged_block_is_an_error_naming_it() {
    let Some(file) = require::corpus_path("generated/from-cdl/netcdf-c/ncgen/c5.nc5.nc") else {
        return;
    };
    let options = CompressOptions {
        codec: CodecId::None,
        ..CompressOptions::default()
    };
    let mut bytes = compressed(&file, &options);
    let index =
        nctk_classic::compressed::Index::open(&nctk_store::bytes::MemSource::new(bytes.clone()))
            .unwrap();
    let tables = index.tables.as_ref().unwrap();
    let (var, entry) = (0..tables.len())
        .find_map(|v| tables[v].first().map(|e| (v, *e)))
        .unwrap();
    bytes[entry.offset as usize] ^= 0xff;
    let err = match nctk::open_mem(bytes) {
        Err(e) => e.to_string(),
        Ok(ds) => {
            let v = ds.source().schema().var_ids().nth(var).unwrap();
            let shape = ds.source().schema().shape(v);
            ds.source()
                .read(v, &nctk::model::Selection::all(&shape))
                .unwrap_err()
                .to_string()
        }
    };
    let name = index.var_name(var);
    assert!(
        err.contains(&format!("{name:?}"))
            && err.contains("block 0")
            && err.contains(&format!("offset {}", entry.offset))
            && err.contains("checksum"),
        "{err}"
    );
}
