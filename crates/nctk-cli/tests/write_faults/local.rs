//! The writers to local files and stores: each variant's reference runs,
//! then SIGKILLs at points spread over the copy, then full disks.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::disk;
use crate::support::{
    copy_tree, inputs, is_temporary, names, nctk, remove_any, same_tree, tree_size, PeerKind, Rng,
    Truth,
};

/// One way of running a writer: `nctk copy <flags> <input> <output>`,
/// the output named `file` in a directory of its own (as a netCDF-C URL
/// `file://<path>#mode=<mode>` when `mode` is given).
#[derive(Debug, Clone, Copy)]
pub struct Variant {
    pub label: &'static str,
    pub flags: &'static [&'static str],
    pub file: &'static str,
    pub mode: Option<&'static str>,
    pub peer: PeerKind,
}

impl Variant {
    /// The output's argument for an output at `path`.
    pub fn output_arg(&self, path: &Path) -> String {
        match self.mode {
            Some(mode) => format!("file://{}#mode={mode}", path.display()),
            None => path.display().to_string(),
        }
    }

    /// `nctk copy` of `input` to `path`, not yet run.
    pub fn command(&self, input: &Path, path: &Path) -> Command {
        let mut cmd = nctk();
        cmd.arg("copy")
            .args(self.flags)
            .arg(input)
            .arg(self.output_arg(path));
        cmd
    }
}

/// A variant made ready: the complete output of the source and of the old
/// input (what an earlier run left), both checked against their inputs
/// with nctk and the peer, stashed beside the output's directory.
pub struct Prepared {
    pub variant: Variant,
    /// The directory that holds the output and its temporaries only.
    pub dir: PathBuf,
    /// The output's path.
    pub out: PathBuf,
    /// The complete copy of the source, stashed.
    pub complete: PathBuf,
    /// The complete copy of the old input, stashed.
    pub old: PathBuf,
    /// How long the uncut copy took.
    pub duration: Duration,
    /// The bytes of the complete output.
    pub size: u64,
    pub truth: Arc<Truth>,
}

/// Runs `cmd`, which must succeed.
fn run_ok(mut cmd: Command, what: &str) -> Duration {
    let start = Instant::now();
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{what}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    start.elapsed()
}

impl Prepared {
    /// Makes both complete outputs of `variant` under `work` (a directory
    /// of its own, `n` its index) and checks them.
    pub fn new(variant: Variant, work: &Path, n: usize) -> Prepared {
        let inputs = inputs();
        let dir = work.join(format!("out{n}"));
        std::fs::create_dir_all(&dir).unwrap();
        let out = dir.join(variant.file);
        let stash = |name: &str| work.join(format!("{name}{n}-{}", variant.file));
        let old = stash("old");
        run_ok(variant.command(&inputs.old, &out), variant.label);
        std::fs::rename(&out, &old).unwrap();
        let duration = run_ok(variant.command(&inputs.src, &out), variant.label);
        let complete = stash("complete");
        std::fs::rename(&out, &complete).unwrap();
        assert_eq!(names(&dir), Vec::<String>::new(), "{}", variant.label);
        let truth = Truth::of_input(&inputs.src);
        let check = |truth: &Truth, path: &Path| {
            // Read where it was written (a zip records its name).
            std::fs::rename(path, &out).unwrap();
            let read = truth.matches(&variant.output_arg(&out), variant.peer, &out);
            std::fs::rename(&out, path).unwrap();
            read.unwrap_or_else(|e| panic!("{}: {}: {e}", variant.label, path.display()));
        };
        check(&truth, &complete);
        check(&Truth::of_input(&inputs.old), &old);
        Prepared {
            variant,
            size: tree_size(&complete),
            dir,
            out,
            complete,
            old,
            duration,
            truth,
        }
    }

    /// Empties the output's directory of the output (temporaries left by
    /// killed runs stay: the next run must remove them), then puts the
    /// old output there when `with_old`.
    pub fn reset(&self, with_old: bool) {
        remove_any(&self.out);
        if with_old {
            copy_tree(&self.old, &self.out);
        }
    }

    /// Checks what a run that was cut short left: in the directory only
    /// the output and temporaries; at the output's name nothing, the old
    /// output byte for byte (when there was one), or a complete output
    /// that nctk and the peer read as the source. `what` names the run.
    pub fn check_left(&self, with_old: bool, what: &str) -> Left {
        let label = self.variant.label;
        let name = self.variant.file;
        for entry in names(&self.dir) {
            assert!(
                entry == name || is_temporary(&entry),
                "{label}, {what}: {entry} left beside the output"
            );
        }
        if std::fs::symlink_metadata(&self.out).is_err() {
            return Left::Nothing;
        }
        if with_old && same_tree(&self.out, &self.old) {
            return Left::Old;
        }
        if !same_tree(&self.out, &self.complete) {
            // Not the bytes of the uncut run: it must still read as the
            // source, with nctk and with the peer.
            let read = self.truth.matches(
                &self.variant.output_arg(&self.out),
                self.variant.peer,
                &self.out,
            );
            read.unwrap_or_else(|e| {
                panic!("{label}, {what}: the output is neither the old one nor complete: {e}")
            });
        }
        Left::Complete
    }
}

/// What a run left at the output's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Left {
    Nothing,
    Old,
    Complete,
}

/// The bytes written so far by process `pid` into its temporaries in
/// `dir`, and whether it has any.
fn progress(dir: &Path, pid: u32) -> (u64, bool) {
    let mark = format!(".nctk-tmp-{pid}-");
    let Ok(entries) = std::fs::read_dir(dir) else {
        return (0, false);
    };
    let mut found = false;
    let mut bytes = 0;
    for entry in entries.flatten() {
        if entry.file_name().to_string_lossy().contains(&mark) {
            found = true;
            bytes += tree_size(&entry.path());
        }
    }
    (bytes, found)
}

/// Sends SIGKILL to `child`.
pub fn kill(child: &Child) {
    // SAFETY: kill(2) on our own child, not yet reaped.
    let rc = unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGKILL) };
    assert_eq!(rc, 0);
}

/// Runs `prepared`'s copy and kills it when its temporaries hold the
/// fraction `at` of the complete output's bytes, or, for `at` of 1 or
/// more, that much of the uncut run's duration after they are complete
/// (so that kills land in the final sync and renames too). Whether the
/// kill came while the run was writing its temporaries.
fn run_and_kill(prepared: &Prepared, at: f64) -> bool {
    let mut child = prepared
        .variant
        .command(&inputs().src, &prepared.out)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id();
    let goal = (at.min(1.0) * prepared.size as f64) as u64;
    let start = Instant::now();
    let mut seen = false;
    let mid_write = loop {
        if child.try_wait().unwrap().is_some() {
            break false;
        }
        let (bytes, found) = progress(&prepared.dir, pid);
        seen |= found;
        if found && bytes >= goal && at < 1.0 {
            kill(&child);
            break true;
        }
        if at >= 1.0 && ((seen && !found) || (found && bytes >= goal)) {
            std::thread::sleep(prepared.duration.mul_f64(at - 1.0));
            kill(&child);
            break false;
        }
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "{}: the copy did not progress",
            prepared.variant.label
        );
        std::thread::sleep(Duration::from_micros(300));
    };
    let _ = child.wait();
    mid_write
}

/// SIGKILLs `kills` runs of `variants` (taken in turn; every other round
/// over an old output), at points drawn from `seed` spread from the start
/// to past the end of the copy; after each, what is left is checked.
/// Then an uncut run must succeed and leave only its output: the
/// temporaries of the killed runs are gone. Most kills must have landed
/// mid-write.
pub fn kill_at_random_points(prepared: &[Prepared], kills: usize, seed: u64) {
    let mut rng = Rng::new(seed);
    let mut mid = 0;
    let mut left = vec![];
    for i in 0..kills {
        let p = &prepared[i % prepared.len()];
        let with_old = (i / prepared.len()) % 2 == 0;
        p.reset(with_old);
        let at = (i as f64 + rng.unit()) / kills as f64 * 1.15;
        mid += usize::from(run_and_kill(p, at));
        let what = format!("kill {i} at {at:.3}");
        left.push(p.check_left(with_old, &what));
    }
    for p in prepared {
        p.reset(true);
        let out = p.variant.command(&inputs().src, &p.out).output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(names(&p.dir), [p.variant.file], "{}", p.variant.label);
        assert!(same_tree(&p.out, &p.complete) || p.check_left(false, "uncut") == Left::Complete);
    }
    let label = prepared[0].variant.label;
    eprintln!("{label}: {kills} kills, {mid} mid-write, left {left:?}");
    assert!(
        mid * 2 >= kills,
        "{label}: only {mid} of {kills} kills landed mid-write"
    );
}

/// The full test of one writer: its variants prepared, `kills` SIGKILLs,
/// then each variant on a full disk.
pub fn writer_faults(variants: &[Variant], kills: usize, seed: u64) {
    if !crate::support::peers_present() {
        return;
    }
    let work = tempfile::tempdir().unwrap();
    let prepared: Vec<Prepared> = variants
        .iter()
        .enumerate()
        .map(|(n, v)| Prepared::new(*v, work.path(), n))
        .collect();
    kill_at_random_points(&prepared, kills, seed);
    for p in &prepared {
        disk::full_disk(p, work.path());
    }
}
