//! One set of rules for the classic reader, writer and validator, checked
//! against netCDF-C and PnetCDF:
//!
//! * deliberately malformed headers, made by byte-patching a small valid
//!   file: the reader accepts exactly what `ncdump` (netCDF-C 4.9) prints,
//!   and `validate` passes exactly what `ncvalidator` (PnetCDF) passes,
//!   apart from the departures listed in [`DEPARTURES`];
//! * definitions: the writer refuses exactly what netCDF-C's define calls
//!   refuse (`peer/define_rules.c`), at the same step, with netCDF-C's reason.

mod common;

use nctk_classic::header::decode_header;
use nctk_classic::{validate_source, ClassicReader, ClassicWriter, FillMode, Severity, Version};
use nctk_model::{DataSource, DataType, DimId, Selection, Values, VarId};
use nctk_store::bytes::{MemSink, MemSource};
use std::path::Path;
use std::process::Command;
use std::sync::Arc;

/// A small valid CDF-1 file whose names and fields the cases patch:
/// dimensions t (record), x = 2, big = 1, d1, d2, u = 1; global attributes
/// title (5 chars), a1, a2; variables abc(x) with `_FillValuf` (a short)
/// and `u` (one char), v1(big), v2(big), abcdef(x), r(t, x).
fn sample() -> Vec<u8> {
    let sink = Arc::new(MemSink::new());
    let mut w = ClassicWriter::create_in(sink.clone(), Version::Cdf1, FillMode::Fill).unwrap();
    let t = w.add_unlimited_dimension("t").unwrap();
    let x = w.add_dimension("x", 2).unwrap();
    let big = w.add_dimension("big", 1).unwrap();
    for d in ["d1", "d2", "u"] {
        w.add_dimension(d, 1).unwrap();
    }
    w.put_attribute(None, "title", Values::text("abcde"))
        .unwrap();
    w.put_attribute(None, "a1", Values::Int(vec![1])).unwrap();
    w.put_attribute(None, "a2", Values::Int(vec![2])).unwrap();
    let abc = w.add_variable("abc", DataType::Int, &[x]).unwrap();
    w.put_attribute(Some(abc), "_FillValuf", Values::Short(vec![7]))
        .unwrap();
    w.put_attribute(Some(abc), "u", Values::text("m")).unwrap();
    w.add_variable("v1", DataType::Int, &[big]).unwrap();
    w.add_variable("v2", DataType::Int, &[big]).unwrap();
    let six = w.add_variable("abcdef", DataType::Int, &[x]).unwrap();
    let r = w.add_variable("r", DataType::Short, &[t, x]).unwrap();
    w.end_define().unwrap();
    w.write_from(abc, &Selection::all(&[2]), &[1i32, 2])
        .unwrap();
    w.write_from(six, &Selection::all(&[2]), &[3i32, 4])
        .unwrap();
    w.write_from(r, &Selection::block(&[0, 0], &[2, 2]), &[5i16, 6, 7, 8])
        .unwrap();
    w.close().unwrap();
    sink.to_vec()
}

/// `bytes` with the only occurrence of `from` replaced by `to` (same length).
fn replaced(bytes: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    assert_eq!(from.len(), to.len());
    let hits: Vec<usize> = (0..=bytes.len() - from.len())
        .filter(|&i| &bytes[i..i + from.len()] == from)
        .collect();
    assert_eq!(hits.len(), 1, "pattern {from:?} must occur once");
    let mut out = bytes.to_vec();
    out[hits[0]..hits[0] + to.len()].copy_from_slice(to);
    out
}

/// The sample with variable `abc`'s name bytes (3 of them) replaced.
fn abc_named(good: &[u8], name: &[u8; 3]) -> Vec<u8> {
    let mut to = b"\0\0\0\x03".to_vec();
    to.extend_from_slice(name);
    replaced(good, b"\0\0\0\x03abc", &to)
}

/// The sample with a header field changed through the header codec.
fn with_header(good: &[u8], edit: impl Fn(&mut nctk_classic::header::Header)) -> Vec<u8> {
    let d = decode_header(good, good.len() as u64).unwrap();
    let mut h = d.header;
    edit(&mut h);
    let head = nctk_classic::header::encode_header(&h);
    assert_eq!(head.len() as u64, d.len, "the edit keeps the header length");
    let mut out = good.to_vec();
    out[..head.len()].copy_from_slice(&head);
    out
}

/// The malformed and edge headers, by name.
fn cases() -> Vec<(&'static str, Vec<u8>)> {
    let g = sample();
    let mut longer = g.clone();
    longer.extend_from_slice(&[0; 4]);
    vec![
        ("valid", g.clone()),
        (
            "non-zero padding after a dimension name",
            replaced(&g, b"\x01x\0\0\0\0\0\0\x02", b"\x01x\x01\0\0\0\0\0\x02"),
        ),
        (
            "non-zero padding after an attribute name",
            replaced(&g, b"\x05title\0\0\0", b"\x05title\0\x01\0"),
        ),
        (
            "non-zero padding after attribute values",
            replaced(&g, b"abcde\0\0\0", b"abcde\0\0\x01"),
        ),
        (
            "non-zero padding after a variable attribute's value",
            replaced(&g, b"\0\0\0\x01m\0\0\0", b"\0\0\0\x01m\0 \0"),
        ),
        (
            "empty attribute list with the attribute tag",
            replaced(
                &g,
                b"v1\0\0\0\0\0\x01\0\0\0\x02\0\0\0\0",
                b"v1\0\0\0\0\0\x01\0\0\0\x02\0\0\0\x0c",
            ),
        ),
        (
            "a second zero-length dimension",
            replaced(&g, b"\x01u\0\0\0\0\0\0\x01", b"\x01u\0\0\0\0\0\0\0"),
        ),
        ("file longer than the header implies", longer),
        (
            "file shorter than the header implies",
            g[..g.len() - 4].to_vec(),
        ),
        (
            "stored vsize differs from the computed one",
            with_header(&g, |h| h.vars[0].vsize += 4),
        ),
        (
            "CDF-5 type code in a CDF-1 variable",
            with_header(&g, |h| h.vars[3].dtype = DataType::UInt),
        ),
        (
            "CDF-5 type code in a CDF-1 attribute",
            replaced(&g, b"\x02a1\0\0\0\0\0\x04", b"\x02a1\0\0\0\0\0\x09"),
        ),
        (
            "two fixed variables over CDF-1's 2 GiB limit",
            replaced(&g, b"\x03big\0\0\0\0\x01", b"\x03big\0\x20\0\0\0"),
        ),
        (
            "_FillValue of another type than its variable",
            replaced(&g, b"_FillValuf", b"_FillValue"),
        ),
        ("name with '/'", abc_named(&g, b"a/b")),
        ("name starting with '-'", abc_named(&g, b"-ab")),
        ("name ending with a space", abc_named(&g, b"ab ")),
        ("name starting with a space", abc_named(&g, b" ab")),
        ("name with a control character", abc_named(&g, b"a\x07b")),
        ("name with DEL", abc_named(&g, b"a\x7fb")),
        ("name ending in NUL", abc_named(&g, b"ab\0")),
        ("name that is not UTF-8", abc_named(&g, b"a\xffb")),
        (
            "name that is not NFC",
            replaced(&g, b"\x06abcdef", b"\x06cafe\xcc\x81"),
        ),
        (
            "duplicate dimension names",
            replaced(&g, b"\x02d2\0\0", b"\x02d1\0\0"),
        ),
        (
            "duplicate variable names",
            replaced(&g, b"\x02v2\0\0", b"\x02v1\0\0"),
        ),
        (
            "duplicate attribute names",
            replaced(&g, b"\x02a2\0\0", b"\x02a1\0\0"),
        ),
    ]
}

/// Where nctk deliberately differs from a peer: (case, reader differs from
/// ncdump, validate differs from ncvalidator, why).
const DEPARTURES: &[(&str, bool, bool, &str)] = &[
    (
        "duplicate dimension names",
        true,
        true,
        "netCDF-C opens it but its name lookups reach only the first; nctk refuses (NC_ENAMEINUSE)",
    ),
    ("duplicate variable names", true, true, "as above"),
    (
        "duplicate attribute names",
        true,
        true,
        "as above; nctk would otherwise drop one of the two silently",
    ),
    (
        "name that is not UTF-8",
        true,
        true,
        "nctk's names are text: refused rather than changed to U+FFFD",
    ),
    (
        "name starting with a space",
        true,
        false,
        "the library opens it; ncdump's CDL printer refuses the name",
    ),
];

/// Opens and reads every variable; `Err` with the reason when refused.
fn nctk_reads(bytes: Vec<u8>) -> Result<(), String> {
    let r = ClassicReader::from_bytes(bytes).map_err(|e| e.to_string())?;
    for v in r.schema().var_ids() {
        let shape = r.schema().shape(v);
        r.read(v, &Selection::all(&shape))
            .map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// Exit status of `tool file` is success.
fn peer_accepts(tool: &str, file: &Path) -> bool {
    let out = Command::new(tool).arg(file).output().expect("run the peer");
    out.status.success()
}

#[test]
fn reader_and_validator_agree_with_ncdump_and_ncvalidator() {
    if !nctk_test_support::require::tools(&["ncdump", "ncvalidator"]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut problems = vec![];
    for (i, (case, bytes)) in cases().into_iter().enumerate() {
        let path = dir.path().join(format!("case{i}.nc"));
        std::fs::write(&path, &bytes).unwrap();
        let ncdump = peer_accepts("ncdump", &path);
        let ncvalidator = peer_accepts("ncvalidator", &path);
        let read = nctk_reads(bytes.clone());
        let findings = validate_source(&MemSource::new(bytes));
        let passes = !findings.iter().any(|f| f.severity == Severity::Error);
        let (read_differs, validate_differs) = DEPARTURES
            .iter()
            .find(|d| d.0 == case)
            .map_or((false, false), |d| (d.1, d.2));
        if (read.is_ok() != ncdump) != read_differs {
            problems.push(format!(
                "{case}: ncdump accepts: {ncdump}, nctk reads: {read:?}"
            ));
        }
        if (passes != ncvalidator) != validate_differs {
            problems.push(format!(
                "{case}: ncvalidator passes: {ncvalidator}, nctk validate: {findings:?}"
            ));
        }
        // What the reader refuses, validate reports as an error with the
        // reader's reason.
        if let Err(e) = &read {
            if !findings
                .iter()
                .any(|f| f.severity == Severity::Error && e.contains(&f.message))
            {
                problems.push(format!(
                    "{case}: reader says {e}, validate says {findings:?}"
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn refusals_name_the_offset_and_netcdf_c_s_reason() {
    let all = cases();
    let case = |name: &str| all.iter().find(|c| c.0 == name).unwrap().1.clone();
    let header_err = |name: &str| match ClassicReader::from_bytes(case(name)) {
        Err(nctk_classic::ClassicError::Header { offset, reason, .. }) => (offset, reason),
        other => panic!("{name}: {other:?}"),
    };
    let good = sample();
    let var_at = |i: usize| decode_header(&good, good.len() as u64).unwrap().var_offsets[i];
    let (offset, reason) = header_err("CDF-5 type code in a CDF-1 variable");
    assert!(reason.contains("Not a valid data type"), "{reason}");
    assert!(offset > var_at(3), "{offset}");
    let (offset, reason) = header_err("two fixed variables over CDF-1's 2 GiB limit");
    assert!(reason.contains("variable sizes violate format constraints"));
    // The second large one, as ncvalidator names it.
    assert!(reason.contains("\"v2\""), "{reason}");
    assert_eq!(offset, var_at(2));
    let (offset, reason) = header_err("name that is not UTF-8");
    assert!(reason.contains("UTF-8"), "{reason}");
    assert_eq!(offset, var_at(0) + 4);
    for dup in ["dimension", "variable", "attribute"] {
        let (_, reason) = header_err(&format!("duplicate {dup} names"));
        assert!(reason.contains("String match to name in use"), "{reason}");
    }
    let (offset, reason) = header_err("duplicate variable names");
    assert!(reason.contains("\"v1\""), "{reason}");
    assert_eq!(offset, var_at(2));
    // Tolerated by the reader, reported by validate with the offset.
    let f = validate_source(&MemSource::new(case("name with '/'")));
    assert!(
        f.iter().any(|f| f.severity == Severity::Warning
            && f.offset == var_at(0)
            && f.message.contains("Name contains illegal characters")),
        "{f:?}"
    );
    let f = validate_source(&MemSource::new(case(
        "_FillValue of another type than its variable",
    )));
    assert!(
        f.iter()
            .any(|f| f.severity == Severity::Warning
                && f.message.contains("_FillValue type mismatch")),
        "{f:?}"
    );
}

/// A define step, in `peer/define_rules.c`'s syntax.
enum Step {
    Dim(&'static str, u64),
    Var(&'static str, DataType, &'static [u32]),
    Att(Option<u32>, &'static str, DataType, usize),
    EndDef,
}

impl Step {
    fn arg(&self) -> String {
        match self {
            Step::Dim(n, len) => format!("dim:{n}:{len}"),
            Step::Var(n, t, dims) => {
                let mut s = format!("var:{n}:{}", t.code());
                for d in dims.iter() {
                    s.push_str(&format!(":{d}"));
                }
                s
            }
            Step::Att(v, n, t, count) => format!(
                "att:{}:{n}:{}:{count}",
                v.map_or(-1, |v| v as i64),
                t.code()
            ),
            Step::EndDef => "enddef".into(),
        }
    }
}

/// Runs the steps through nctk's writer: "ok" or "refused STEP MESSAGE".
fn nctk_define(path: &Path, version: Version, fill: FillMode, steps: &[Step]) -> String {
    let mut w = ClassicWriter::create_in(
        std::sync::Arc::new(nctk_store::bytes::FileSink::create(path).unwrap()),
        version,
        fill,
    )
    .unwrap();
    for (i, s) in steps.iter().enumerate() {
        let r = match s {
            Step::Dim(n, 0) => w.add_unlimited_dimension(n).map(drop),
            Step::Dim(n, len) => w.add_dimension(n, *len).map(drop),
            Step::Var(n, t, dims) => {
                let dims: Vec<DimId> = dims.iter().map(|&d| DimId(d)).collect();
                w.add_variable(n, *t, &dims).map(drop)
            }
            Step::Att(v, n, t, count) => {
                let zeros = vec![0u8; count * t.size().unwrap_or(1)];
                let value = Values::from_bytes(*t, &zeros, true);
                w.put_attribute(v.map(VarId), n, value)
            }
            Step::EndDef => w.end_define(),
        };
        if let Err(e) = r {
            return format!("refused {i} {e}");
        }
    }
    match w.close() {
        Ok(()) => "ok".into(),
        Err(e) => format!("refused {} {e}", steps.len()),
    }
}

#[test]
fn writer_refuses_what_netcdf_c_refuses() {
    use DataType::{Double, Int, Int64, Short, UByte, UInt, UInt64, UShort};
    use Step::*;
    let dir = tempfile::tempdir().unwrap();
    let Some(exe) = common::c_peer("define_rules", dir.path()) else {
        return;
    };
    let scenarios: Vec<(Version, FillMode, Vec<Step>)> = {
        let mut s = vec![];
        for name in nctk_test_support::names::NC_CHECK_NAME_CASES {
            s.push((Version::Cdf1, FillMode::Fill, vec![Dim(name, 1)]));
            s.push((Version::Cdf1, FillMode::Fill, vec![Att(None, name, Int, 1)]));
        }
        s.push((
            Version::Cdf1,
            FillMode::Fill,
            vec![Dim("x", 1), Dim("x", 2)],
        ));
        s.push((
            Version::Cdf1,
            FillMode::Fill,
            vec![Dim("x", 1), Dim("y", 0), Dim("z", 0)],
        ));
        s.push((
            Version::Cdf1,
            FillMode::Fill,
            vec![Dim("x", 1), Var("v", Int, &[0]), Var("v", Short, &[0])],
        ));
        for version in [Version::Cdf1, Version::Cdf2, Version::Cdf5] {
            for t in [UByte, UShort, UInt, Int64, UInt64] {
                s.push((
                    version,
                    FillMode::Fill,
                    vec![Dim("x", 1), Var("u", t, &[0])],
                ));
                s.push((version, FillMode::NoFill, vec![Att(None, "a", t, 1)]));
            }
        }
        for fill in [FillMode::Fill, FillMode::NoFill] {
            for (t, count) in [(Short, 1), (Int, 2), (Int, 1), (Double, 1)] {
                s.push((
                    Version::Cdf1,
                    fill,
                    vec![
                        Dim("x", 2),
                        Var("v", Int, &[0]),
                        Att(Some(0), "_FillValue", t, count),
                        EndDef,
                    ],
                ));
            }
        }
        // Sizes (NC_check_vlens), header only: no fill, never a large file.
        for (version, len) in [(Version::Cdf1, 1u64 << 29), (Version::Cdf2, 1 << 30)] {
            for steps in [
                vec![
                    Dim("big", len),
                    Var("a", Int, &[0]),
                    Var("b", Int, &[0]),
                    EndDef,
                ],
                vec![
                    Dim("big", len),
                    Var("a", Int, &[0]),
                    Var("s", Int, &[]),
                    EndDef,
                ],
                vec![
                    Dim("t", 0),
                    Dim("big", len),
                    Var("a", Int, &[0, 1]),
                    Var("b", Int, &[0, 1]),
                    EndDef,
                ],
                vec![
                    Dim("t", 0),
                    Dim("big", len),
                    Var("a", Int, &[1]),
                    Var("r", Int, &[0]),
                    EndDef,
                ],
            ] {
                s.push((version, FillMode::NoFill, steps));
            }
        }
        s
    };
    let mut problems = vec![];
    for (k, (version, fill, steps)) in scenarios.iter().enumerate() {
        let theirs_path = dir.path().join(format!("c{k}.nc"));
        let out = Command::new(&exe)
            .arg(&theirs_path)
            .arg(version.byte().to_string())
            .arg(if *fill == FillMode::Fill {
                "fill"
            } else {
                "nofill"
            })
            .args(steps.iter().map(Step::arg))
            .output()
            .unwrap();
        assert!(out.status.success(), "peer failed on scenario {k}");
        let theirs = String::from_utf8_lossy(&out.stdout).trim().to_string();
        let ours = nctk_define(&dir.path().join(format!("n{k}.nc")), *version, *fill, steps);
        let args: Vec<String> = steps.iter().map(Step::arg).collect();
        let same = match (
            theirs.strip_prefix("refused "),
            ours.strip_prefix("refused "),
        ) {
            (None, None) => true,
            (Some(t), Some(o)) => {
                let (t_step, t_msg) = t.split_once(' ').unwrap();
                let (o_step, o_msg) = o.split_once(' ').unwrap();
                t_step == o_step && o_msg.contains(t_msg.trim_start_matches("NetCDF: "))
            }
            _ => false,
        };
        if !same {
            problems.push(format!(
                "{version} {fill:?} {args:?}: netCDF-C {theirs:?}, nctk {ours:?}"
            ));
        }
        // What both write, both read back.
        if theirs == "ok" && ours == "ok" {
            let ours_path = dir.path().join(format!("n{k}.nc"));
            if let Err(e) = nctk_reads(std::fs::read(&ours_path).unwrap()) {
                problems.push(format!("{args:?}: nctk cannot read its own file: {e}"));
            }
            if !peer_accepts("ncdump", &ours_path) {
                problems.push(format!("{args:?}: ncdump cannot read nctk's file"));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn a_schema_with_a_name_used_twice_is_refused_before_it_is_defined() {
    // Two attributes of one name (a schema built by hand can hold them):
    // the file could keep only one.
    let mut s = nctk_model::Schema::new();
    let x = s.add_dim(nctk_model::GroupId::ROOT, "x", 2, false).unwrap();
    let v = s
        .add_var(nctk_model::GroupId::ROOT, "v", DataType::Int, &[x])
        .unwrap();
    for k in 0..2 {
        s.var_mut(v)
            .attributes
            .push(nctk_model::Attribute::new("units", Values::Int(vec![k])));
    }
    let sink = Arc::new(MemSink::new());
    let e = ClassicWriter::create_in_with_schema(sink.clone(), &s, Version::Cdf1, FillMode::Fill)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("\"units\"") && e.contains("String match to name in use"),
        "{e}"
    );
    // Nothing of the schema was defined: what the dropped writer leaves
    // holds no variable.
    let left = ClassicReader::from_bytes(sink.to_vec()).unwrap();
    assert_eq!(left.schema().num_vars(), 0);
}
