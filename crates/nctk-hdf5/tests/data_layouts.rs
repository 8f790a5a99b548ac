//! Raw data of datasets h5py wrote (every layout and chunk index,
//! gzip/shuffle/fletcher32/szip and hdf5plugin's filters, per-chunk filter
//! masks, both byte orders, partial edge chunks, chunks never written)
//! read by `DatasetReader` and compared byte for byte with what h5py reads;
//! the filter pipelines parsed from the files compared with h5py's and
//! their `_Filter` text with ncdump's.

use std::sync::{Arc, OnceLock};

use nctk_hdf5::{
    ChunkIndexKind, DatasetInfo, DatasetReader, FilterPipeline, Hdf5Error, Hdf5File, Layout,
    LinkTarget,
};
use nctk_store::bytes::{ByteSource, FileSource, MemSource};
use nctk_store::conformance::CountingSource;
use nctk_test_support::require;
use serde_json::Value;

const GEN: &str = include_str!("data/gen_datasets.py");

/// The generated datasets, made once per test process (in a directory
/// that lives as long as the process).
fn cases() -> Option<&'static [Value]> {
    static CASES: OnceLock<Option<(tempfile::TempDir, Vec<Value>)>> = OnceLock::new();
    CASES
        .get_or_init(|| {
            let dir = tempfile::tempdir().unwrap();
            let out = require::python_output(&["h5py", "hdf5plugin", "numpy"], GEN, [dir.path()])?;
            let cases = serde_json::from_str::<Vec<Value>>(&out).expect("generator JSON");
            Some((dir, cases))
        })
        .as_ref()
        .map(|(_, c)| c.as_slice())
}

fn u64s(v: &Value) -> Vec<u64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap())
        .collect()
}

/// The file and its dataset `v`; `None` when the root group has no hard
/// link `v` (a damaged file).
fn dataset(source: Arc<dyn ByteSource>) -> nctk_hdf5::Result<Option<(Hdf5File, DatasetInfo)>> {
    let file = Hdf5File::open(source)?;
    let root = file.group(file.root_addr())?;
    let Some(addr) = root.links.iter().find_map(|l| match l.target {
        LinkTarget::Hard(a) if l.name == "v" => Some(a),
        _ => None,
    }) else {
        return Ok(None);
    };
    let info = file.dataset(addr)?;
    Ok(Some((file, info)))
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

fn pipeline(file: &Hdf5File, info: &DatasetInfo) -> Option<FilterPipeline> {
    let (at, body) = info.filter_message.as_ref()?;
    Some(FilterPipeline::parse(file.ctx(), *at, body).unwrap())
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
        "btree2" => matches!(index, K::BTreeV2 { .. }),
        "single" => {
            matches!(index, K::Single { filtered } if filtered.is_some() == name.ends_with("gzip"))
        }
        "implicit" => *index == K::Implicit,
        "farray" | "plugin" => matches!(index, K::FixedArray { .. }),
        "earray" => matches!(index, K::ExtensibleArray { .. }),
        _ => false,
    }
}

#[test]
fn every_layout_reads_what_h5py_reads() {
    let Some(cases) = cases() else {
        return;
    };
    for case in cases {
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
            let (file, info) = dataset(source).unwrap().expect(name);
            let got: Vec<(u16, bool, Vec<u32>)> = pipeline(&file, &info)
                .map(|p| p.filters)
                .unwrap_or_default()
                .into_iter()
                .map(|f| (f.id, f.optional, f.params))
                .collect();
            assert_eq!(
                got,
                h5py_filters(case),
                "{name}: filters differ from h5py's"
            );
            // names, where the message stores them (version 1 always)
            if let Some(p) = pipeline(&file, &info) {
                for (f, h) in p.filters.iter().zip(case["filters"].as_array().unwrap()) {
                    if let Some(n) = &f.name {
                        assert_eq!(n, h[3].as_str().unwrap(), "{name}: filter name");
                    }
                }
                if name.starts_with("btree1") {
                    assert!(p.filters.iter().all(|f| f.name.is_some()), "{name}: {p:?}");
                }
            }
            let r = DatasetReader::from_info(file.ctx(), &info)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(index_as_named(name, r.layout()), "{name}: {:?}", r.layout());
            for sel in case["sels"].as_array().unwrap() {
                if let Some(text) = case["error"].as_str() {
                    let err = read_sel(&r, sel, item).expect_err(name);
                    assert!(
                        matches!(err, Hdf5Error::Unsupported { .. })
                            && err.to_string().contains(text),
                        "{name}: {err}"
                    );
                    continue;
                }
                let want = std::fs::read(sel["expect"].as_str().unwrap()).unwrap();
                let got = read_sel(&r, sel, item).unwrap_or_else(|e| panic!("{name}: {e}"));
                let first = got.iter().zip(&want).position(|(a, b)| a != b);
                assert!(
                    got == want,
                    "{name} {sel}: values differ from h5py's from byte {first:?}"
                );
            }
        }
    }
}

/// The storage facts `ncdump -hs` prints (`_Storage`, `_ChunkSizes`,
/// `_Filter`, `_DeflateLevel`, `_Shuffle`, `_Fletcher32`) are what the
/// layout and the filter pipeline in the file say, for every file
/// netCDF-C 4.9 opens (not those of HDF5 2.0's newest format).
#[test]
fn storage_facts_are_what_ncdump_prints() {
    if !require::tools(&["ncdump"]) {
        return;
    }
    let Some(cases) = cases() else {
        return;
    };
    let mut checked = 0;
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let path = case["file"].as_str().unwrap();
        let Ok(dump) = nctk_test_support::peer::run("ncdump", ["-hs", path]) else {
            assert!(name.contains("v200"), "ncdump cannot read {name}");
            continue;
        };
        let printed: Vec<(String, String)> = dump
            .lines()
            .filter_map(|l| {
                let (k, v) = l.trim().strip_prefix("v:_")?.split_once(" = ")?;
                Some((k.to_string(), v.strip_suffix(" ;")?.to_string()))
            })
            .filter(|(k, _)| !matches!(k.as_str(), "Endianness" | "NoFill" | "FillValue"))
            .collect();
        let source: Arc<dyn ByteSource> = Arc::new(FileSource::open(path).unwrap());
        let (file, info) = dataset(source).unwrap().expect(name);
        let r = DatasetReader::from_info(file.ctx(), &info).unwrap();
        let mut ours = vec![(
            "Storage".to_string(),
            format!("\"{}\"", r.layout().storage_name()),
        )];
        if let Layout::Chunked { chunk, .. } = r.layout() {
            let sizes: Vec<String> = chunk.iter().map(u64::to_string).collect();
            ours.push(("ChunkSizes".into(), sizes.join(", ")));
        }
        if let Some(p) = pipeline(&file, &info) {
            let text = p.filter_text();
            if !text.is_empty() {
                ours.push(("Filter".into(), format!("\"{text}\"")));
            }
            if p.shuffle() {
                ours.push(("Shuffle".into(), "\"true\"".into()));
            }
            if let Some(level) = p.deflate_level() {
                ours.push(("DeflateLevel".into(), level.to_string()));
            }
            if p.fletcher32() {
                ours.push(("Fletcher32".into(), "\"true\"".into()));
            }
        }
        let (mut a, mut b) = (printed, ours);
        a.sort();
        b.sort();
        assert_eq!(b, a, "{path}");
        checked += 1;
    }
    assert!(checked >= 20, "{checked} files checked");
}

/// The elements of `sel` cut from the whole array's bytes `whole`.
fn cut(
    whole: &[u8],
    shape: &[u64],
    item: usize,
    start: &[u64],
    count: &[u64],
    stride: &[u64],
) -> Vec<u8> {
    let n: u64 = count.iter().product();
    let mut out = Vec::with_capacity(n as usize * item);
    for mut i in 0..n {
        let mut at = 0u64;
        let mut scale = 1u64;
        for d in (0..shape.len()).rev() {
            let k = i % count[d];
            i /= count[d];
            at += (start[d] + k * stride[d]) * scale;
            scale *= shape[d];
        }
        let at = at as usize * item;
        out.extend_from_slice(&whole[at..at + item]);
    }
    out
}

/// Random hyperslabs of every dataset h5py wrote whole read the elements
/// h5py's whole array holds there (40 per dataset, a fixed sequence).
#[test]
fn random_hyperslabs_match_the_whole_array() {
    let Some(cases) = cases() else {
        return;
    };
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = move |n: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % n.max(1)
    };
    for case in cases.iter().filter(|c| c.get("error").is_none()) {
        let whole = &case["sels"][0];
        let shape = u64s(&case["shape"]);
        if u64s(&whole["count"]) != shape {
            continue; // no whole read from h5py
        }
        let name = case["name"].as_str().unwrap();
        let truth = std::fs::read(whole["expect"].as_str().unwrap()).unwrap();
        let item = case["itemsize"].as_u64().unwrap() as usize;
        let source: Arc<dyn ByteSource> =
            Arc::new(FileSource::open(case["file"].as_str().unwrap()).unwrap());
        let (file, info) = dataset(source).unwrap().unwrap();
        let r = DatasetReader::from_info(file.ctx(), &info).unwrap();
        for _ in 0..40 {
            let (mut start, mut count, mut stride) = (vec![], vec![], vec![]);
            for &n in &shape {
                let s = next(n);
                let t = 1 + next(4);
                start.push(s);
                stride.push(t);
                count.push(1 + next((n - 1 - s) / t + 1));
            }
            let mut out = vec![0u8; count.iter().product::<u64>() as usize * item];
            r.read(&start, &count, &stride, &mut out).unwrap();
            assert!(
                out == cut(&truth, &shape, item, &start, &count, &stride),
                "{name}: start {start:?} count {count:?} stride {stride:?}"
            );
        }
    }
}

/// Reading a variable row after row reads its chunk index once: after the
/// first row, only chunks are read (here a two-level B-tree v1 over 2,000
/// chunks, 1,400 of them written, 20 to a row).
#[test]
fn row_by_row_reads_read_the_index_once() {
    let Some(cases) = cases() else {
        return;
    };
    let case = cases.iter().find(|c| c["name"] == "btree1_deep").unwrap();
    let bytes = std::fs::read(case["file"].as_str().unwrap()).unwrap();
    let counting = Arc::new(CountingSource::new(MemSource::new(bytes)));
    let source: Arc<dyn ByteSource> = counting.clone();
    let (file, info) = dataset(source).unwrap().unwrap();
    let r = DatasetReader::from_info(file.ctx(), &info).unwrap();
    let mut row = vec![0u8; 60 * 2];
    r.read(&[0, 0], &[1, 60], &[1, 1], &mut row).unwrap();
    counting.reset();
    for i in 1..200 {
        r.read(&[i, 0], &[1, 60], &[1, 1], &mut row).unwrap();
    }
    // rows 1..140 hold written chunks (20 each); the rest are fill
    assert_eq!(counting.reads(), 139 * 20);
}

#[test]
fn truncated_and_flipped_files_are_errors_never_panics() {
    let Some(cases) = cases() else {
        return;
    };
    for case in cases {
        let bytes = std::fs::read(case["file"].as_str().unwrap()).unwrap();
        let item = case["itemsize"].as_u64().unwrap() as usize;
        let sel = &case["sels"][0];
        let mut variants = vec![];
        for cut in [bytes.len() / 2, bytes.len() * 3 / 4, bytes.len() - 1] {
            variants.push(bytes[..cut].to_vec());
        }
        // byte flips (fewer in large files)
        let step = if bytes.len() > 200_000 {
            bytes.len() / 12
        } else {
            97
        };
        for i in (0..bytes.len()).step_by(step) {
            let mut v = bytes.clone();
            v[i] ^= 0x5a;
            variants.push(v);
        }
        for v in variants {
            let source: Arc<dyn ByteSource> = Arc::new(MemSource::new(v));
            // an error or values, never a panic
            let res = dataset(source).and_then(|found| match found {
                Some((file, info)) => DatasetReader::from_info(file.ctx(), &info)
                    .and_then(|r| read_sel(&r, sel, item))
                    .map(Some),
                None => Ok(None),
            });
            if let Err(e) = res {
                assert!(!e.to_string().is_empty());
            }
        }
    }
}
