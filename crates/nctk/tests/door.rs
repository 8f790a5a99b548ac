//! The door is the only place that names files or parses URLs: the format
//! crates below the facade receive byte sources, sinks and stores.

use std::path::Path;

/// Every `.rs` file under `dir`.
fn sources(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn no_format_crate_names_a_file_or_parses_a_url() {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = vec![];
    for c in ["nctk-zarr", "nctk-classic"] {
        sources(&crates.join(c).join("src"), &mut files);
    }
    assert!(files.len() > 10, "found the format crates' sources");
    let banned = [
        "std::fs",
        "File::open",
        "url::parse",
        "Path::new",
        "PathBuf",
    ];
    let mut found = vec![];
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        for b in banned {
            if text.contains(b) {
                found.push(format!("{}: {b}", f.display()));
            }
        }
    }
    assert!(found.is_empty(), "{found:#?}");
}
