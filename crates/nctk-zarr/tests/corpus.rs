//! Every uncompressed and compressed Zarr store in the shared corpus opens
//! and reads; values equal zarr-python's where zarr-python can read them.
//!
//! The corpus is found through `NCTK_CORPUS` (default `../shared/corpus`
//! next to the repository); without it the test is skipped with a visible
//! note, and without Python and zarr the value comparison is, or under CI
//! they fail (`nctk_test_support::require`).

mod stores;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use nctk_model::{DataSource, Selection, Values};
use nctk_test_support::{corpus::files_under, require};
use nctk_zarr::{ZarrOptions, ZarrReader};

/// Every store root in the corpus: directories holding `.zgroup` whose
/// parent does not, and zip files.
fn stores(root: &Path) -> Vec<PathBuf> {
    let mut out = files_under(root, |d| !d.join(".zgroup").is_file());
    out.retain(|p| p.is_dir() || p.extension().is_some_and(|x| x == "zip"));
    out
}

fn as_json(v: &Values) -> Vec<serde_json::Value> {
    use serde_json::json;
    let f = |x: f64| {
        if x.is_nan() {
            json!("NaN")
        } else if x.is_infinite() {
            json!(if x > 0.0 { "Infinity" } else { "-Infinity" })
        } else {
            json!(x)
        }
    };
    match v {
        Values::Byte(a) => a.iter().map(|&x| json!(x)).collect(),
        Values::Char(a) => a.iter().map(|&x| json!(x)).collect(),
        Values::Short(a) => a.iter().map(|&x| json!(x)).collect(),
        Values::Int(a) => a.iter().map(|&x| json!(x)).collect(),
        Values::Float(a) => a.iter().map(|&x| f(x as f64)).collect(),
        Values::Double(a) => a.iter().map(|&x| f(x)).collect(),
        Values::UByte(a) => a.iter().map(|&x| json!(x)).collect(),
        Values::UShort(a) => a.iter().map(|&x| json!(x)).collect(),
        Values::UInt(a) => a.iter().map(|&x| json!(x)).collect(),
        Values::Int64(a) => a.iter().map(|&x| json!(x)).collect(),
        Values::UInt64(a) => a.iter().map(|&x| json!(x)).collect(),
        Values::String(a) => a.iter().map(|x| json!(x)).collect(),
        other => panic!("no JSON form for type {}", other.dtype()),
    }
}

fn same(a: &serde_json::Value, b: &serde_json::Value) -> bool {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => x == y || (x - y).abs() <= 1e-6 * x.abs().max(y.abs()),
        _ => a == b,
    }
}

fn read_all(r: &ZarrReader) -> Result<HashMap<String, Values>, String> {
    let s = r.schema();
    let mut out = HashMap::new();
    for v in s.var_ids() {
        let var = s.var(v);
        let path = format!(
            "{}/{}",
            s.group_path(var.group).trim_end_matches('/'),
            var.name
        );
        // Huge arrays (bigf3: 4 GB of fill) are read as a corner block,
        // as the Python side does.
        let shape = s.shape(v);
        let n = shape
            .iter()
            .try_fold(1u64, |a, &x| a.checked_mul(x))
            .unwrap_or(u64::MAX);
        let sel = if n <= 1 << 22 {
            Selection::all(&shape)
        } else {
            let count: Vec<u64> = shape.iter().map(|&x| x.min(8)).collect();
            Selection::block(&vec![0; shape.len()], &count)
        };
        let vals = r.read(v, &sel).map_err(|e| format!("{path}: {e}"))?;
        out.insert(path, vals);
    }
    Ok(out)
}

#[test]
fn corpus_stores_open_read_and_match_zarr_python() {
    let Some(root) = require::corpus() else {
        return;
    };
    let all = stores(&root);
    // Without zarr-python (outside CI) the stores are only read.
    let python = require::python(&["zarr", "numpy"]);
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/zarr_dump.py");
    let rel = |store: &Path| store.strip_prefix(&root).unwrap().display().to_string();
    let (mut compared_arrays, mut failures) = (0, vec![]);
    let mut read: Vec<(&PathBuf, HashMap<String, Values>)> = vec![];
    for store in &all {
        match stores::open_path(store, ZarrOptions::default())
            .map_err(|e| e.to_string())
            .and_then(|r| read_all(&r))
        {
            Ok(v) => read.push((store, v)),
            Err(e) => failures.push(format!("{}: {e}", rel(store))),
        }
    }
    let opened = read.len();
    if python && !read.is_empty() {
        // one zarr-python process for every store
        let out = Command::new("python3")
            .arg(&script)
            .args(read.iter().map(|(s, _)| s))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        for line in String::from_utf8_lossy(&out.stdout).lines() {
            let j: serde_json::Value = serde_json::from_str(line).unwrap();
            let (store, ours) = &read[j["store"].as_u64().unwrap() as usize];
            let rel = rel(store);
            let path = j["path"].as_str().unwrap();
            let Some(theirs) = j["values"].as_array() else {
                continue;
            };
            let Some(mine) = ours.get(path) else {
                failures.push(format!(
                    "{rel}{path}: zarr-python reads it, nctk does not list it"
                ));
                continue;
            };
            let mine = as_json(mine);
            compared_arrays += 1;
            if mine.len() != theirs.len() || !mine.iter().zip(theirs).all(|(a, b)| same(a, b)) {
                failures.push(format!(
                    "{rel}{path}: values differ: nctk {:?}... zarr-python {:?}...",
                    &mine[..mine.len().min(8)],
                    &theirs[..theirs.len().min(8)]
                ));
            }
        }
    }
    eprintln!(
        "{opened}/{} stores opened and read; {compared_arrays} arrays compared with zarr-python; {} failures",
        all.len(),
        failures.len()
    );
    for f in &failures {
        eprintln!("  {f}");
    }
    assert!(failures.is_empty(), "{} corpus failures", failures.len());
}
