//! Reads every classic binary in the corpus and compares it with netCDF-C
//! (through Python netCDF4) when that peer is installed.

mod common;

use nctk_classic::ClassicReader;
use nctk_model::{DataSource, Selection, Values};
use serde_json::Value;

fn attr_matches(ours: &Values, theirs: &Value) -> bool {
    if let Some(text) = theirs.get("text").and_then(Value::as_str) {
        return match ours {
            Values::Char(b) => {
                // netCDF4-python drops NUL characters from text.
                let s = String::from_utf8_lossy(b).replace('\0', "");
                s == text.replace('\0', "")
            }
            _ => false,
        };
    }
    let hex = theirs["hex"].as_str().unwrap_or_default();
    common::hex(&ours.to_bytes(true)) == hex
}

#[test]
fn every_classic_corpus_file_opens_and_reads() {
    let Some(dir) = nctk_test_support::require::corpus() else {
        return;
    };
    let files = common::classic_files(&dir);
    assert!(
        files.len() > 200,
        "found only {} classic files",
        files.len()
    );
    let peer = nctk_test_support::require::python(common::PYTHON_DUMP_NEEDS)
        .then(|| common::python_dump(&files));
    let mut failures = vec![];
    for f in &files {
        let r = match nctk_store::bytes::FileSource::open(f)
            .map_err(nctk_classic::ClassicError::from)
            .and_then(|s| ClassicReader::from_source(std::sync::Arc::new(s)))
        {
            Ok(r) => r,
            Err(e) => {
                failures.push(format!("{}: open: {e}", f.display()));
                continue;
            }
        };
        let s = r.schema();
        let theirs = peer.as_ref().map(|p| &p[f.to_str().unwrap()]);
        if let Some(t) = theirs {
            if let Some(err) = t.get("error") {
                failures.push(format!(
                    "{}: peer failed ({err}) but nctk opened it",
                    f.display()
                ));
                continue;
            }
            let dims: Vec<Value> = s
                .dim_ids()
                .map(|d| {
                    let d = s.dim(d);
                    serde_json::json!([d.name, d.len, d.unlimited])
                })
                .collect();
            if Value::Array(dims.clone()) != t["dims"] {
                failures.push(format!("{}: dims {dims:?} vs {}", f.display(), t["dims"]));
            }
            for a in &s.root().attributes {
                if !attr_matches(&a.value, &t["attrs"][&a.name]) {
                    failures.push(format!(
                        "{}: global attribute {}: {:?} vs {}",
                        f.display(),
                        a.name,
                        a.value,
                        t["attrs"][&a.name]
                    ));
                }
            }
        }
        for v in s.var_ids() {
            let var = s.var(v);
            let sel = Selection::all(&s.shape(v));
            let values = match r.read(v, &sel) {
                Ok(x) => x,
                Err(e) => {
                    failures.push(format!("{}: read {}: {e}", f.display(), var.name));
                    continue;
                }
            };
            if let Some(t) = theirs {
                let tv = &t["vars"][&var.name];
                let hex = common::hex(&values.to_bytes(true));
                if tv["hex"].as_str() != Some(hex.as_str()) {
                    failures.push(format!(
                        "{}: data of {} differs ({} bytes vs {})",
                        f.display(),
                        var.name,
                        hex.len() / 2,
                        tv["nbytes"]
                    ));
                }
                for a in &var.attributes {
                    if !attr_matches(&a.value, &tv["attrs"][&a.name]) {
                        failures.push(format!(
                            "{}: {}:{} {:?} vs {}",
                            f.display(),
                            var.name,
                            a.name,
                            a.value,
                            tv["attrs"][&a.name]
                        ));
                    }
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} problems:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
