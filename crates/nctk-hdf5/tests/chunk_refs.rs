//! `Nc4Reader::chunk_refs` over every chunk index HDF5 writes: the inputs
//! of nctk-tools' references test (`make_inputs.py`, written by h5py with
//! the latest and the earliest file format) hold each index, as their
//! layout messages say; every chunk each index lists, read at its
//! reference and decoded through its numcodecs chain (nctk-codec), gives
//! the values the reader reads (`nctk refs` is checked against kerchunk
//! and xarray in nctk-tools' `tests/refs.rs`).

use std::collections::BTreeSet;
use std::sync::Arc;

use nctk_codec::Codec;
use nctk_hdf5::netcdf4::Nc4Reader;
use nctk_hdf5::{ChunkIndexKind, DatasetReader, Hdf5File, Layout, LinkTarget};
use nctk_model::{ChunkRef, DataSource, Selection};
use nctk_store::bytes::{ByteSource, FileSource};
use nctk_test_support::require;

const MAKE_INPUTS: &str = include_str!("../../nctk-tools/tests/refs/make_inputs.py");

/// The chunk index of each chunked dataset of the root group.
fn index_kinds(source: Arc<dyn ByteSource>) -> BTreeSet<String> {
    let file = Hdf5File::open(source).unwrap();
    let root = file.group(file.root_addr()).unwrap();
    let mut kinds = BTreeSet::new();
    for link in &root.links {
        let LinkTarget::Hard(addr) = link.target else {
            continue;
        };
        let Ok(info) = file.dataset(addr) else {
            continue;
        };
        let reader = DatasetReader::from_info(file.ctx(), &info).unwrap();
        if let Layout::Chunked { index, .. } = reader.layout() {
            let kind = match index {
                ChunkIndexKind::BTreeV1 => "btree1",
                ChunkIndexKind::Single { .. } => "single",
                ChunkIndexKind::Implicit => "implicit",
                ChunkIndexKind::FixedArray { .. } => "fixed array",
                ChunkIndexKind::ExtensibleArray { .. } => "extensible array",
                ChunkIndexKind::BTreeV2 { .. } => "btree2",
            };
            kinds.insert(kind.to_string());
        }
    }
    kinds
}

#[test]
fn every_chunk_index_gives_references_to_the_chunks_it_holds() {
    let tmp = tempfile::tempdir().unwrap();
    if require::python_output(&["netCDF4", "numpy", "h5py"], MAKE_INPUTS, [tmp.path()]).is_none() {
        return;
    }
    let mut seen = BTreeSet::new();
    for name in ["h5_latest.h5", "h5_earliest.h5"] {
        let path = tmp.path().join(name);
        let bytes = std::fs::read(&path).unwrap();
        let source: Arc<dyn ByteSource> = Arc::new(FileSource::open(&path).unwrap());
        seen.extend(index_kinds(source.clone()));
        let reader = Nc4Reader::open(source).unwrap();
        let schema = reader.schema();
        for v in schema.var_ids() {
            let refs = reader.chunk_refs(v).unwrap();
            let shape = schema.shape(v);
            let all = reader.read(v, &Selection::all(&shape)).unwrap();
            let esize = schema.var(v).dtype.size().unwrap();
            let codecs: Vec<Codec> = refs
                .codecs
                .iter()
                .map(|c| Codec::from_json(&serde_json::from_str(c).unwrap()).unwrap())
                .collect();
            let chunk_bytes = refs.chunk_shape.iter().product::<u64>() as usize * esize;
            for (coords, r) in &refs.chunks {
                let mut stored = match r {
                    ChunkRef::Range { offset, length } => {
                        bytes[*offset as usize..(offset + length) as usize].to_vec()
                    }
                    ChunkRef::Inline(b) => b.clone(),
                    ChunkRef::Object { .. } => panic!("an HDF5 chunk is no object of its own"),
                };
                for c in codecs.iter().rev() {
                    stored = c.decode_unsized(&stored, chunk_bytes).unwrap();
                }
                // the chunk's first element is the variable's element there
                let first: Vec<u64> = coords
                    .iter()
                    .zip(&refs.chunk_shape)
                    .map(|(i, c)| i * c)
                    .collect();
                let at = first.iter().zip(&shape).fold(0u64, |a, (i, n)| a * n + i) as usize;
                let want = all.slice(at..at + 1);
                let mut got = nctk_model::bytes::values_as_bytes(&want).unwrap().to_vec();
                if refs.endianness == nctk_model::Endianness::Big {
                    got.reverse();
                }
                assert_eq!(
                    stored[..esize],
                    got,
                    "{name} {} chunk {coords:?}",
                    schema.var(v).name
                );
            }
        }
    }
    let every: BTreeSet<String> = [
        "btree1",
        "single",
        "implicit",
        "fixed array",
        "extensible array",
        "btree2",
    ]
    .map(String::from)
    .into();
    assert_eq!(seen, every);
}

/// h5py's file whose dataset `v` holds two chunks of one element while the
/// dimension scale its `DIMENSION_LIST` names, `D1`, has one element.
const LONGER_THAN_ITS_DIMENSION: &str = r#"
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "w") as f:
    d1 = f.create_dataset("D1", data=np.zeros(1, "f4"))
    d1.make_scale("D1")
    v = f.create_dataset("v", data=np.array([1.5, 2.5], "f4"), chunks=(1,))
    v.dims[0].attach_scale(d1)
"#;

/// A dataset longer than its variable (found by the `chunk_refs` fuzz
/// target): ncdump reads `v(D1)` as one value, so its references are the
/// one chunk inside that shape, which decodes to the value ncdump prints;
/// the chunk past the shape is left out, not listed outside the grid.
#[test]
fn chunks_past_the_variables_shape_are_left_out() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("longer.nc");
    if require::python_output(&["h5py", "numpy"], LONGER_THAN_ITS_DIMENSION, [&path]).is_none()
        || !require::tools(&["ncdump"])
    {
        return;
    }
    let args: [&std::ffi::OsStr; 3] = ["-v".as_ref(), "v".as_ref(), path.as_os_str()];
    let dump = nctk_test_support::peer::run("ncdump", args).unwrap();
    let data = dump.split("data:").nth(1).expect("ncdump prints the data");
    let printed: Vec<f32> = data
        .split_once("v =")
        .expect("ncdump prints v")
        .1
        .split(';')
        .next()
        .unwrap()
        .split(',')
        .map(|s| s.trim().parse().unwrap())
        .collect();
    assert!(dump.contains("float v(D1)"), "{dump}");
    assert_eq!(printed, [1.5]);

    let bytes = std::fs::read(&path).unwrap();
    let reader = Nc4Reader::open(Arc::new(FileSource::open(&path).unwrap())).unwrap();
    let schema = reader.schema();
    let v = schema
        .var_ids()
        .find(|&v| schema.var(v).name == "v")
        .unwrap();
    assert_eq!(schema.shape(v), [printed.len() as u64]);
    let refs = reader.chunk_refs(v).unwrap();
    assert_eq!(refs.chunk_shape, [1]);
    let coords: Vec<&Vec<u64>> = refs.chunks.iter().map(|(c, _)| c).collect();
    assert_eq!(coords, [&vec![0]]);
    let ChunkRef::Range { offset, length } = refs.chunks[0].1 else {
        panic!("a chunk in the file is a range of it");
    };
    let stored = &bytes[offset as usize..(offset + length) as usize];
    let value = f32::from_le_bytes(stored.try_into().unwrap());
    assert_eq!(value, printed[0]);
}
