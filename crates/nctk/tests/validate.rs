//! `nctk::validate`, the classic validator through the door: it passes
//! what PnetCDF's `ncvalidator` passes on the corpus (its recorded verdicts,
//! `generated/NCVALIDATOR.tsv`), and a file it cannot open is one error.

use nctk::Severity;

#[test]
fn validate_agrees_with_ncvalidator_on_the_corpus() {
    let Some(dir) = nctk_test_support::require::corpus() else {
        return;
    };
    let tsv = std::fs::read_to_string(dir.join("generated/NCVALIDATOR.tsv")).unwrap();
    let mut checked = 0;
    let mut problems = vec![];
    for line in tsv.lines().skip(1) {
        let cols: Vec<&str> = line.split('\t').collect();
        let (file, rc) = (cols[0], cols[1]);
        let path = dir.join(file);
        if !path.exists() || rc == "153" {
            continue; // 153: not a classic file
        }
        checked += 1;
        let errors = nctk::validate(&path)
            .iter()
            .any(|f| f.severity == Severity::Error);
        if errors != (rc != "0") {
            problems.push(format!(
                "{file}: ncvalidator exit {rc}, our errors: {errors}"
            ));
        }
    }
    assert!(checked > 0, "the corpus has classic files");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn a_file_that_cannot_be_opened_is_one_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.nc");
    let findings = nctk::validate(&missing);
    assert_eq!(findings.len(), 1, "{findings:?}");
    assert_eq!(
        (findings[0].severity, findings[0].offset),
        (Severity::Error, 0)
    );
    assert!(
        findings[0].message.contains(&missing.display().to_string()),
        "{findings:?}"
    );
}
