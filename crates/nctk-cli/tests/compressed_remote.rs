//! Block-compressed classic files read remotely over `#mode=bytes`: from
//! an HTTP server with `Range` (`RangeFileServer`) and from moto's S3
//! server through the S3 API (behind a counting `FaultProxy`). Truth: the
//! original classic file read locally (values), its dump by `nctk dump`
//! (tested against ncdump in `compressed_dump.rs`), and the format's
//! block arithmetic: one time step is one range request for exactly the
//! stored blocks that hold it.

mod common;

use std::sync::Arc;

use nctk_classic::compressed::{compress, CodecId, CompressOptions, CompressedSource};
use nctk_classic::{ClassicReader, ClassicWriter, FillMode, Version};
use nctk_model::{DataType, GroupId, Schema, Selection, Values};
use nctk_store::bytes::{MemSink, MemSource};
use nctk_test_servers::{moto, moto_behind_proxy, Behaviour, RangeFileServer, Stats};

/// Time steps, latitudes and longitudes of the test field.
const SHAPE: [u64; 3] = [20, 144, 288];

/// Uncompressed bytes per block asked for: its whole rows (99,072 bytes)
/// do not divide a step (165,888 bytes).
const BLOCK: u64 = 100_000;

/// Bytes of one time step of `temp`.
const STEP: u64 = SHAPE[1] * SHAPE[2] * 4;

/// A classic CDF-5 file holding `temp(time, lat, lon)` (float32, values
/// of random bits, so the stored file is larger than a remote source's
/// 1 MiB cache block) beside a record variable `t`: the original bytes
/// and the compressed ones (lz4, blocks of [`BLOCK`]).
fn field() -> (Vec<u8>, Vec<u8>) {
    let [nt, ny, nx] = SHAPE;
    let mut s = Schema::new();
    let time = s.add_dim(GroupId::ROOT, "time", 0, true).unwrap();
    let lat = s.add_dim(GroupId::ROOT, "lat", ny, false).unwrap();
    let lon = s.add_dim(GroupId::ROOT, "lon", nx, false).unwrap();
    let t = s
        .add_var(GroupId::ROOT, "t", DataType::Double, &[time])
        .unwrap();
    let temp = s
        .add_var(GroupId::ROOT, "temp", DataType::Float, &[time, lat, lon])
        .unwrap();
    let sink = Arc::new(MemSink::new());
    let mut w =
        ClassicWriter::create_in_with_schema(sink.clone(), &s, Version::Cdf5, FillMode::Fill)
            .unwrap();
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let values: Vec<f32> = (0..nt * ny * nx)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // Finite values of random mantissa: poorly compressible.
            f32::from_bits((x as u32 & 0x807f_ffff) | 0x4000_0000)
        })
        .collect();
    w.write(temp, &Selection::all(&SHAPE), &Values::Float(values))
        .unwrap();
    let times = (0..nt).map(|i| i as f64).collect();
    w.write(t, &Selection::all(&[nt]), &Values::Double(times))
        .unwrap();
    w.close().unwrap();
    let original = sink.to_vec();
    let reader = ClassicReader::from_bytes(original.clone()).unwrap();
    let packed = MemSink::new();
    let options = CompressOptions {
        codec: CodecId::Lz4,
        block_bytes: BLOCK,
        ..CompressOptions::default()
    };
    compress(&reader, &packed, &options).unwrap();
    (original, packed.into_vec())
}

/// The `Range` header asking for the stored blocks of time step `t` of
/// `temp` in the compressed file `packed`: blocks are contiguous, so one
/// range from the first block's offset to the last one's end.
fn step_range(packed: &[u8], t: u64) -> (String, u64) {
    let source = CompressedSource::open(Arc::new(MemSource::new(packed.to_vec()))).unwrap();
    let index = source.index();
    let var = index
        .header
        .vars
        .iter()
        .position(|v| v.name == "temp")
        .unwrap();
    let table = &index.tables.as_ref().unwrap()[var];
    // The block holds whole rows within BLOCK (86 rows of 1,152 bytes).
    let block = index.entries[var].block_bytes;
    assert_eq!(block, 86 * SHAPE[2] * 4);
    let (first, last) = (t * STEP / block, ((t + 1) * STEP - 1) / block);
    let (start, end) = (table[first as usize].offset, table[last as usize].end());
    (format!("bytes={start}-{}", end - 1), end - start)
}

/// One time step of `temp` read through `url`, checked against `local`.
fn read_step(ds: &nctk::Dataset, local: &nctk::Dataset, t: u64) {
    let sel = Selection::block(&[t, 0, 0], &[1, SHAPE[1], SHAPE[2]]);
    let var = ds.source().schema().var_ids().nth(1).unwrap();
    let got = ds.source().read(var, &sel).unwrap();
    assert_eq!(got, local.source().read(var, &sel).unwrap(), "step {t}");
}

/// Asserts the requests a one-step read made: exactly one, a GET of the
/// step's stored blocks.
fn assert_one_request(stats: &Stats, packed: &[u8], t: u64, what: &str) {
    let (range, bytes) = step_range(packed, t);
    let gets: Vec<_> = stats.seen.iter().filter(|s| s.method == "GET").collect();
    assert_eq!(gets.len(), 1, "{what}, step {t}: {:?}", stats.seen);
    assert_eq!(
        gets[0].range.as_deref(),
        Some(range.as_str()),
        "{what}, step {t}"
    );
    assert_eq!(stats.bytes_sent, bytes, "{what}, step {t}");
}

/// Steps read one by one, none sharing a block with another, all past
/// the first MiB of the stored file (which the open reads and caches).
const STEPS: [u64; 3] = [10, 15, 19];

/// Time steps [`STEPS`] of `temp` read one by one from `ds` (opened from
/// `url`, the compressed field `packed`), each checked against the
/// `original` file and to be one request for its blocks, as counted by
/// `reset_stats` and `stats` of what serves `url`; then the whole
/// variable, the same values as the original's.
fn check_steps_and_whole(
    ds: &nctk::Dataset,
    url: &str,
    original: Vec<u8>,
    packed: &[u8],
    reset_stats: impl Fn(),
    stats: impl Fn() -> Stats,
) {
    let local = nctk::open_mem(original).unwrap();
    for t in STEPS {
        reset_stats();
        read_step(ds, &local, t);
        assert_one_request(&stats(), packed, t, url);
    }
    // The whole variable: the same values as the local original.
    let var = ds.source().schema().var_ids().nth(1).unwrap();
    let all = Selection::all(&SHAPE);
    assert_eq!(
        ds.source().read(var, &all).unwrap(),
        local.source().read(var, &all).unwrap()
    );
}

#[test]
fn over_http_values_equal_and_one_step_reads_only_its_blocks() {
    let (original, packed) = field();
    let server = RangeFileServer::start(Behaviour::Honest).unwrap();
    server.add_blob("temp.nc", packed.clone());
    let url = format!("{}#mode=bytes", server.url("temp.nc"));
    let ds = nctk::open(&url).unwrap_or_else(|e| panic!("{url}: {e}"));
    assert_eq!(ds.format(), nctk::Format::Cdf5);
    check_steps_and_whole(
        &ds,
        &url,
        original,
        &packed,
        || server.reset_stats(),
        || server.stats(),
    );
}

#[test]
fn over_s3_values_equal_and_one_step_reads_only_its_blocks() {
    let Some((s3, proxy)) = moto_behind_proxy() else {
        return;
    };
    let (original, packed) = field();
    s3.create_bucket("packed").unwrap();
    s3.put_object("packed", "d/temp.nc", packed.clone(), true)
        .unwrap();
    let url = format!(
        "{}/packed/d/temp.nc#mode=bytes,s3&aws.profile=none",
        proxy.endpoint()
    );
    let ds = nctk::open(&url).unwrap_or_else(|e| panic!("{url}: {e}"));
    check_steps_and_whole(
        &ds,
        &url,
        original,
        &packed,
        || proxy.reset_stats(),
        || proxy.stats(),
    );
}

/// `nctk dump` of the URL (the header, and one variable in full) prints
/// what `nctk dump` prints for the local compressed file, over HTTP and
/// through the S3 API.
#[test]
fn dump_of_the_url_equals_the_local_dump() {
    let (_, packed) = field();
    let dir = tempfile::tempdir().unwrap();
    let local = dir.path().join("temp.nc");
    std::fs::write(&local, &packed).unwrap();
    let server = RangeFileServer::start_dir(dir.path(), Behaviour::Honest).unwrap();
    let mut urls = vec![format!("{}#mode=bytes", server.url("temp.nc"))];
    let s3 = moto();
    if let Some(s3) = &s3 {
        s3.create_bucket("dumps").unwrap();
        s3.put_object("dumps", "temp.nc", packed.clone(), true)
            .unwrap();
        urls.push(format!(
            "{}/dumps/temp.nc#mode=bytes,s3&aws.profile=none",
            s3.endpoint()
        ));
    }
    let local = local.to_str().unwrap();
    for flags in [vec!["-h"], vec!["-v", "t"], vec!["-k"], vec!["-s", "-h"]] {
        let dump = |target: &str| {
            let mut args = vec!["dump"];
            args.extend(&flags);
            args.push(target);
            common::nctk_ok(&args)
        };
        let want = dump(local);
        for url in &urls {
            assert_eq!(dump(url), want, "{flags:?} {url}");
        }
    }
}
