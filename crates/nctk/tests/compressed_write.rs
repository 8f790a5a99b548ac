//! Writing block-compressed classic files through the library: the
//! define/put API with `ClassicOptions::compress` (an uncompressed temporary
//! compressed on close) and `nctk::compress_classic` (a classic file as it
//! is). Truths: the uncompressed classic file the same calls write (the
//! compressed file must stand for exactly its bytes), the corpus's classic
//! files themselves, the values put, the options asked for read back from
//! the stored index, and the file system (nothing at the target before
//! close, no temporaries after any ending).

use std::path::Path;
use std::sync::Arc;

use nctk::{ClassicOptions, CodecId, CompressOptions, CreateOptions, Format};
use nctk_classic::compressed::{CompressedSource, Index};
use nctk_store::bytes::{ByteSource, FileSource};
use nctk_test_support::{blocks, corpus::files_under, require};

/// The names in `dir`, sorted, hidden ones included.
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// The bytes of the uncompressed classic file the compressed file at
/// `path` stands for.
fn decompressed(path: &Path) -> Vec<u8> {
    let stored = Arc::new(FileSource::open(path).unwrap());
    let source = CompressedSource::open(stored).unwrap();
    source
        .read_range(0..source.len().unwrap())
        .unwrap()
        .to_vec()
}

/// The uncompressed file a compressed copy of the classic file `original`
/// stands for, built as the format's specification says: its header, each
/// variable's data where the layout puts it, zeros elsewhere (padding).
fn uncompressed_image(original: &[u8]) -> Vec<u8> {
    let reader = nctk_classic::ClassicReader::from_bytes(original.to_vec()).unwrap();
    let layout = reader.layout();
    let numrecs = reader.numrecs();
    let mut image = vec![0u8; layout.implied_len(numrecs).max(layout.header_len) as usize];
    let header = layout.header_len as usize;
    image[..header].copy_from_slice(&original[..header]);
    for v in &layout.vars {
        let stream = v.data_len() * if v.is_record { numrecs } else { 1 };
        for (at, len) in v.stream_pieces(layout.recsize, 0, stream) {
            let (at, end) = (at as usize, (at + len) as usize);
            image[at..end].copy_from_slice(&original[at..end]);
        }
    }
    image
}

/// The index of the compressed file at `path`.
fn index(path: &Path) -> Index {
    Index::open(&FileSource::open(path).unwrap()).unwrap()
}

/// Writes a small dataset (a record variable, a fixed 2-D one, a `char`
/// one, attributes) at `target` with `opts`; drops it unclosed when
/// `close` is false.
fn write_sample(target: &Path, format: Format, opts: CreateOptions, close: bool) {
    let mut def = nctk::create_with(target, format, opts).unwrap();
    let t = def.add_unlimited_dimension("time").unwrap();
    let y = def.add_dimension("y", 30).unwrap();
    let x = def.add_dimension("x", 40).unwrap();
    let s = def.add_dimension("s", 5).unwrap();
    def.put_attribute("title", "compressed sample").unwrap();
    def.add_variable::<f32>("temp", &[t, y, x])
        .unwrap()
        .put_attribute("units", "K")
        .unwrap();
    def.add_variable::<i16>("mask", &[y, x]).unwrap();
    def.add_variable_of_type("name", nctk::model::DataType::Char, &[s])
        .unwrap();
    let mut ds = def.end_define().unwrap();
    let temp: Vec<f32> = (0..7 * 30 * 40).map(|i| (i % 97) as f32 * 0.5).collect();
    ds.put_values("temp", (0..7, .., ..), &temp).unwrap();
    let mask: Vec<i16> = (0..30 * 40).map(|i| (i % 3) as i16).collect();
    ds.put_values("mask", .., &mask).unwrap();
    ds.put_values("name", (0..3,), &[b'a' as i8, b'b' as i8, b'c' as i8])
        .unwrap();
    assert!(!target.exists(), "nothing at the target before close");
    if close {
        ds.close().unwrap();
    }
}

/// A compressed file written through the define/put API stands for
/// exactly the classic file the same calls write without compression, for
/// each classic format, codec and block size, from a file temporary and
/// from memory; the index holds the options asked for; values read back
/// through `nctk::open`; no temporary is left.
#[test]
fn create_with_compress_stands_for_the_plain_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let cases = [
        (Format::Classic, CodecId::Zstd, Some(3), 4096, false),
        (Format::Offset64, CodecId::Zlib, None, 1000, true),
        (Format::Cdf5, CodecId::Lz4, None, 1 << 20, false),
        (Format::Classic, CodecId::Blosc, Some(7), 333, false),
        (Format::Cdf5, CodecId::None, None, 64, true),
    ];
    for (n, (format, codec, level, block_bytes, in_memory)) in cases.into_iter().enumerate() {
        let plain = d.join(format!("plain{n}.nc"));
        write_sample(&plain, format, CreateOptions::default(), true);
        let target = d.join(format!("c{n}.ncb"));
        let options = CompressOptions {
            codec,
            level,
            shuffle: n % 2 == 0,
            block_bytes,
        };
        let opts = CreateOptions::new().classic(ClassicOptions {
            compress: Some(options),
            in_memory,
        });
        write_sample(&target, format, opts, true);
        assert!(
            decompressed(&target) == std::fs::read(&plain).unwrap(),
            "case {n}: the compressed file stands for the plain one"
        );
        let idx = index(&target);
        let schema = nctk::open(&plain).unwrap().source().schema().clone();
        let plain_ds = nctk::open(&plain).unwrap();
        for (v, e) in idx.entries.iter().enumerate() {
            let var = schema.var(nctk::model::VarId(v as u32));
            let xsz = schema.type_size(var.dtype).unwrap();
            let shape = plain_ds.variable(&var.name).unwrap().shape();
            assert_eq!(e.codec.id, codec, "case {n}");
            assert_eq!(e.codec.level, level.unwrap_or(codec.default_level()));
            let shuffled = if n % 2 == 0 && xsz > 1 { xsz as u8 } else { 0 };
            assert_eq!(e.codec.shuffle, shuffled, "case {n} var {v}");
            let want = blocks::row_aligned_block_bytes(&shape, xsz, block_bytes);
            assert_eq!(e.block_bytes, want, "case {n} var {v}");
        }
        let ds = nctk::open(&target).unwrap();
        assert_eq!(nctk::kind(&target).unwrap(), format);
        let temp: Vec<f32> = ds
            .variable("temp")
            .unwrap()
            .get_values((6, 29, ..))
            .unwrap();
        let want: Vec<f32> = (0..40)
            .map(|i| ((6 * 1200 + 29 * 40 + i) % 97) as f32 * 0.5)
            .collect();
        assert_eq!(temp, want, "case {n}");
    }
    assert!(
        names(d).iter().all(|n| !n.contains(".nctk-tmp-")),
        "{:?}",
        names(d)
    );
}

/// A compressed dataset dropped before close leaves nothing: no output,
/// no compressed temporary, no uncompressed temporary.
#[test]
fn a_compressed_dataset_dropped_unclosed_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("dropped.ncb");
    for in_memory in [false, true] {
        let opts = CreateOptions::new().classic(ClassicOptions {
            compress: Some(CompressOptions::default()),
            in_memory,
        });
        write_sample(&target, Format::Classic, opts, false);
        assert_eq!(names(dir.path()), Vec::<String>::new());
    }
}

/// `compress_classic` of corpus classic files (CDF-1, CDF-2, CDF-5, with
/// and without records) gives files that stand for exactly the original
/// bytes; it refuses a non-classic input and a store or ncstream output,
/// naming them, and leaves nothing behind.
#[test]
fn compress_classic_keeps_the_file_and_refuses_what_it_cannot_write() {
    let Some(corpus) = require::corpus() else {
        return;
    };
    let mut files: Vec<_> = files_under(&corpus.join("generated/from-cdl"), |_| true)
        .into_iter()
        .filter(|p| {
            let s = p.to_string_lossy();
            s.ends_with(".nc3.nc") || s.ends_with(".nc6.nc") || s.ends_with(".nc5.nc")
        })
        .collect();
    files.sort();
    let dir = tempfile::tempdir().unwrap();
    let mut checked = 0;
    for (n, path) in files.iter().step_by(9).enumerate() {
        // Sample: the sparse multi-gigabyte ones are left out here.
        if std::fs::metadata(path).unwrap().len() > 16 << 20 {
            continue;
        }
        let original = std::fs::read(path).unwrap();
        let out = dir.path().join(format!("{n}.ncb"));
        let options = CompressOptions {
            block_bytes: [50, 4096][n % 2],
            ..CompressOptions::default()
        };
        let summary = nctk::compress_classic(path, &out, &options).unwrap();
        assert_eq!(
            summary.compressed_len,
            std::fs::metadata(&out).unwrap().len()
        );
        assert!(
            decompressed(&out) == uncompressed_image(&original),
            "{}",
            path.display()
        );
        checked += 1;
        assert_eq!(nctk::kind(&out).unwrap(), nctk::kind(path).unwrap());
    }
    assert!(checked >= 10, "files compared byte for byte: {checked}");

    let input = &files[0];
    let store = files_under(&corpus.join("generated/from-cdl"), |_| true)
        .into_iter()
        .find_map(|p| {
            p.ancestors()
                .find(|a| a.extension().is_some_and(|e| e == "nczarr"))
                .map(Path::to_path_buf)
        })
        .expect("an NCZarr store in the corpus");
    let out = dir.path().join("x.ncb");
    let opts = CompressOptions::default();
    let refused = nctk::compress_classic(&store, &out, &opts).unwrap_err();
    assert!(
        refused.to_string().contains("not a classic netCDF file"),
        "{refused}"
    );
    for bad in ["y.zarr", "y.ncs"] {
        let refused = nctk::compress_classic(input, dir.path().join(bad), &opts).unwrap_err();
        assert!(refused.to_string().contains(bad), "{refused}");
        assert_eq!(refused.kind(), nctk::ErrorKind::Unsupported);
    }
    let url = format!("file://{}/z.zarr#mode=nczarr,file", dir.path().display());
    assert!(nctk::compress_classic(input, &url, &opts).is_err());
    let missing = nctk::compress_classic(dir.path().join("none.nc"), &out, &opts).unwrap_err();
    assert_eq!(missing.kind(), nctk::ErrorKind::NotFound);
    assert!(names(dir.path()).iter().all(|n| n.ends_with(".ncb")));
    assert!(!out.exists());
}

/// `create_with` refuses compression for a netCDF-4 format and for a
/// target that is not a local file, before anything is made.
#[test]
fn create_with_refuses_compression_it_cannot_write() {
    let dir = tempfile::tempdir().unwrap();
    let opts = || {
        CreateOptions::new().classic(ClassicOptions {
            compress: Some(CompressOptions::default()),
            in_memory: false,
        })
    };
    let e = nctk::create_with(dir.path().join("a.ncb"), Format::Netcdf4, opts()).unwrap_err();
    assert!(e.to_string().contains("classic dataset"), "{e}");
    let e = nctk::create_with(dir.path().join("a.zarr"), Format::Classic, opts()).unwrap_err();
    assert!(e.to_string().contains("a.zarr"), "{e}");
    let e = nctk::create_with(dir.path().join("a.ncs"), Format::Classic, opts()).unwrap_err();
    assert!(e.to_string().contains("ncstream"), "{e}");
    assert_eq!(names(dir.path()), Vec::<String>::new());
}
