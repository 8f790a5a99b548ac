//! The parser against netCDF-C's own output: for every CDL of the corpus
//! that ncgen 4.9.0 accepted for a kind (nc3, nc6, nc5), parsing the CDL and
//! parsing ncdump's text of ncgen's binary must give the same schema and the
//! same data; and every CDL ncgen rejected for a kind must be rejected here.
//!
//! Floats are compared with the tolerance of ncdump's printed precision (7
//! significant digits for float, 15 for double), everything else exactly.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;

use nctk_cdl::parse::{check_format, parse_with, CdlDataset, ParseOptions};
use nctk_model::{Format, GroupId, KindNames, Schema, Values, VarId};
use nctk_test_support::require;

fn read_text(path: &Path) -> String {
    let bytes = std::fs::read(path).unwrap_or_default();
    let bytes = if path.extension().is_some_and(|e| e == "gz") {
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(bytes.as_slice())
            .read_to_end(&mut out)
            .expect("gunzip");
        out
    } else {
        bytes
    };
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Known differences between nctk and ncgen, by (source, kind): each is a
/// place where netCDF-C is wrong or the corpus could not record ncgen's answer.
fn exceptions() -> BTreeMap<(&'static str, &'static str), &'static str> {
    let mut m = BTreeMap::new();
    // The corpus generator ran under a file-size limit: ncgen was killed
    // with SIGXFSZ (rc 153) while writing multi-GB files that are valid.
    for (src, kinds) in [
        ("netcdf-c/ncgen3/bigf1.cdl", &["nc3", "nc5", "nc6"][..]),
        ("netcdf-c/ncgen3/bigf2.cdl", &["nc5", "nc6"]),
        ("netcdf-c/ncgen3/bigr1.cdl", &["nc3", "nc5", "nc6"]),
        ("netcdf-c/ncgen3/bigr2.cdl", &["nc5", "nc6"]),
        ("netcdf-c/ncgen3/bigr3.cdl", &["nc5"]),
        ("netcdf-c/ncgen3/bigf3.cdl", &["nc5"]),
        ("netcdf-c/ncdump/cdl/bigf3.cdl", &["nc5"]),
        ("netcdf-c/ncdump/cdl/bigr3.cdl", &["nc5"]),
    ] {
        for k in kinds {
            m.insert(
                (src, *k),
                "ncgen killed by the generator's file-size limit (rc 153); the CDL is valid",
            );
        }
    }
    for src in [
        "netcdf-c/ncdump/cdl/ref_const_test.cdl",
        "netcdf-c/ncgen/c0_4.cdl",
    ] {
        m.insert(
            (src, "nc5"),
            "ncgen turns int64 variables into int for CDF-5 (truncating the data); nctk keeps int64",
        );
    }
    for k in ["nc3", "nc5", "nc6"] {
        m.insert(
            ("netcdf-c/nc_test/ref_tst_http_nc4c.cdl", k),
            "ncgen killed by the generator's file-size limit (rc 153) writing 470 MB of fill; the CDL is valid",
        );
    }
    m
}

struct Row {
    source: String,
    kind: String,
    output: String,
    rejected: bool,
}

fn manifest(dir: &Path) -> Vec<Row> {
    let text =
        std::fs::read_to_string(dir.join("generated/from-cdl/MANIFEST.tsv")).expect("manifest");
    text.lines()
        .skip(1)
        .filter_map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            if f.len() < 9 || !matches!(f[1], "nc3" | "nc5" | "nc6") {
                return None;
            }
            Some(Row {
                source: f[0].to_string(),
                kind: f[1].to_string(),
                output: f[2].to_string(),
                rejected: f[3] != "0" || f[8].contains("ncgen-failed"),
            })
        })
        .collect()
}

fn kind_of(k: &str) -> Format {
    Format::from_kind_name(k, KindNames::Ncgen).expect("kind")
}

fn near32(a: f32, b: f32) -> bool {
    a.to_bits() == b.to_bits()
        || (a.is_nan() && b.is_nan())
        || (a - b).abs() <= 1e-6 * a.abs().max(b.abs()).max(f32::MIN_POSITIVE)
}

fn near64(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits()
        || (a.is_nan() && b.is_nan())
        || (a - b).abs() <= 1e-14 * a.abs().max(b.abs()).max(f64::MIN_POSITIVE)
}

fn same_values(a: &Values, b: &Values) -> Result<(), String> {
    if a.dtype() != b.dtype() {
        return Err(format!("type {} vs {}", a.dtype(), b.dtype()));
    }
    if a.len() != b.len() {
        return Err(format!("length {} vs {}", a.len(), b.len()));
    }
    let bad = match (a, b) {
        (Values::Float(x), Values::Float(y)) => x.iter().zip(y).position(|(p, q)| !near32(*p, *q)),
        (Values::Double(x), Values::Double(y)) => {
            x.iter().zip(y).position(|(p, q)| !near64(*p, *q))
        }
        _ => (a != b).then(|| (0..a.len()).find(|&i| a.get(i) != b.get(i)).unwrap_or(0)),
    };
    match bad {
        None => Ok(()),
        Some(i) => Err(format!("value {i}: {:?} vs {:?}", a.get(i), b.get(i))),
    }
}

fn compare_schema(a: &Schema, b: &Schema, sizes: bool) -> Result<(), String> {
    if a.group_ids().count() != b.group_ids().count()
        || a.num_dims() != b.num_dims()
        || a.num_vars() != b.num_vars()
    {
        return Err("different numbers of groups, dimensions or variables".into());
    }
    for g in a.group_ids() {
        let (x, y) = (a.group(g), b.group(g));
        if x.name != y.name
            || x.parent != y.parent
            || x.dims != y.dims
            || x.vars != y.vars
            || x.groups != y.groups
        {
            return Err(format!("group {} differs", a.group_path(g)));
        }
        compare_attrs(&x.attributes, &y.attributes)
            .map_err(|e| format!("group {}: {e}", a.group_path(g)))?;
    }
    for d in a.dim_ids() {
        let (x, y) = (a.dim(d), b.dim(d));
        if x.name != y.name
            || x.unlimited != y.unlimited
            || ((sizes || !x.unlimited) && x.len != y.len)
        {
            return Err(format!("dimension {} differs: {x:?} vs {y:?}", x.name));
        }
    }
    for v in a.var_ids() {
        let (x, y) = (a.var(v), b.var(v));
        if x.name != y.name || x.dtype != y.dtype || x.dims != y.dims || x.group != y.group {
            return Err(format!(
                "variable {} differs: {} {:?} vs {} {:?}",
                x.name, x.dtype, x.dims, y.dtype, y.dims
            ));
        }
        compare_attrs(&x.attributes, &y.attributes)
            .map_err(|e| format!("variable {}: {e}", x.name))?;
    }
    Ok(())
}

fn compare_attrs(a: &[nctk_model::Attribute], b: &[nctk_model::Attribute]) -> Result<(), String> {
    let names = |v: &[nctk_model::Attribute]| v.iter().map(|x| x.name.clone()).collect::<Vec<_>>();
    if names(a) != names(b) {
        return Err(format!("attributes {:?} vs {:?}", names(a), names(b)));
    }
    for (x, y) in a.iter().zip(b) {
        same_values(&x.value, &y.value).map_err(|e| format!("attribute {}: {e}", x.name))?;
    }
    Ok(())
}

fn full_data(ds: &CdlDataset, v: VarId) -> Values {
    match ds.var_data(v) {
        Some(d) => d.clone(),
        None => {
            let n: u64 = ds.schema.shape(v).iter().product();
            Values::repeat(&ds.schema.fill_value(v), n as usize)
        }
    }
}

fn compare(a: &CdlDataset, b: &CdlDataset, data: bool) -> Result<(), String> {
    compare_schema(&a.schema, &b.schema, data)?;
    if data {
        for v in a.schema.var_ids() {
            same_values(&full_data(a, v), &full_data(b, v))
                .map_err(|e| format!("data of {}: {e}", a.schema.var(v).name))?;
        }
    }
    let _ = GroupId::ROOT;
    Ok(())
}

#[test]
fn corpus_cdl_matches_ncgen_and_ncdump() {
    let Some(dir) = require::corpus() else { return };
    let gen_dir = dir.join("generated/from-cdl");
    let exceptions = exceptions();
    let mut checked = 0;
    let mut passed = 0;
    let mut failures = Vec::new();
    let mut excused = Vec::new();
    for row in manifest(&dir) {
        let kind = kind_of(&row.kind);
        let text = read_text(&dir.join(&row.source));
        let options = ParseOptions {
            kind: Some(kind),
            ..ParseOptions::default()
        };
        let ours = parse_with(&text, &options).and_then(|ds| check_format(&ds, kind).map(|()| ds));
        let outcome: Result<(), String> = if row.rejected {
            match &ours {
                Err(_) => Ok(()),
                Ok(_) => Err("ncgen rejected it, nctk accepted it".into()),
            }
        } else {
            match &ours {
                Err(e) => Err(format!("nctk rejected it: {e}")),
                Ok(ds) => {
                    let full = gen_dir.join(format!("{}.cdl.expected", row.output));
                    let header = gen_dir.join(format!("{}.h.cdl.expected", row.output));
                    let (path, with_data) = if full.exists() {
                        (full, true)
                    } else if header.exists() {
                        (header, false)
                    } else {
                        continue;
                    };
                    match parse_with(&read_text(&path), &options) {
                        Err(e) => Err(format!("ncdump output does not parse: {e}")),
                        Ok(theirs) => compare(ds, &theirs, with_data),
                    }
                }
            }
        };
        checked += 1;
        match outcome {
            Ok(()) => passed += 1,
            Err(e) => match exceptions.get(&(row.source.as_str(), row.kind.as_str())) {
                Some(reason) => {
                    excused.push(format!("{} [{}]: {e} -- {reason}", row.source, row.kind))
                }
                None => failures.push(format!("{} [{}]: {e}", row.source, row.kind)),
            },
        }
    }
    eprintln!(
        "corpus: {passed}/{checked} (source, kind) pairs agree with ncgen/ncdump ({:.1}%); {} known exceptions",
        100.0 * passed as f64 / checked.max(1) as f64,
        excused.len()
    );
    for e in &excused {
        eprintln!("  excused: {e}");
    }
    assert!(
        failures.is_empty(),
        "{} unexpected differences:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
