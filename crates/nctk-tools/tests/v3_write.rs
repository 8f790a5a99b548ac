//! Zarr v3 stores `nctk copy` writes (`#mode=zarr,v3` and
//! `#mode=nczarr,v3`, sharded with `--shards` and not) read by
//! zarr-python, xarray and tensorstore with netCDF4-python's values,
//! dimension names and attributes of the netCDF file each was copied from
//! (`v3_write_peers.py`). The sources: corpus files (netCDF-4 with every
//! atomic type, classic with char arrays, odd names and an unlimited
//! dimension, CF attributes, NaN fill values and attributes) and a netCDF-4 file
//! netCDF4-python writes with groups, strings, shuffle + deflate and an
//! unlimited dimension written in part (`v3_write_source.py`). The stores
//! are made once; Python runs once over all of them. Through
//! `#mode=nczarr,v3` the netCDF model survives: the stores dump as their
//! sources.

mod copy_support;

use std::path::{Path, PathBuf};

use copy_support::{dump_body, dump_body_as};
use nctk::Format;
use std::sync::OnceLock;

use nctk_test_support::{peer, require};
use nctk_tools::copy::{copy, CopyOptions, NoProgress};
use serde_json::Value;

const PEERS: &str = include_str!("v3_write_peers.py");
const SOURCE: &str = include_str!("v3_write_source.py");
const MODULES: &[&str] = &["netCDF4", "zarr", "xarray", "tensorstore"];

const CORPUS: &[&str] = &[
    "netcdf-c/ncdump/ref_nc_test_netcdf4_4_0.nc",
    "generated/from-cdl/netcdf-c/ncgen/c0.nc3.nc",
    "generated/from-cdl/netcdf-c/examples/CDL/pres_temp_4D.nc3.nc",
    "generated/from-cdl/netcdf-c/ncdump/cdl/ref_tst_nans.nc3.nc",
];

/// One store written and what the peers made of it.
struct Written {
    source: PathBuf,
    store: PathBuf,
    /// The peers' report (`v3_write_peers.py`).
    report: Value,
}

struct Fixture {
    _dir: tempfile::TempDir,
    stores: Vec<Written>,
}

/// `dim/n` for every dimension of `source` (by path), as `-c` and
/// `--shards` take them.
fn per_dim(source: &Path, n: u64) -> Vec<String> {
    let ds = nctk::open(source).unwrap();
    let schema = ds.schema();
    let mut specs = vec![];
    for g in schema.group_ids() {
        let path = schema.group_path(g);
        for &d in &schema.group(g).dims {
            let name = &schema.dim(d).name;
            specs.push(format!("{}/{name}/{n}", path.trim_end_matches('/')));
        }
    }
    specs
}

/// The stores, written once: every source in both modes, sharded (two
/// chunks of each dimension per shard) and not; `None` without the peers.
fn fixture() -> Option<&'static Fixture> {
    static F: OnceLock<Option<Fixture>> = OnceLock::new();
    F.get_or_init(|| {
        if !require::python(MODULES) {
            return None;
        }
        let mut sources: Vec<PathBuf> = CORPUS
            .iter()
            .map(|p| require::corpus_path(p))
            .collect::<Option<_>>()?;
        let dir = tempfile::tempdir().unwrap();
        let made = dir.path().join("groups_strings.nc");
        peer::python(SOURCE, [&made]).unwrap();
        sources.push(made);
        let mut stores = vec![];
        for (i, source) in sources.iter().enumerate() {
            for mode in ["zarr", "nczarr"] {
                for sharded in [false, true] {
                    let name = format!("{i}.{mode}{}.zarr", if sharded { ".sharded" } else { "" });
                    let store = dir.path().join(name);
                    let url = PathBuf::from(format!("file://{}#mode={mode},v3", store.display()));
                    let opts = if sharded {
                        CopyOptions {
                            chunkspecs: per_dim(source, 2),
                            shards: per_dim(source, 4),
                            ..CopyOptions::default()
                        }
                    } else {
                        CopyOptions::default()
                    };
                    copy(source, &url, &opts, &mut NoProgress)
                        .unwrap_or_else(|e| panic!("{} -> {mode}: {e}", source.display()));
                    stores.push((source.clone(), store));
                }
            }
        }
        let pairs: Vec<(String, String)> = stores
            .iter()
            .map(|(s, d)| (s.display().to_string(), d.display().to_string()))
            .collect();
        let out = peer::python(PEERS, [serde_json::to_string(&pairs).unwrap()])
            .unwrap_or_else(|e| panic!("v3_write_peers.py: {e}"));
        let reports: Vec<Value> = out
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(reports.len(), stores.len(), "{out}");
        let stores = stores
            .into_iter()
            .zip(reports)
            .map(|((source, store), report)| Written {
                source,
                store,
                report,
            })
            .collect();
        Some(Fixture { _dir: dir, stores })
    })
    .as_ref()
}

fn problems(w: &Written) -> Vec<String> {
    w.report["problems"]
        .as_array()
        .map(|p| p.iter().map(|x| x.to_string()).collect())
        .unwrap_or_default()
}

#[test]
fn peers_read_every_store_with_the_sources_values_names_and_attributes() {
    let Some(f) = fixture() else { return };
    let mut failures = vec![];
    let (mut arrays, mut via_tensorstore) = (0, 0);
    for w in &f.stores {
        arrays += w.report["arrays"].as_u64().unwrap_or(0);
        via_tensorstore += w.report["tensorstore"].as_u64().unwrap_or(0);
        for p in problems(w) {
            failures.push(format!("{}: {p}", w.store.display()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // Every store has arrays, and tensorstore read most of them (not
    // those naming a dimension twice, nor strings: it has no such type).
    assert!(f
        .stores
        .iter()
        .all(|w| w.report["arrays"].as_u64() > Some(0)));
    assert!(
        via_tensorstore * 3 > arrays * 2,
        "{via_tensorstore} of {arrays}"
    );
}

/// The nodes of a store's root `zarr.json` and the key layout of arrays.
fn root(store: &Path) -> Value {
    let text = std::fs::read_to_string(store.join("zarr.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

#[test]
fn metadata_is_consolidated_in_the_root_and_nczarr_annotated() {
    let Some(f) = fixture() else { return };
    for w in &f.stores {
        let r = root(&w.store);
        let name = w.store.display();
        assert_eq!(r["zarr_format"], 3, "{name}");
        assert_eq!(r["node_type"], "group", "{name}");
        let c = &r["consolidated_metadata"];
        assert_eq!(c["kind"], "inline", "{name}");
        assert_eq!(c["must_understand"], false, "{name}");
        // Each consolidated node is the node's own zarr.json.
        let nodes = c["metadata"].as_object().unwrap();
        assert!(!nodes.is_empty(), "{name}");
        for (path, node) in nodes {
            let own: Value = serde_json::from_str(
                &std::fs::read_to_string(w.store.join(path).join("zarr.json")).unwrap(),
            )
            .unwrap();
            let mut node = node.clone();
            if let Some(m) = node.as_object_mut() {
                m.remove("consolidated_metadata");
            }
            assert_eq!(node, own, "{name}: {path}");
        }
        let nczarr = name.to_string().contains(".nczarr");
        let attrs = &r["attributes"];
        assert_eq!(attrs.get("_nczarr_superblock").is_some(), nczarr, "{name}");
        if nczarr {
            assert_eq!(attrs["_nczarr_superblock"]["format"], 3);
            assert!(attrs["_nczarr_group"]["dimensions"].is_array(), "{name}");
            assert!(
                attrs["_nczarr_attrs"]["attribute_types"].is_array(),
                "{name}"
            );
        }
        for node in nodes.values().filter(|n| n["node_type"] == "array") {
            let annotated = node["attributes"].get("_nczarr_array").is_some();
            assert_eq!(annotated, nczarr, "{name}");
        }
    }
}

#[test]
fn nczarr_v3_stores_dump_as_their_sources() {
    let Some(f) = fixture() else { return };
    let mut checked = 0;
    for w in f
        .stores
        .iter()
        .filter(|w| w.store.to_string_lossy().contains(".nczarr"))
    {
        let want = dump_body_as(&w.source, Some(Format::Netcdf4));
        assert_eq!(dump_body(&w.store), want, "{}", w.store.display());
        checked += 1;
    }
    assert_eq!(checked, f.stores.len() / 2);
}
