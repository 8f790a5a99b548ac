//! Whole-variable read throughput of a block-compressed classic file
//! against the uncompressed classic read of the same variable (the
//! issue's target: at least half, with lz4 and zstd-1 blocks, on 2 cores).
//!
//! ```text
//! cargo run --release -p nctk-classic --example compressed_read_speed -- FILE VAR [BLOCK_BYTES [DIR]]
//! ```
//!
//! Compresses FILE into a temporary directory, or DIR (where files
//! already made are reused), with lz4 and zstd level 1, shuffle on, then
//! reads VAR whole through the classic reader's `read_into` (one buffer
//! for every read, warmed first) from the original and from each
//! compressed file, in turn, seven rounds, and prints each one's best in
//! MB/s of uncompressed data.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use nctk_classic::compressed::{compress, CodecId, CompressOptions, CompressedSource};
use nctk_classic::ClassicReader;
use nctk_model::{DataSource, GroupId, Selection, Values};
use nctk_store::bytes::{ByteSource, FileSink, FileSource};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (file, var) = (Path::new(&args[1]), args[2].as_str());
    let block: u64 = args
        .get(3)
        .map_or(1 << 20, |b| b.parse().expect("block bytes"));
    let temporary = tempfile::tempdir().expect("temporary directory");
    let dir = args.get(4).map_or(temporary.path(), Path::new);
    let source: Arc<dyn ByteSource> = Arc::new(FileSource::open(file).expect("open"));
    let original = ClassicReader::from_source(source).expect("classic file");
    let id = original
        .schema()
        .var_by_name(GroupId::ROOT, var)
        .expect("variable");
    let shape = original.schema().shape(id);
    let bytes = shape.iter().product::<u64>() * original.dtype(id).size().expect("size") as u64;

    let mut readers = vec![("uncompressed".to_string(), original)];
    for (codec, level) in [(CodecId::Lz4, None), (CodecId::Zstd, Some(1))] {
        let path = dir.join(format!("{}-{block}.ncb", codec.name()));
        if !path.is_file() {
            let options = CompressOptions {
                codec,
                level,
                shuffle: true,
                block_bytes: block,
            };
            let t = Instant::now();
            let sink = FileSink::create(&path).expect("create");
            compress(&readers[0].1, &sink, &options).expect("compress");
            println!(
                "{}: written in {:.2} s",
                path.display(),
                t.elapsed().as_secs_f64()
            );
        }
        let stored: Arc<dyn ByteSource> = Arc::new(FileSource::open(&path).expect("open"));
        let size = stored.len().expect("length");
        let reader = ClassicReader::from_source(Arc::new(
            CompressedSource::open(stored).expect("compressed file"),
        ))
        .expect("classic view");
        let name = format!(
            "{} (block {block}, {:.1}% of the original)",
            codec.name(),
            100.0 * size as f64 / readers[0].1.source().len().expect("length") as f64
        );
        readers.push((name, reader));
    }

    let sel = Selection::all(&shape);
    let mut buf = Values::empty(readers[0].1.dtype(id));
    let mut best = vec![Duration::MAX; readers.len()];
    for round in 0..8 {
        for (k, (_, reader)) in readers.iter().enumerate() {
            let t = Instant::now();
            DataSource::read_into(reader, id, &sel, &mut buf).expect("read");
            if round > 0 {
                best[k] = best[k].min(t.elapsed());
            }
        }
    }
    let mb = |d: Duration| bytes as f64 / 1e6 / d.as_secs_f64();
    for ((name, _), d) in readers.iter().zip(&best) {
        println!(
            "{name}: {:.0} MB/s ({:.3} s, {:.2}x the uncompressed read)",
            mb(*d),
            d.as_secs_f64(),
            best[0].as_secs_f64() / d.as_secs_f64()
        );
    }
}
