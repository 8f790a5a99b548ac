//! What the fault tests share: the inputs (built once, kept under the
//! target directory), the writers' command lines, the file system
//! helpers, and the two readers every output must satisfy: nctk itself
//! (the library) and a peer (`peer_read.py`, kept running).

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::{Arc, Mutex, OnceLock};

use nctk::model::{Selection, Values};
use nctk::Format;
use nctk_test_support::require;

/// The `nctk` binary.
pub fn nctk() -> Command {
    Command::new(env!("CARGO_BIN_EXE_nctk"))
}

/// A small deterministic pseudo-random sequence (xorshift64*): kill
/// points and the inputs' values.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The inputs: `src.nc` (the dataset copied: two 24-record float and int
/// variables of 1.5 MiB each and a fixed double one, values that do not
/// compress), `old.nc` (the same variables, 3 records of other values:
/// what an earlier run left at the output), and the small pair for the
/// object store (`s3src.nc`, `s3old.nc`).
pub struct Inputs {
    pub src: PathBuf,
    pub old: PathBuf,
    pub s3_src: PathBuf,
    pub s3_old: PathBuf,
}

/// Writes a CDF-2 file of `records` records of `y` x `x` values drawn
/// from `seed`.
fn build_input(path: &Path, records: u64, (y, x): (u64, u64), seed: u64) {
    let mut rng = Rng::new(seed);
    let mut def = nctk::create(path, Format::Offset64).unwrap();
    let t = def.add_unlimited_dimension("t").unwrap();
    let yd = def.add_dimension("y", y).unwrap();
    let xd = def.add_dimension("x", x).unwrap();
    def.add_variable::<f32>("v", &[t, yd, xd])
        .unwrap()
        .put_attribute("units", "K")
        .unwrap();
    def.add_variable::<i32>("w", &[t, yd, xd]).unwrap();
    def.add_variable::<f64>("k", &[yd, xd]).unwrap();
    def.put_attribute("title", format!("fault input {seed}").as_str())
        .unwrap();
    let mut ds = def.end_define().unwrap();
    let n = (records * y * x) as usize;
    let v: Vec<f32> = (0..n).map(|_| rng.unit() as f32 * 1000.0).collect();
    let w: Vec<i32> = (0..n).map(|_| rng.next_u64() as i32).collect();
    let k: Vec<f64> = (0..y * x).map(|_| rng.unit()).collect();
    ds.put_values("v", (0..records as usize, .., ..), &v)
        .unwrap();
    ds.put_values("w", (0..records as usize, .., ..), &w)
        .unwrap();
    ds.put_values("k", .., &k).unwrap();
    ds.close().unwrap();
}

/// The inputs, built on first use under the target directory (kept
/// between runs; a version in the name is bumped when they change).
pub fn inputs() -> &'static Inputs {
    static INPUTS: OnceLock<Inputs> = OnceLock::new();
    INPUTS.get_or_init(|| {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("write-faults-inputs-2");
        if !dir.join("done").is_file() {
            let build = Path::new(env!("CARGO_TARGET_TMPDIR"))
                .join(format!("write-faults-inputs-build-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&build);
            std::fs::create_dir_all(&build).unwrap();
            build_input(&build.join("src.nc"), 24, (128, 128), 1);
            build_input(&build.join("old.nc"), 3, (128, 128), 2);
            build_input(&build.join("s3src.nc"), 8, (64, 64), 3);
            build_input(&build.join("s3old.nc"), 2, (64, 64), 4);
            std::fs::write(build.join("done"), b"").unwrap();
            // Another test process may have built them meanwhile: either
            // copy is the same.
            if std::fs::rename(&build, &dir).is_err() {
                let _ = std::fs::remove_dir_all(&build);
            }
        }
        Inputs {
            src: dir.join("src.nc"),
            old: dir.join("old.nc"),
            s3_src: dir.join("s3src.nc"),
            s3_old: dir.join("s3old.nc"),
        }
    })
}

/// Removes a file or a directory tree, if there.
pub fn remove_any(path: &Path) {
    let _ = if path.is_dir() {
        std::fs::remove_dir_all(path)
    } else {
        std::fs::remove_file(path)
    };
}

/// Copies a file or a directory tree.
pub fn copy_tree(from: &Path, to: &Path) {
    if from.is_dir() {
        std::fs::create_dir(to).unwrap();
        for entry in std::fs::read_dir(from).unwrap() {
            let entry = entry.unwrap();
            copy_tree(&entry.path(), &to.join(entry.file_name()));
        }
    } else {
        std::fs::copy(from, to).unwrap();
    }
}

/// Whether two files or directory trees hold the same names and bytes.
pub fn same_tree(a: &Path, b: &Path) -> bool {
    match (std::fs::symlink_metadata(a), std::fs::symlink_metadata(b)) {
        (Ok(ma), Ok(mb)) if ma.is_dir() && mb.is_dir() => {
            let names = |d: &Path| {
                let mut v: Vec<_> = std::fs::read_dir(d)
                    .unwrap()
                    .map(|e| e.unwrap().file_name())
                    .collect();
                v.sort();
                v
            };
            let (na, nb) = (names(a), names(b));
            na == nb && na.iter().all(|n| same_tree(&a.join(n), &b.join(n)))
        }
        (Ok(ma), Ok(mb)) if ma.is_file() && mb.is_file() => {
            ma.len() == mb.len() && std::fs::read(a).unwrap() == std::fs::read(b).unwrap()
        }
        _ => false,
    }
}

/// The bytes of a file, or of every file in a directory tree (0 when it
/// vanished meanwhile).
pub fn tree_size(path: &Path) -> u64 {
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return 0;
    };
    if !meta.is_dir() {
        return meta.len();
    }
    std::fs::read_dir(path).map_or(0, |entries| {
        entries.flatten().map(|e| tree_size(&e.path())).sum()
    })
}

/// The largest file in a tree.
pub fn largest_file(path: &Path) -> u64 {
    if path.is_dir() {
        std::fs::read_dir(path)
            .unwrap()
            .map(|e| largest_file(&e.unwrap().path()))
            .max()
            .unwrap_or(0)
    } else {
        std::fs::metadata(path).unwrap().len()
    }
}

/// The entries of `dir`, sorted.
pub fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// Whether `name` is one of nctk's temporaries (of any process).
pub fn is_temporary(name: &str) -> bool {
    name.contains(".nctk-tmp-")
}

/// What nctk reads: each variable's name, shape and values, and the
/// global attributes; an error as text.
pub type Snapshot = Vec<(String, Vec<u64>, Values)>;

/// Opens `target` (a path or a URL) with nctk and reads every variable.
pub fn nctk_read(target: &str) -> Result<Snapshot, String> {
    let ds = nctk::open(target).map_err(|e| e.to_string())?;
    let mut out = vec![];
    for v in ds.variables() {
        let shape = v.shape();
        let values = v
            .read_values(&Selection::all(&shape))
            .map_err(|e| e.to_string())?;
        out.push((v.name().to_string(), shape, values));
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    let title = ds.attribute("title").map(|a| format!("{:?}", a.value));
    out.push((
        "title".into(),
        vec![],
        Values::Char(title.unwrap_or_default().into_bytes()),
    ));
    Ok(out)
}

/// How a peer reads an output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PeerKind {
    /// netCDF4-python (netCDF-C): classic and netCDF-4 files.
    Netcdf,
    /// zarr-python: directory and zip stores.
    Zarr,
    /// siphon: ncstreams.
    Ncstream,
    /// No peer reads the format (block-compressed classic): nctk copies
    /// it back to a classic file, which netCDF4-python reads.
    ClassicCopy,
}

/// The peer's answer for one dataset: each variable's shape, type and
/// digest, or why it does not open.
pub type PeerView = Result<serde_json::Value, String>;

const PEER_READ: &str = include_str!("peer_read.py");

/// The peer process (`peer_read.py`), started once and shared.
struct Peer {
    _child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

/// Whether the peers are there (python3 with numpy, netCDF4, zarr and
/// siphon); `false` after the visible skip (a failure under CI).
pub fn peers_present() -> bool {
    require::python(&["numpy", "netCDF4", "zarr", "siphon"])
}

fn peer() -> &'static Mutex<Peer> {
    static PEER: OnceLock<Mutex<Peer>> = OnceLock::new();
    PEER.get_or_init(|| {
        let siphon = Path::new(env!("CARGO_MANIFEST_DIR")).join("../nctk-ncstream/tests");
        let mut child = Command::new("python3")
            .arg("-c")
            .arg(PEER_READ)
            .arg(siphon)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("start python3");
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Mutex::new(Peer {
            _child: child,
            stdin,
            stdout,
        })
    })
}

/// The peer's reading of `path` as `kind` (`netcdf`, `zarr`, `ncstream`).
fn peer_ask(kind: &str, path: &Path) -> PeerView {
    let mut peer = peer().lock().unwrap_or_else(|e| e.into_inner());
    let request = serde_json::json!({"kind": kind, "path": path});
    writeln!(peer.stdin, "{request}").unwrap();
    peer.stdin.flush().unwrap();
    let mut line = String::new();
    peer.stdout.read_line(&mut line).unwrap();
    assert!(!line.is_empty(), "the peer process ended");
    let answer: serde_json::Value = serde_json::from_str(&line).unwrap();
    if answer["opens"] == true {
        Ok(answer["vars"].clone())
    } else {
        Err(answer["error"].as_str().unwrap_or("?").to_string())
    }
}

/// The peer's reading of the output at `path`.
pub fn peer_read(kind: PeerKind, path: &Path) -> PeerView {
    match kind {
        PeerKind::Netcdf => peer_ask("netcdf", path),
        PeerKind::Zarr => peer_ask("zarr", path),
        PeerKind::Ncstream => peer_ask("ncstream", path),
        PeerKind::ClassicCopy => {
            let back = path.with_extension("back.nc");
            let out = nctk().arg("copy").arg(path).arg(&back).output().unwrap();
            if !out.status.success() {
                return Err(String::from_utf8_lossy(&out.stderr).into_owned());
            }
            let view = peer_ask("netcdf", &back);
            remove_any(&back);
            view
        }
    }
}

/// What both readers make of a dataset: nctk's snapshot and the peer's
/// view.
#[derive(Debug)]
pub struct Truth {
    pub nctk: Snapshot,
    pub peer: serde_json::Value,
}

impl Truth {
    /// The input `path` (a classic file) as nctk and netCDF4-python read
    /// it (read once).
    pub fn of_input(path: &Path) -> Arc<Truth> {
        static READ: Mutex<BTreeMap<PathBuf, Arc<Truth>>> = Mutex::new(BTreeMap::new());
        let mut read = READ.lock().unwrap_or_else(|e| e.into_inner());
        read.entry(path.to_path_buf())
            .or_insert_with(|| {
                Arc::new(Truth {
                    nctk: nctk_read(&path.to_string_lossy()).expect("the input opens"),
                    peer: peer_ask("netcdf", path).expect("the input opens in netCDF4"),
                })
            })
            .clone()
    }

    /// Whether nctk (at `target`, a path or URL) and the peer (at `local`,
    /// the same output or a local copy of it) both read exactly this.
    pub fn matches(&self, target: &str, kind: PeerKind, local: &Path) -> Result<(), String> {
        let got = nctk_read(target).map_err(|e| format!("nctk does not read it: {e}"))?;
        if got != self.nctk {
            return Err("nctk reads other values".into());
        }
        let view = peer_read(kind, local).map_err(|e| format!("the peer does not read it: {e}"))?;
        if view != self.peer {
            return Err(format!("the peer reads {view}, not {}", self.peer));
        }
        Ok(())
    }
}
