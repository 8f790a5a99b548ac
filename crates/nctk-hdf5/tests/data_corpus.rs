//! Every dataset of the corpus's netCDF-4 files, and of the files Debian's
//! `ncgen -k nc4` makes from the corpus's CDL, read whole by
//! `DatasetReader` and compared byte for byte with what h5py reads
//! (datasets whose type holds references or variable-length data aside:
//! their raw bytes are heap addresses; and those over 16 MB). The padding
//! between compound members is not compared: h5py zeroes it.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use nctk_hdf5::{DatasetReader, Hdf5File, LinkTarget};
use nctk_store::bytes::{ByteSource, FileSource};
use nctk_test_support::{corpus, require};
use serde_json::Value;

const DUMP: &str = include_str!("data/dump_datasets.py");

fn is_hdf5(path: &Path) -> bool {
    std::fs::read(path).is_ok_and(|b| b.starts_with(b"\x89HDF\r\n\x1a\n"))
}

/// The corpus's HDF5 files and netCDF-4 files made from its CDL in `dir`.
fn files(root: &Path, dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = corpus::files_under(root, |_| true)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "nc") && is_hdf5(p))
        .collect();
    let cdls = corpus::files_under(root, |_| true)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "cdl"));
    for (i, cdl) in cdls.enumerate() {
        let stem = cdl.file_stem().unwrap_or_default().to_string_lossy();
        let nc = dir.join(format!("{i}-{stem}.nc"));
        let made = nctk_test_support::peer::run(
            "ncgen",
            [
                "-k",
                "nc4",
                "-o",
                nc.to_str().unwrap(),
                cdl.to_str().unwrap(),
            ],
        );
        if made.is_ok() && is_hdf5(&nc) {
            out.push(nc);
        }
    }
    out
}

/// The object header address of the dataset at `path` (`a/b/c`).
fn resolve(file: &Hdf5File, path: &str) -> nctk_hdf5::Result<Option<u64>> {
    let mut addr = file.root_addr();
    for name in path.split('/') {
        let group = file.group(addr)?;
        match group
            .links
            .iter()
            .find(|l| l.name == name)
            .map(|l| &l.target)
        {
            Some(LinkTarget::Hard(a)) => addr = *a,
            _ => return Ok(None),
        }
    }
    Ok(Some(addr))
}

#[test]
fn corpus_datasets_read_what_h5py_reads() {
    let Some(root) = require::corpus() else {
        return;
    };
    if !require::tools(&["ncgen"]) || !require::python(&["h5py"]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let files = files(&root, dir.path());
    assert!(files.len() >= 10, "{} netCDF-4 files", files.len());
    let bins = tempfile::tempdir().unwrap();
    let mut args = vec![bins.path().to_path_buf()];
    args.extend(files.iter().cloned());
    let out = nctk_test_support::peer::python(DUMP, &args).unwrap();
    let entries: Vec<Value> = serde_json::from_str(&out).unwrap();
    let (mut read, mut failed) = (0, vec![]);
    for entry in &entries {
        let path = entry["file"].as_str().unwrap();
        if entry.get("error").is_some() {
            continue; // h5py cannot open it either
        }
        let source: Arc<dyn ByteSource> = Arc::new(FileSource::open(path).unwrap());
        let file = Hdf5File::open(source).unwrap_or_else(|e| panic!("{path}: {e}"));
        for ds in entry["datasets"].as_array().unwrap() {
            let name = ds["path"].as_str().unwrap();
            let want = std::fs::read(ds["bin"].as_str().unwrap()).unwrap();
            let got = (|| {
                let addr = resolve(&file, name)?.expect("the dataset h5py found");
                let info = file.dataset(addr)?;
                let r = DatasetReader::from_info(file.ctx(), &info)?;
                let dims = info.dataspace.dims.clone();
                let n: u64 = dims.iter().product();
                let mut out = vec![0u8; n as usize * info.datatype.size() as usize];
                r.read(&vec![0; dims.len()], &dims, &vec![1; dims.len()], &mut out)?;
                Ok::<_, nctk_hdf5::Hdf5Error>(out)
            })();
            let mask: Vec<bool> = ds["mask"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| m == 1)
                .collect();
            let same = |got: &[u8]| {
                got.len() == want.len()
                    && got
                        .iter()
                        .zip(&want)
                        .enumerate()
                        .all(|(i, (a, b))| a == b || !mask[i % mask.len()])
            };
            match got {
                Ok(bytes) if same(&bytes) => read += 1,
                Ok(_) => failed.push(format!("{path} {name}: values differ from h5py's")),
                Err(e) => failed.push(format!("{path} {name}: {e}")),
            }
        }
    }
    assert!(
        failed.is_empty(),
        "{} of {} datasets:\n{}",
        failed.len(),
        read + failed.len(),
        failed.join("\n")
    );
    assert!(read > 100, "only {read} datasets read");
}
