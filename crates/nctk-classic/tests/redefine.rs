//! Redefinition, appending and no-fill mode compared with netCDF-C: the
//! scenarios of `peer/redef.c` are written by netCDF-C (when `cc` and
//! `nc-config` are installed) and by nctk, and the files must be identical.

mod common;

use nctk_classic::{ClassicReader, ClassicWriter, FillMode, Version};
use nctk_model::{DataSource, DataType, Selection, Values};
use std::path::Path;
use std::process::Command;

fn blk(start: &[u64], count: &[u64]) -> Selection {
    Selection::block(start, count)
}

fn nctk_scenario(name: &str, path: &Path, version: Version) -> nctk_classic::Result<()> {
    match name {
        "grow" => {
            let mut w = ClassicWriter::create_in(
                std::sync::Arc::new(nctk_store::bytes::FileSink::create(path)?),
                version,
                FillMode::Fill,
            )?;
            let x = w.add_dimension("x", 5)?;
            let t = w.add_unlimited_dimension("t")?;
            w.put_attribute(None, "title", Values::text("a"))?;
            let fx = w.add_variable("fx", DataType::Int, &[x])?;
            let ry = w.add_variable("ry", DataType::Float, &[t, x])?;
            let rz = w.add_variable("rz", DataType::Short, &[t])?;
            w.end_define()?;
            w.write_from(fx, &blk(&[0], &[5]), &[1i32, 2, 3, 4, 5])?;
            let fy: Vec<f32> = (0..15).map(|i| i as f32 * 0.25).collect();
            w.write_from(ry, &blk(&[0, 0], &[3, 5]), &fy)?;
            w.write_from(rz, &blk(&[0], &[3]), &[7i16, 8, 9])?;
            w.close()?;
            let mut w = ClassicWriter::open_in(
                std::sync::Arc::new(nctk_store::bytes::FileSink::open(path)?),
                FillMode::Fill,
            )?;
            w.redefine()?;
            w.put_attribute(
                None,
                "history",
                Values::text("a history line long enough to make the header grow by a lot"),
            )?;
            let a = w.add_variable("new_fixed", DataType::Double, &[x])?;
            let b = w.add_variable("new_rec", DataType::Byte, &[t])?;
            w.end_define()?;
            w.write_from(a, &blk(&[0], &[5]), &[0.5f64, 1.5, 2.5, 3.5, 4.5])?;
            w.write_from(b, &blk(&[1], &[1]), &[42i8])?;
            w.close()
        }
        "single" => {
            let mut w = ClassicWriter::create_in(
                std::sync::Arc::new(nctk_store::bytes::FileSink::create(path)?),
                version,
                FillMode::Fill,
            )?;
            let t = w.add_unlimited_dimension("t")?;
            let n = w.add_dimension("n", 3)?;
            let b = w.add_variable("b", DataType::Byte, &[t, n])?;
            w.end_define()?;
            let data: Vec<i8> = (1..=12).collect();
            w.write_from(b, &blk(&[0, 0], &[4, 3]), &data)?;
            w.close()?;
            let mut w = ClassicWriter::open_in(
                std::sync::Arc::new(nctk_store::bytes::FileSink::open(path)?),
                FillMode::Fill,
            )?;
            w.redefine()?;
            w.put_attribute(Some(b), "units", Values::text("m"))?;
            let c = w.add_variable("c", DataType::Int, &[t])?;
            w.end_define()?;
            w.write_from(c, &blk(&[0], &[2]), &[100i32, 200])?;
            w.close()
        }
        "append" => {
            let mut w = ClassicWriter::create_in(
                std::sync::Arc::new(nctk_store::bytes::FileSink::create(path)?),
                version,
                FillMode::Fill,
            )?;
            let t = w.add_unlimited_dimension("t")?;
            let x = w.add_dimension("x", 2)?;
            let v = w.add_variable("v", DataType::Int, &[t, x])?;
            w.add_variable("w", DataType::Short, &[t, x])?;
            w.end_define()?;
            w.write_from(v, &blk(&[0, 0], &[2, 2]), &[1i32, 2, 3, 4])?;
            w.close()?;
            let mut w = ClassicWriter::open_in(
                std::sync::Arc::new(nctk_store::bytes::FileSink::open(path)?),
                FillMode::Fill,
            )?;
            w.write_from(v, &blk(&[4, 0], &[1, 2]), &[9i32, 10])?;
            w.close()
        }
        "nofill" => {
            let mut w = ClassicWriter::create_in(
                std::sync::Arc::new(nctk_store::bytes::FileSink::create(path)?),
                version,
                FillMode::NoFill,
            )?;
            let x = w.add_dimension("x", 3)?;
            let a = w.add_variable("a", DataType::Short, &[x])?;
            w.add_variable("b", DataType::Int, &[x])?;
            w.end_define()?;
            w.write_from(a, &blk(&[0], &[3]), &[1i16, 2, 3])?;
            w.close()
        }
        _ => unreachable!(),
    }
}

const SCENARIOS: [&str; 4] = ["grow", "single", "append", "nofill"];

#[test]
fn scenarios_match_netcdf_c_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let Some(exe) = common::c_peer("redef", dir.path()) else {
        return;
    };
    let mut failures = vec![];
    for (version, mode) in [
        (Version::Cdf1, "1"),
        (Version::Cdf2, "2"),
        (Version::Cdf5, "5"),
    ] {
        for s in SCENARIOS {
            let theirs = dir.path().join(format!("{s}-{mode}-c.nc"));
            let ours = dir.path().join(format!("{s}-{mode}-nctk.nc"));
            let st = Command::new(&exe)
                .arg(s)
                .arg(&theirs)
                .arg(mode)
                .status()
                .unwrap();
            assert!(st.success(), "netCDF-C scenario {s} failed");
            nctk_scenario(s, &ours, version).unwrap();
            let (a, b) = (
                std::fs::read(&ours).unwrap(),
                std::fs::read(&theirs).unwrap(),
            );
            if a != b {
                let at = a
                    .iter()
                    .zip(&b)
                    .position(|(x, y)| x != y)
                    .unwrap_or(a.len().min(b.len()));
                failures.push(format!(
                    "{s} {version}: differs at byte {at} ({} vs {} bytes)",
                    a.len(),
                    b.len()
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn scenarios_read_back() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("grow.nc");
    nctk_scenario("grow", &p, Version::Cdf2).unwrap();
    let r = nctk_store::bytes::FileSource::open(&p)
        .map_err(nctk_classic::ClassicError::from)
        .and_then(|s| ClassicReader::from_source(std::sync::Arc::new(s)))
        .unwrap();
    let s = r.schema();
    assert_eq!(r.numrecs(), 3);
    let fx = s.var_by_name(nctk_model::GroupId::ROOT, "fx").unwrap();
    assert_eq!(
        r.read_vec::<i32>(fx, &Selection::all(&[5])).unwrap(),
        vec![1, 2, 3, 4, 5]
    );
    let ry = s.var_by_name(nctk_model::GroupId::ROOT, "ry").unwrap();
    let y = r.read_vec::<f32>(ry, &Selection::all(&[3, 5])).unwrap();
    assert_eq!(y[14], 3.5);
    let nr = s.var_by_name(nctk_model::GroupId::ROOT, "new_rec").unwrap();
    assert_eq!(
        r.read(nr, &Selection::all(&[3])).unwrap(),
        Values::Byte(vec![-127, 42, -127])
    );

    let p = dir.path().join("append.nc");
    nctk_scenario("append", &p, Version::Cdf1).unwrap();
    let r = nctk_store::bytes::FileSource::open(&p)
        .map_err(nctk_classic::ClassicError::from)
        .and_then(|s| ClassicReader::from_source(std::sync::Arc::new(s)))
        .unwrap();
    assert_eq!(r.numrecs(), 5);
    let v = r
        .schema()
        .var_by_name(nctk_model::GroupId::ROOT, "v")
        .unwrap();
    let fill = -2147483647;
    assert_eq!(
        r.read_vec::<i32>(v, &Selection::all(&[5, 2])).unwrap(),
        vec![1, 2, 3, 4, fill, fill, fill, fill, 9, 10]
    );
}
