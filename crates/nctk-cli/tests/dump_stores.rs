//! `nctk dump` of every Zarr / NCZarr store in the shared corpus against
//! netCDF-C's `ncdump` (the `*.cdl.expected` files), from the second line
//! on (the first names the dataset).
//!
//! Each store is opened as netCDF-C was told to open it (`X.nczarr` with
//! `mode=nczarr`, `X.nczarr.as-zarr` and `X.zarr` with `mode=zarr`, zips
//! with `mode=zarr,zip`). Compressed stores are dumped as they are: their
//! expected text was made from their uncompressed twins (netCDF-C 4.9.0 has
//! no codecs), so the same text is the right answer.
//!
//! Documented differences are normalised, never skipped (see
//! `normalise_pure_zarr`): in pure Zarr mode nctk follows netCDF-C 4.10.1
//! (`_Anonymous_Dim_<len>`, attribute types as 4.10.1 infers them, the
//! `_FillValue` attribute in the variable's type), where the reference is
//! 4.9.0. The attribute types themselves are checked against 4.10.1 live
//! (`pure_zarr_attribute_types_match_netcdf_c_4_10`, with the Python
//! `netCDF4` wheel). Where 4.9.0 is wrong (`EXCEPTIONS`), values are checked
//! against zarr-python instead.
//!
//! `NCTK_CORPUS` locates the corpus (default `../shared/corpus` beside the
//! repository); without it, or without a peer, a test is skipped with a
//! visible note, or fails under CI (`nctk_test_support::require`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use nctk_cdl::print::{dump, Options};
use nctk_test_support::{corpus::files_under, peer, require};

/// One expected dump and how to reproduce it.
#[derive(Debug, Clone)]
struct Case {
    expected: PathBuf,
    store: PathBuf,
    /// `nczarr` or `zarr`.
    mode: &'static str,
    header_only: bool,
}

impl Case {
    /// The URL netCDF-C was given (zips: what nctk needs to read the zip
    /// itself; netCDF-C dumped the directory they were zipped from).
    fn url(&self) -> String {
        let storage = if self.store.extension().is_some_and(|e| e == "zip") {
            "zip"
        } else {
            "file"
        };
        format!(
            "file://{}#mode={},{storage}",
            self.store.display(),
            self.mode
        )
    }

    fn rel(&self, corpus: &Path) -> String {
        self.expected
            .strip_prefix(corpus)
            .unwrap_or(&self.expected)
            .display()
            .to_string()
    }
}

/// Cases netCDF-C 4.9.0 gets wrong, by class, as `(path suffix, reason)`.
/// Their values are checked against zarr-python instead
/// (`known_wrong_references_match_zarr_python`).
const EXCEPTIONS: &[(&str, &str)] = &[
    // Class: F order. netCDF-C returns `order: "F"` chunks in C order.
    (
        "other-writers/zarr-python-v2/cases/f8_2d_F.zarr.cdl.expected",
        "F order: netCDF-C 4.9.0 returns the values in the wrong order",
    ),
    // Class: big-endian. netCDF-C 4.9.0 does not swap `>i4` chunks.
    (
        "other-writers/zarr-python-v2/cases/be_i4.zarr.cdl.expected",
        "big-endian: netCDF-C 4.9.0 returns `>i4` values unswapped (1 reads as 16777216)",
    ),
    // Class: lossy inference. An untyped JSON array starting with an
    // integer: netCDF-C (4.9.0 and 4.10.1) takes the first member's type and
    // truncates the rest (70.01 -> 70); nctk widens to double.
    (
        "from-cdl/netcdf-c/ncgen/ncf345.u2f.zarr.cdl.expected",
        "lossy inference: netCDF-C truncates [73, 72, 71, 70.01, ...] to int; nctk keeps double",
    ),
    (
        "from-cdl/netcdf-c/ncgen/ncf345.u2f.zarr.h.cdl.expected",
        "lossy inference: netCDF-C truncates [73, 72, 71, 70.01, ...] to int; nctk keeps double",
    ),
];

/// Stores with an expected dump that the corpus does not ship (too large to
/// keep), skipped with their reason.
const ABSENT: &str = "store not shipped in the corpus (UNLIMITED giants bigr1/bigr2)";

/// The expected dumps under `dir` (stores themselves hold none).
fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let is_store = |p: &Path| p.extension().is_some_and(|x| x == "zarr" || x == "nczarr");
    out.extend(
        files_under(dir, |d| !is_store(d))
            .into_iter()
            .filter(|p| p.is_file() && p.to_string_lossy().ends_with(".cdl.expected")),
    );
}

/// Every store with an expected dump: `generated/from-cdl`,
/// `generated/other-writers` and `generated/refdumps/zarr-python`.
fn cases(corpus: &Path) -> Vec<Case> {
    let mut files = vec![];
    for sub in ["from-cdl", "other-writers", "refdumps/zarr-python"] {
        walk(&corpus.join("generated").join(sub), &mut files);
    }
    let mut out = vec![];
    for expected in files {
        let name = expected.file_name().unwrap().to_string_lossy().to_string();
        let mut base = name.trim_end_matches(".cdl.expected").to_string();
        let header_only = base.ends_with(".h");
        if header_only {
            base.truncate(base.len() - 2);
        }
        let dir = expected.parent().unwrap();
        let (store, mode) = if let Some(b) = base.strip_suffix(".as-zarr") {
            (dir.join(b), "zarr")
        } else if base.ends_with(".nczarr") {
            (dir.join(&base), "nczarr")
        } else if base.ends_with(".zarr") || base.ends_with(".zip") {
            (dir.join(&base), "zarr")
        } else if let Ok(rel) = dir.strip_prefix(corpus.join("generated/refdumps")) {
            // Upstream zarr-python fixtures: the store lives in the corpus.
            (corpus.join(rel).join(&base), "zarr")
        } else {
            continue; // a classic file
        };
        out.push(Case {
            expected,
            store,
            mode,
            header_only,
        });
    }
    out
}

fn nctk_dump(case: &Case, special: bool) -> Result<String, String> {
    let ds = nctk::open(case.url()).map_err(|e| e.to_string())?;
    let opts = Options {
        header_only: case.header_only,
        special,
        ..Options::default()
    };
    let mut out = vec![];
    dump(ds.source(), "x", &opts, &mut out).map_err(|e| e.to_string())?;
    String::from_utf8(out).map_err(|e| e.to_string())
}

/// The text from the second line on.
fn body(text: &str) -> &str {
    text.split_once('\n').map_or("", |(_, b)| b)
}

/// A numeric attribute token without its CDL type suffix or a bare
/// trailing `.`: `-1b`, `-1`, `-1.f` and `-1.` all become `-1`.
fn strip_type(token: &str) -> String {
    let t = token.trim();
    if t.starts_with('"') || t.starts_with('\'') {
        return t.to_string();
    }
    let t = t
        .trim_end_matches("ULL")
        .trim_end_matches("LL")
        .trim_end_matches("UB")
        .trim_end_matches("US")
        .trim_end_matches('U');
    let t = match t.strip_suffix(['b', 's', 'f', 'L']) {
        Some(s)
            if s.ends_with(|c: char| c.is_ascii_digit() || c == '.' || c == 'N' || c == 'y') =>
        {
            s
        }
        _ => t,
    };
    let t = t.replace(".e", "e");
    t.strip_suffix('.').unwrap_or(&t).to_string()
}

/// The attribute line `\t\t[var]:name = v, v ;` with its numeric values'
/// types stripped; other lines unchanged.
fn strip_attr_types(line: &str) -> String {
    let trimmed = line.trim_start();
    let Some((lhs, rhs)) = trimmed.split_once(" = ") else {
        return line.to_string();
    };
    if !lhs.contains(':') || lhs.contains('(') || rhs.starts_with('"') || !rhs.ends_with(" ;") {
        return line.to_string();
    }
    let values: Vec<String> = rhs[..rhs.len() - 2].split(", ").map(strip_type).collect();
    format!(
        "{}{lhs} = {} ;",
        &line[..line.len() - trimmed.len()],
        values.join(", ")
    )
}

/// Makes a pure-Zarr dump comparable across the documented differences
/// between netCDF-C 4.9.0 (the reference) and 4.10.1 (what nctk follows):
///
/// * anonymous dimensions: 4.9.0's `_zdim_<len>` is `_Anonymous_Dim_<len>`
///   (when a store already names a dimension `_Anonymous_Dim_<len>`, 4.10.1
///   and nctk share it: the duplicate declaration goes);
/// * attribute types: 4.9.0 chose the smallest integer type (`-1b`), 4.10.1
///   `int` / `uint` / `int64` / `uint64`, and a `_FillValue` in the
///   variable's type; numeric attribute values are compared without their
///   type (the types are checked against 4.10.1 by another test);
/// * a consequence: a `_FillValue` of the variable's type makes ncdump print
///   `_` for values 4.9.0 printed as numbers (its `_FillValue` had another
///   type, so its default fill applied): data values equal to the
///   variable's `_FillValue` are written `_` on both sides.
fn normalise_pure_zarr(text: &str) -> String {
    let text = text.replace("_zdim_", "_Anonymous_Dim_");
    let mut out = vec![];
    let mut in_dims = false;
    let mut seen_dims: Vec<String> = vec![];
    let mut fills: BTreeMap<String, String> = BTreeMap::new();
    let mut data_var: Option<String> = None;
    let mut data_toks: Vec<String> = vec![];
    let mut in_data = false;
    for line in text.lines() {
        let t = line.trim_start();
        if t == "dimensions:" {
            in_dims = true;
            seen_dims.clear();
        } else if t == "variables:" || t.starts_with("group:") || t == "data:" {
            in_dims = false;
        }
        if t.starts_with("group:") {
            fills.clear();
            in_data = false;
        }
        if t == "data:" {
            in_data = true;
        }
        if in_dims && t.contains(" = ") {
            if seen_dims.iter().any(|d| d == t) {
                continue;
            }
            seen_dims.push(t.to_string());
        }
        if !in_data {
            let s = strip_attr_types(line);
            if let Some((lhs, rhs)) = s.trim_start().split_once(" = ") {
                if let Some(var) = lhs.strip_suffix(":_FillValue") {
                    fills.insert(
                        var.trim_end().to_string(),
                        rhs.trim_end_matches(" ;").to_string(),
                    );
                }
            }
            out.push(s);
            continue;
        }
        // Data: ` name = v, v,` then continuation lines until ` ;`, joined
        // into one line (`_` is shorter than a number, so lines wrap
        // differently), fill values written `_`.
        let rest = match &data_var {
            Some(_) => t,
            None => match t
                .split_once(" = ")
                .or(t.strip_suffix(" =").map(|l| (l, "")))
            {
                Some((lhs, r)) if !lhs.contains(',') => {
                    data_var = Some(lhs.to_string());
                    data_toks.clear();
                    r
                }
                _ => {
                    out.push(line.to_string());
                    continue;
                }
            },
        };
        let done = rest.ends_with(';');
        let rest = rest.trim_end_matches(';').trim_end();
        let fill = data_var.as_ref().and_then(|v| fills.get(v));
        for tok in rest.split(',').map(str::trim).filter(|x| !x.is_empty()) {
            data_toks.push(match fill {
                Some(f) if strip_type(tok) == *f => "_".to_string(),
                _ => tok.to_string(),
            });
        }
        if done {
            let name = data_var.take().unwrap_or_default();
            out.push(format!(" {name} = {} ;", data_toks.join(", ")));
        }
    }
    out.join("\n")
}

fn exception(rel: &str) -> Option<&'static str> {
    EXCEPTIONS
        .iter()
        .find(|(suffix, _)| rel.ends_with(suffix))
        .map(|(_, why)| *why)
}

#[test]
fn stores_dump_as_ncdump_does() {
    let Some(corpus) = require::corpus() else {
        return;
    };
    let all = cases(&corpus);
    let (mut pass, mut absent, mut excepted) = (0, 0, 0);
    let mut failures = vec![];
    for case in &all {
        let rel = case.rel(&corpus);
        if !case.store.exists() {
            absent += 1;
            eprintln!("skip {rel}: {ABSENT}");
            continue;
        }
        if let Some(why) = exception(&rel) {
            excepted += 1;
            eprintln!("exception {rel}: {why}");
            continue;
        }
        let expected = std::fs::read_to_string(&case.expected).unwrap();
        let got = match nctk_dump(case, false) {
            Ok(t) => t,
            Err(e) => {
                failures.push(format!("{rel}: {e}"));
                continue;
            }
        };
        let (want, got) = if case.mode == "zarr" {
            (
                normalise_pure_zarr(body(&expected)),
                normalise_pure_zarr(body(&got)),
            )
        } else {
            (body(&expected).to_string(), body(&got).to_string())
        };
        if want == got {
            pass += 1;
        } else {
            let line = want
                .lines()
                .zip(got.lines())
                .position(|(a, b)| a != b)
                .unwrap_or(want.lines().count().min(got.lines().count()));
            failures.push(format!(
                "{rel}: first difference at line {}:\n  want {:?}\n  got  {:?}",
                line + 2,
                want.lines().nth(line).unwrap_or(""),
                got.lines().nth(line).unwrap_or("")
            ));
        }
    }
    eprintln!(
        "{pass} identical, {} different, {excepted} exceptions, {absent} absent, of {}",
        failures.len(),
        all.len()
    );
    assert!(
        failures.is_empty(),
        "{} dumps differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn normalisation_only_touches_documented_differences() {
    let a = "dimensions:\n\t_Anonymous_Dim_8 = 8 ;\n\t_zdim_8 = 8 ;\nvariables:\n\tint v(_zdim_8) ;\n\t\tv:_FillValue = -1b ;\n\t\tv:s = \"-1b\" ;\ndata:\n\n v = 1, -1, 2 ;\n";
    let b = "dimensions:\n\t_Anonymous_Dim_8 = 8 ;\nvariables:\n\tint v(_Anonymous_Dim_8) ;\n\t\tv:_FillValue = -1 ;\n\t\tv:s = \"-1b\" ;\ndata:\n\n v = 1, _, 2 ;\n";
    assert_eq!(normalise_pure_zarr(a), normalise_pure_zarr(b));
    assert_eq!(strip_type("1500.f"), "1500");
    assert_eq!(strip_type("NaNf"), "NaN");
    assert_eq!(strip_type("-Infinity"), "-Infinity");
    assert_eq!(strip_type("1.e+36f"), "1e+36");
    assert_eq!(strip_type("3000000000U"), "3000000000");
    // Values still differ after normalisation.
    let wrapped = "\t\tv:_FillValue = 9 ;\ndata:\n\n v = 1, 9,\n    9 ;\n";
    let one = "\t\tv:_FillValue = 9 ;\ndata:\n\n v = 1, _, _ ;\n";
    assert_eq!(normalise_pure_zarr(wrapped), normalise_pure_zarr(one));
    assert_ne!(
        normalise_pure_zarr("\t\tv:a = 1b ;"),
        normalise_pure_zarr("\t\tv:a = 2 ;")
    );
}

/// Runs a program, `None` when it is absent, crashes or fails.
fn run(program: &str, args: &[&str]) -> Option<String> {
    peer::output(
        Command::new(program)
            .args(args)
            .current_dir(std::env::temp_dir()),
    )
    .ok()
}

/// `nctk dump -s` of every NCZarr store (`mode=nczarr`) against the
/// installed `ncdump -s` (netCDF-C 4.9.0): `_Storage`, `_ChunkSizes`,
/// `_Filter` / `_Codecs`, `_Endianness`, `_NoFill`, and the hidden globals
/// `_NCProperties`, `_SuperblockVersion`, `_IsNetcdf4`, `_Format`. Stores
/// ncdump cannot dump (it crashes on NCZarr scalars) are counted, not
/// compared. Skips without `ncdump`.
#[test]
fn special_attributes_match_live_ncdump() {
    let Some(corpus) = require::corpus() else {
        return;
    };
    if !require::tools(&["ncdump"]) {
        return;
    }
    let mut seen = std::collections::BTreeSet::new();
    let (mut pass, mut no_reference) = (0, 0);
    let mut failures = vec![];
    for case in cases(&corpus) {
        if case.mode != "nczarr" || !case.store.exists() || !seen.insert(case.store.clone()) {
            continue;
        }
        let case = Case {
            header_only: true,
            ..case
        };
        let url = case.url();
        let Some(want) = run("ncdump", &["-s", "-h", &url]).filter(|t| t.ends_with("}\n")) else {
            no_reference += 1;
            continue;
        };
        match nctk_dump(&case, true) {
            Ok(got) if body(&got) == body(&want) => pass += 1,
            Ok(got) => failures.push(format!(
                "{url}:\n--- ncdump -s\n{}\n--- nctk\n{}",
                body(&want),
                body(&got)
            )),
            Err(e) => failures.push(format!("{url}: {e}")),
        }
    }
    eprintln!(
        "-s: {pass} identical, {} different, {no_reference} without an ncdump reference",
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every array of a store as zarr-python reads it, flattened: `path ->
/// values` as text (numbers as Python prints them, `NaN`, `Infinity`,
/// strings). `None` without Python, zarr or the script.
fn zarr_python_values(store: &Path) -> Option<BTreeMap<String, Vec<String>>> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../nctk-zarr/tests/zarr_dump.py");
    let text = run("python3", &[script.to_str()?, store.to_str()?])?;
    let mut out = BTreeMap::new();
    for line in text.lines() {
        // {"path": "/a", "values": [1, 2.5, "NaN"]}
        let path = line
            .split("\"path\": \"")
            .nth(1)?
            .split('"')
            .next()?
            .to_string();
        let Some(vals) = line.split("\"values\": [").nth(1) else {
            continue; // zarr-python could not read it either
        };
        let vals = vals.trim_end_matches("]}");
        let list = if vals.is_empty() {
            vec![]
        } else {
            vals.split(", ")
                .map(|v| v.trim_matches('"').to_string())
                .collect()
        };
        out.insert(path, list);
    }
    Some(out)
}

/// True when two values are the same number (or the same text).
fn same_value(a: &str, b: &str) -> bool {
    match (a.parse::<f64>(), b.parse::<f64>()) {
        (Ok(x), Ok(y)) => x == y || (x.is_nan() && y.is_nan()) || (x as f32) == (y as f32),
        _ => a == b,
    }
}

/// Where netCDF-C 4.9.0 is wrong (`EXCEPTIONS`) or has no reference (it
/// crashes or refuses: the `*.err` stores of `other-writers`), nctk's
/// values must be zarr-python's. Skips without Python / zarr.
#[test]
fn known_wrong_references_match_zarr_python() {
    let Some(corpus) = require::corpus() else {
        return;
    };
    let mut stores: Vec<PathBuf> = cases(&corpus)
        .iter()
        .filter(|c| exception(&c.rel(&corpus)).is_some() && c.mode == "zarr")
        .map(|c| c.store.clone())
        .collect();
    if !require::python(&["zarr", "numpy"]) {
        return;
    }
    let mut errs = vec![];
    walk_err(&corpus.join("generated/other-writers"), &mut errs);
    stores.extend(errs);
    // The whole zarr-python fixture tree, every dtype at once (netCDF-C
    // crashes on its `<f2`, `|S1`, `<U4` and `|b1` arrays).
    stores.push(corpus.join("zarr-python/fixture"));
    stores.sort();
    stores.dedup();
    let mut checked = 0;
    let mut failures = vec![];
    for store in &stores {
        let Some(want) = zarr_python_values(store) else {
            eprintln!("skipped: zarr-python cannot read {}", store.display());
            continue;
        };
        let url = format!("file://{}#mode=zarr,file", store.display());
        let ds = match nctk::open(&url) {
            Ok(d) => d,
            Err(e) => {
                failures.push(format!("{url}: {e}"));
                continue;
            }
        };
        for (path, values) in &want {
            let Some(var) = ds.variable(path.trim_start_matches('/')) else {
                failures.push(format!("{url}: no variable {path}"));
                continue;
            };
            let got = match var.read_values(&nctk_model::Selection::all(&var.shape())) {
                Ok(v) => v,
                Err(e) => {
                    failures.push(format!("{url} {path}: {e}"));
                    continue;
                }
            };
            let got: Vec<String> = match &got {
                nctk_model::Values::Char(c) => c
                    .iter()
                    .map(|&b| {
                        if b == 0 {
                            String::new()
                        } else {
                            char::from(b).to_string()
                        }
                    })
                    .collect(),
                nctk_model::Values::String(s) => {
                    s.iter().map(|x| x.clone().unwrap_or_default()).collect()
                }
                _ => (0..got.len())
                    .map(|i| value_text(&format!("{:?}", got.slice(i..i + 1))))
                    .collect(),
            };
            if got.len() != values.len() || !got.iter().zip(values).all(|(a, b)| same_value(a, b)) {
                failures.push(format!(
                    "{url} {path}: zarr-python {values:?}, nctk {got:?}"
                ));
            }
            checked += 1;
        }
    }
    eprintln!(
        "{checked} arrays compared with zarr-python in {} stores",
        stores.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// One value's text from `Values`' debug display (`Int([5])` -> `5`).
fn value_text(s: &str) -> String {
    let inner = s
        .split_once('(')
        .map_or(s, |(_, r)| r)
        .trim_end_matches(')');
    let inner = inner.trim_start_matches('[').trim_end_matches(']');
    let inner = inner.trim_matches('"');
    match inner {
        "NaN" | "nan" => "NaN".into(),
        "inf" => "Infinity".into(),
        "-inf" => "-Infinity".into(),
        x => x.to_string(),
    }
}

/// Stores with a `*.err` (netCDF-C refused or crashed) and no expected dump.
fn walk_err(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for p in rd.filter_map(|e| e.ok().map(|e| e.path())) {
        let name = p.to_string_lossy().to_string();
        if p.is_dir() && !name.ends_with(".zarr") {
            walk_err(&p, out);
        } else if let Some(store) = name.strip_suffix(".err") {
            if Path::new(store).is_dir() && !Path::new(&format!("{store}.cdl.expected")).exists() {
                out.push(PathBuf::from(store));
            }
        }
    }
}

/// Lists `url \t group-path \t var \t attribute \t numpy type` for every
/// attribute netCDF-C 4.10.1 (the Python `netCDF4` wheel) reads from each
/// URL on stdin; URLs it cannot open are left out.
const NC410_TYPES: &str = r#"
import sys, netCDF4
for url in sys.stdin.read().split():
    try:
        ds = netCDF4.Dataset(url)
    except Exception:
        continue
    def walk(g, path):
        for a in g.ncattrs():
            v = g.getncattr(a)
            print(url, path, "", a, "str" if isinstance(v, str) else v.dtype.name, sep="\t")
        for v in g.variables.values():
            for a in v.ncattrs():
                x = v.getncattr(a)
                print(url, path, v.name, a, "str" if isinstance(x, str) else x.dtype.name, sep="\t")
        for s in g.groups.values():
            walk(s, path + "/" + s.name)
    walk(ds, "")
    ds.close()
"#;

/// The attribute types nctk gives pure Zarr stores (no NCZarr metadata, so
/// every type is inferred) are netCDF-C 4.10.1's, for every such corpus
/// store 4.10.1 opens with `mode=zarr` (it refuses many 4.9.0 stores:
/// scalars written as shape `[1]` with no dimension names). NCZarr stores
/// read with `mode=zarr` are left out: nctk honours their recorded types as
/// 4.9.0 does (and 4.10.1 does for its own `_nczarr_attr`), while 4.10.1
/// does not know 4.9.0's upper-case `_NCZARR_ATTR` key and shows it as an
/// attribute. Skips without Python / netCDF4.
#[test]
fn pure_zarr_attribute_types_match_netcdf_c_4_10() {
    use std::io::Write as _;
    use std::process::Stdio;
    let Some(corpus) = require::corpus() else {
        return;
    };
    let mut urls: Vec<String> = cases(&corpus)
        .iter()
        .filter(|c| {
            c.mode == "zarr"
                && c.store.is_dir()
                && c.store.extension().is_some_and(|e| e != "nczarr")
                && exception(&c.rel(&corpus)).is_none()
        })
        .map(Case::url)
        .collect();
    urls.sort();
    urls.dedup();
    if !require::python(&["netCDF4"]) {
        return;
    }
    let mut child = Command::new("python3")
        .args(["-c", NC410_TYPES])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run python3");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(urls.join("\n").as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "python3 netCDF4: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let (mut checked, mut stores) = (0, std::collections::BTreeSet::new());
    let mut failures = vec![];
    let mut open: Option<(String, nctk::Dataset)> = None;
    for line in text.lines() {
        let f: Vec<&str> = line.split('\t').collect();
        let [url, gpath, var, att, ty] = f[..] else {
            continue;
        };
        if open.as_ref().is_none_or(|(u, _)| u != url) {
            open = nctk::open(url).ok().map(|d| (url.to_string(), d));
        }
        let Some((_, ds)) = &open else {
            failures.push(format!("{url}: nctk cannot open it"));
            continue;
        };
        stores.insert(url.to_string());
        let schema = ds.schema();
        let Some(g) = schema.group_by_path(if gpath.is_empty() { "/" } else { gpath }) else {
            failures.push(format!("{url}: no group {gpath:?}"));
            continue;
        };
        let attrs = if var.is_empty() {
            &schema.group(g).attributes
        } else {
            match schema
                .group(g)
                .vars
                .iter()
                .find(|&&v| schema.var(v).name == var)
            {
                Some(&v) => &schema.var(v).attributes,
                None => {
                    failures.push(format!("{url}: no variable {gpath}/{var}"));
                    continue;
                }
            }
        };
        let Some(a) = attrs.iter().find(|a| a.name == att) else {
            failures.push(format!("{url}: no attribute {gpath}/{var}:{att}"));
            continue;
        };
        use nctk_model::DataType as T;
        let want = match ty {
            "str" => vec![T::Char, T::String],
            "int8" => vec![T::Byte],
            "uint8" => vec![T::UByte],
            "int16" => vec![T::Short],
            "uint16" => vec![T::UShort],
            "int32" => vec![T::Int],
            "uint32" => vec![T::UInt],
            "int64" => vec![T::Int64],
            "uint64" => vec![T::UInt64],
            "float32" => vec![T::Float],
            "float64" => vec![T::Double],
            _ => vec![],
        };
        checked += 1;
        if !want.contains(&a.value.dtype()) {
            failures.push(format!(
                "{url} {gpath}/{var}:{att}: netCDF-C 4.10.1 {ty}, nctk {:?}",
                a.value.dtype()
            ));
        }
    }
    eprintln!(
        "{checked} attribute types compared with netCDF-C 4.10.1 in {} of {} pure Zarr stores",
        stores.len(),
        urls.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
