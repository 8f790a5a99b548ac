//! `nctk dump x.ncs` with ncdump's flags, on a whole stream made of a
//! cdmremote server's real answers (`CDFS`, the `req=header` answer, one
//! `req=data` answer per variable, the end mark: the grammar's stream),
//! fetched with `curl` from `nctk serve` serving a classic file. The data
//! each flag prints equals what netCDF-C's `ncdump` prints with the same
//! flag from the classic file itself; the stream and a header answer piped
//! in (`-`) dump as the same file named.
//!
//! `NCTK_CORPUS` locates the corpus; the tests need it, `ncdump`,
//! `nccopy` and `curl` as `nctk_test_support::require` rules.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use nctk_test_support::{peer, require};

/// The classic files turned into streams.
const FILES: &[&str] = &[
    "generated/from-cdl/netcdf-c/examples/CDL/pres_temp_4D.nc6.nc",
    "generated/from-cdl/netcdf-c/ncgen/c5.nc5.nc",
];

/// The body of `curl -G URL --data-urlencode PAIR...`.
fn curl(url: &str, pairs: &[&str]) -> Vec<u8> {
    let mut cmd = Command::new("curl");
    cmd.args(["-sS", "--fail", "-G", url]);
    for p in pairs {
        cmd.args(["--data-urlencode", p]);
    }
    let out = cmd.output().expect("run curl");
    assert!(
        out.status.success(),
        "curl {url} {pairs:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// netCDF-Java's escaped full name of a root variable.
fn escaped(name: &str) -> String {
    name.replace('\\', "\\\\").replace('.', "\\.")
}

/// Streams of the served classic files: `(classic file, whole stream,
/// header answer)`, in a temporary directory kept by the caller.
fn streams(dir: &Path) -> Option<Vec<(PathBuf, PathBuf, PathBuf)>> {
    let corpus = require::corpus()?;
    if !require::tools(&["ncdump", "nccopy", "curl"]) {
        return None;
    }
    let served = dir.join("served");
    std::fs::create_dir(&served).unwrap();
    let catalog = nctk_server::catalog(&served, &[]).unwrap();
    let server = nctk_server::Server::bind("127.0.0.1:0", catalog).unwrap();
    let endpoint = format!("http://{}/cdmremote", server.local_addr().unwrap());
    std::thread::spawn(move || server.run());
    let mut out = vec![];
    for relative in FILES {
        let from = corpus.join(relative);
        let name = from.file_stem().unwrap().to_str().unwrap().to_string();
        let file = served.join(from.file_name().unwrap());
        std::fs::copy(&from, &file).unwrap();
        let url = format!("{endpoint}/{}", file.file_name().unwrap().to_str().unwrap());
        let header = curl(&url, &["req=header"]);
        let mut stream = b"CDFS".to_vec();
        stream.extend(&header);
        let ds = nctk::open(&file).unwrap();
        for v in ds.variables() {
            let var = format!("var={}", escaped(v.name()));
            stream.extend(curl(&url, &["req=data", &var]));
        }
        stream.extend([0xed, 0xed, 0xde, 0xde]);
        let ncs = dir.join(format!("{name}.ncs"));
        std::fs::write(&ncs, stream).unwrap();
        let header_answer = dir.join(format!("{name}.header.ncs"));
        std::fs::write(&header_answer, header).unwrap();
        out.push((file, ncs, header_answer));
    }
    Some(out)
}

/// The data every flag prints from the stream is what `ncdump` prints
/// with that flag from the classic file; `-k` says netCDF-4, `-h` prints
/// no data, `-x` is refused as ncdump refuses a netCDF-4 file.
#[test]
fn every_flag_prints_ncdumps_data() {
    let dir = tempfile::tempdir().unwrap();
    let Some(streams) = streams(dir.path()) else {
        return;
    };
    for (file, ncs, _) in &streams {
        let ds = nctk::open(file).unwrap();
        let first = ds.variables().next().unwrap().name().to_string();
        let flag_sets: Vec<Vec<String>> = [
            vec![],
            vec!["-c"],
            vec!["-b", "c"],
            vec!["-f", "f"],
            vec!["-l", "30"],
            vec!["-p", "3,5"],
            vec!["-s"],
            vec!["-v", &first],
        ]
        .into_iter()
        .map(|f| f.into_iter().map(String::from).collect())
        .collect();
        let ncs_text = ncs.to_str().unwrap();
        let name = file.file_stem().unwrap().to_str().unwrap();
        for flags in flag_sets {
            let mut ours: Vec<&str> = vec!["dump", "-n", name];
            ours.extend(flags.iter().map(String::as_str));
            ours.push(ncs_text);
            let mut theirs: Vec<&std::ffi::OsStr> = flags.iter().map(|f| f.as_ref()).collect();
            theirs.push(file.as_os_str());
            // netCDF-C 4.9.0's `ncdump -s` fails on CDF-5 files: no truth there.
            let Ok(expected) = peer::run("ncdump", theirs) else {
                assert!(
                    flags == ["-s"] && name.ends_with("nc5"),
                    "ncdump {flags:?} {name} failed"
                );
                continue;
            };
            let got = common::nctk_ok(&ours);
            assert_eq!(
                common::root_data(&got),
                common::root_data(&expected),
                "{name} {flags:?}"
            );
        }
        assert_eq!(common::nctk_ok(&["dump", "-k", ncs_text]), "netCDF-4\n");
        assert!(!common::nctk_ok(&["dump", "-h", ncs_text]).contains("\ndata:"));
        // A stream is netCDF-4 (not the classic model): -x is refused with
        // the words ncdump refuses a netCDF-4 copy of the file with.
        let nc4 = dir.path().join(format!("{name}.nc4.nc"));
        peer::run(
            "nccopy",
            [
                "-k".as_ref(),
                "nc4".as_ref(),
                file.as_os_str(),
                nc4.as_os_str(),
            ],
        )
        .expect("nccopy -k nc4");
        let theirs = Command::new("ncdump").arg("-x").arg(&nc4).output().unwrap();
        let theirs = String::from_utf8_lossy(&theirs.stderr);
        let reason = theirs.trim().trim_start_matches("ncdump: ");
        let ours = common::nctk(&["dump", "-x", ncs_text]);
        let ours = String::from_utf8_lossy(&ours.stderr);
        assert!(
            !reason.is_empty() && ours.contains(reason),
            "{name} -x: {ours} / {theirs}"
        );
    }
}

/// `nctk dump -n NAME -` of a whole stream (`CDFS` first) or a header
/// answer (the header magic first) on standard input prints what
/// `nctk dump -n NAME` prints of the same file.
#[test]
fn streams_on_stdin_dump_as_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let Some(streams) = streams(dir.path()) else {
        return;
    };
    for (_, ncs, header) in &streams {
        for input in [ncs, header] {
            let expected = common::nctk_ok(&["dump", "-n", "x", input.to_str().unwrap()]);
            let (ok, got, err) = common::nctk_stdin(&["dump", "-n", "x", "-"], input);
            assert!(ok, "{err}");
            assert_eq!(got, expected, "{}", input.display());
        }
    }
}

/// `nctk copy x.ncs out.nc` (no `-k`) writes the first classic kind that
/// `nccopy` can convert the original file to, and `ncdump` prints the copy
/// as it prints the original (text attributes, which a stream carries as
/// strings, written as `char` text as netCDF-Java writes them to netCDF-3);
/// `nctk copy x.ncs out.zarr` writes a store whose data netCDF-C reads as
/// the original's.
#[test]
fn streams_copy_to_classic_files_and_stores() {
    let dir = tempfile::tempdir().unwrap();
    let Some(streams) = streams(dir.path()) else {
        return;
    };
    let after_name = |dump: &str| dump.lines().skip(1).collect::<Vec<_>>().join("\n");
    for (file, ncs, _) in &streams {
        let name = file.file_stem().unwrap().to_str().unwrap();
        let first_kind = ["classic", "64-bit offset", "cdf5"]
            .into_iter()
            .find(|k| {
                let out = dir.path().join(format!("{name}.nccopy.nc"));
                let ok = peer::run(
                    "nccopy",
                    ["-k".as_ref(), k.as_ref(), file.as_os_str(), out.as_os_str()],
                )
                .is_ok();
                let _ = std::fs::remove_file(&out);
                ok
            })
            .expect("nccopy converts the file to a classic kind");
        let out = dir.path().join(format!("{name}.copy.nc"));
        common::nctk_ok(&["copy", ncs.to_str().unwrap(), out.to_str().unwrap()]);
        let kind = peer::run("ncdump", ["-k".as_ref(), out.as_os_str()]).expect("ncdump -k");
        assert_eq!(kind.trim(), first_kind, "{name}");
        let original = peer::run("ncdump", [file]).expect("ncdump");
        let copy = peer::run("ncdump", [&out]).expect("ncdump of the copy");
        assert_eq!(after_name(&copy), after_name(&original), "{name}");

        // netCDF-C 4.9.0 does not read every NCZarr store (the corpus
        // README lists what it cannot): where it cannot read a store nctk
        // copies from the original file, there is no truth for the stream's.
        let direct = dir.path().join(format!("{name}.direct.zarr"));
        common::nctk_ok(&["copy", file.to_str().unwrap(), direct.to_str().unwrap()]);
        let readable = |store: &Path| {
            peer::run(
                "ncdump",
                [format!("file://{}#mode=nczarr,file", store.display())],
            )
        };
        if readable(&direct).is_err() {
            continue;
        }
        let store = dir.path().join(format!("{name}.zarr"));
        common::nctk_ok(&["copy", ncs.to_str().unwrap(), store.to_str().unwrap()]);
        let stored = readable(&store).expect("ncdump of the store");
        assert_eq!(
            common::root_data(&stored),
            common::root_data(&original),
            "{name}.zarr"
        );
    }
}
