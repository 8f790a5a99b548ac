//! Opened datasets kept for the next requests: a client asks for the
//! header, then for each variable, and each answer would otherwise open
//! (and, for netCDF-4, parse) the dataset again.
//!
//! An entry is used again only while the file or directory it was opened
//! from is unchanged (same inode, length and modification time; an output
//! nctk replaces is renamed into place, so it is a new inode). Named
//! datasets (URLs) are opened for each request.

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

/// How many opened datasets are kept.
const CAPACITY: usize = 16;

/// What identifies one version of a local file or directory.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Stamp {
    inode: u64,
    len: u64,
    modified: Option<SystemTime>,
}

impl Stamp {
    fn of(target: &str) -> Option<Stamp> {
        use std::os::unix::fs::MetadataExt;
        let meta = std::fs::metadata(Path::new(target)).ok()?;
        Some(Stamp {
            inode: meta.ino(),
            len: meta.len(),
            modified: meta.modified().ok(),
        })
    }
}

/// The most recently used opened datasets, newest first.
#[derive(Default)]
pub struct DatasetCache {
    entries: Mutex<Vec<(String, Stamp, Arc<nctk::Dataset>)>>,
}

impl DatasetCache {
    /// The dataset at `target`, from the cache when its file is unchanged,
    /// else opened with `nctk::open` (and kept when it is a local path).
    pub fn open(&self, target: &str) -> Result<Arc<nctk::Dataset>, nctk::Error> {
        let stamp = Stamp::of(target);
        if let Some(stamp) = &stamp {
            let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(i) = entries
                .iter()
                .position(|(t, s, _)| t == target && s == stamp)
            {
                let entry = entries.remove(i);
                let dataset = entry.2.clone();
                entries.insert(0, entry);
                return Ok(dataset);
            }
        }
        let dataset = Arc::new(nctk::open(target)?);
        if let Some(stamp) = stamp {
            let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
            entries.retain(|(t, _, _)| t != target);
            entries.insert(0, (target.to_string(), stamp, dataset.clone()));
            entries.truncate(CAPACITY);
        }
        Ok(dataset)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unchanged_file_is_opened_once_a_replaced_one_again() {
        let generated = "generated/from-cdl/netcdf-c/ncdump/cdl";
        let (Some(first), Some(second)) = (
            nctk_test_support::require::corpus_path(&format!("{generated}/pres_temp_4D.nc3.nc")),
            nctk_test_support::require::corpus_path(&format!("{generated}/c0.nc3.nc")),
        ) else {
            return;
        };
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("d.nc");
        std::fs::copy(&first, &path).unwrap();
        let target = path.to_str().unwrap();
        let cache = DatasetCache::default();
        let a = cache.open(target).unwrap();
        let b = cache.open(target).unwrap();
        assert!(Arc::ptr_eq(&a, &b));
        // Replaced as nctk replaces outputs: a new file renamed over it.
        let staged = dir.path().join("staged.nc");
        std::fs::copy(&second, &staged).unwrap();
        std::fs::rename(&staged, &path).unwrap();
        let c = cache.open(target).unwrap();
        assert!(!Arc::ptr_eq(&a, &c));
        assert_eq!(
            c.schema().num_vars(),
            nctk::open(second.to_str().unwrap())
                .unwrap()
                .schema()
                .num_vars()
        );
        assert!(cache
            .open(dir.path().join("missing.nc").to_str().unwrap())
            .is_err());
    }
}
