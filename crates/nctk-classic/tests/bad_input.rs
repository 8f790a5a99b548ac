//! Bad input gives errors that name the byte offset and the reason, never a
//! panic; the validator agrees with PnetCDF's ncvalidator on the corpus.

mod common;

use nctk_classic::{
    validate_source, ClassicError, ClassicReader, ClassicWriter, FillMode, Severity, Version,
};
use nctk_model::{DataSource, DataType, Selection, Values};
use nctk_store::bytes::{MemSink, MemSource};
use std::sync::Arc;

/// A small valid file: two fixed variables and two record variables.
fn sample(version: Version) -> Vec<u8> {
    let sink = Arc::new(MemSink::new());
    let mut w = ClassicWriter::create_in(sink.clone(), version, FillMode::Fill).unwrap();
    let t = w.add_unlimited_dimension("t").unwrap();
    let x = w.add_dimension("x", 3).unwrap();
    w.put_attribute(None, "title", Values::text("sample"))
        .unwrap();
    let a = w.add_variable("a", DataType::Int, &[x]).unwrap();
    w.put_attribute(Some(a), "units", Values::text("m"))
        .unwrap();
    w.add_variable("b", DataType::Double, &[]).unwrap();
    let r = w.add_variable("r", DataType::Short, &[t, x]).unwrap();
    w.add_variable("s", DataType::Float, &[t]).unwrap();
    w.end_define().unwrap();
    w.write_from(a, &Selection::all(&[3]), &[1i32, 2, 3])
        .unwrap();
    w.write_from(
        r,
        &Selection::block(&[0, 0], &[2, 3]),
        &[1i16, 2, 3, 4, 5, 6],
    )
    .unwrap();
    w.close().unwrap();
    sink.to_vec()
}

fn read_everything(bytes: Vec<u8>) -> Result<(), ClassicError> {
    let r = ClassicReader::from_bytes(bytes)?;
    for v in r.schema().var_ids() {
        let shape = r.schema().shape(v);
        // Very large selections are fine to skip: the point is no panic.
        if shape.iter().product::<u64>() < 1 << 20 {
            r.read_values(v, &Selection::all(&shape))?;
        }
    }
    Ok(())
}

fn header_error(bytes: Vec<u8>) -> (u64, String) {
    match ClassicReader::from_bytes(bytes) {
        Err(ClassicError::Header {
            offset,
            reason,
            file,
        }) => {
            assert_eq!(file, "<memory>");
            (offset, reason)
        }
        other => panic!("expected a header error, got {other:?}"),
    }
}

#[test]
fn every_truncated_header_is_an_error_with_an_offset() {
    for version in [Version::Cdf1, Version::Cdf2, Version::Cdf5] {
        let full = sample(version);
        let r = ClassicReader::from_bytes(full.clone()).unwrap();
        let header_len = r.layout().header_len as usize;
        for n in 0..header_len {
            let (offset, reason) = header_error(full[..n].to_vec());
            assert!(offset <= n as u64, "{version} prefix {n}: offset {offset}");
            assert!(!reason.is_empty());
        }
    }
}

#[test]
fn huge_counts_fail_at_once() {
    // 2^32-1 dimensions claimed in a tiny file.
    let mut b = b"CDF\x01\0\0\0\0\0\0\0\x0a\xff\xff\xff\xfe".to_vec();
    b.resize(100, 0);
    let (offset, reason) = header_error(b);
    assert_eq!(offset, 12);
    assert!(reason.contains("count"), "{reason}");
    // CDF-5 with a 2^62 attribute count.
    let mut b = b"CDF\x05".to_vec();
    b.extend_from_slice(&0u64.to_be_bytes());
    b.extend_from_slice(&[0, 0, 0, 0]);
    b.extend_from_slice(&0u64.to_be_bytes());
    b.extend_from_slice(&[0, 0, 0, 0x0c]);
    b.extend_from_slice(&(1u64 << 62).to_be_bytes());
    let (offset, _) = header_error(b);
    assert_eq!(offset, 28);
    // A name longer than the file.
    let mut b = b"CDF\x01\0\0\0\0\0\0\0\x0a\0\0\0\x01\x7f\xff\xff\xff".to_vec();
    b.resize(64, 0);
    let (offset, reason) = header_error(b);
    assert_eq!(offset, 16, "{reason}");
}

/// Offset of the `begin` field of variable `i` in the sample (CDF-1).
fn patch(bytes: &mut [u8], find: &[u8], after: usize, value: &[u8]) {
    let at = bytes
        .windows(find.len())
        .position(|w| w == find)
        .expect("pattern")
        + find.len()
        + after;
    bytes[at..at + value.len()].copy_from_slice(value);
}

#[test]
fn bad_types_dimids_positions_and_overlaps_are_errors() {
    let good = sample(Version::Cdf1);
    // Variable "b" (scalar): name "b\0\0\0", ndims 0, ABSENT attrs (8), type, vsize, begin.
    let name_b = b"\0\0\0\x01b\0\0\0\0\0\0\0";
    let mut bad = good.clone();
    patch(&mut bad, name_b, 8, &13u32.to_be_bytes());
    let (_, reason) = header_error(bad);
    assert!(reason.contains("type code 13"), "{reason}");

    // Overlap: give "b" the begin of "a".
    let r = ClassicReader::from_bytes(good.clone()).unwrap();
    let begin_a = r.layout().vars[0].begin as u32;
    let mut bad = good.clone();
    patch(&mut bad, name_b, 16, &begin_a.to_be_bytes());
    let (_, reason) = header_error(bad);
    assert!(reason.contains("overlaps"), "{reason}");

    // A begin inside the header.
    let mut bad = good.clone();
    patch(&mut bad, name_b, 16, &8u32.to_be_bytes());
    let (_, reason) = header_error(bad);
    assert!(reason.contains("inside the header"), "{reason}");

    // Bad dimension id: "a" uses dimension 7.
    let name_a = b"\0\0\0\x01a\0\0\0\0\0\0\x01";
    let mut bad = good.clone();
    patch(&mut bad, name_a, 0, &7u32.to_be_bytes());
    let (_, reason) = header_error(bad);
    assert!(reason.contains("dimension id 7"), "{reason}");

    // Record dimension in second place: "r" (t, x) becomes (x, t).
    let name_r = b"\0\0\0\x01r\0\0\0\0\0\0\x02";
    let mut bad = good.clone();
    patch(&mut bad, name_r, 0, &[0, 0, 0, 1, 0, 0, 0, 0]);
    let (_, reason) = header_error(bad);
    assert!(reason.contains("not the first"), "{reason}");
}

#[test]
fn mutated_files_never_panic() {
    for version in [Version::Cdf1, Version::Cdf2, Version::Cdf5] {
        let good = sample(version);
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..3000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let mut b = good.clone();
            let i = (seed % b.len() as u64) as usize;
            b[i] = (seed >> 32) as u8;
            if seed % 7 == 0 {
                b.truncate((seed >> 40) as usize % good.len());
            }
            let _ = read_everything(b.clone());
            let _ = validate_source(&MemSource::new(b));
        }
    }
}

#[test]
fn validator_reports_what_netcdf_c_tolerates_and_ncvalidator_fails() {
    let good = sample(Version::Cdf1);
    assert_eq!(validate_source(&MemSource::new(good.clone())), vec![]);
    // Longer than the header implies: an error, as ncvalidator says
    // ("file size is larger than expected"); shorter: a warning.
    let mut longer = good.clone();
    longer.extend_from_slice(&[0; 10]);
    let f = validate_source(&MemSource::new(longer));
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].severity, Severity::Error);
    assert_eq!(f[0].offset, good.len() as u64);
    let shorter = good[..good.len() - 4].to_vec();
    let f = validate_source(&MemSource::new(shorter.clone()));
    assert_eq!(f[0].severity, Severity::Warning);
    // The reader reads the missing values as fill.
    let r = ClassicReader::from_bytes(shorter).unwrap();
    let s = r
        .schema()
        .var_by_name(nctk_model::GroupId::ROOT, "s")
        .unwrap();
    assert_eq!(
        r.read(s, &Selection::all(&[2])).unwrap(),
        Values::Float(vec![9.96921e36, 9.96921e36])
    );
    // Non-zero padding after a name: an error (ncvalidator fails it); the
    // reader still opens it, as netCDF-C does.
    let mut padded = good.clone();
    patch(&mut padded, b"\0\0\0\x05title", 0, b"\x01");
    let f = validate_source(&MemSource::new(padded.clone()));
    assert!(
        f.iter()
            .any(|x| x.severity == Severity::Error && x.message.contains("padding")),
        "{f:?}"
    );
    assert!(ClassicReader::from_bytes(padded).is_ok());
    // A type code the reader rejects is an error.
    let mut bad = good;
    patch(
        &mut bad,
        b"\0\0\0\x01b\0\0\0\0\0\0\0",
        8,
        &0u32.to_be_bytes(),
    );
    let f = validate_source(&MemSource::new(bad));
    assert_eq!(f[0].severity, Severity::Error);
}

#[test]
fn validator_agrees_with_ncvalidator_on_the_corpus() {
    let Some(dir) = nctk_test_support::require::corpus() else {
        return;
    };
    let tsv = std::fs::read_to_string(dir.join("generated/NCVALIDATOR.tsv")).unwrap();
    let mut problems = vec![];
    for line in tsv.lines().skip(1) {
        let cols: Vec<&str> = line.split('\t').collect();
        let (file, rc) = (cols[0], cols[1]);
        let path = dir.join(file);
        if !path.exists() || rc == "153" {
            continue; // 153: not a classic file
        }
        let findings = nctk_store::bytes::FileSource::open(&path)
            .map(|s| validate_source(&s))
            .unwrap_or_else(|e| panic!("{e}"));
        if rc == "0" && findings.iter().any(|f| f.severity == Severity::Error) {
            problems.push(format!(
                "{file}: ncvalidator accepts it, we say {findings:?}"
            ));
        }
        if rc != "0" && findings.is_empty() {
            problems.push(format!(
                "{file}: ncvalidator says {:?}, we find nothing",
                cols.get(2)
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn threads_read_one_file_at_once() {
    let good = sample(Version::Cdf2);
    let r = Arc::new(ClassicReader::from_source(Arc::new(MemSource::new(good))).unwrap());
    let a = r
        .schema()
        .var_by_name(nctk_model::GroupId::ROOT, "a")
        .unwrap();
    let rr = r
        .schema()
        .var_by_name(nctk_model::GroupId::ROOT, "r")
        .unwrap();
    std::thread::scope(|s| {
        for _ in 0..4 {
            let r = r.clone();
            s.spawn(move || {
                for _ in 0..200 {
                    assert_eq!(
                        r.read_vec::<i32>(a, &Selection::all(&[3])).unwrap(),
                        vec![1, 2, 3]
                    );
                    assert_eq!(
                        r.read_vec::<f64>(rr, &Selection::block(&[1, 1], &[1, 2]))
                            .unwrap(),
                        vec![5.0, 6.0]
                    );
                }
            });
        }
    });
}

#[test]
fn streaming_numrecs_counts_records_from_the_length() {
    for version in [Version::Cdf1, Version::Cdf5] {
        let mut b = sample(version);
        let n = if version == Version::Cdf5 { 8 } else { 4 };
        b[4..4 + n].fill(0xff);
        let r = ClassicReader::from_bytes(b).unwrap();
        assert_eq!(r.numrecs(), 2);
    }
}

#[test]
fn format_limits_are_clear_errors() {
    let sink = Arc::new(MemSink::new());
    let mut w = ClassicWriter::create_in(sink.clone(), Version::Cdf1, FillMode::NoFill).unwrap();
    let x = w.add_dimension("x", 1).unwrap();
    assert!(matches!(
        w.add_variable("u", DataType::UInt, &[x]),
        Err(ClassicError::TypeNotSupported { .. })
    ));
    assert!(matches!(
        w.put_attribute(None, "u", Values::Int64(vec![1])),
        Err(ClassicError::TypeNotSupported { .. })
    ));
    // Two variables over 2 GiB in CDF-1: NC_EVARSIZE.
    let big = w.add_dimension("big", 1 << 30).unwrap();
    w.add_variable("v1", DataType::Int, &[big]).unwrap();
    w.add_variable("v2", DataType::Int, &[big]).unwrap();
    let e = w.end_define().unwrap_err();
    assert!(matches!(e, ClassicError::VarSize { .. }), "{e}");
    assert!(e.to_string().contains("v2"), "{e}");
    // Range errors before anything is written.
    let mut w =
        ClassicWriter::create_in(Arc::new(MemSink::new()), Version::Cdf5, FillMode::Fill).unwrap();
    let x = w.add_dimension("x", 2).unwrap();
    let v = w.add_variable("v", DataType::UByte, &[x]).unwrap();
    w.end_define().unwrap();
    let e = w
        .write(v, &Selection::all(&[2]), &Values::Int(vec![1, 300]))
        .unwrap_err();
    assert!(e.to_string().contains("out of range"), "{e}");
    assert!(w.add_dimension("y", 1).is_err(), "define call in data mode");
    assert!(w
        .write(v, &Selection::all(&[3]), &Values::UByte(vec![1, 2, 3]))
        .is_err());
}
