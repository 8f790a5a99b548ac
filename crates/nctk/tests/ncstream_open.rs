//! ncstream through the facade: `nctk::open` (and `open_mem`, `kind`)
//! detects a stream by its first bytes (`CDFS`, a whole stream; the header
//! magic, a cdmremote header answer) and reads it; what is not a dataset
//! (a data answer alone, an error message) is refused clearly; a stream
//! copied to a plain path gets the first classic kind that fits.
//!
//! The truth is siphon 0.11 (`siphon.cdmr.ncstream`) reading the same
//! bytes: the THREDDS answers of the corpus, and whole streams made of them
//! (`CDFS`, the header answer, the data answers, the end mark, as the
//! grammar writes a stream); for the classic kinds, netCDF-C's `ncgen`.
//!
//! `NCTK_CORPUS` locates the corpus; the tests need it, siphon and `ncgen`
//! as `nctk_test_support::require` rules.

use std::path::{Path, PathBuf};

use nctk::model::Format;
use nctk_test_support::{peer, require};

/// The corpus's recorded cdmremote answers.
const ANSWERS: &str = "generated/ncstream/siphon";

/// `python3 -c script args...` with siphon, parsed as JSON.
fn siphon(script: &str, args: &[&Path]) -> Option<serde_json::Value> {
    let out = require::python_output(&["siphon.cdmr.ncstream"], script, args)?;
    Some(serde_json::from_str(&out).expect("siphon's JSON"))
}

/// siphon's header: `[path, shape]` of every variable and structure, the
/// group path joined with `/`, vlen dimensions left out (the model puts
/// them in the vlen type).
const SIPHON_HEADER: &str = r#"
import sys, json
from siphon.cdmr.ncstream import read_ncstream_messages
with open(sys.argv[1], 'rb') as f:
    header = read_ncstream_messages(f)[0]
out = []
def walk(group, path):
    for v in list(group.vars) + list(group.structs):
        out.append([path + v.name, [d.length for d in v.shape if not d.isVlen]])
    for g in group.groups:
        walk(g, path + g.name + '/')
walk(header.root, '')
print(json.dumps(out))
"#;

/// siphon's values of every array of a data answer, flattened (numbers
/// as floats, strings as text).
const SIPHON_DATA: &str = r#"
import sys, json
import numpy as np
from siphon.cdmr.ncstream import read_ncstream_messages
with open(sys.argv[1], 'rb') as f:
    arrays = read_ncstream_messages(f)
def value(x):
    if isinstance(x, bytes):
        return x.decode()
    if isinstance(x, str):
        return x
    return float(x)
print(json.dumps([[value(x) for x in np.asarray(a, dtype=object).ravel()] for a in arrays]))
"#;

/// The variables of a dataset as `[path, shape]`, as [`SIPHON_HEADER`] lists them.
fn nctk_variables(ds: &nctk::Dataset) -> serde_json::Value {
    let schema = ds.schema();
    let vars: Vec<serde_json::Value> = schema
        .var_ids()
        .map(|v| {
            let path = schema.var_path(v);
            serde_json::json!([path.trim_start_matches('/'), schema.shape(v)])
        })
        .collect();
    serde_json::Value::Array(vars)
}

/// The corpus's header answers (`NAME/00.ncs` starting with the header magic).
fn header_answers(corpus: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(corpus.join(ANSWERS))
        .expect("the answers")
        .map(|e| e.unwrap().path().join("00.ncs"))
        .filter(|p| std::fs::read(p).is_ok_and(|b| b.starts_with(&[0xad, 0xec, 0xce, 0xda])))
        .collect();
    out.sort();
    out
}

/// Every header answer of the corpus opens by path and from memory, is
/// `netCDF-4` to `kind`, and has the variables and shapes siphon reads.
#[test]
fn header_answers_open_with_siphons_variables() {
    let Some(corpus) = require::corpus() else {
        return;
    };
    let answers = header_answers(&corpus);
    assert!(answers.len() >= 10, "{answers:?}");
    for answer in answers {
        let Some(expected) = siphon(SIPHON_HEADER, &[&answer]) else {
            return;
        };
        let ds = nctk::open(&answer).unwrap_or_else(|e| panic!("{}: {e}", answer.display()));
        assert_eq!(nctk_variables(&ds), expected, "{}", answer.display());
        assert_eq!(ds.format(), Format::Netcdf4);
        assert_eq!(nctk::kind(&answer).unwrap(), Format::Netcdf4);
        let bytes = std::fs::read(&answer).unwrap();
        let mem = nctk::open_mem(bytes).unwrap();
        assert_eq!(
            nctk_variables(&mem),
            expected,
            "{} in memory",
            answer.display()
        );
    }
}

/// `CDFS`, the answers of `dir` in order, `MAGIC_END`: a whole stream.
fn whole_stream(dir: &Path, answers: &[&str]) -> Vec<u8> {
    let mut stream = b"CDFS".to_vec();
    for a in answers {
        stream.extend(std::fs::read(dir.join(a)).unwrap());
    }
    stream.extend([0xed, 0xed, 0xde, 0xde]);
    stream
}

/// The values of a read as JSON numbers or text, as [`SIPHON_DATA`] gives them.
fn as_json(values: &nctk::model::Values) -> Vec<serde_json::Value> {
    match values {
        nctk::model::Values::String(v) => v.iter().map(|s| serde_json::json!(s)).collect(),
        other => other
            .as_f64_vec()
            .expect("numbers")
            .into_iter()
            .map(|x| serde_json::json!(x))
            .collect(),
    }
}

/// A whole stream made of THREDDS's answers (netCDF-Java 5 column
/// messages; netCDF-Java 4 string messages of single elements) is detected
/// by `CDFS` and reads the values siphon decodes from each answer, in the
/// sections the answers name; what no answer covers is the fill value.
#[test]
fn whole_streams_read_as_siphon_decodes_their_answers() {
    let Some(corpus) = require::corpus() else {
        return;
    };
    let dir = corpus.join(ANSWERS);
    let tmp = tempfile::tempdir().unwrap();

    // tds5_basic: 01 is all of `temperature`, 02 is temperature(0:1,0:1).
    let basic = dir.join("tds5_basic");
    let path = tmp.path().join("basic.ncs");
    std::fs::write(&path, whole_stream(&basic, &["00.ncs", "01.ncs"])).unwrap();
    let Some(expected) = siphon(SIPHON_DATA, &[&basic.join("01.ncs")]) else {
        return;
    };
    let ds = nctk::open(&path).unwrap();
    let temperature = ds.variable("temperature").unwrap();
    let all = temperature.get_values::<f64>(..).unwrap();
    assert_eq!(serde_json::json!(all), expected[0]);
    let corner = temperature.get_values::<f64>((0..2, 0..2)).unwrap();
    let Some(expected) = siphon(SIPHON_DATA, &[&basic.join("02.ncs")]) else {
        return;
    };
    assert_eq!(serde_json::json!(corner), expected[0]);

    // nc4_strings: three answers of one element each (0, 10, 42).
    let strings = dir.join("nc4_strings");
    let path = tmp.path().join("strings.ncs");
    let answers = ["00.ncs", "01.ncs", "02.ncs", "03.ncs"];
    std::fs::write(&path, whole_stream(&strings, &answers)).unwrap();
    let ds = nctk::open(&path).unwrap();
    let var = ds.variable("measure_for_measure_var").unwrap();
    let fill = ds.schema().fill_value(var.id());
    let values = var
        .read_values(&nctk::model::Selection::all(&var.shape()))
        .unwrap();
    for (index, answer) in [(0usize, "01.ncs"), (10, "02.ncs"), (42, "03.ncs")] {
        let Some(expected) = siphon(SIPHON_DATA, &[&strings.join(answer)]) else {
            return;
        };
        assert_eq!(
            serde_json::json!(as_json(&values.slice(index..index + 1))),
            expected[0],
            "element {index}"
        );
    }
    assert_eq!(values.slice(1..2), fill, "element 1 is in no answer");
}

/// A data answer alone and an error message are refused with what they
/// are; the error's text (which siphon reads from the same bytes) is given.
#[test]
fn data_answers_and_error_messages_are_not_datasets() {
    let Some(corpus) = require::corpus() else {
        return;
    };
    let answer = corpus.join(ANSWERS).join("tds5_basic/01.ncs");
    let e = nctk::open(&answer).unwrap_err().to_string();
    assert!(e.contains("MAGIC_DATA2") && e.contains("header"), "{e}");

    let text = "Unknown variable: nope";
    let mut stream = vec![
        0xab,
        0xad,
        0xba,
        0xda,
        (text.len() + 2) as u8,
        0x0a,
        text.len() as u8,
    ];
    stream.extend(text.as_bytes());
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("error.ncs");
    std::fs::write(&path, &stream).unwrap();
    let script = r#"
import sys, json
from siphon.cdmr.ncstream import read_ncstream_messages
try:
    read_ncstream_messages(open(sys.argv[1], 'rb'))
    print(json.dumps(None))
except RuntimeError as e:
    print(json.dumps(str(e)))
"#;
    let Some(said) = siphon(script, &[&path]) else {
        return;
    };
    assert_eq!(said, serde_json::json!(text));
    let e = nctk::open(&path).unwrap_err().to_string();
    assert!(
        e.contains(text) && e.contains(&path.display().to_string()),
        "{e}"
    );
}

/// `nctk::classic_format_for` (the kind a stream copies to at a plain
/// path) is the first of CDF-1, CDF-2, CDF-5 that `ncgen` accepts the same
/// definitions in (no fill, so no data is written), or none.
#[test]
fn classic_kind_is_the_first_ncgen_accepts() {
    if !require::tools(&["ncgen"]) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let cases = [
        (
            "small",
            "dimensions: x = 3 ; variables: int v(x) ; float w(x) ;",
        ),
        ("ubyte", "dimensions: x = 3 ; variables: ubyte v(x) ;"),
        (
            "uint",
            "dimensions: x = 3 ; variables: uint v(x) ; ushort w(x) ;",
        ),
        // Three 1 GiB variables: the third starts past CDF-1's 2 GiB offsets.
        (
            "offsets",
            "dimensions: n = 268435456 ; variables: float a(n) ; float b(n) ; float c(n) ;",
        ),
        // A 5 GiB variable that is not the last one: CDF-5's sizes.
        (
            "sizes",
            "dimensions: n = 1342177280 ; variables: float a(n) ; float b(n) ;",
        ),
        ("string", "dimensions: x = 3 ; variables: string v(x) ;"),
        (
            "record",
            "dimensions: t = UNLIMITED ; x = 2 ; variables: double v(t, x) ;",
        ),
    ];
    for (name, body) in cases {
        let cdl = format!("netcdf {name} {{ {body} }}");
        let cdl_path = tmp.path().join(format!("{name}.cdl"));
        std::fs::write(&cdl_path, &cdl).unwrap();
        let accepted = [
            ("nc3", Format::Classic),
            ("nc6", Format::Offset64),
            ("nc5", Format::Cdf5),
        ]
        .into_iter()
        .find(|(k, _)| {
            let out = tmp.path().join(format!("{name}.{k}.nc"));
            peer::run(
                "ncgen",
                [
                    "-x".as_ref(),
                    "-k".as_ref(),
                    k.as_ref(),
                    "-o".as_ref(),
                    out.as_os_str(),
                    cdl_path.as_os_str(),
                ],
            )
            .is_ok()
        })
        .map(|(_, f)| f);
        let schema = nctk_cdl::parse(&cdl).unwrap().schema;
        assert_eq!(nctk::classic_format_for(&schema), accepted, "{name}");
    }
}
