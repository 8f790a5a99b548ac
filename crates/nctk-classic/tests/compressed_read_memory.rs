//! What reading a block-compressed file costs in memory: a file of a
//! million one-byte blocks (so its tables, over the 16 MiB read at open,
//! are read on demand) reads whole and in random hyperslabs as the
//! original does (truth: the original classic file), and no single
//! allocation of the read grows with the number of blocks it touches.
//! The allocator records the largest allocation, so this binary holds
//! only this test.

use std::sync::Arc;

use nctk_classic::compressed::{compress, CodecId, CompressOptions, CompressedSource};
use nctk_classic::{ClassicReader, ClassicWriter, FillMode, Version};
use nctk_model::{DataSource, DataType, GroupId, Schema, Selection, Values, VarId};
use nctk_store::bytes::{MemSink, MemSource};
use nctk_test_support::alloc::{take_largest, Tracking};

#[global_allocator]
static GLOBAL: Tracking = Tracking;

#[test]
fn a_million_blocks_read_with_tables_on_demand_in_bounded_pieces() {
    let n = 1_100_000u64;
    let mut s = Schema::new();
    let d = s.add_dim(GroupId::ROOT, "n", n, false).unwrap();
    let var = s.add_var(GroupId::ROOT, "b", DataType::Byte, &[d]).unwrap();
    let sink = Arc::new(MemSink::new());
    let mut w =
        ClassicWriter::create_in_with_schema(sink.clone(), &s, Version::Cdf2, FillMode::Fill)
            .unwrap();
    let values: Vec<i8> = (0..n).map(|i| (i % 251) as i8).collect();
    w.write(var, &Selection::all(&[n]), &Values::Byte(values))
        .unwrap();
    w.close().unwrap();
    let original = ClassicReader::from_bytes(sink.to_vec()).unwrap();
    let options = CompressOptions {
        codec: CodecId::None,
        block_bytes: 1,
        ..CompressOptions::default()
    };
    let packed = MemSink::new();
    compress(&original, &packed, &options).unwrap();
    let stored = Arc::new(MemSource::new(packed.into_vec()));
    let source = CompressedSource::open(stored).unwrap();
    assert!(source.index().tables.is_none(), "tables read at open");
    let reader = ClassicReader::from_source(Arc::new(source)).unwrap();

    // The whole variable: 1.1 million blocks, each a piece of the read.
    let all = Selection::all(&[n]);
    let (mut want, mut got) = (vec![0u8; n as usize], vec![1u8; n as usize]);
    original.read_raw(VarId(0), &all, &mut want).unwrap();
    take_largest();
    reader.read_raw(VarId(0), &all, &mut got).unwrap();
    let largest = take_largest();
    assert!(got == want);
    // A piece costs 40 bytes: 1.1 million of them would be 44 MB.
    assert!(largest < 8 << 20, "largest allocation {largest} bytes");

    // Strided hyperslabs.
    for (start, count, stride) in [(5, 1000, 7), (n - 1, 1, 1), (17, 300_000, 3)] {
        let sel = Selection {
            start: vec![start],
            count: vec![count],
            stride: vec![stride],
        };
        assert_eq!(
            reader.read(VarId(0), &sel).unwrap(),
            original.read(VarId(0), &sel).unwrap(),
            "{sel:?}"
        );
    }
}
