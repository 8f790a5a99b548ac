//! No format crate depends on another format crate, dev-dependencies
//! included, except through `nctk-test-support` (which depends on none):
//! a test that needs two formats lives in this crate. The dependency
//! graph is cargo's own (`cargo metadata`), as `cargo tree -e normal,dev`
//! shows it.

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

use serde_json::Value;

/// The format crates.
const FORMATS: &[&str] = &[
    "nctk-classic",
    "nctk-zarr",
    "nctk-hdf5",
    "nctk-ncstream",
    "nctk-cdl",
    "nctk-codec",
];

/// Layering that is not a second format: Zarr chunks are numcodecs
/// streams, HDF5 chunks pass through HDF5 filters and block-compressed
/// classic files hold numcodecs-compressed blocks, and `nctk-codec` is
/// the layer all three are decoded with.
const BELOW: &[(&str, &str)] = &[
    ("nctk-zarr", "nctk-codec"),
    ("nctk-hdf5", "nctk-codec"),
    ("nctk-classic", "nctk-codec"),
];

/// Workspace package -> (normal dependencies, dev-dependencies) within the
/// workspace, from `cargo metadata`.
fn workspace_graph() -> BTreeMap<String, (BTreeSet<String>, BTreeSet<String>)> {
    let out = Command::new(env!("CARGO"))
        .args([
            "metadata",
            "--offline",
            "--no-deps",
            "--format-version",
            "1",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run cargo metadata");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: Value = serde_json::from_slice(&out.stdout).unwrap();
    let packages = meta["packages"].as_array().unwrap();
    let names: BTreeSet<String> = packages
        .iter()
        .map(|p| p["name"].as_str().unwrap().to_string())
        .collect();
    packages
        .iter()
        .map(|p| {
            let (mut normal, mut dev) = (BTreeSet::new(), BTreeSet::new());
            for d in p["dependencies"].as_array().unwrap() {
                let name = d["name"].as_str().unwrap().to_string();
                if !names.contains(&name) || name == p["name"] {
                    continue;
                }
                match d["kind"].as_str() {
                    Some("dev") => dev.insert(name),
                    Some("build") => false,
                    _ => normal.insert(name),
                };
            }
            (p["name"].as_str().unwrap().to_string(), (normal, dev))
        })
        .collect()
}

/// Every workspace crate `krate` builds against, its tests included: its
/// normal and dev-dependencies, then their normal dependencies, transitively.
fn reach(
    graph: &BTreeMap<String, (BTreeSet<String>, BTreeSet<String>)>,
    krate: &str,
) -> BTreeSet<String> {
    let (normal, dev) = &graph[krate];
    let mut todo: Vec<String> = normal.iter().chain(dev).cloned().collect();
    let mut seen = BTreeSet::new();
    while let Some(k) = todo.pop() {
        if seen.insert(k.clone()) {
            todo.extend(graph[&k].0.iter().cloned());
        }
    }
    seen
}

#[test]
fn no_format_crate_reaches_another() {
    let graph = workspace_graph();
    for f in FORMATS {
        assert!(graph.contains_key(*f), "{f} is not in the workspace");
        let reached = reach(&graph, f);
        let others: Vec<&String> = reached
            .iter()
            .filter(|d| FORMATS.contains(&d.as_str()) && d.as_str() != *f)
            .filter(|d| !BELOW.contains(&(*f, d.as_str())))
            .collect();
        assert!(
            others.is_empty(),
            "{f} depends on {others:?} (tests included)"
        );
    }
}

#[test]
fn test_support_depends_on_no_format_crate() {
    let graph = workspace_graph();
    let reached = reach(&graph, "nctk-test-support");
    let formats: Vec<_> = reached
        .iter()
        .filter(|d| FORMATS.contains(&d.as_str()))
        .collect();
    assert!(
        formats.is_empty(),
        "nctk-test-support depends on {formats:?}"
    );
}
