//! Raw data of datasets h5py wrote (every layout, every chunk index but
//! the version-2 B-tree, gzip/shuffle/fletcher32 and hdf5plugin's filters,
//! both byte orders, partial edge chunks, chunks never written) read by
//! `DatasetReader` and compared byte for byte with what h5py reads.
//!
//! Until the object header reader exists, each test finds the dataset's
//! layout message by its bytes (built from what h5py reports: class, chunk
//! dimensions, data address and size) and takes the filter list from
//! h5py's dataset creation property list.

use std::path::Path;
use std::sync::Arc;

use nctk_hdf5::io::FileCtx;
use nctk_hdf5::{ChunkIndexKind, DatasetReader, FilterPipeline, Hdf5Error, Layout};
use nctk_store::bytes::{ByteSource, FileSource, MemSource};
use nctk_test_support::require;
use serde_json::Value;

const GEN: &str = include_str!("data/gen_datasets.py");

fn cases(dir: &Path) -> Option<Vec<Value>> {
    let out = require::python_output(&["h5py", "hdf5plugin", "numpy"], GEN, [dir])?;
    Some(serde_json::from_str::<Vec<Value>>(&out).expect("generator JSON"))
}

fn u64s(v: &Value) -> Vec<u64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap())
        .collect()
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// The layout message's offset, found by the bytes its fields must have.
fn layout_offset(bytes: &[u8], case: &Value) -> usize {
    let item = case["itemsize"].as_u64().unwrap();
    match case["layout"].as_u64().unwrap() {
        0 => {
            let n = case["nbytes"].as_u64().unwrap() as u16;
            let mut pat = vec![3, 0];
            pat.extend_from_slice(&n.to_le_bytes());
            find(bytes, &pat).expect("compact layout message")
        }
        1 => {
            let mut pat = vec![3, 1];
            let addr = case["offset"].as_u64().unwrap_or(u64::MAX);
            pat.extend_from_slice(&addr.to_le_bytes());
            pat.extend_from_slice(&case["nbytes"].as_u64().unwrap().to_le_bytes());
            find(bytes, &pat).expect("contiguous layout message")
        }
        _ => {
            let mut dims = u64s(&case["chunks"]);
            dims.push(item);
            // version 3: class, rank + 1, an address, then u32 dimensions
            let v3: Vec<u8> = dims
                .iter()
                .flat_map(|d| (*d as u32).to_le_bytes())
                .collect();
            for at in 0..bytes.len().saturating_sub(11 + v3.len()) {
                if bytes[at..at + 3] == [3, 2, dims.len() as u8]
                    && bytes[at + 11..at + 11 + v3.len()] == v3[..]
                {
                    return at;
                }
            }
            // version 4: flags, rank + 1, the dimensions' width, the dimensions
            for width in 1..=8usize {
                let enc: Vec<u8> = dims
                    .iter()
                    .flat_map(|d| d.to_le_bytes()[..width].to_vec())
                    .collect();
                for flags in 0..4u8 {
                    let mut pat = vec![4, 2, flags, dims.len() as u8, width as u8];
                    pat.extend_from_slice(&enc);
                    if let Some(at) = find(bytes, &pat) {
                        return at;
                    }
                }
            }
            panic!("no chunked layout message for {}", case["name"]);
        }
    }
}

/// h5py's filters: (id, optional, params).
fn h5py_filters(case: &Value) -> Vec<(u16, bool, Vec<u32>)> {
    case["filters"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f[0].as_u64().unwrap() as u16,
                f[1].as_u64().unwrap() & 1 != 0,
                u64s(&f[2]).into_iter().map(|p| p as u32).collect(),
            )
        })
        .collect()
}

/// The filter pipeline message parsed where its first bytes (version,
/// filter count, first id) say it may be: the first place that parses.
fn pipeline(ctx: &FileCtx, bytes: &[u8], case: &Value) -> Option<FilterPipeline> {
    let want = h5py_filters(case);
    let (first, _, _) = want.first()?;
    let n = want.len() as u8;
    let id = first.to_le_bytes();
    let v1 = [1, n, 0, 0, 0, 0, 0, 0, id[0], id[1]];
    let v2 = [2, n, id[0], id[1]];
    let found = (0..bytes.len()).find_map(|at| {
        let tail = &bytes[at..];
        if !(tail.starts_with(&v1) || tail.starts_with(&v2)) {
            return None;
        }
        FilterPipeline::parse(ctx, at as u64, tail).ok()
    });
    let p = found.expect("a filter pipeline message");
    let got: Vec<(u16, bool, Vec<u32>)> = p
        .filters
        .iter()
        .map(|f| (f.id, f.optional, f.params.clone()))
        .collect();
    assert_eq!(got, want, "{}: filters differ from h5py's", case["name"]);
    Some(p)
}

fn reader(
    source: Arc<dyn ByteSource>,
    bytes: &[u8],
    case: &Value,
    filters: Option<FilterPipeline>,
) -> nctk_hdf5::Result<DatasetReader> {
    let ctx = FileCtx::new(source, bytes.len() as u64, 0, 8, 8);
    let shape = u64s(&case["shape"]);
    let max: Vec<u64> = case["maxshape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_u64().unwrap_or(u64::MAX))
        .collect();
    let at = layout_offset(bytes, case);
    let layout = Layout::parse(&ctx, at as u64, &bytes[at..], shape.len())?;
    let fill = hex(case["fill"].as_str().unwrap());
    DatasetReader::new(
        ctx,
        &shape,
        Some(&max),
        case["itemsize"].as_u64().unwrap() as usize,
        layout,
        filters,
        Some(fill),
    )
}

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

fn read_sel(r: &DatasetReader, sel: &Value, item: usize) -> nctk_hdf5::Result<Vec<u8>> {
    let count = u64s(&sel["count"]);
    let mut out = vec![0xAAu8; count.iter().product::<u64>() as usize * item];
    r.read(
        &u64s(&sel["start"]),
        &count,
        &u64s(&sel["stride"]),
        &mut out,
    )?;
    Ok(out)
}

#[test]
fn every_layout_reads_what_h5py_reads() {
    let dir = tempfile::tempdir().unwrap();
    let Some(cases) = cases(dir.path()) else {
        return;
    };
    for case in &cases {
        let name = case["name"].as_str().unwrap();
        let path = case["file"].as_str().unwrap();
        let bytes = std::fs::read(path).unwrap();
        let item = case["itemsize"].as_u64().unwrap() as usize;
        // over a file and over memory (which never coalesces reads)
        let sources: [Arc<dyn ByteSource>; 2] = [
            Arc::new(FileSource::open(path).unwrap()),
            Arc::new(MemSource::new(bytes.clone())),
        ];
        for source in sources {
            let ctx = FileCtx::new(source.clone(), bytes.len() as u64, 0, 8, 8);
            let filters = pipeline(&ctx, &bytes, case);
            let r = reader(source, &bytes, case, filters).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(index_as_named(name, r.layout()), "{name}: {:?}", r.layout());
            for sel in case["sels"].as_array().unwrap() {
                let want = std::fs::read(sel["expect"].as_str().unwrap()).unwrap();
                let got = read_sel(&r, sel, item).unwrap_or_else(|e| panic!("{name}: {e}"));
                assert!(got == want, "{name} {sel}: values differ from h5py's");
            }
        }
    }
}

/// Whether the layout is the one the case's name says h5py was asked for.
fn index_as_named(name: &str, layout: &Layout) -> bool {
    use ChunkIndexKind as K;
    let index = match layout {
        Layout::Compact { .. } => return name == "compact",
        Layout::Contiguous { .. } => return name.starts_with("contiguous"),
        Layout::Chunked { index, .. } => index,
    };
    match name.split('_').next().unwrap_or("") {
        "btree1" => *index == K::BTreeV1,
        "single" => {
            matches!(index, K::Single { filtered } if filtered.is_some() == name.ends_with("gzip"))
        }
        "implicit" => *index == K::Implicit,
        "farray" | "plugin" => matches!(index, K::FixedArray { .. }),
        "earray" => matches!(index, K::ExtensibleArray { .. }),
        _ => false,
    }
}

/// `filter_text()` of the pipeline in the file is the `_Filter` line of
/// `ncdump -hs` (absent when it is empty).
#[test]
fn filter_text_is_what_ncdump_prints() {
    let dir = tempfile::tempdir().unwrap();
    if !require::tools(&["ncdump"]) {
        return;
    }
    let Some(cases) = cases(dir.path()) else {
        return;
    };
    let mut checked = 0;
    for case in cases.iter().filter(|c| {
        c["name"].as_str().unwrap().starts_with("btree1")
            || c["name"].as_str().unwrap().starts_with("plugin")
    }) {
        let path = case["file"].as_str().unwrap();
        let bytes = std::fs::read(path).unwrap();
        let source: Arc<dyn ByteSource> = Arc::new(MemSource::new(bytes.clone()));
        let ctx = FileCtx::new(source, bytes.len() as u64, 0, 8, 8);
        let text = pipeline(&ctx, &bytes, case)
            .map(|p| p.filter_text())
            .unwrap_or_default();
        let dump = nctk_test_support::peer::run("ncdump", ["-hs", path]).unwrap();
        let line = dump
            .lines()
            .find_map(|l| {
                l.trim()
                    .strip_prefix("v:_Filter = \"")?
                    .strip_suffix("\" ;")
            })
            .unwrap_or("");
        assert_eq!(text, line, "{path}");
        checked += 1;
    }
    assert!(checked >= 6);
}

#[test]
fn truncated_and_flipped_files_are_errors_never_panics() {
    let dir = tempfile::tempdir().unwrap();
    let Some(cases) = cases(dir.path()) else {
        return;
    };
    for case in &cases {
        let bytes = std::fs::read(case["file"].as_str().unwrap()).unwrap();
        let at = layout_offset(&bytes, case);
        let item = case["itemsize"].as_u64().unwrap() as usize;
        let whole = &case["sels"][0];
        let good: Arc<dyn ByteSource> = Arc::new(MemSource::new(bytes.clone()));
        let filters = pipeline(
            &FileCtx::new(good, bytes.len() as u64, 0, 8, 8),
            &bytes,
            case,
        );
        let mut variants = vec![];
        for cut in [
            bytes.len() / 2,
            bytes.len() * 3 / 4,
            bytes.len() - 1,
            at + 6,
        ] {
            variants.push(bytes[..cut].to_vec());
        }
        for i in (at..bytes.len()).step_by(97) {
            let mut v = bytes.clone();
            v[i] ^= 0x5a;
            variants.push(v);
        }
        for v in variants {
            let source: Arc<dyn ByteSource> = Arc::new(MemSource::new(v.clone()));
            let tail = &v[at.min(v.len())..];
            let ctx = FileCtx::new(source.clone(), v.len() as u64, 0, 8, 8);
            // a truncated message or file must give an error or values, never a panic
            let res = Layout::parse(&ctx, at as u64, tail, u64s(&case["shape"]).len())
                .and_then(|_| reader(source, &v, case, filters.clone()))
                .and_then(|r| read_sel(&r, whole, item));
            if let Err(e) = res {
                assert!(!e.to_string().is_empty());
                let _: &Hdf5Error = &e;
            }
        }
    }
}
