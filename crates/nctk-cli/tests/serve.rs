//! `nctk serve` run as a real process on a free port (`--port 0`), against
//! independent truths:
//!
//! * siphon (`siphon.cdmr.Dataset` and its raw `CDMRemote`) reads every
//!   variable, strided sections and deflated sections of classic, netCDF-4
//!   (`ncgen -k nc4` from corpus CDLs: strings, chars, enum, compound,
//!   opaque, groups, and a vlen) and Zarr datasets served by nctk, with
//!   the values netCDF4-python (h5py for opaque) reads from the same
//!   datasets locally (`serve_siphon.py`);
//! * `req=CDL`, `req=NcML` and `req=capabilities` of `nc4_pres_temp_4D.nc`
//!   against the answers THREDDS gave for it (the corpus's `cdmr_*`);
//! * paths that lead outside the served directory, and bad requests,
//!   answered as THREDDS' controller and error handler answer them;
//! * 16 clients at once, each reading different sections.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::served::Served;
use nctk_test_support::{peer, require};

/// A vlen variable (the corpus CDLs with vlen variables also hold
/// compounds with vlen members, which ncstream's structures do not carry).
const VLEN_CDL: &str = "netcdf vlen {
types:
  float(*) row_of_floats ;
dimensions:
  m = 3 ;
variables:
  row_of_floats ragged_array(m) ;
data:
  ragged_array = {1, 2, 3}, {4.5}, {} ;
}
";

/// The served directory: the datasets and where netCDF4-python opens each.
struct Fixtures {
    _dir: tempfile::TempDir,
    root: PathBuf,
    /// (path under /cdmremote/, what netCDF4.Dataset opens).
    cases: Vec<(String, String)>,
}

/// `ncgen -k nc4 -o OUT` of `cdl` text.
fn ncgen_nc4(cdl: &str, out: &Path) {
    let src = out.with_extension("cdl");
    std::fs::write(&src, cdl).unwrap();
    peer::run(
        "ncgen",
        [
            "-k",
            "nc4",
            "-o",
            out.to_str().unwrap(),
            src.to_str().unwrap(),
        ],
    )
    .unwrap_or_else(|e| panic!("ncgen {}: {e}", out.display()));
    std::fs::remove_file(src).unwrap();
}

/// The corpus's `pres_temp_4D.cdl` with the coordinates chunked as in the
/// file THREDDS served (its answers show `_ChunkSizes` on them; ncgen
/// would store them contiguous).
fn pres_temp_4d_cdl(corpus: &Path) -> String {
    std::fs::read_to_string(corpus.join("netcdf-c/examples/CDL/pres_temp_4D.cdl"))
        .unwrap()
        .replace(
            "float latitude(latitude) ;",
            "float latitude(latitude) ;\n\t\tlatitude:_ChunkSizes = 6 ;",
        )
        .replace(
            "float longitude(longitude) ;",
            "float longitude(longitude) ;\n\t\tlongitude:_ChunkSizes = 12 ;",
        )
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

fn fixtures(corpus: &Path) -> Fixtures {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("served");
    let mut cases = Vec::new();
    let mut add = |rel: &str, local: String| cases.push((rel.to_string(), local));

    std::fs::create_dir_all(root.join("classic")).unwrap();
    let generated = corpus.join("generated/from-cdl/netcdf-c/ncdump/cdl");
    for name in [
        "pres_temp_4D.nc3.nc",
        "c0.nc3.nc",
        "fills.nc3.nc",
        "ref_const_test.nc5.nc",
    ] {
        let to = root.join("classic").join(name);
        std::fs::copy(generated.join(name), &to).unwrap();
        add(&format!("classic/{name}"), to.display().to_string());
    }

    std::fs::create_dir_all(root.join("nc4")).unwrap();
    let pres = root.join("nc4/nc4_pres_temp_4D.nc");
    ncgen_nc4(&pres_temp_4d_cdl(corpus), &pres);
    add("nc4/nc4_pres_temp_4D.nc", pres.display().to_string());
    let cdl_dir = corpus.join("netcdf-c/ncdump/cdl");
    for name in [
        "ref_tst_string_data",
        "ref_tst_chardata",
        "ref_tst_enum_data",
        "ref_tst_group_data",
        "ref_tst_comp",
        "ref_tst_opaque_data",
        "ref_tst_utf8",
        "ref_tst_nans",
    ] {
        let cdl = std::fs::read_to_string(cdl_dir.join(format!("{name}.cdl"))).unwrap();
        let out = root.join("nc4").join(format!("{name}.nc"));
        ncgen_nc4(&cdl, &out);
        add(&format!("nc4/{name}.nc"), out.display().to_string());
    }
    let vlen = root.join("nc4/vlen.nc");
    ncgen_nc4(VLEN_CDL, &vlen);
    add("nc4/vlen.nc", vlen.display().to_string());

    let store = root.join("zarr/pres_temp_4D.zarr");
    copy_dir(
        &corpus.join("generated/from-cdl/netcdf-c/examples/CDL/pres_temp_4D.u2f.zarr"),
        &store,
    );
    add(
        "zarr/pres_temp_4D.zarr",
        format!("file://{}#mode=nczarr,file", store.display()),
    );
    Fixtures {
        _dir: dir,
        root,
        cases,
    }
}

/// Runs `serve_siphon.py` on `cases`; its `OK` lines, after asserting
/// there is no `BAD` one.
fn siphon_check(served: &Served, cases: &[(String, String)], threads: usize) -> Vec<String> {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/serve_siphon.py");
    let cases = serde_json::to_string(cases).unwrap();
    let out = peer::output(
        Command::new("python3")
            .arg(script)
            .arg(served.base())
            .arg(&cases)
            .arg(threads.to_string()),
    )
    .unwrap_or_else(|e| panic!("serve_siphon.py: {e}"));
    let bad: Vec<&str> = out.lines().filter(|l| l.starts_with("BAD")).collect();
    assert!(bad.is_empty(), "siphon disagrees:\n{}", bad.join("\n"));
    out.lines()
        .filter(|l| l.starts_with("OK"))
        .map(str::to_string)
        .collect()
}

fn peers() -> Option<PathBuf> {
    let corpus = require::corpus()?;
    (require::tools(&["ncgen"]) && require::python(&["siphon", "netCDF4", "numpy", "h5py"]))
        .then_some(corpus)
}

#[test]
fn siphon_reads_what_netcdf4_python_reads_locally() {
    let Some(corpus) = peers() else { return };
    let fx = fixtures(&corpus);
    let served = Served::start(&fx.root, &[]);
    let ok = siphon_check(&served, &fx.cases, 1);
    // Every case was read, and the kinds of reads all happened.
    for (rel, _) in &fx.cases {
        assert!(
            ok.iter().any(|l| l.contains(&format!(" {rel} "))),
            "nothing read from {rel}"
        );
    }
    for what in [
        "dataset-all",
        "fetch-all",
        "fetch-section",
        "deflate-section",
    ] {
        assert!(ok.iter().any(|l| l.ends_with(what)), "no {what} read");
    }
}

#[test]
fn a_variable_of_many_slabs_streams_whole_and_deflated() {
    let Some(_) = peers() else { return };
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big.nc");
    // 3 x 700 x 1000 floats: 8.4 MB, more than two slabs of 4 MiB.
    peer::python(
        "import sys, netCDF4, numpy as np
d = netCDF4.Dataset(sys.argv[1], 'w', format='NETCDF3_64BIT_OFFSET')
d.createDimension('t', None); d.createDimension('y', 700); d.createDimension('x', 1000)
v = d.createVariable('field', 'f4', ('t', 'y', 'x'))
v[:] = np.arange(3 * 700, dtype='f4').reshape(3, 700, 1)[:, :, [0] * 1000] * 0.5
d.close()",
        [big.to_str().unwrap()],
    )
    .unwrap();
    let served = Served::start(dir.path(), &[]);
    let cases = vec![("big.nc".to_string(), big.display().to_string())];
    let ok = siphon_check(&served, &cases, 1);
    assert_eq!(ok.len(), 4, "{ok:?}");
    // Uncompressed, the whole variable is one data message (what siphon's
    // Dataset reads); deflated, one message per slab.
    let (status, _, body) = served.get("/cdmremote/big.nc?req=data&var=field");
    assert_eq!(status, 200);
    let marks = |body: &[u8], magic: &[u8]| body.windows(4).filter(|w| *w == magic).count();
    assert!(body.len() > 8_400_000);
    assert_eq!(&body[..4], b"\xab\xec\xce\xba");
    let (_, _, deflated) = served.get("/cdmremote/big.nc?req=data&var=field&deflate=1");
    assert!(marks(&deflated, b"\xab\xec\xce\xba") >= 2);
    assert!(deflated.len() < body.len());
}

/// The lines of a text answer, as blocks: a line indented as deep as the
/// first variable's starts a block, deeper lines belong to it. THREDDS'
/// file defined its variables in another order than the corpus CDL that
/// ncgen reads (`temperature, pressure` first), so blocks are compared as
/// a set and the rest line by line.
fn blocks(text: &str, starts: impl Fn(&str) -> bool) -> (Vec<String>, Vec<Vec<String>>) {
    let mut outside = Vec::new();
    let mut blocks: Vec<Vec<String>> = Vec::new();
    let mut inside = false;
    for line in text.lines() {
        if starts(line) {
            blocks.push(vec![line.to_string()]);
            inside = true;
        } else if inside
            && (line.starts_with("      ") || line.starts_with("    <") || line.is_empty())
        {
            blocks.last_mut().unwrap().push(line.to_string());
        } else {
            inside = false;
            outside.push(line.to_string());
        }
    }
    blocks.sort();
    (outside, blocks)
}

#[test]
fn text_answers_are_the_ones_thredds_gave() {
    let Some(corpus) = peers() else { return };
    let answers = corpus.join("generated/ncstream/siphon");
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("nc4")).unwrap();
    ncgen_nc4(
        &pres_temp_4d_cdl(&corpus),
        &dir.path().join("nc4/nc4_pres_temp_4D.nc"),
    );
    let served = Served::start(dir.path(), &[]);
    let thredds = |name: &str| {
        std::fs::read_to_string(answers.join(name).join("00.txt"))
            .unwrap()
            .replace("http://localhost:8080/thredds/cdmremote/", &served.base())
    };
    let ask = |req: &str| {
        let (status, head, body) =
            served.get(&format!("/cdmremote/nc4/nc4_pres_temp_4D.nc?req={req}"));
        assert_eq!(status, 200, "req={req}");
        (head, String::from_utf8(body).unwrap())
    };

    let (head, caps) = ask("capabilities");
    assert!(head.contains("content-type: application/xml;charset=utf-8"));
    assert_eq!(caps, thredds("cdmr_capabilities"));

    let (head, cdl) = ask("CDL");
    assert!(head.contains("content-type: text/plain;charset=utf-8"));
    let variable = |l: &str| l.starts_with("    float ");
    assert_eq!(
        blocks(&cdl, variable),
        blocks(&thredds("cdmr_cdl"), variable)
    );

    let (head, ncml) = ask("NcML");
    assert!(head.contains("content-type: application/xml;charset=utf-8"));
    let variable = |l: &str| l.starts_with("  <variable ");
    assert_eq!(
        blocks(&ncml, variable),
        blocks(&thredds("cdmr_ncml"), variable)
    );

    // A header answer is one ncstream header message.
    let (status, head, body) = served.get("/cdmremote/nc4/nc4_pres_temp_4D.nc?req=header");
    assert_eq!(status, 200);
    assert!(head.contains("content-type: application/octet-stream"));
    assert!(head.contains("content-description: ncstream"));
    assert_eq!(&body[..4], b"\xad\xec\xce\xda");
}

#[test]
fn nothing_outside_the_directory_is_reachable() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("served");
    std::fs::create_dir_all(root.join("sub")).unwrap();
    let classic = |path: &Path| {
        // The smallest classic file: CDF-1, no records, no dims, atts or vars.
        std::fs::write(path, [b"CDF\x01".as_slice(), &[0; 28]].concat()).unwrap();
    };
    classic(&dir.path().join("secret.nc"));
    classic(&root.join("sub/inside.nc"));
    std::os::unix::fs::symlink(dir.path().join("secret.nc"), root.join("link.nc")).unwrap();
    std::os::unix::fs::symlink(dir.path(), root.join("up")).unwrap();
    let served = Served::start(&root, &[]);

    let (status, _, _) = served.get("/cdmremote/sub/inside.nc?req=header");
    assert_eq!(status, 200, "the control: a dataset inside is served");
    let secret = dir.path().join("secret.nc").display().to_string();
    for target in [
        "/cdmremote/../secret.nc?req=header".to_string(),
        "/cdmremote/sub/../../secret.nc?req=header".into(),
        "/cdmremote/%2e%2e/secret.nc?req=header".into(),
        "/cdmremote/sub/%2E%2E%2F%2E%2E%2Fsecret.nc?req=header".into(),
        "/cdmremote/..%2fsecret.nc?req=header".into(),
        format!("/cdmremote/{secret}?req=header"),
        format!("/cdmremote/%2F{}?req=header", &secret[1..]),
        "/cdmremote/link.nc?req=header".into(),
        "/cdmremote/up/secret.nc?req=header".into(),
        "/cdmremote/missing.nc?req=header".into(),
        "/elsewhere/sub/inside.nc?req=header".into(),
    ] {
        let (status, _, body) = served.get(&target);
        assert_eq!(status, 404, "{target}: {}", String::from_utf8_lossy(&body));
    }
}

#[test]
fn bad_requests_get_the_answers_thredds_gives() {
    let Some(corpus) = peers() else { return };
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        corpus.join("generated/from-cdl/netcdf-c/ncdump/cdl/pres_temp_4D.nc3.nc"),
        dir.path().join("p.nc"),
    )
    .unwrap();
    let served = Served::start(dir.path(), &[]);
    // THREDDS' CdmRemoteController and TdsErrorHandling: a missing variable
    // and a malformed section are IllegalArgumentExceptions (400), a range
    // outside the shape an InvalidRangeException (400 here, see the crate
    // docs), an unknown req "Unrecognized request" (400).
    for (query, starts) in [
        ("req=data&var=nosuch", "IllegalArgumentException"),
        (
            "req=data&var=pressure(0:x,:,:,:)",
            "IllegalArgumentException",
        ),
        ("req=data&var=pressure(0:1", "IllegalArgumentException"),
        ("req=data&var=pressure(-1,:,:,:)", "InvalidRangeException"),
        ("req=data&var=pressure(0:2,:,:,:)", "InvalidRangeException"),
        ("req=data&var=pressure(1:0,:,:,:)", "InvalidRangeException"),
        (
            "req=data&var=pressure(0:1:0,:,:,:)",
            "InvalidRangeException",
        ),
        ("req=data&var=pressure(0,0)", "InvalidRangeException"),
        ("req=bogus", "Unrecognized request"),
        ("req=data", "Invalid Request"),
        ("req=data&var=pressure&deflate=x", "Invalid Request"),
    ] {
        let (status, head, body) = served.get(&format!("/cdmremote/p.nc?{query}"));
        let body = String::from_utf8_lossy(&body);
        assert_eq!(status, 400, "{query}: {body}");
        assert!(head.contains("content-type: text/plain"), "{query}");
        assert!(body.starts_with(starts), "{query}: {body}");
    }
    // No req: THREDDS' endpoint probe, an empty ncstream answer.
    let (status, head, body) = served.get("/cdmremote/p.nc");
    assert_eq!((status, body.len()), (200, 0));
    assert!(head.contains("content-description: ncstream"));
    // Request words are case-insensitive; a section's last index is
    // inclusive: latitude(1:3) is 30, 35, 40 (the corpus CDL's values),
    // big-endian after the data message.
    let (status, _, body) = served.get("/cdmremote/p.nc?req=DATA&var=latitude(1:3)");
    assert_eq!(status, 200);
    assert_eq!(&body[..4], b"\xab\xec\xce\xba");
    let want: Vec<u8> = [30f32, 35., 40.]
        .iter()
        .flat_map(|x| x.to_be_bytes())
        .collect();
    assert!(body.ends_with(&want), "{body:?}");
}

#[test]
fn sixteen_clients_at_once_all_get_their_values() {
    let Some(corpus) = peers() else { return };
    let fx = fixtures(&corpus);
    let served = Served::start(&fx.root, &[]);
    let numeric: Vec<(String, String)> = fx
        .cases
        .iter()
        .filter(|(rel, _)| rel.contains("pres_temp_4D") || rel.contains("c0"))
        .cloned()
        .collect();
    let cases: Vec<(String, String)> = numeric.iter().cycle().take(16).cloned().collect();
    let ok = siphon_check(&served, &cases, 16);
    for (rel, _) in &numeric {
        assert!(ok.iter().any(|l| l.contains(&format!(" {rel} "))), "{rel}");
    }
}

#[test]
fn a_read_error_after_the_answer_started_ends_it_with_an_error_message() {
    let Some(corpus) = require::corpus() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("broken.zarr");
    copy_dir(
        &corpus.join("generated/from-cdl/netcdf-c/examples/CDL/pres_temp_4D.u2f.zarr"),
        &store,
    );
    // An uncompressed chunk cut short: the store opens, reading fails.
    std::fs::write(store.join("pressure/0.0.0.0"), [0u8; 10]).unwrap();
    let served = Served::start(dir.path(), &[]);
    let (status, _, body) = served.get("/cdmremote/broken.zarr?req=data&var=latitude;pressure");
    assert_eq!(status, 200);
    // latitude's message, then the grammar's error message (MAGIC_ERR)
    // naming the variable that failed.
    assert_eq!(&body[..4], b"\xab\xec\xce\xba");
    let at = body
        .windows(4)
        .position(|w| w == b"\xab\xad\xba\xda")
        .expect("an error message");
    let text = String::from_utf8_lossy(&body[at..]);
    assert!(text.contains("pressure"), "{text}");
}

#[test]
fn datasets_configured_by_name_are_served_and_nothing_else_outside() {
    let Some(corpus) = require::corpus() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("served");
    std::fs::create_dir_all(&root).unwrap();
    let outside = dir.path().join("outside.nc");
    std::fs::copy(
        corpus.join("generated/from-cdl/netcdf-c/ncdump/cdl/pres_temp_4D.nc3.nc"),
        &outside,
    )
    .unwrap();
    let option = format!("remote/pres={}", outside.display());
    let served = Served::start(&root, &["--dataset", &option]);
    let (status, _, body) = served.get("/cdmremote/remote/pres?req=CDL");
    assert_eq!(status, 200);
    assert!(String::from_utf8_lossy(&body).starts_with("netcdf remote/pres {"));
    let (status, _, _) = served.get("/cdmremote/../outside.nc?req=CDL");
    assert_eq!(status, 404);
}

#[test]
fn a_missing_directory_or_a_bad_dataset_option_is_refused_before_serving() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing");
    let out = common::nctk(&["serve", missing.to_str().unwrap(), "--port", "0"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(missing.to_str().unwrap()), "{err}");
    let out = common::nctk(&[
        "serve",
        dir.path().to_str().unwrap(),
        "--port",
        "0",
        "--dataset",
        "no-equals-sign",
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no-equals-sign"), "{err}");
}
