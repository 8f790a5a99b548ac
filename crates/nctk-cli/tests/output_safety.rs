//! Output safety of the `nctk` binary: `gen` and `copy` never leave a
//! half-written output or a temporary behind (SIGINT, SIGTERM, a write
//! failure), a SIGKILLed run's temporary is removed by the next run, a
//! directory that is not a Zarr/NCZarr store is never replaced, `dump` into
//! a closed pipe ends as netCDF-C's `ncdump` does, and errors name the
//! user's path once.
//!
//! The truths: the file system after the run, the shell's 128 + signal
//! convention, netCDF-C's `ncdump` (the closed-pipe status; required as
//! `nctk_test_support::require` rules) and the messages' own text.

use std::io::Read;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use nctk_test_support::require;

fn nctk() -> Command {
    Command::new(env!("CARGO_BIN_EXE_nctk"))
}

/// A CDL file with one large float variable and no data: `gen` writes its
/// fill values, which takes long enough to be interrupted.
fn big_cdl(dir: &Path, n: u64) -> std::path::PathBuf {
    let cdl = dir.join("big.cdl");
    let text = format!("netcdf big {{\ndimensions:\n  x = {n} ;\nvariables:\n  float v(x) ;\n}}\n");
    std::fs::write(&cdl, text).unwrap();
    cdl
}

/// A small CDL file with data.
fn small_cdl(dir: &Path) -> std::path::PathBuf {
    let cdl = dir.join("small.cdl");
    std::fs::write(
        &cdl,
        "netcdf small {\ndimensions:\n  x = 3 ;\nvariables:\n  int v(x) ;\ndata:\n  v = 1, 2, 3 ;\n}\n",
    )
    .unwrap();
    cdl
}

/// `nctk gen -o out cdl`, not yet run.
fn gen(cdl: &Path, out: &Path) -> Command {
    let mut cmd = nctk();
    cmd.arg("gen").arg("-o").arg(out).arg(cdl);
    cmd
}

/// Runs `nctk gen -o out cdl`, which must succeed.
fn gen_ok(cdl: &Path, out: &Path) {
    let made = gen(cdl, out).output().unwrap();
    assert!(made.status.success(), "{}", stderr_of(&made));
}

/// The names in `dir`, sorted (hidden ones too).
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

fn temporaries(dir: &Path) -> Vec<String> {
    names(dir)
        .into_iter()
        .filter(|n| n.contains(".nctk-tmp-"))
        .collect()
}

/// Waits (up to 60 s) until the child has made its temporary in `dir`.
fn wait_for_temporary(child: &mut Child, dir: &Path) {
    let start = Instant::now();
    while temporaries(dir).is_empty() {
        assert!(
            child.try_wait().unwrap().is_none(),
            "the run ended before its temporary was seen"
        );
        assert!(start.elapsed() < Duration::from_secs(60), "no temporary");
        std::thread::sleep(Duration::from_millis(2));
    }
}

fn signal(child: &Child, sig: i32) {
    // SAFETY: kill(2) on our own child's pid.
    let rc = unsafe { libc::kill(child.id() as libc::pid_t, sig) };
    assert_eq!(rc, 0);
}

fn stderr_of(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Runs with a file-size limit of `bytes` (SIGXFSZ ignored, so writes past
/// it fail with EFBIG as on a full disk).
fn run_with_file_limit(cmd: &mut Command, bytes: u64) -> Output {
    // SAFETY: only async-signal-safe calls between fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            let lim = libc::rlimit {
                rlim_cur: bytes,
                rlim_max: bytes,
            };
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            if libc::setrlimit(libc::RLIMIT_FSIZE, &lim) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    cmd.output().unwrap()
}

#[test]
fn sigint_and_sigterm_leave_no_temporary_and_no_output() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let cdl = big_cdl(d, 60_000_000);
    // An input for copy: 240 MB of fill values, made by gen.
    let input = d.join("in.nc");
    gen_ok(&cdl, &input);
    let before = names(d);
    for (sig, status) in [(libc::SIGINT, 130), (libc::SIGTERM, 143)] {
        let runs: [(&str, Vec<std::ffi::OsString>); 4] = [
            (
                "gen",
                vec![
                    "gen".into(),
                    "-o".into(),
                    d.join("out.nc").into(),
                    cdl.clone().into(),
                ],
            ),
            (
                "copy",
                vec!["copy".into(), input.clone().into(), d.join("out.nc").into()],
            ),
            (
                "copy to netCDF-4",
                vec![
                    "copy".into(),
                    "-k".into(),
                    "nc4".into(),
                    "-d".into(),
                    "1".into(),
                    input.clone().into(),
                    d.join("out.nc").into(),
                ],
            ),
            (
                "copy to a store",
                vec![
                    "copy".into(),
                    "-d".into(),
                    "9".into(),
                    input.clone().into(),
                    d.join("out.zarr").into(),
                ],
            ),
        ];
        for (what, args) in runs {
            let mut child = nctk().args(&args).stderr(Stdio::piped()).spawn().unwrap();
            wait_for_temporary(&mut child, d);
            signal(&child, sig);
            let out = child.wait_with_output().unwrap();
            assert_eq!(
                out.status.code(),
                Some(status),
                "{what}, signal {sig}: {}",
                stderr_of(&out)
            );
            assert_eq!(names(d), before, "{what}, signal {sig}: left behind");
        }
    }
}

#[test]
fn a_sigkilled_runs_temporary_is_removed_by_the_next_run() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let cdl = big_cdl(d, 60_000_000);
    let out = d.join("out.nc");
    let mut child = gen(&cdl, &out).spawn().unwrap();
    wait_for_temporary(&mut child, d);
    signal(&child, libc::SIGKILL);
    let status = child.wait().unwrap();
    assert_eq!(status.signal(), Some(libc::SIGKILL));
    let left = temporaries(d);
    assert_eq!(left.len(), 1, "{left:?}");
    // A temporary under the earlier mark, of the same dead process.
    let old_mark = d.join(format!(".out.nc.nctk-copy-{}-0.part", child.id()));
    std::fs::write(&old_mark, b"partial").unwrap();
    // A temporary of a live process (this one) is left alone.
    let live = d.join(format!(".out.nc.nctk-tmp-{}-0.part", std::process::id()));
    std::fs::write(&live, b"in use").unwrap();

    let small = small_cdl(d);
    let next = gen(&small, &out).output().unwrap();
    assert!(next.status.success(), "{}", stderr_of(&next));
    let mut want = vec![
        live.file_name().unwrap().to_string_lossy().into_owned(),
        "big.cdl".to_string(),
        "out.nc".to_string(),
        "small.cdl".to_string(),
    ];
    want.sort();
    assert_eq!(names(d), want);
}

#[test]
fn a_directory_that_is_not_a_store_is_refused_and_kept() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let small = small_cdl(d);
    let input = d.join("in.nc");
    gen_ok(&small, &input);
    let notes = d.join("mydata.zarr");
    std::fs::create_dir(&notes).unwrap();
    std::fs::write(notes.join("notes.txt"), b"notes\n").unwrap();
    let plain = d.join("plain");
    std::fs::create_dir(&plain).unwrap();
    std::fs::write(plain.join("keep.txt"), b"keep\n").unwrap();
    let attempts: [Vec<&std::ffi::OsStr>; 4] = [
        vec!["copy".as_ref(), input.as_ref(), notes.as_ref()],
        vec![
            "gen".as_ref(),
            "-k".as_ref(),
            "nc4".as_ref(),
            "-o".as_ref(),
            notes.as_ref(),
            small.as_ref(),
        ],
        // A classic file where a directory is.
        vec!["copy".as_ref(), input.as_ref(), plain.as_ref()],
        vec![
            "gen".as_ref(),
            "-o".as_ref(),
            plain.as_ref(),
            small.as_ref(),
        ],
    ];
    let before = names(d);
    for args in attempts {
        let out = nctk().args(&args).output().unwrap();
        let err = stderr_of(&out);
        assert!(!out.status.success(), "{args:?} succeeded");
        let target = args[args.len() - 2..]
            .iter()
            .find(|a| Path::new(a).is_dir())
            .unwrap()
            .to_string_lossy()
            .into_owned();
        assert!(
            err.contains(&target) && err.contains("not replacing"),
            "{args:?}: {err}"
        );
        assert_eq!(names(d), before);
    }
    assert_eq!(std::fs::read(notes.join("notes.txt")).unwrap(), b"notes\n");
    assert_eq!(std::fs::read(plain.join("keep.txt")).unwrap(), b"keep\n");

    // A Zarr v2 group (its metadata as the Zarr spec writes it) is replaced.
    std::fs::write(notes.join(".zgroup"), br#"{"zarr_format": 2}"#).unwrap();
    let out = nctk().arg("copy").arg(&input).arg(&notes).output().unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert!(!notes.join("notes.txt").exists() && notes.join("v/.zarray").is_file());
}

/// An output named through a symbolic link is written through it, as
/// netCDF-C writes: the file or store the link leads to is replaced (the
/// same bytes as a copy to a plain path), the link stays a link, and a
/// link that leads nowhere yet creates what it names.
#[test]
fn a_symlinked_output_is_written_through() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input = d.join("in.nc");
    gen_ok(&small_cdl(d), &input);
    let plain = d.join("plain.nc");
    let run = nctk().arg("copy").arg(&input).arg(&plain).output().unwrap();
    assert!(run.status.success(), "{}", stderr_of(&run));
    let want = std::fs::read(&plain).unwrap();
    let data = d.join("data");
    std::fs::create_dir(&data).unwrap();
    let real = data.join("real.nc");
    std::fs::write(&real, b"old").unwrap();
    let dangling_to = data.join("new.nc");
    for (link, leads_to) in [("link.nc", &real), ("dangling.nc", &dangling_to)] {
        let link = d.join(link);
        std::os::unix::fs::symlink(leads_to.strip_prefix(d).unwrap(), &link).unwrap();
        let run = nctk().arg("copy").arg(&input).arg(&link).output().unwrap();
        assert!(run.status.success(), "{}", stderr_of(&run));
        assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());
        assert_eq!(std::fs::read(leads_to).unwrap(), want, "{}", link.display());
    }
    // A store: the store the link leads to is replaced.
    let store = data.join("real.zarr");
    std::fs::create_dir(&store).unwrap();
    std::fs::write(store.join(".zgroup"), br#"{"zarr_format": 2}"#).unwrap();
    let link = d.join("link.zarr");
    std::os::unix::fs::symlink(&store, &link).unwrap();
    let run = nctk().arg("copy").arg(&input).arg(&link).output().unwrap();
    assert!(run.status.success(), "{}", stderr_of(&run));
    assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());
    assert!(
        store.join("v/.zarray").is_file(),
        "the linked store was not replaced"
    );
    assert_eq!(temporaries(d), Vec::<String>::new());
    assert_eq!(temporaries(&data), Vec::<String>::new());
}

/// A device or FIFO where the output goes is refused by every writer and
/// kept as it is: renaming the finished temporary over it would replace the
/// node itself (as root, `/dev/null` by a regular file). The FIFO is never
/// opened, so nothing blocks on it.
#[test]
fn a_fifo_is_refused_and_kept() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let small = small_cdl(d);
    let input = d.join("in.nc");
    gen_ok(&small, &input);
    for (name, flags) in [
        ("fifo.nc", &[][..]),
        ("fifo.nc", &["-w"][..]),
        ("fifo.nc", &["-k", "nc4"][..]),
        ("fifo.nc", &["-k", "compressed"][..]),
        ("fifo.zarr", &[][..]),
        ("fifo.zip", &[][..]),
        ("fifo.ncs", &[][..]),
    ] {
        let fifo = d.join(name);
        let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
        assert!(made.success(), "mkfifo {}", fifo.display());
        let before = names(d);
        let out = nctk()
            .arg("copy")
            .args(flags)
            .arg(&input)
            .arg(&fifo)
            .output()
            .unwrap();
        let err = stderr_of(&out);
        assert!(!out.status.success(), "{name} {flags:?} succeeded");
        assert!(
            err.contains(&*fifo.to_string_lossy()) && err.contains("not a regular file"),
            "{name} {flags:?}: {err}"
        );
        assert_eq!(names(d), before, "{name} {flags:?}");
        let kind = std::fs::symlink_metadata(&fifo).unwrap().file_type();
        assert!(
            std::os::unix::fs::FileTypeExt::is_fifo(&kind),
            "{name} {flags:?} replaced the FIFO"
        );
        std::fs::remove_file(&fifo).unwrap();
    }
}

#[test]
fn a_failed_write_keeps_the_earlier_output_and_names_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let small = small_cdl(d);
    let big = big_cdl(d, 10_000_000);
    let out = d.join("out.nc");
    gen_ok(&small, &out);
    let earlier = std::fs::read(&out).unwrap();
    let input = d.join("in.nc");
    gen_ok(&big, &input);
    let before = names(d);
    let runs: [Vec<&std::ffi::OsStr>; 4] = [
        vec!["gen".as_ref(), "-o".as_ref(), out.as_ref(), big.as_ref()],
        vec!["copy".as_ref(), input.as_ref(), out.as_ref()],
        // netCDF-4: contiguous, and chunked with chunks encoded on other threads
        vec![
            "copy".as_ref(),
            "-k".as_ref(),
            "nc4".as_ref(),
            input.as_ref(),
            out.as_ref(),
        ],
        vec![
            "copy".as_ref(),
            "-k".as_ref(),
            "nc4".as_ref(),
            "-c".as_ref(),
            "x/100000".as_ref(),
            input.as_ref(),
            out.as_ref(),
        ],
    ];
    for args in runs {
        let run = run_with_file_limit(nctk().args(&args), 1 << 20);
        let err = stderr_of(&run);
        assert!(
            !run.status.success(),
            "{args:?} succeeded past the file size limit"
        );
        assert_eq!(
            err.matches(&*out.to_string_lossy()).count(),
            1,
            "{args:?}: {err}"
        );
        assert!(
            !err.contains("nctk-tmp") && !err.contains("big.cdl"),
            "{args:?}: {err}"
        );
        assert_eq!(std::fs::read(&out).unwrap(), earlier, "{args:?}");
        assert_eq!(names(d), before, "{args:?}");
    }
}

/// The exit status of `program args` when its reader stops after a few
/// bytes and closes the pipe; and what it wrote on stderr.
fn status_into_closed_pipe(program: &str, args: &[&Path]) -> (std::process::ExitStatus, String) {
    let mut child = Command::new(program)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 64];
    stdout.read_exact(&mut first).unwrap();
    drop(stdout);
    let out = child.wait_with_output().unwrap();
    (out.status, stderr_of(&out))
}

#[test]
fn dump_into_a_closed_pipe_ends_as_ncdump_does() {
    if !require::tools(&["ncdump"]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let big = big_cdl(dir.path(), 2_000_000);
    let file = dir.path().join("big.nc");
    gen_ok(&big, &file);
    let (want, _) = status_into_closed_pipe("ncdump", &[&file]);
    let (got, err) =
        status_into_closed_pipe(env!("CARGO_BIN_EXE_nctk"), &[Path::new("dump"), &file]);
    assert_eq!((got.code(), got.signal()), (want.code(), want.signal()));
    assert_eq!(err, "");
}

#[test]
fn errors_name_the_path_once() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let bad = d.join("bad.nc");
    std::fs::write(&bad, b"CDF\x01garbage").unwrap();
    let small = small_cdl(d);
    let bad_s = bad.to_string_lossy().into_owned();
    let out_s = d.join("out.nc").to_string_lossy().into_owned();
    let nowhere = d.join("no/such/dir/e.nc").to_string_lossy().into_owned();
    let store = d.join("s.zarr");
    std::fs::create_dir(&store).unwrap();
    std::fs::write(store.join(".zgroup"), br#"{"zarr_format": 2}"#).unwrap();
    let store_s = store.to_string_lossy().into_owned();
    let small_s = small.to_string_lossy().into_owned();
    // (arguments, the path the error is about, paths it must not name)
    let cases: [(Vec<&str>, &str, Vec<&str>); 4] = [
        (vec!["copy", &bad_s, &out_s], &bad_s, vec![&out_s]),
        (vec!["dump", &bad_s], &bad_s, vec![]),
        (
            vec!["gen", "-o", &nowhere, &small_s],
            &nowhere,
            vec![&small_s],
        ),
        (vec!["validate", &store_s], &store_s, vec![]),
    ];
    for (args, about, not) in cases {
        let run = nctk().args(&args).output().unwrap();
        let err = stderr_of(&run);
        assert!(!run.status.success(), "{args:?}");
        assert_eq!(err.matches(about).count(), 1, "{args:?}: {err}");
        for n in not {
            assert!(!err.contains(n), "{args:?} blames {n}: {err}");
        }
    }
    // A file built in memory (`-w`) and refused by the file system on
    // finish is named once, as the file written directly is.
    let big = d.join("big.nc");
    gen_ok(&big_cdl(d, 4096), &big);
    for flags in [&["-w"][..], &[][..]] {
        let out_w = d.join("full.nc");
        let run = run_with_file_limit(nctk().arg("copy").args(flags).arg(&big).arg(&out_w), 4096);
        let err = stderr_of(&run);
        assert!(!run.status.success(), "{flags:?}");
        let named = out_w.to_string_lossy();
        assert_eq!(err.matches(&*named).count(), 1, "{flags:?}: {err}");
    }
    // validate says what it checks.
    let v = nctk().args(["validate", &store_s]).output().unwrap();
    assert!(stderr_of(&v).contains("classic"), "{}", stderr_of(&v));
}
