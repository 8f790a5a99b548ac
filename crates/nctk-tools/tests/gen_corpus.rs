//! `nctk gen` against netCDF-C 4.9.0's `ncgen` over the whole corpus: every
//! CDL that ncgen turned into a classic file (`generated/from-cdl/MANIFEST.tsv`,
//! `gen_rc` 0) must come out byte-identical, and every CDL that ncgen refused
//! for a kind (`gen_rc` 1) must be refused too. Exceptions are listed below
//! with their reasons.
use nctk_tools::gen::{gen, GenArgs};

/// Outputs where nctk deliberately differs from ncgen 4.9.0.
const DIFFERENT_ON_PURPOSE: &[(&str, &str)] = &[
    (
        "netcdf-c/ncgen/c0_4.nc5.nc",
        "ncgen 4.9.0 writes CDF-5 int64 variables as int and truncates their data; nctk keeps int64",
    ),
    (
        "netcdf-c/ncdump/cdl/ref_const_test.nc5.nc",
        "ncgen 4.9.0 writes CDF-5 int64 variables as int and truncates their data; nctk keeps int64",
    ),
];

#[test]
fn gen_matches_ncgen_byte_for_byte() {
    let Some(corpus) = nctk_test_support::require::corpus() else {
        return;
    };
    let generated = corpus.join("generated/from-cdl");
    let manifest = std::fs::read_to_string(generated.join("MANIFEST.tsv")).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let (mut identical, mut refused_alike) = (0, 0);
    let mut different = vec![];
    let mut problems = vec![];
    for row in manifest.lines().skip(1) {
        let cols: Vec<&str> = row.split('\t').collect();
        let [source, kind, output, gen_rc, ..] = cols[..] else {
            continue;
        };
        // gen_rc 153: ncgen was stopped by the corpus generator's file-size
        // limit (multi-GiB outputs); nothing to compare with.
        if !matches!(kind, "nc3" | "nc5" | "nc6") || !matches!(gen_rc, "0" | "1") {
            continue;
        }
        let Ok(cdl) = std::fs::read_to_string(corpus.join(source)) else {
            continue;
        };
        let out = tmp.path().join("out.nc");
        let _ = std::fs::remove_file(&out);
        let args = GenArgs {
            kind: Some(kind.into()),
            output: Some(out.clone()),
            ..GenArgs::default()
        };
        let result = gen(&args, &cdl, tmp.path());
        match gen_rc {
            "0" => {
                let Ok(expected) = std::fs::read(generated.join(output)) else {
                    continue;
                };
                match result {
                    Ok(_) if std::fs::read(&out).unwrap() == expected => identical += 1,
                    Ok(_) => different.push(output.to_string()),
                    Err(e) => problems.push(format!(
                        "{source} -k {kind}: nctk refused what ncgen accepted: {e}"
                    )),
                }
            }
            "1" => match result {
                Err(_) => refused_alike += 1,
                Ok(_) => problems.push(format!(
                    "{source} -k {kind}: nctk accepted what ncgen refused"
                )),
            },
            _ => unreachable!("filtered above"),
        }
    }
    let unexplained: Vec<_> = different
        .iter()
        .filter(|o| !DIFFERENT_ON_PURPOSE.iter().any(|(p, _)| p == o))
        .collect();
    eprintln!(
        "gen vs ncgen: {identical} byte-identical, {} different ({} on purpose), {refused_alike} refused alike",
        different.len(),
        different.len() - unexplained.len()
    );
    assert!(
        identical >= 150,
        "too few corpus files compared: {identical}"
    );
    assert!(
        unexplained.is_empty(),
        "outputs differ from ncgen's: {unexplained:#?}"
    );
    assert!(problems.is_empty(), "{problems:#?}");
}
