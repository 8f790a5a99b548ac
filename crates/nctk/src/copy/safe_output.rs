//! Safe output: the copy is written under a temporary name in the output's
//! directory and renamed over the output only when complete, so a failed
//! copy leaves an existing output untouched and an interrupted one never
//! leaves a file under the output's name.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

use super::CopyError;

/// Marks temporary names: `.<name>.nctk-copy-<pid>-<n>.part`.
const MARK: &str = ".nctk-copy-";

/// A temporary output that becomes the real one on [`commit`](Self::commit)
/// and is removed when dropped uncommitted.
#[derive(Debug)]
pub struct SafeOutput {
    target: PathBuf,
    temp: PathBuf,
    committed: bool,
}

fn io<'a>(path: &'a Path, op: &'static str) -> impl FnOnce(std::io::Error) -> CopyError + 'a {
    move |source| CopyError::Io {
        path: path.display().to_string(),
        op,
        source,
    }
}

impl SafeOutput {
    /// Reserves a new temporary file next to `target`.
    pub fn new(target: &Path) -> Result<SafeOutput, CopyError> {
        static COUNTER: AtomicU32 = AtomicU32::new(0);
        let dir = match target.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        let name = target
            .file_name()
            .ok_or_else(|| CopyError::Option(format!("{}: not a file name", target.display())))?
            .to_string_lossy();
        loop {
            let n = COUNTER.fetch_add(1, Ordering::Relaxed);
            let temp = dir.join(format!(".{name}{MARK}{}-{n}.part", std::process::id()));
            match std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&temp)
            {
                Ok(_) => {
                    return Ok(SafeOutput {
                        target: target.to_path_buf(),
                        temp,
                        committed: false,
                    })
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(io(&temp, "create")(e)),
            }
        }
    }

    /// Where the output is written until it is committed.
    pub fn temp_path(&self) -> &Path {
        &self.temp
    }

    /// The final name.
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Makes the temporary output durable and renames it to the target.
    pub fn commit(mut self) -> Result<(), CopyError> {
        if self.temp.is_file() {
            std::fs::File::open(&self.temp)
                .and_then(|f| f.sync_all())
                .map_err(io(&self.temp, "sync"))?;
        }
        std::fs::rename(&self.temp, &self.target).map_err(io(&self.target, "rename"))?;
        self.committed = true;
        // Make the rename itself durable (best effort; not every platform
        // can open a directory).
        if let Some(dir) = self.target.parent().filter(|p| !p.as_os_str().is_empty()) {
            let _ = std::fs::File::open(dir).and_then(|d| d.sync_all());
        }
        Ok(())
    }
}

impl Drop for SafeOutput {
    fn drop(&mut self) {
        if self.committed {
            return;
        }
        if self.temp.is_dir() {
            let _ = std::fs::remove_dir_all(&self.temp);
        } else {
            let _ = std::fs::remove_file(&self.temp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commit_renames_and_drop_removes() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.nc");
        std::fs::write(&target, b"old").unwrap();
        let out = SafeOutput::new(&target).unwrap();
        std::fs::write(out.temp_path(), b"new").unwrap();
        drop(out);
        assert_eq!(std::fs::read(&target).unwrap(), b"old");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);

        let out = SafeOutput::new(&target).unwrap();
        std::fs::write(out.temp_path(), b"new").unwrap();
        out.commit().unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"new");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
