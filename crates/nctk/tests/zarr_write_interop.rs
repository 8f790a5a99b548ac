//! Stores written by nctk from the netCDF-C corpus CDL (netCDF-4 without
//! user types) read back with identical values through nctk itself and
//! through each peer that is installed:
//!
//! * Python netCDF4 (libnetcdf 4.10): the newest NCZarr layout;
//! * zarr-python and xarray: pure Zarr;
//! * netCDF-C 4.9.0 `ncdump`: the 4.9.0 layout, compared with `ncdump` of
//!   the netCDF-4 file netCDF-C's own `ncgen` writes from the same CDL.
//!
//! Each peer is skipped when absent. The corpus comes from `NCTK_CORPUS`
//! (default `../shared/corpus` from the workspace root).

mod stores;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use nctk::model::string_width::width_set_by_attributes;
use nctk_cdl::{check_format, parse_with, CdlDataset, ParseOptions};
use nctk_model::{DataSource, DataType, Format, Layout, Schema, Selection, Values, VarStorage};
use nctk_test_support::{corpus::files_under, peer, require};
use nctk_zarr::{WriteLayout, WriteOptions, ZarrOptions};
use serde_json::Value;

/// The corpus's netCDF-C tree, whose CDL the tests write as stores.
const NETCDF_C: &str = "netcdf-c";

/// CDL under `dir` (the corpus's [`NETCDF_C`]) that parses as netCDF-4 (no
/// user types), small enough to test.
fn datasets(dir: &Path) -> Vec<(String, CdlDataset)> {
    datasets_with_paths(dir)
        .into_iter()
        .map(|(n, _, d)| (n, d))
        .collect()
}

/// As [`datasets`], with each CDL file's path.
fn datasets_with_paths(dir: &Path) -> Vec<(String, PathBuf, CdlDataset)> {
    let mut files = files_under(dir, |d| {
        !d.extension()
            .is_some_and(|x| x == "nczarr" || x == "zarr" || x == "file")
    });
    files.retain(|p| p.is_file() && p.extension().is_some_and(|x| x == "cdl"));
    let mut out = vec![];
    let mut seen = std::collections::HashSet::new();
    for f in files {
        let Ok(text) = std::fs::read_to_string(&f) else {
            continue;
        };
        if text.len() > 64 << 10 {
            continue;
        }
        let opts = ParseOptions {
            kind: Some(Format::Netcdf4),
            ..ParseOptions::default()
        };
        let Ok(ds) = parse_with(&text, &opts) else {
            continue;
        };
        if check_format(&ds, Format::Netcdf4).is_err() {
            continue;
        }
        // NCZarr holds no user-defined types: netCDF-C refuses them, and so
        // does nctk's Zarr writer (`nctk-tools/tests/gen_enhanced.rs`).
        if ds.schema.type_ids().next().is_some() {
            continue;
        }
        let total: u64 = ds.data.iter().flatten().map(|v| v.len() as u64).sum();
        let s = &ds.schema;
        // Peers read whole variables, data or not.
        let largest = s
            .var_ids()
            .map(|v| s.shape(v).iter().product::<u64>())
            .max()
            .unwrap_or(0);
        if total > 200_000 || largest > 1_000_000 {
            continue;
        }
        let stem = f
            .file_stem()
            .unwrap()
            .to_string_lossy()
            .replace(|c: char| !c.is_ascii_alphanumeric() && c != '_', "_");
        let mut name = stem.clone();
        let mut i = 1;
        while !seen.insert(name.clone()) {
            i += 1;
            name = format!("{stem}_{i}");
        }
        out.push((name, f, ds));
    }
    out
}

/// The dataset's schema with each variable's storage as its CDL asks,
/// and the writer's options for `layout`.
fn options(ds: &CdlDataset, layout: WriteLayout) -> (Schema, WriteOptions) {
    let mut schema = ds.schema.clone();
    for v in ds.schema.var_ids() {
        let sp = ds.var_special(v);
        let string_width = match ds.var_data(v) {
            _ if width_set_by_attributes(&ds.schema, v).is_some() => None,
            Some(Values::String(s)) => s
                .iter()
                .map(|s| s.as_ref().map_or(0, String::len))
                .max()
                .filter(|&n| n > 128),
            _ => None,
        };
        schema.var_mut(v).storage = VarStorage {
            layout: sp
                .chunk_sizes
                .clone()
                .map_or(Layout::Unset, Layout::Chunked),
            deflate_level: sp.deflate_level.map(|l| l.clamp(0, 9) as u32),
            shuffle: sp.shuffle.unwrap_or(false),
            endianness: sp.endianness,
            string_width,
            ..VarStorage::default()
        };
    }
    let opts = WriteOptions {
        layout,
        ..WriteOptions::default()
    };
    (schema, opts)
}

fn write(ds: &CdlDataset, path: &Path, layout: WriteLayout) -> Result<(), String> {
    let (schema, opts) = options(ds, layout);
    let mut w = stores::create_dir(path, &schema, &opts).map_err(|e| e.to_string())?;
    for v in ds.schema.var_ids() {
        let Some(values) = ds.var_data(v) else {
            continue;
        };
        let shape = ds.schema.shape(v);
        if shape.contains(&0) {
            continue;
        }
        w.write(v, &Selection::all(&shape), values)
            .map_err(|e| e.to_string())?;
    }
    w.finish().map_err(|e| e.to_string())
}

/// True when two dimensions of different lengths share a name.
fn scoped_dims_clash(ds: &CdlDataset) -> bool {
    let s = &ds.schema;
    let mut seen = std::collections::HashMap::new();
    s.dim_ids()
        .any(|d| *seen.entry(s.dim(d).name.clone()).or_insert(s.dim(d).len) != s.dim(d).len)
}

fn json_values(v: &Values) -> Vec<Value> {
    let float = |x: f64| {
        if x.is_nan() {
            Value::from("NaN")
        } else if x.is_infinite() {
            Value::from(if x > 0.0 { "Infinity" } else { "-Infinity" })
        } else {
            Value::from(x)
        }
    };
    match v {
        Values::Byte(x) => x.iter().map(|&a| a.into()).collect(),
        Values::Char(x) | Values::UByte(x) => x.iter().map(|&a| a.into()).collect(),
        Values::Short(x) => x.iter().map(|&a| a.into()).collect(),
        Values::Int(x) => x.iter().map(|&a| a.into()).collect(),
        Values::Int64(x) => x.iter().map(|&a| a.into()).collect(),
        Values::UShort(x) => x.iter().map(|&a| a.into()).collect(),
        Values::UInt(x) => x.iter().map(|&a| a.into()).collect(),
        Values::UInt64(x) => x.iter().map(|&a| a.into()).collect(),
        Values::Float(x) => x.iter().map(|&a| float(a as f64)).collect(),
        Values::Double(x) => x.iter().map(|&a| float(a)).collect(),
        Values::String(x) => x
            .iter()
            .map(|s| Value::from(s.as_deref().map(|s| s.trim_end_matches('\0'))))
            .collect(),
        other => panic!("no JSON form for type {}", other.dtype()),
    }
}

/// `/path/var` -> values, for every variable with data; strings cut to
/// the width netCDF-C's `_nczarr_maxstrlen` / `_nczarr_default_maxstrlen`
/// set, as netCDF-C cuts them (`ref_string.cdl`'s expected output); a
/// null string (`NIL`) as `""`, which Zarr stores for it (it has no null).
fn expected(ds: &CdlDataset) -> BTreeMap<String, Vec<Value>> {
    let s = &ds.schema;
    s.var_ids()
        .filter_map(|v| {
            let data = ds.var_data(v)?;
            if s.shape(v).contains(&0) {
                return None;
            }
            let data = match (data, width_set_by_attributes(s, v)) {
                (Values::String(strings), width) => Values::strings(strings.iter().map(|x| {
                    let x = x.as_deref().unwrap_or_default();
                    let n = width.unwrap_or(x.len()).min(x.len());
                    String::from_utf8_lossy(&x.as_bytes()[..n]).into_owned()
                })),
                _ => data.clone(),
            };
            let g = s.group_path(s.var(v).group);
            Some((
                format!("{}/{}", g.trim_end_matches('/'), s.var(v).name),
                json_values(&data),
            ))
        })
        .collect()
}

/// Each variable's values as runs of equal values, `[value, count]`, the
/// form in which the peers (`write_peers.py`) print them.
fn in_runs(vars: &BTreeMap<String, Vec<Value>>) -> BTreeMap<String, Vec<Value>> {
    let runs = |values: &[Value]| {
        let mut runs: Vec<(&Value, u64)> = vec![];
        for v in values {
            match runs.last_mut() {
                Some((last, n)) if *last == v => *n += 1,
                _ => runs.push((v, 1)),
            }
        }
        runs.into_iter()
            .map(|(v, n)| Value::Array(vec![v.clone(), n.into()]))
            .collect()
    };
    vars.iter().map(|(k, v)| (k.clone(), runs(v))).collect()
}

/// Whether any variable or attribute has type string.
fn has_strings(s: &nctk_model::Schema) -> bool {
    let attr_strings =
        |attrs: &[nctk_model::Attribute]| attrs.iter().any(|a| a.value.dtype() == DataType::String);
    s.var_ids()
        .any(|v| s.var(v).dtype == DataType::String || attr_strings(&s.var(v).attributes))
        || s.group_ids().any(|g| attr_strings(&s.group(g).attributes))
}

fn peer_run(kind: &str, stores: &[PathBuf]) -> Result<serde_json::Map<String, Value>, String> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../nctk-zarr/tests/write_peers.py");
    let args = [script.as_os_str(), kind.as_ref()]
        .into_iter()
        .chain(stores.iter().map(|s| s.as_os_str()));
    let out = peer::run("python3", args).map_err(|e| e.to_string())?;
    match serde_json::from_str(&out) {
        Ok(Value::Object(m)) => Ok(m),
        other => Err(format!("bad peer output: {other:?}")),
    }
}

/// Every store's values as the peer reads them; when the peer crashes on
/// the batch, each store alone (a crash is that store's error).
fn peer_read(kind: &str, stores: &[PathBuf]) -> serde_json::Map<String, Value> {
    if let Ok(m) = peer_run(kind, stores) {
        return m;
    }
    let mut all = serde_json::Map::new();
    for s in stores {
        match peer_run(kind, std::slice::from_ref(s)) {
            Ok(m) => all.extend(m),
            Err(e) => {
                all.insert(s.display().to_string(), serde_json::json!({ "error": e }));
            }
        }
    }
    all
}

/// Compares a peer's values with the CDL's; returns the mismatches.
fn compare(
    peer: &str,
    store: &str,
    got: &Value,
    want: &BTreeMap<String, Vec<Value>>,
    root_only: bool,
) -> Vec<String> {
    let mut bad = vec![];
    if let Some(e) = got.get("error") {
        return vec![format!("{peer} {store}: {e}")];
    }
    for (var, values) in want {
        if root_only && var.matches('/').count() > 1 {
            continue;
        }
        match got.get(var) {
            None => bad.push(format!("{peer} {store}: {var} missing")),
            Some(Value::Array(g)) if g == values => {}
            Some(g) => bad.push(format!("{peer} {store}: {var}: got {g}, want {values:?}")),
        }
    }
    bad
}

/// What nctk reads back, in the peers' JSON form.
fn nctk_read(
    path: &Path,
    pure: bool,
    want: &BTreeMap<String, Vec<Value>>,
    ds: &CdlDataset,
) -> Vec<String> {
    let r = match stores::open_path(
        path,
        ZarrOptions {
            pure_zarr: pure,
            xarray: true,
            consolidated: false,
        },
    ) {
        Ok(r) => r,
        Err(e) => return vec![format!("nctk {}: {e}", path.display())],
    };
    let mut bad = vec![];
    for (var, values) in want {
        let Some(v) = r.schema().var_by_path(var) else {
            bad.push(format!("nctk {}: {var} missing", path.display()));
            continue;
        };
        let shape = r.schema().shape(v);
        let got = match r.read(v, &Selection::all(&shape)) {
            Ok(g) => g,
            Err(e) => {
                bad.push(format!("nctk {}: {var}: {e}", path.display()));
                continue;
            }
        };
        let orig = ds.schema.var_by_path(var).map(|v| ds.schema.var(v).dtype);
        let got = match got {
            // Pure Zarr has no char: S1 reads as one-character strings.
            // Non-ASCII bytes in them are not text: not comparable.
            Values::String(_)
                if orig == Some(DataType::Char)
                    && values.iter().any(|x| x.as_u64().is_some_and(|b| b > 127)) =>
            {
                continue;
            }
            Values::String(s) if orig == Some(DataType::Char) => Values::Char(
                s.iter()
                    .map(|x| x.as_deref().and_then(|x| x.bytes().next()).unwrap_or(0))
                    .collect(),
            ),
            g => g,
        };
        let got = json_values(&got);
        if &got != values {
            bad.push(format!(
                "nctk {}: {var}: got {got:?}, want {values:?}",
                path.display()
            ));
        }
    }
    bad
}

#[test]
fn corpus_stores_read_back_through_nctk_and_python_peers() {
    let Some(netcdf_c) = require::corpus_path(NETCDF_C) else {
        return;
    };
    let sets = datasets(&netcdf_c);
    let dir = tempfile::tempdir().unwrap();
    let mut bad = vec![];
    let mut newest = vec![];
    let mut pure = vec![];
    let mut wants = BTreeMap::new();
    for (name, ds) in &sets {
        let want = expected(ds);
        for (layout, suffix) in [
            (WriteLayout::NcZarr, "nczarr"),
            (WriteLayout::NcZarr490, "nczarr490"),
            (WriteLayout::PureZarr { xarray: true }, "zarr"),
        ] {
            let path = dir.path().join(format!("{name}.{suffix}"));
            if layout == WriteLayout::NcZarr490 && has_strings(&ds.schema) {
                // Refused by design: netCDF-C 4.9.0 has no NCZarr strings.
                let err = write(ds, &path, layout).unwrap_err();
                assert!(err.contains("nczarr490"), "{name}: {err}");
                continue;
            }
            if let Err(e) = write(ds, &path, layout) {
                bad.push(format!("write {name} {layout:?}: {e}"));
                continue;
            }
            let is_pure = matches!(layout, WriteLayout::PureZarr { .. });
            // Pure Zarr names dimensions without scope: one name with two
            // lengths in different groups cannot be read back (by design).
            if !(is_pure && scoped_dims_clash(ds)) {
                bad.extend(nctk_read(&path, is_pure, &want, ds));
            }
            wants.insert(path.display().to_string(), in_runs(&want));
            match layout {
                WriteLayout::NcZarr => newest.push(path),
                WriteLayout::PureZarr { .. } => pure.push(path),
                WriteLayout::NcZarr490 | WriteLayout::ZarrV3 { .. } => {}
            }
        }
    }
    // Pure Zarr zips (zarr-python's shape: the dataset at the top level).
    let mut zips = vec![];
    for (name, ds) in sets.iter().take(20) {
        let path = dir.path().join(format!("{name}.zip"));
        let (schema, opts) = options(ds, WriteLayout::PureZarr { xarray: true });
        let mut w = stores::create_zip(&path, &schema, &opts).unwrap();
        for v in ds.schema.var_ids() {
            let Some(values) = ds.var_data(v) else {
                continue;
            };
            let shape = ds.schema.shape(v);
            if !shape.contains(&0) {
                w.write(v, &Selection::all(&shape), values).unwrap();
            }
        }
        w.finish().unwrap();
        wants.insert(path.display().to_string(), in_runs(&expected(ds)));
        zips.push(path);
    }
    eprintln!(
        "{} CDL files, {} stores each layout",
        sets.len(),
        newest.len()
    );
    // The three peers read at once, each in its own process.
    let with_zips: Vec<PathBuf> = pure.iter().chain(&zips).cloned().collect();
    let peers = [
        ("netCDF4", "netcdf4", &newest, false),
        ("zarr", "zarr", &with_zips, false),
        ("xarray", "xarray", &pure, true),
    ];
    let reads: Vec<_> = std::thread::scope(|scope| {
        let running: Vec<_> = peers
            .iter()
            .filter(|(module, ..)| require::python(&[module]))
            .map(|&(module, kind, stores, cf)| {
                (module, cf, scope.spawn(move || peer_read(kind, stores)))
            })
            .collect();
        running
            .into_iter()
            .map(|(module, cf, h)| (module, cf, h.join().unwrap()))
            .collect()
    });
    for (module, cf, got) in reads {
        for (store, got) in got {
            bad.extend(compare(module, &store, &got, &wants[&store], cf));
        }
    }
    for b in &bad {
        eprintln!("{}", b.chars().take(400).collect::<String>());
    }
    assert!(bad.is_empty(), "{} mismatches", bad.len());
}

/// Text with a NUL inside: netCDF-C 4.9.0's JSON parser mangles `\u0000`.
fn embedded_nul(v: &Values) -> bool {
    matches!(v, Values::Char(b) if b.len() > 1 && b.contains(&0))
}

fn ncdump(path: &Path) -> Option<String> {
    let url = format!("file://{}#mode=nczarr,file", path.display());
    peer::run("ncdump", [url]).ok()
}

/// netCDF-C 4.9.0 reads the 4.9.0 layout as it reads its own stores:
/// `ncdump` of nctk's store equals `ncdump` of the netCDF-4 file `ncgen`
/// writes from the same CDL. CDL netCDF-C 4.9.0 cannot round-trip itself
/// (scalars, string variables and string attributes crash it, unlimited
/// dimensions are refused, NULs inside text attributes are mangled) is
/// skipped, as is CDL its ncgen rejects.
#[test]
fn netcdf_c_490_ncdump_reads_the_490_layout() {
    let Some(netcdf_c) = require::corpus_path(NETCDF_C) else {
        return;
    };
    if !require::tools(&["ncgen", "ncdump"]) {
        return;
    }
    let sets = datasets_with_paths(&netcdf_c);
    let dir = tempfile::tempdir().unwrap();
    let (mut compared, mut bad) = (0, vec![]);
    for (name, cdl, ds) in &sets {
        let s = &ds.schema;
        let unsupported = s.var_ids().any(|v| s.var(v).dims.is_empty())
            || has_strings(s)
            || s.dim_ids().any(|d| s.dim(d).unlimited)
            || s.group_ids()
                .any(|g| s.group(g).attributes.iter().any(|a| embedded_nul(&a.value)))
            || s.var_ids()
                .any(|v| s.var(v).attributes.iter().any(|a| embedded_nul(&a.value)));
        if unsupported {
            continue;
        }
        let ref_dir = dir.path().join("ref");
        let our_dir = dir.path().join("ours");
        std::fs::create_dir_all(&ref_dir).unwrap();
        std::fs::create_dir_all(&our_dir).unwrap();
        // The reference is netCDF-4/HDF5: ncgen 4.9.0's own NCZarr stores
        // carry its bugs (6-digit numbers, JSON-looking text attributes
        // rewritten), which nctk does not copy.
        let reference = ref_dir.join(format!("{name}.nc"));
        let ok = peer::run(
            "ncgen",
            [
                "-k".as_ref(),
                "nc4".as_ref(),
                "-o".as_ref(),
                reference.as_os_str(),
                cdl.as_os_str(),
            ],
        )
        .is_ok();
        let dump = |p: &Path| peer::run("ncdump", [p]).ok();
        let Some(want) = ok.then(|| dump(&reference)).flatten() else {
            continue;
        };
        let ours = our_dir.join(format!("{name}.zarr"));
        if let Err(e) = write(ds, &ours, WriteLayout::NcZarr490) {
            bad.push(format!("{name}: write: {e}"));
            continue;
        }
        compared += 1;
        match ncdump(&ours) {
            None => bad.push(format!("{name}: ncdump failed on nctk's store")),
            Some(got) if got != want => {
                let diff: Vec<String> = got
                    .lines()
                    .zip(want.lines())
                    .filter(|(a, b)| a != b)
                    .take(3)
                    .map(|(a, b)| format!("nctk: {a}\n   ncgen: {b}"))
                    .collect();
                bad.push(format!(
                    "{name}: ncdump differs:\n   {}",
                    diff.join("\n   ")
                ));
            }
            Some(_) => {}
        }
    }
    eprintln!("{compared} stores compared with ncgen 4.9.0's netCDF-4 files");
    for b in &bad {
        eprintln!("{b}");
    }
    assert!(bad.is_empty(), "{} mismatches", bad.len());
}
