//! A full disk under each local writer: a file size limit (RLIMIT_FSIZE,
//! with SIGXFSZ ignored: writes past it fail with EFBIG; and with SIGXFSZ
//! as it is: the writer is killed by it), and a small tmpfs (ENOSPC).
//!
//! The tmpfs is mounted in a user and mount namespace of its own
//! (`unshare --user --map-root-user --mount`), which needs no privilege
//! where the kernel allows unprivileged user namespaces. Where it refuses
//! (or `unshare` is missing), the tmpfs case is not run, visibly: a
//! `NOTE` line on stderr (not a failure under CI, since the machine, not
//! nctk, decides it; the same error paths are then covered by EFBIG).

use std::io::Write;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Command, Output};
use std::sync::OnceLock;

use crate::local::{Left, Prepared};
use crate::support::{inputs, largest_file, names, same_tree, tree_size};

/// Runs `cmd` with a file size limit of `bytes`; SIGXFSZ ignored when
/// `ignore_signal` (then a write past the limit fails with EFBIG).
fn run_with_file_limit(cmd: &mut Command, bytes: u64, ignore_signal: bool) -> Output {
    // SAFETY: only async-signal-safe calls between fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            let lim = libc::rlimit {
                rlim_cur: bytes,
                rlim_max: bytes,
            };
            if ignore_signal {
                libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            }
            if libc::setrlimit(libc::RLIMIT_FSIZE, &lim) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    cmd.output().unwrap()
}

/// Checks a run that failed on a full disk: exit status 1, an error that
/// names the output (never a temporary; an ncstream's once) and `reason`,
/// and the old output alone in its directory, byte for byte.
fn failed_cleanly(p: &Prepared, run: &Output, out: &Path, dir: &Path, reason: &str, what: &str) {
    let label = p.variant.label;
    let err = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{label}, {what}: {err}");
    assert!(
        err.contains(&*out.to_string_lossy()) && err.contains(reason),
        "{label}, {what}: the error does not name the output and {reason:?}: {err}"
    );
    // The stream's error is its file's own (no second naming); the
    // classic writer built in memory (`-w`) and the zip store writer still
    // name the output twice ("out.nc: write: out.nc: write at offset 0").
    if label == "ncstream" {
        assert_eq!(
            err.matches(&*out.to_string_lossy()).count(),
            1,
            "{label}, {what}: the error names the output more than once: {err}"
        );
    }
    assert!(!err.contains(".nctk-tmp-"), "{label}, {what}: {err}");
    assert_eq!(names(dir), [p.variant.file], "{label}, {what}");
    assert!(
        same_tree(&dir.join(p.variant.file), &p.old),
        "{label}, {what}: the old output changed"
    );
}

/// Whether a tmpfs can be mounted in a namespace of our own; why not.
fn tmpfs_refused(scratch: &Path) -> &'static Option<String> {
    static REFUSED: OnceLock<Option<String>> = OnceLock::new();
    REFUSED.get_or_init(|| {
        let mnt = scratch.join("probe");
        std::fs::create_dir_all(&mnt).unwrap();
        let probe = Command::new("unshare")
            .args(["--user", "--map-root-user", "--mount", "sh", "-c"])
            .arg("mount -t tmpfs -o size=64k tmpfs \"$0\"")
            .arg(&mnt)
            .output();
        match probe {
            Ok(out) if out.status.success() => None,
            Ok(out) => Some(String::from_utf8_lossy(&out.stderr).trim().to_string()),
            Err(e) => Some(format!("unshare: {e}")),
        }
    })
}

/// Runs the variant's copy in a namespace where its output's directory is
/// a tmpfs of `size` bytes holding the old output; returns the run's
/// output with its exit status, and leaves what the tmpfs held after it
/// in `after`.
const IN_TMPFS: &str = r#"
mnt=$1 after=$2 old=$3 out=$4 size=$5
shift 5
mount -t tmpfs -o "size=$size" tmpfs "$mnt" || exit 97
cp -a "$old" "$out" || exit 98
"$@"
status=$?
mkdir "$after" && cp -a "$mnt/." "$after/" || exit 99
exit $status
"#;

/// The run on a tmpfs too small for the output.
fn tmpfs_case(p: &Prepared, work: &Path) {
    let label = p.variant.label;
    if let Some(why) = tmpfs_refused(work) {
        let line = format!(
            "NOTE {label}: no tmpfs can be mounted here ({why}); the full disk is a file size \
             limit only\n"
        );
        let _ = std::io::stderr().write_all(line.as_bytes());
        return;
    }
    let case = work.join("tmpfs").join(p.dir.file_name().unwrap());
    let mnt = case.join("mnt");
    std::fs::create_dir_all(&mnt).unwrap();
    let out = mnt.join(p.variant.file);
    let after = case.join("after");
    // Room for the old output and half of the new one.
    let size = (tree_size(&p.old) + p.size / 2).div_ceil(4096) * 4096;
    let copy = p.variant.command(&inputs().src, &out);
    let run = Command::new("unshare")
        .args([
            "--user",
            "--map-root-user",
            "--mount",
            "sh",
            "-c",
            IN_TMPFS,
            "sh",
        ])
        .arg(&mnt)
        .arg(&after)
        .arg(&p.old)
        .arg(&out)
        .arg(size.to_string())
        .arg(copy.get_program())
        .args(copy.get_args())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(
        !matches!(run.status.code(), Some(97..=99)),
        "{label}: the tmpfs case could not be set up: {err}"
    );
    failed_cleanly(p, &run, &out, &after, "No space left on device", "tmpfs");
}

/// A full disk under the variant: a file size limit below its largest
/// file, first with SIGXFSZ ignored (EFBIG), then as it is (killed), and
/// a tmpfs with room for half of it.
pub fn full_disk(p: &Prepared, work: &Path) {
    let label = p.variant.label;
    let limit = largest_file(&p.complete) / 2;
    p.reset(true);
    let run = run_with_file_limit(&mut p.variant.command(&inputs().src, &p.out), limit, true);
    failed_cleanly(p, &run, &p.out, &p.dir, "File too large", "RLIMIT_FSIZE");

    p.reset(false);
    let run = run_with_file_limit(&mut p.variant.command(&inputs().src, &p.out), limit, false);
    assert_eq!(
        run.status.signal(),
        Some(libc::SIGXFSZ),
        "{label}: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert_eq!(p.check_left(false, "SIGXFSZ"), Left::Nothing, "{label}");

    tmpfs_case(p, work);
}
