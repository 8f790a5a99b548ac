//! `nctk copy -k compressed` through the binary: classic files, NCZarr
//! stores and netCDF-4 classic model files copied to a block-compressed
//! file and back give the original dataset; the codec, level, shuffle and
//! block size flags are honoured; bad options are refused clearly; a copy
//! that fails or is interrupted leaves no output and no temporary.
//!
//! Truths: netCDF-C's `ncdump` of the originals (and the corpus's expected
//! dumps of the stores), netCDF-C's `nccopy` of the original classic files
//! (the copied-back file must be the very file nccopy writes, which is
//! the original itself wherever nccopy reproduces it), `ncgen -k nc7` for
//! the netCDF-4 classic model inputs, the options asked for read back from
//! the stored index, and the file system.

mod common;

use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use nctk_classic::compressed::{CodecId, Index};
use nctk_store::bytes::FileSource;
use nctk_test_support::{blocks, corpus::files_under, require};

fn nctk() -> Command {
    Command::new(env!("CARGO_BIN_EXE_nctk"))
}

/// Runs `nctk args`, which must succeed.
fn nctk_ok(args: &[&str]) {
    common::nctk_ok(args);
}

/// Runs a peer tool, which must succeed; its stdout.
fn peer(program: &str, args: &[&str]) -> String {
    let out = Command::new(program).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{program} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// netCDF-C's dump of `path` without its first line (which names the
/// file).
fn ncdump_body(path: &str) -> String {
    let dump = peer("ncdump", &[path]);
    dump.split_once('\n')
        .map_or("", |(_, rest)| rest)
        .to_string()
}

/// The names in `dir` that are temporaries.
fn temporaries(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".nctk-tmp-"))
        .collect()
}

/// The classic files (CDF-1, CDF-2, CDF-5 by their magic) of the corpus
/// under 2 MB, sorted.
fn classic_files(corpus: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = files_under(corpus, |_| true)
        .into_iter()
        .filter(|p| {
            let small = std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.len() < 2_000_000);
            let mut magic = [0u8; 4];
            let read = std::fs::File::open(p)
                .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut magic))
                .is_ok();
            small && read && matches!(magic, [b'C', b'D', b'F', 1 | 2 | 5])
        })
        .collect();
    files.sort();
    files
}

/// The codec flags of sample `n`, cycling through the codecs and block
/// sizes.
fn codec_flags(n: usize) -> Vec<&'static str> {
    let codec = ["zstd", "zlib", "lz4", "blosc", "none"][n % 5];
    let block = ["1M", "4096", "100", "64K"][n % 4];
    vec!["--codec", codec, "--block-size", block]
}

/// A sample of about 40 corpus classic files (CDF-1, CDF-2, CDF-5, with
/// and without records) copied to a compressed file with every codec and
/// several block sizes, then copied back: netCDF-C dumps the copy as the
/// original, `ncdump -k` gives the original's kind, and the copied-back
/// file is byte for byte the file `nccopy` makes of the original (which,
/// for most of them, is the original itself).
#[test]
fn classic_files_round_trip() {
    let Some(corpus) = require::corpus() else {
        return;
    };
    if !require::tools(&["ncdump", "nccopy"]) {
        return;
    }
    let files = classic_files(&corpus);
    let sample: Vec<&PathBuf> = files.iter().step_by((files.len() / 40).max(1)).collect();
    assert!(sample.len() >= 30, "classic sample: {}", sample.len());
    let dir = tempfile::tempdir().unwrap();
    let mut identical = 0;
    for (n, path) in sample.iter().enumerate() {
        let p = path.to_str().unwrap();
        let name = path.file_name().unwrap().to_str().unwrap();
        let sub = dir.path().join(n.to_string());
        std::fs::create_dir_all(sub.join("ref")).unwrap();
        let ncb = sub.join("c.ncb");
        let back = sub.join(name);
        let reference = sub.join("ref").join(name);
        let mut args = vec!["copy", "-k", "compressed"];
        args.extend(codec_flags(n));
        args.extend([p, ncb.to_str().unwrap()]);
        nctk_ok(&args);
        nctk_ok(&["copy", ncb.to_str().unwrap(), back.to_str().unwrap()]);
        let back_s = back.to_str().unwrap();
        assert_eq!(ncdump_body(back_s), ncdump_body(p), "{p}");
        assert_eq!(peer("ncdump", &["-k", back_s]), peer("ncdump", &["-k", p]));
        peer("nccopy", &[p, reference.to_str().unwrap()]);
        let (got, want) = (
            std::fs::read(&back).unwrap(),
            std::fs::read(&reference).unwrap(),
        );
        assert!(got == want, "{p}: the copy back is not nccopy's file");
        identical += usize::from(got == std::fs::read(path).unwrap());
    }
    assert!(identical >= sample.len() / 2, "identical: {identical}");
}

/// NCZarr stores (without groups) and netCDF-4 classic model files made
/// by `ncgen -k nc7` copy to a compressed file (its classic kind the first
/// the definitions fit) and back to a classic file that netCDF-C dumps as
/// it dumps the original; a store with groups is refused as nccopy
/// refuses it, naming the group, leaving nothing.
#[test]
fn stores_and_netcdf4_classic_files_round_trip() {
    let Some(corpus) = require::corpus() else {
        return;
    };
    if !require::tools(&["ncdump", "ncgen"]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut stores: Vec<PathBuf> = files_under(&corpus.join("generated/from-cdl"), |_| true)
        .into_iter()
        .filter_map(|p| p.parent().map(Path::to_path_buf))
        .filter(|p| p.extension().is_some_and(|e| e == "nczarr"))
        .collect();
    stores.sort();
    stores.dedup();
    let (mut copied, mut refused) = (0, 0);
    for (n, store) in stores.iter().step_by(3).enumerate() {
        let expected = PathBuf::from(format!("{}.cdl.expected", store.display()));
        let Ok(expected) = std::fs::read_to_string(&expected) else {
            continue;
        };
        // Sample: stores whose dataset (as ncgen's CDF-1 twin from the
        // same CDL shows) is under 2 MB, the sparse gigabyte ones left
        // out, and stores with groups (which have no such twin).
        let stem = store.to_string_lossy().replace(".u2f", "");
        let twin = std::fs::metadata(stem.replace(".nczarr", ".nc3.nc"));
        let small = twin.is_ok_and(|m| m.len() < 2_000_000);
        if !small && !expected.contains("\ngroup: ") {
            continue;
        }
        let ncb = d.join(format!("s{n}.ncb"));
        let out = nctk()
            .args(["copy", "-k", "compressed"])
            .arg(store)
            .arg(&ncb)
            .output()
            .unwrap();
        if !out.status.success() {
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(err.contains("group"), "{}: {err}", store.display());
            assert!(!ncb.exists());
            refused += 1;
            continue;
        }
        let back = d.join(format!("s{n}.nc"));
        nctk_ok(&["copy", ncb.to_str().unwrap(), back.to_str().unwrap()]);
        let want = expected.split_once('\n').unwrap().1;
        assert_eq!(
            ncdump_body(back.to_str().unwrap()),
            want,
            "{}",
            store.display()
        );
        copied += 1;
    }
    assert!(
        copied >= 8 && refused >= 1,
        "copied {copied}, refused {refused}"
    );

    let mut cdls: Vec<PathBuf> = files_under(&corpus.join("netcdf-c/ncdump/cdl"), |_| true)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "cdl"))
        .collect();
    cdls.sort();
    let mut nc7 = 0;
    for (n, cdl) in cdls.iter().step_by(5).enumerate() {
        // Sample: CDL whose CDF-1 twin (ncgen's, in the corpus) is under
        // 2 MB: within the classic model and not a sparse gigabyte file.
        let stem = cdl.strip_prefix(&corpus).unwrap().with_extension("nc3.nc");
        let twin = std::fs::metadata(corpus.join("generated/from-cdl").join(stem));
        if !twin.is_ok_and(|m| m.len() < 2_000_000) {
            continue;
        }
        let original = d.join(format!("m{n}.nc"));
        let made = Command::new("ncgen")
            .args(["-k", "nc7", "-o"])
            .arg(&original)
            .arg(cdl)
            .output()
            .unwrap();
        if !made.status.success() || !original.exists() {
            continue; // Not within the classic model.
        }
        let ncb = d.join(format!("m{n}.ncb"));
        let back = d.join(format!("m{n}.back.nc"));
        let orig = original.to_str().unwrap();
        nctk_ok(&["copy", "-k", "compressed", orig, ncb.to_str().unwrap()]);
        nctk_ok(&["copy", ncb.to_str().unwrap(), back.to_str().unwrap()]);
        assert_eq!(
            ncdump_body(back.to_str().unwrap()),
            ncdump_body(orig),
            "{orig}"
        );
        nc7 += 1;
    }
    assert!(nc7 >= 5, "netCDF-4 classic model files: {nc7}");
    assert!(temporaries(d).is_empty());
}

/// The shape (the record dimension as its record count) and element
/// size of each variable of the classic file `path`, in directory order.
fn shapes_and_sizes(path: &Path) -> Vec<(Vec<u64>, u64)> {
    let ds = nctk::open(path).unwrap();
    ds.variables()
        .map(|v| (v.shape(), v.dtype().size().unwrap() as u64))
        .collect()
}

/// The codec, level, shuffle and block size flags end up in every
/// variable's directory entry as the format specifies: the codec and level
/// asked for (the codec's default level without `-d`), shuffle by the
/// element size unless `--no-shuffle` (never for bytes), the block size
/// the largest whole number of the variable's rows within it (within one
/// element and the variable's data); the default is zstd level 1,
/// shuffled, 1 MiB blocks.
#[test]
fn codec_and_block_flags_are_honoured() {
    let Some(input) =
        require::corpus_path("generated/from-cdl/netcdf-c/examples/CDL/pres_temp_4D.nc5.nc")
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let vars = shapes_and_sizes(&input);
    let cases: [(&[&str], CodecId, i8, bool, u64); 6] = [
        (&[], CodecId::Zstd, 1, true, 1 << 20),
        (
            &["--codec", "zstd", "-d", "19"],
            CodecId::Zstd,
            19,
            true,
            1 << 20,
        ),
        (
            &["--codec", "zlib", "-d", "9", "-s"],
            CodecId::Zlib,
            9,
            true,
            1 << 20,
        ),
        (
            &["--codec", "lz4", "--block-size", "10"],
            CodecId::Lz4,
            0,
            true,
            10,
        ),
        (
            &["--codec", "blosc", "--no-shuffle", "--block-size", "2K"],
            CodecId::Blosc,
            5,
            false,
            2000,
        ),
        (
            &["--codec", "none", "--block-size", "1"],
            CodecId::None,
            0,
            true,
            1,
        ),
    ];
    for (n, (flags, codec, level, shuffle, block)) in cases.into_iter().enumerate() {
        let out = dir.path().join(format!("{n}.ncb"));
        let mut args = vec!["copy", "-k", "compressed"];
        args.extend(flags);
        args.extend([input.to_str().unwrap(), out.to_str().unwrap()]);
        nctk_ok(&args);
        let index = Index::open(&FileSource::open(&out).unwrap()).unwrap();
        assert_eq!(index.entries.len(), vars.len());
        for (e, (shape, xsz)) in index.entries.iter().zip(&vars) {
            let xsz = *xsz;
            assert_eq!((e.codec.id, e.codec.level), (codec, level), "{flags:?}");
            let want_shuffle = if shuffle && xsz > 1 { xsz as u8 } else { 0 };
            assert_eq!(e.codec.shuffle, want_shuffle, "{flags:?}");
            let want = blocks::row_aligned_block_bytes(shape, xsz, block);
            assert_eq!(e.block_bytes, want, "{flags:?}");
            assert_eq!(e.nblocks, e.data_bytes.div_ceil(e.block_bytes));
        }
    }
}

/// Bad options are refused before anything is written, each naming what
/// is wrong, with no output and no temporary left.
#[test]
fn bad_options_are_refused_clearly() {
    let Some(input) =
        require::corpus_path("generated/from-cdl/netcdf-c/examples/CDL/pres_temp_4D.nc3.nc")
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let url = format!("file://{}/o.zarr#mode=nczarr,file", d.display());
    let cases: [(&[&str], &str, &str); 11] = [
        (
            &["-k", "compressed", "--codec", "lzma"],
            "o.ncb",
            "invalid codec: lzma",
        ),
        (
            &["-k", "compressed", "--codec", "zlib", "-d", "12"],
            "o.ncb",
            "invalid zlib level: 12",
        ),
        (
            &["-k", "compressed", "-d", "99"],
            "o.ncb",
            "invalid zstd level: 99",
        ),
        (
            &["-k", "compressed", "--codec", "lz4", "-d", "1"],
            "o.ncb",
            "lz4 takes no level",
        ),
        (
            &["-k", "compressed", "--block-size", "0"],
            "o.ncb",
            "invalid block size: 0",
        ),
        (
            &["-k", "compressed", "--block-size", "1G"],
            "o.ncb",
            "invalid block size: 1G",
        ),
        (
            &["-k", "compressed", "--block-size", "1Q"],
            "o.ncb",
            "'--block-size'",
        ),
        (&["--codec", "zstd"], "o.nc", "only to -k compressed"),
        (&["-k", "compressed"], "o.zarr", "store or a URL"),
        (&["-k", "compressed"], "o.ncs", "ncstream"),
        (&["-k", "compressed", "-c", "time/1"], "o.ncb", "-c and -F"),
    ];
    for (flags, output, message) in cases {
        let out = d.join(output);
        let mut cmd = nctk();
        cmd.arg("copy").args(flags).arg(&input).arg(&out);
        let run = cmd.output().unwrap();
        let err = String::from_utf8_lossy(&run.stderr);
        assert!(!run.status.success(), "{flags:?} succeeded");
        assert!(err.contains(message), "{flags:?}: {err}");
        assert!(std::fs::read_dir(d).unwrap().next().is_none(), "{flags:?}");
    }
    let run = nctk()
        .args(["copy", "-k", "compressed"])
        .arg(&input)
        .arg(&url)
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&run.stderr).contains("store or a URL"));
    assert!(std::fs::read_dir(d).unwrap().next().is_none());
}

/// Runs `cmd` with a file-size limit of `bytes` (SIGXFSZ ignored, so a
/// write past it fails with EFBIG as on a full disk).
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

/// A classic file of `n` floats (`nctk gen` of a CDL without data: fill
/// values), written in `dir`.
fn big_classic(dir: &Path, n: u64) -> PathBuf {
    let cdl = dir.join("big.cdl");
    let text = format!(
        "netcdf big {{\ndimensions:\n  t = UNLIMITED ;\n  x = {n} ;\nvariables:\n  float v(x) ;\n  \
         int r(t, x) ;\ndata:\n  r = 1, 2, 3 ;\n}}\n"
    );
    std::fs::write(&cdl, text).unwrap();
    let big = dir.join("big.nc");
    nctk_ok(&["gen", "-o", big.to_str().unwrap(), cdl.to_str().unwrap()]);
    big
}

/// A copy whose writes fail (a file-size limit, as a full disk) fails
/// naming the output, on the direct path (a classic input) and through
/// the uncompressed temporary (`-u`), and leaves no output and no
/// temporary; SIGINT in the middle of a copy exits 130 leaving nothing.
#[test]
fn failed_and_interrupted_copies_leave_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    let out_dir = dir.path().join("out");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::create_dir_all(&out_dir).unwrap();
    let big = big_classic(&src, 16_000_000);
    let out = out_dir.join("o.ncb");
    for extra in [&[][..], &["-u"][..]] {
        let mut cmd = nctk();
        cmd.args(["copy", "-k", "compressed", "--codec", "none"])
            .args(extra)
            .arg(&big)
            .arg(&out);
        let run = run_with_file_limit(&mut cmd, 1 << 20);
        let err = String::from_utf8_lossy(&run.stderr);
        assert!(!run.status.success(), "{extra:?}");
        assert!(err.contains(out.to_str().unwrap()), "{extra:?}: {err}");
        assert!(!err.contains(".nctk-tmp-"), "{extra:?}: {err}");
        assert!(std::fs::read_dir(&out_dir).unwrap().next().is_none());
    }

    for extra in [&[][..], &["-u"][..]] {
        let mut child = nctk()
            .args(["copy", "-k", "compressed", "--codec", "zlib", "-d", "9"])
            .args(extra)
            .arg(&big)
            .arg(&out)
            .spawn()
            .unwrap();
        let start = Instant::now();
        while temporaries(&out_dir).is_empty() {
            assert!(
                child.try_wait().unwrap().is_none(),
                "ended before its temporary"
            );
            assert!(start.elapsed() < Duration::from_secs(60), "no temporary");
            std::thread::sleep(Duration::from_millis(2));
        }
        // SAFETY: kill(2) on our own child's pid.
        assert_eq!(
            unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) },
            0
        );
        let status = child.wait().unwrap();
        assert!(
            status.code() == Some(130) || status.signal().is_some(),
            "{status:?}"
        );
        assert!(
            std::fs::read_dir(&out_dir).unwrap().next().is_none(),
            "{extra:?}: {:?}",
            temporaries(&out_dir)
        );
    }
}

/// A copy killed with SIGKILL (no handler runs) while it writes the
/// uncompressed temporary leaves temporaries, which the next run into the
/// same place removes: after it, the output and nothing else.
#[test]
fn a_sigkilled_copys_temporaries_are_removed_by_the_next_run() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    let out_dir = dir.path().join("out");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::create_dir_all(&out_dir).unwrap();
    let big = big_classic(&src, 16_000_000);
    let out = out_dir.join("o.ncb");
    let mut child = nctk()
        .args(["copy", "-k", "compressed", "-u"])
        .arg(&big)
        .arg(&out)
        .spawn()
        .unwrap();
    let start = Instant::now();
    while temporaries(&out_dir).len() < 2 {
        assert!(
            child.try_wait().unwrap().is_none(),
            "ended before its temporaries"
        );
        assert!(start.elapsed() < Duration::from_secs(60), "no temporaries");
        std::thread::sleep(Duration::from_millis(2));
    }
    // SAFETY: kill(2) on our own child's pid.
    assert_eq!(
        unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGKILL) },
        0
    );
    assert_eq!(child.wait().unwrap().signal(), Some(libc::SIGKILL));
    assert!(!temporaries(&out_dir).is_empty());
    assert!(!out.exists());
    let small = src.join("small.nc");
    let cdl = src.join("small.cdl");
    std::fs::write(&cdl, "netcdf small {\ndimensions:\n x = 3 ;\nvariables:\n int v(x) ;\ndata:\n v = 1, 2, 3 ;\n}\n").unwrap();
    nctk_ok(&["gen", "-o", small.to_str().unwrap(), cdl.to_str().unwrap()]);
    nctk_ok(&[
        "copy",
        "-k",
        "compressed",
        small.to_str().unwrap(),
        out.to_str().unwrap(),
    ]);
    let left: Vec<_> = std::fs::read_dir(&out_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, ["o.ncb"]);
}

/// An ncstream (written by `nctk copy` from a corpus classic file) copies
/// to a compressed file whose copy back netCDF-C dumps as the classic
/// file the stream came from.
#[test]
fn an_ncstream_copies_to_compressed() {
    let Some(input) =
        require::corpus_path("generated/from-cdl/netcdf-c/examples/CDL/pres_temp_4D.nc3.nc")
    else {
        return;
    };
    if !require::tools(&["ncdump"]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    let (ncs, ncb, back) = (path("x.ncs"), path("x.ncb"), path("back.nc"));
    nctk_ok(&["copy", input.to_str().unwrap(), &ncs]);
    nctk_ok(&["copy", "-k", "compressed", &ncs, &ncb]);
    nctk_ok(&["copy", &ncb, &back]);
    assert_eq!(ncdump_body(&back), ncdump_body(input.to_str().unwrap()));
}
