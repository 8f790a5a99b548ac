//! Reading block-compressed classic files through `CompressedSource`
//! under the unchanged classic reader. Truth: the original classic file
//! read by the same reader (a property over random files, selections,
//! codecs and block sizes), and the block arithmetic of the format's
//! specification (which stored blocks one time step needs).

use std::ops::Range;
use std::sync::{Arc, Mutex};

use nctk_classic::compressed::{compress, CodecId, CompressOptions, CompressedSource};
use nctk_classic::{ClassicReader, ClassicWriter, FillMode, Version};
use nctk_model::{DataSource, DataType, GroupId, Schema, Selection, Values, VarId};
use nctk_store::bytes::{ByteError, ByteSource, Coalesce, MemSink, MemSource};
use proptest::prelude::*;
use rayon::prelude::*;

/// A xorshift stream from `seed`.
fn rng(seed: u64) -> impl FnMut() -> u64 {
    let mut s = seed | 1;
    move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    }
}

/// One variable of a random file: type index, record or not, dimension
/// indices (into the fixed dimensions).
type VarSpec = (u8, bool, Vec<usize>);

/// Writes a classic file of `version` with fixed dimensions `dims`, a
/// record dimension of `nrecs` records when any variable is a record
/// variable, and `vars`, every value random (any bits: the comparison is
/// of raw bytes).
fn classic_file(
    version: Version,
    dims: &[u64],
    nrecs: u64,
    vars: &[VarSpec],
    seed: u64,
) -> Vec<u8> {
    let mut s = Schema::new();
    let rec = s.add_dim(GroupId::ROOT, "time", 0, true).unwrap();
    let ids: Vec<_> = dims
        .iter()
        .enumerate()
        .map(|(i, &n)| {
            s.add_dim(GroupId::ROOT, &format!("d{i}"), n, false)
                .unwrap()
        })
        .collect();
    let types: Vec<DataType> = DataType::ALL
        .into_iter()
        .filter(|&t| version.supports(t))
        .collect();
    for (i, (t, is_rec, dsel)) in vars.iter().enumerate() {
        let mut d: Vec<_> = dsel.iter().map(|&k| ids[k % ids.len()]).collect();
        d.dedup();
        if *is_rec {
            d.insert(0, rec);
        }
        let dtype = types[*t as usize % types.len()];
        s.add_var(GroupId::ROOT, &format!("v{i}"), dtype, &d)
            .unwrap();
    }
    let sink = Arc::new(MemSink::new());
    let mut w =
        ClassicWriter::create_in_with_schema(sink.clone(), &s, version, FillMode::Fill).unwrap();
    let mut next = rng(seed);
    for id in s.var_ids() {
        let mut shape = s.shape(id);
        if s.is_record_var(id) {
            shape[0] = nrecs;
        }
        let dtype = s.var(id).dtype;
        let n = shape.iter().product::<u64>() as usize * dtype.size().unwrap();
        let raw: Vec<u8> = (0..n).map(|_| next() as u8).collect();
        w.write(
            id,
            &Selection::all(&shape),
            &Values::from_bytes(dtype, &raw, true),
        )
        .unwrap();
    }
    w.close().unwrap();
    sink.to_vec()
}

/// The compressed bytes of the classic file `original`.
fn compressed(original: &ClassicReader, options: &CompressOptions) -> Vec<u8> {
    let sink = MemSink::new();
    compress(original, &sink, options).unwrap();
    sink.into_vec()
}

/// A random selection of a variable of `shape`: start, count and stride
/// per dimension (an empty count now and then).
fn random_selection(shape: &[u64], next: &mut impl FnMut() -> u64) -> Selection {
    let mut sel = Selection::all(shape);
    for (d, &len) in shape.iter().enumerate() {
        if len == 0 {
            continue;
        }
        let start = next() % len;
        let stride = 1 + next() % 3;
        let room = (len - start).div_ceil(stride);
        sel.start[d] = start;
        sel.stride[d] = stride;
        sel.count[d] = next() % (room + 1);
    }
    sel
}

const CODECS: [CodecId; 5] = [
    CodecId::None,
    CodecId::Zlib,
    CodecId::Zstd,
    CodecId::Lz4,
    CodecId::Blosc,
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]
    /// Every variable read whole and through random hyperslabs with
    /// strides reads the same bytes from the compressed file as from
    /// the original: CDF-1/2/5, fixed and record variables (none, one or
    /// several), every codec, shuffle on and off, blocks of one element,
    /// of a few bytes and larger than a record, a cache of two blocks or
    /// the default.
    #[test]
    fn reads_equal_the_original(
        v in 0usize..3,
        dims in proptest::collection::vec(1u64..6, 1..4),
        nrecs in 0u64..5,
        vars in proptest::collection::vec(
            (any::<u8>(), any::<bool>(), proptest::collection::vec(0usize..4, 0..3)),
            1..6,
        ),
        codec in 0usize..5,
        shuffle in any::<bool>(),
        block in prop_oneof![Just(1u64), 1u64..40, Just(1u64 << 20)],
        small_cache in any::<bool>(),
        seed in any::<u64>(),
    ) {
        let version = [Version::Cdf1, Version::Cdf2, Version::Cdf5][v];
        let bytes = classic_file(version, &dims, nrecs, &vars, seed);
        let original = ClassicReader::from_bytes(bytes).unwrap();
        let options = CompressOptions {
            codec: CODECS[codec],
            level: None,
            shuffle,
            block_bytes: block,
        };
        let stored = Arc::new(MemSource::new(compressed(&original, &options)));
        let mut source = CompressedSource::open(stored).unwrap();
        if small_cache {
            source = source.with_cache_bytes(0);
        }
        let reader = ClassicReader::from_source(Arc::new(source)).unwrap();
        prop_assert_eq!(reader.numrecs(), original.numrecs());
        prop_assert_eq!(reader.schema(), original.schema());
        let mut next = rng(seed ^ 0x5eed);
        for id in original.schema().var_ids() {
            let shape = original.schema().shape(id);
            let xsz = original.dtype(id).size().unwrap();
            let mut selections = vec![Selection::all(&shape)];
            selections.extend((0..6).map(|_| random_selection(&shape, &mut next)));
            for sel in selections {
                let n = sel.num_elements().unwrap() as usize * xsz;
                let (mut want, mut got) = (vec![0u8; n], vec![1u8; n]);
                original.read_raw(id, &sel, &mut want).unwrap();
                reader.read_raw(id, &sel, &mut got).unwrap();
                prop_assert!(got == want, "variable {} selection {:?}", id.0, sel);
            }
        }
    }
}

/// Records which stored ranges are read.
struct Recording {
    inner: MemSource,
    reads: Mutex<Vec<Range<u64>>>,
}

impl Recording {
    fn take(&self) -> Vec<Range<u64>> {
        std::mem::take(&mut *self.reads.lock().unwrap())
    }
}

impl ByteSource for Recording {
    fn len(&self) -> Result<u64, ByteError> {
        self.inner.len()
    }
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<usize, ByteError> {
        self.reads
            .lock()
            .unwrap()
            .push(offset..offset + buf.len() as u64);
        self.inner.read_at(offset, buf)
    }
    fn name(&self) -> String {
        self.inner.name()
    }
    fn coalesce(&self) -> Coalesce {
        Coalesce::NEVER
    }
}

/// A scaled-down `temp(time, lat, lon)` of float32 (10 x 72 x 144), a
/// record variable beside a second one (so its records are not
/// contiguous in the uncompressed file), stored in zstd blocks of at most
/// 10,000 bytes: 17 whole rows of 576 bytes (9,792 bytes), which do not
/// divide a step (41,472 bytes). Reading `temp[t, :, :]` reads exactly
/// the stored blocks overlapping stream bytes `t * 41472 .. (t + 1) *
/// 41472`, each once, and the values are the original's.
#[test]
fn one_time_step_reads_only_its_blocks() {
    let (nt, ny, nx) = (10u64, 72u64, 144u64);
    let mut s = Schema::new();
    let time = s.add_dim(GroupId::ROOT, "time", 0, true).unwrap();
    let lat = s.add_dim(GroupId::ROOT, "lat", ny, false).unwrap();
    let lon = s.add_dim(GroupId::ROOT, "lon", nx, false).unwrap();
    let t_var = s
        .add_var(GroupId::ROOT, "t", DataType::Double, &[time])
        .unwrap();
    let temp = s
        .add_var(GroupId::ROOT, "temp", DataType::Float, &[time, lat, lon])
        .unwrap();
    let sink = Arc::new(MemSink::new());
    let mut w =
        ClassicWriter::create_in_with_schema(sink.clone(), &s, Version::Cdf5, FillMode::Fill)
            .unwrap();
    let field: Vec<f32> = (0..nt * ny * nx)
        .map(|i| (i as f32 * 0.01).sin() * 30.0 + 273.0)
        .collect();
    w.write(temp, &Selection::all(&[nt, ny, nx]), &Values::Float(field))
        .unwrap();
    w.write(
        t_var,
        &Selection::all(&[nt]),
        &Values::Double((0..nt).map(|t| t as f64).collect()),
    )
    .unwrap();
    w.close().unwrap();
    let original = ClassicReader::from_bytes(sink.to_vec()).unwrap();

    let options = CompressOptions {
        block_bytes: 10_000,
        ..CompressOptions::default()
    };
    let stored = Arc::new(Recording {
        inner: MemSource::new(compressed(&original, &options)),
        reads: Mutex::new(vec![]),
    });
    let source = CompressedSource::open(stored.clone()).unwrap();
    let table = source.index().tables.as_ref().unwrap()[temp.0 as usize].clone();
    let block = source.index().entries[temp.0 as usize].block_bytes;
    assert_eq!(block, 17 * nx * 4, "whole rows within the size asked for");
    let reader = ClassicReader::from_source(Arc::new(source)).unwrap();
    let step = ny * nx * 4;
    assert_ne!(step % block, 0, "the block size must not divide a step");
    for t in [3u64, 7, 9] {
        stored.take();
        let sel = Selection::block(&[t, 0, 0], &[1, ny, nx]);
        let got: Vec<f32> = reader.read_vec(temp, &sel).unwrap();
        let want: Vec<f32> = original.read_vec(temp, &sel).unwrap();
        assert!(got == want, "step {t}");
        let mut reads = stored.take();
        reads.sort_by_key(|r| r.start);
        let blocks = (t * step / block)..=((t + 1) * step - 1) / block;
        let expected: Vec<Range<u64>> = blocks
            .map(|b| {
                let e = table[b as usize];
                e.offset..e.end()
            })
            .collect();
        assert_eq!(reads, expected, "stored reads of step {t}");
    }
    // Read again: the partly used end blocks come from the cache, the
    // wholly used ones are decoded again (they were decoded straight into
    // the caller's buffer, never cached).
    let sel = Selection::block(&[9, 0, 0], &[1, ny, nx]);
    let _: Vec<f32> = reader.read_vec(temp, &sel).unwrap();
    let again = stored.take();
    let first = 9 * step / block;
    let last = (10 * step - 1) / block;
    assert!(
        again.len() < (last - first + 1) as usize,
        "{} reads",
        again.len()
    );
}

/// Many reads at once from rayon's own threads (as a parallel copy makes
/// them): each decodes in parallel inside a rayon task, and a thread
/// waiting for its blocks may run another read meanwhile. Every read
/// equals the original's.
#[test]
fn reads_from_rayon_tasks_equal_the_original() {
    let bytes = classic_file(
        Version::Cdf2,
        &[40, 50],
        30,
        &[
            (5, true, vec![0, 1]),
            (6, false, vec![1, 0]),
            (3, true, vec![1]),
        ],
        11,
    );
    let original = ClassicReader::from_bytes(bytes).unwrap();
    let options = CompressOptions {
        block_bytes: 700,
        ..CompressOptions::default()
    };
    let stored = Arc::new(MemSource::new(compressed(&original, &options)));
    let source = CompressedSource::open(stored).unwrap().with_cache_bytes(0);
    let reader = ClassicReader::from_source(Arc::new(source)).unwrap();
    (0..400u64).into_par_iter().for_each(|k| {
        let id = VarId((k % 3) as u32);
        let shape = original.schema().shape(id);
        let sel = random_selection(&shape, &mut rng(k));
        let n = sel.num_elements().unwrap() as usize * original.dtype(id).size().unwrap();
        let (mut want, mut got) = (vec![0u8; n], vec![1u8; n]);
        original.read_raw(id, &sel, &mut want).unwrap();
        reader.read_raw(id, &sel, &mut got).unwrap();
        assert!(got == want, "{sel:?}");
    });
}
