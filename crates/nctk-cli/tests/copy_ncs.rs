//! `nctk copy IN OUT.ncs` and `nctk copy IN -` write ncstream: siphon 0.11
//! decodes every stream and netCDF-C (the Python netCDF4 library) reads
//! the input; every data message holds the input's values in its section
//! and the messages cover every value (`copy_ncs_compare.py`, over
//! `nctk-ncstream`'s `siphon_messages.py`).
//!
//! * every classic file of the corpus (`generated/from-cdl/**/*.nc3.nc`,
//!   scipy's, xarray's and netCDF-Java's);
//! * netCDF-4 files `ncgen -k nc4` makes from the corpus's CDLs (groups,
//!   strings, enums, compounds with array and nested members, unlimited
//!   dimensions, NaNs, unicode names); those ncstream cannot carry are
//!   refused with an error naming the attribute or variable;
//! * `-d 5` deflates the data messages (Python's zlib inflates each to its
//!   stated size) with the same values;
//! * `-` writes the stream to standard output (a copy that fails there
//!   ends it with an ncstream error message and no end mark), and an
//!   existing `.ncs` is replaced only when the copy completes.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{nctk, nctk_ok};
use nctk_test_support::require;

const COMPARE: &str = include_str!("copy_ncs_compare.py");

/// The directory of `siphon_messages.py`, which the comparison imports.
fn siphon_helper_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../nctk-ncstream/tests")
}

/// Compares each (input, stream) pair; the comparison's JSON report.
fn compare(pairs: &[(PathBuf, PathBuf)]) -> Option<serde_json::Value> {
    let mut args = vec![siphon_helper_dir()];
    for (input, stream) in pairs {
        args.push(input.clone());
        args.push(stream.clone());
    }
    let out = require::python_output(&["siphon", "netCDF4", "numpy"], COMPARE, &args)?;
    Some(serde_json::from_str(out.lines().last().expect("a report")).expect("JSON report"))
}

/// Asserts the report has no problems and compared `min_messages` or more.
fn assert_clean(report: &serde_json::Value, min_messages: u64) {
    let problems = report["problems"].as_array().expect("problems");
    assert!(problems.is_empty(), "{problems:#?}");
    let messages = report["messages"].as_u64().expect("messages");
    assert!(
        messages >= min_messages,
        "only {messages} data messages compared"
    );
}

/// Copies each input to `dir/N.ncs` with `flags`; the pairs.
fn copy_all(inputs: &[PathBuf], dir: &Path, flags: &[&str]) -> Vec<(PathBuf, PathBuf)> {
    inputs
        .iter()
        .enumerate()
        .map(|(i, input)| {
            let out = dir.join(format!("{i}.ncs"));
            let mut args: Vec<&str> = vec!["copy"];
            args.extend(flags);
            args.extend([input.to_str().unwrap(), out.to_str().unwrap()]);
            nctk_ok(&args);
            (input.clone(), out)
        })
        .collect()
}

fn classic_inputs(corpus: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> =
        nctk_test_support::corpus::files_under(&corpus.join("generated/from-cdl"), |_| true)
            .into_iter()
            .filter(|p| p.to_string_lossy().ends_with(".nc3.nc"))
            .collect();
    for dir in ["scipy", "xarray", "netcdf-java/cdm/core/src/test/data"] {
        let found = nctk_test_support::corpus::files_under(&corpus.join(dir), |_| true);
        files.extend(
            found
                .into_iter()
                .filter(|p| p.extension().is_some_and(|e| e == "nc"))
                .filter(|p| !p.to_string_lossy().contains("-bad")),
        );
    }
    files
}

#[test]
fn every_classic_corpus_file_streams_with_its_values() {
    let Some(corpus) = require::corpus() else {
        return;
    };
    let inputs = classic_inputs(&corpus);
    assert!(inputs.len() > 60, "{} classic files found", inputs.len());
    let dir = tempfile::tempdir().unwrap();
    let pairs = copy_all(&inputs, dir.path(), &[]);
    let Some(report) = compare(&pairs) else {
        return;
    };
    assert_clean(&report, 1000);
}

/// CDLs of the corpus with netCDF-4 features that ncstream carries.
const NETCDF4_CDLS: &[&str] = &[
    "ref_tst_comp",
    "ref_tst_comp2",
    "ref_tst_comp3",
    "ref_tst_string_data",
    "ref_tst_enum_data",
    "ref_tst_econst",
    "ref_tst_group_data",
    "ref_nctst_netcdf4",
    "ref_tst_unicode",
    "ref_tst_utf8",
    "ref_tst_nans",
    "ref_tst_names",
    "ref_tst_unlim2",
    "ref_tst_solar_1",
    "ref_tst_h_scalar",
    "ref_tst_chardata",
    "unlimtest2",
    "pres_temp_4D",
];

/// `ncgen -k nc4` of each named CDL of `ncdump/cdl` into `dir`.
fn netcdf4_inputs(names: &[&str], dir: &Path) -> Option<Vec<PathBuf>> {
    let cdl_dir = require::corpus_path("netcdf-c/ncdump/cdl")?;
    if !require::tools(&["ncgen"]) {
        return None;
    }
    let made = names
        .iter()
        .map(|name| {
            let out = dir.join(format!("{name}.nc"));
            let status = Command::new("ncgen")
                .args(["-k", "nc4", "-o"])
                .arg(&out)
                .arg(cdl_dir.join(format!("{name}.cdl")))
                .status()
                .expect("run ncgen");
            assert!(status.success(), "ncgen {name}");
            out
        })
        .collect();
    Some(made)
}

#[test]
fn netcdf4_types_stream_with_their_values() {
    let dir = tempfile::tempdir().unwrap();
    let Some(inputs) = netcdf4_inputs(NETCDF4_CDLS, dir.path()) else {
        return;
    };
    let pairs = copy_all(&inputs, dir.path(), &[]);
    let Some(report) = compare(&pairs) else {
        return;
    };
    assert_clean(&report, NETCDF4_CDLS.len() as u64);
}

#[test]
fn what_ncstream_cannot_carry_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "ref_tst_opaque_data",
            "attribute \"_FillValue\" of \"raw_obs\"",
        ),
        (
            "ref_tst_vlen_data",
            "attribute \"_FillValue\" of \"ragged_array\"",
        ),
        ("ref_tst_vlen_data2", "variable \"/pfSystem/vlenVlenInt\""),
    ];
    let names: Vec<&str> = cases.iter().map(|c| c.0).collect();
    let Some(inputs) = netcdf4_inputs(&names, dir.path()) else {
        return;
    };
    for ((_, what), input) in cases.iter().zip(&inputs) {
        let out = dir.path().join("refused.ncs");
        let run = nctk(&["copy", input.to_str().unwrap(), out.to_str().unwrap()]);
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert!(!run.status.success(), "{input:?} copied");
        assert!(
            stderr.contains(what) && stderr.contains("refused.ncs"),
            "{stderr}"
        );
        assert!(!out.exists(), "a refused copy left {out:?}");
    }
}

#[test]
fn deflate_flag_compresses_data_messages_with_the_same_values() {
    let dir = tempfile::tempdir().unwrap();
    let Some(mut inputs) = netcdf4_inputs(&["ref_tst_comp", "pres_temp_4D"], dir.path()) else {
        return;
    };
    if let Some(corpus) = require::corpus() {
        inputs.extend(classic_inputs(&corpus).into_iter().take(10));
    }
    let pairs = copy_all(&inputs, dir.path(), &["-d", "5"]);
    let streams: Vec<String> = pairs
        .iter()
        .map(|(_, s)| s.to_string_lossy().into_owned())
        .collect();
    let Some(report) = compare(&pairs) else {
        return;
    };
    assert_clean(&report, 12);
    // Number messages are deflated: the helper reports their inflated
    // size (Python's zlib), which the comparison checked against
    // `uncompressedSize`.
    let script = "import sys; sys.path.insert(0, sys.argv[1]); import siphon_messages as m\n\
                  print(sum(1 for p in sys.argv[2:] for i in m.messages(p) if 'inflated' in i))";
    let mut args = vec![siphon_helper_dir().to_string_lossy().into_owned()];
    args.extend(streams);
    let out = require::python_output(&["siphon"], script, &args).unwrap();
    let deflated: u64 = out.trim().parse().unwrap();
    assert!(deflated >= 10, "{deflated} deflated messages");
}

#[test]
fn a_dash_writes_the_stream_to_standard_output() {
    let dir = tempfile::tempdir().unwrap();
    let Some(inputs) = netcdf4_inputs(&["ref_tst_comp", "pres_temp_4D"], dir.path()) else {
        return;
    };
    let mut pairs = Vec::new();
    for input in &inputs {
        let run = nctk(&["copy", input.to_str().unwrap(), "-"]);
        assert!(
            run.status.success(),
            "{}",
            String::from_utf8_lossy(&run.stderr)
        );
        assert_eq!(&run.stdout[..4], b"CDFS", "MAGIC_START first");
        assert_eq!(
            &run.stdout[run.stdout.len() - 4..],
            [0xed, 0xed, 0xde, 0xde],
            "MAGIC_END last"
        );
        let stream = input.with_extension("stdout.ncs");
        std::fs::write(&stream, &run.stdout).unwrap();
        pairs.push((input.clone(), stream));
    }
    let Some(report) = compare(&pairs) else {
        return;
    };
    assert_clean(&report, 2);
}

#[test]
fn an_existing_stream_is_replaced_only_by_a_complete_one() {
    let dir = tempfile::tempdir().unwrap();
    let Some(inputs) = netcdf4_inputs(&["pres_temp_4D", "ref_tst_opaque_data"], dir.path()) else {
        return;
    };
    let out = dir.path().join("out.ncs");
    nctk_ok(&["copy", inputs[0].to_str().unwrap(), out.to_str().unwrap()]);
    let before = std::fs::read(&out).unwrap();
    let failed = nctk(&["copy", inputs[1].to_str().unwrap(), out.to_str().unwrap()]);
    assert!(!failed.status.success());
    assert_eq!(
        std::fs::read(&out).unwrap(),
        before,
        "the old stream is kept"
    );
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("nctk-tmp"))
        .collect();
    assert!(left.is_empty(), "temporaries left: {left:?}");
}

/// A netCDF-4 file whose second variable's one chunk is damaged (made by
/// netCDF4-python, the chunk found with h5py): the copy fails there.
const DAMAGED: &str = "
import sys, netCDF4, numpy as np, h5py
d = netCDF4.Dataset(sys.argv[1], 'w')
d.createDimension('x', 100000)
d.createVariable('a', 'f4', ('x',))[:] = np.arange(100000, dtype='f4')
b = d.createVariable('b', 'f4', ('x',), zlib=True, complevel=1, chunksizes=(100000,))
b[:] = np.random.default_rng(1).random(100000).astype('f4')
d.close()
with h5py.File(sys.argv[1], 'r') as f:
    at = f['b'].id.get_chunk_info(0).byte_offset
raw = bytearray(open(sys.argv[1], 'rb').read())
for k in range(at + 100, at + 200):
    raw[k] ^= 0xff
open(sys.argv[1], 'wb').write(raw)
";

#[test]
fn a_copy_to_standard_output_that_fails_ends_with_an_error_message() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("damaged.nc");
    if require::python_output(&["netCDF4", "h5py", "numpy"], DAMAGED, [&input]).is_none() {
        return;
    }
    let run = nctk(&["copy", input.to_str().unwrap(), "-"]);
    assert!(!run.status.success(), "the damaged chunk fails the copy");
    assert!(String::from_utf8_lossy(&run.stderr).contains("\"b\""));
    assert_eq!(&run.stdout[..4], b"CDFS");
    assert_ne!(
        &run.stdout[run.stdout.len() - 4..],
        [0xed, 0xed, 0xde, 0xde],
        "no MAGIC_END"
    );
    let stream = dir.path().join("cut.ncs");
    std::fs::write(&stream, &run.stdout).unwrap();
    let script = "import sys, json; sys.path.insert(0, sys.argv[1]); import siphon_messages as m\n\
                  print(json.dumps([i.get('var', i['kind']) for i in m.messages(sys.argv[2])]))";
    let helper = siphon_helper_dir();
    let Some(out) = require::python_output(&["siphon"], script, [helper.as_path(), &stream]) else {
        return;
    };
    let kinds: Vec<String> = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(kinds, ["43444653", "header", "a", "error"], "siphon's view");
}
