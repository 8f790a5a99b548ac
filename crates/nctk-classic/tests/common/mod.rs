//! Helpers shared by the integration tests: the corpus and the peers.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// The conformance corpus, or `None` (with a note) when it is absent.
pub fn corpus() -> Option<PathBuf> {
    let dir = std::env::var_os("NCTK_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"));
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!("note: corpus not found at {}; skipping", dir.display());
        None
    }
}

/// Every file under `dir` (recursively) whose first bytes are `CDF`.
pub fn classic_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = vec![];
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "nc") {
                let mut magic = [0u8; 3];
                if std::fs::File::open(&p)
                    .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut magic))
                    .is_ok()
                    && &magic == b"CDF"
                {
                    out.push(p);
                }
            }
        }
    }
    out.sort();
    out
}

/// True when `python3 -c "import netCDF4"` works.
pub fn have_python_netcdf4() -> bool {
    let ok = Command::new("python3")
        .args(["-c", "import netCDF4, numpy"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("note: python3 with netCDF4 not found; skipping the peer comparison");
    }
    ok
}

/// Runs the netCDF4 dump script on `files`; returns its JSON.
pub fn python_dump(files: &[PathBuf]) -> serde_json::Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peer/dump_nc.py");
    let out = Command::new("python3")
        .arg(script)
        .args(files)
        .output()
        .expect("run python3");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("json")
}

/// Lower-case hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
