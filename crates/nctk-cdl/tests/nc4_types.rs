//! The enhanced data model through CDL, against netCDF-C: for every corpus
//! CDL that ncgen 4.9.0 writes as netCDF-4 (`ncgen -k nc4`, run here into
//! a temporary directory), nctk's parse of the CDL printed by nctk's dump
//! printer equals `ncdump` of ncgen's file (header and data; header only
//! for files with more than a few million values).

use std::path::Path;

use nctk_cdl::parse::{parse_with, CdlDataset, ParseOptions};
use nctk_cdl::print::{dump, Options};
use nctk_model::{DataSource, Format, Schema, Selection, SourceError, Values, VarId};
use nctk_test_support::{corpus, peer, require};

/// A parsed CDL as a netCDF-4 source: the CDL's data, fill where it has none.
struct CdlSource(CdlDataset);

impl DataSource for CdlSource {
    fn schema(&self) -> &Schema {
        &self.0.schema
    }

    fn read(&self, var: VarId, selection: &Selection) -> Result<Values, SourceError> {
        let s = &self.0.schema;
        let shape = s.shape(var);
        let n = shape.iter().product::<u64>() as usize;
        let all = match self.0.var_data(var) {
            Some(v) => v.clone(),
            None => Values::repeat(&s.fill_value(var), n),
        };
        let mut out = all.slice(0..0);
        for (offset, len) in selection.runs(&shape) {
            out.extend_from(&all.slice(offset as usize..(offset + len) as usize));
        }
        Ok(out)
    }

    fn format(&self) -> Format {
        Format::Netcdf4
    }
}

/// CDLs whose ncgen output nctk's parse cannot reproduce, and why.
fn exceptions(name: &str) -> Option<&'static str> {
    Some(match name {
        "ref_typescope.cdl" => {
            "netCDF-C's HDF5 reader matches a variable's opaque type to the first \
             committed type that H5Tequal finds, another type of the same size"
        }
        "ref_tst_special_atts.cdl" | "ref_tst_special_atts3.cdl" => {
            "a `_NoFill` variable without data: ncdump prints whatever bytes \
             HDF5 leaves in the file, different from run to run"
        }
        "ref_tst_unlim2.cdl" => {
            "char data under two nested unlimited dimensions: nctk pads each \
             string to the last dimension, ncgen sizes that dimension from \
             the longest string"
        }
        _ => return None,
    })
}

/// Values a variable of `shape` holds.
fn total_values(ds: &CdlDataset) -> u64 {
    ds.schema
        .var_ids()
        .map(|v| ds.schema.shape(v).iter().product::<u64>())
        .sum()
}

fn check_one(cdl: &Path, dir: &Path) -> Result<bool, String> {
    let name = cdl.file_name().unwrap().to_string_lossy().into_owned();
    let stem = name.trim_end_matches(".cdl");
    let nc = dir.join(format!("{stem}.nc"));
    if peer::run(
        "ncgen",
        ["-k", "nc4", "-o"].map(Into::into).into_iter().chain([
            nc.clone().into_os_string(),
            cdl.to_path_buf().into_os_string(),
        ]),
    )
    .is_err()
    {
        return Ok(false); // ncgen refuses it: not this test's concern
    }
    let text = std::fs::read(cdl).unwrap();
    let opts = ParseOptions {
        kind: Some(Format::Netcdf4),
        ..ParseOptions::default()
    };
    let ds = parse_with(&text, &opts).map_err(|e| format!("{name}: nctk refuses: {e}"))?;
    let header_only = total_values(&ds) > 1 << 22;
    let mut args = vec![];
    if header_only {
        args.push("-h".to_string());
    }
    args.push(nc.to_string_lossy().into_owned());
    let want = peer::run("ncdump", &args).map_err(|e| format!("{name}: ncdump: {e}"))?;
    std::fs::remove_file(&nc).ok();
    let mut got = Vec::new();
    let dump_opts = Options {
        header_only,
        name: Some(stem.to_string()),
        ..Options::default()
    };
    dump(&CdlSource(ds), &nc.to_string_lossy(), &dump_opts, &mut got)
        .map_err(|e| format!("{name}: dump: {e}"))?;
    let got = String::from_utf8_lossy(&got);
    if got != want {
        let line = got
            .lines()
            .zip(want.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(got.lines().count().min(want.lines().count()));
        return Err(format!(
            "{name}: first difference at line {}:\n  nctk:   {:?}\n  ncdump: {:?}",
            line + 1,
            got.lines().nth(line),
            want.lines().nth(line)
        ));
    }
    Ok(true)
}

#[test]
fn corpus_cdl_through_nctk_matches_ncdump_of_ncgen_netcdf4() {
    let Some(root) = require::corpus() else {
        return;
    };
    if !require::tools(&["ncgen", "ncdump"]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut cdls = corpus::files_under(&root, |_| true);
    cdls.retain(|p| p.extension().is_some_and(|e| e == "cdl"));
    cdls.sort();
    let (mut compared, mut failures) = (0, vec![]);
    for cdl in &cdls {
        let name = cdl.file_name().unwrap().to_string_lossy().into_owned();
        if exceptions(&name).is_some() {
            continue;
        }
        match check_one(cdl, dir.path()) {
            Ok(true) => compared += 1,
            Ok(false) => {}
            Err(e) => failures.push(e),
        }
    }
    assert!(compared > 100, "only {compared} CDLs compared");
    assert!(
        failures.is_empty(),
        "{} of {} differ:\n{}",
        failures.len(),
        compared + failures.len(),
        failures.join("\n")
    );
}
