//! Block-compressed classic netCDF (issue 16,
//! `docs/formats/compressed-classic.md`) beside the uncompressed classic
//! file and NCZarr stores with the same codec and comparable chunking, in
//! one run, on two datasets:
//!
//! * `field`: the 415 MB CDF-5 field `temp(time=100, lat=721, lon=1440)`
//!   float32 (`bench-data/classic_temp_cdf5.nc`, made once);
//! * `model`: a model-output-like CDF-2 file made once here with
//!   `nctk::create` (`bench-data/compressed_classic/model.nc`, about
//!   290 MB): an unlimited `time` (24 records), 1-D coordinates and bounds,
//!   scalars, fixed 2-D fields, and record variables of several types
//!   (4-D float and packed short, 3-D float and short), smooth with noise
//!   in the low bits as measured data have.
//!
//! For each dataset and each configuration (block sizes 256 KiB, 1 MiB,
//! 4 MiB x zstd-1, lz4, zlib-1, shuffle on) it measures the write
//! (`nctk copy -k compressed`, against `nctk copy -k nc4` to an NCZarr
//! directory store with the same codec and shuffle, chunks of at most the
//! block size: `temp` in (1, 182, 1440) for 1 MiB; both through the
//! copier's library function `nctk_tools::copy::copy`), the sizes (the NCZarr store as the sum of its objects), and
//! reads through `nctk::open` (whole variable, one time step, a point
//! series). The `remote` section reads the same targets over HTTP range
//! requests through a proxy adding 20 ms to every request
//! (`nctk_test_servers`): the classic and compressed files with
//! `#mode=bytes`, the NCZarr stores with `#mode=nczarr` from the same
//! server. `cache` reads a compressed file with its block cache and without
//! it (the least it takes: two blocks); `threads` compresses on 1 and on 2
//! threads. Every read's values are
//! summed and the sums of all readers of a case must agree (the bench stops
//! otherwise).
//!
//! Each write is timed as it runs and again with a `syncfs` of the output
//! after it (durable: the compressed copy syncs its file itself, as every
//! file output of nctk; an NCZarr store's objects are left to the kernel's
//! write-back, as netCDF-C and zarr-python leave them); earlier writes'
//! dirty pages are written back before each, outside the time.
//!
//! Beside each write, its floor: the same blocks read from the input and
//! compressed on all cores with nothing written, what any writer of them
//! spends (when the NCZarr write takes less than 1.5 times the floor, no
//! writer can be 1.5 times faster than it).
//!
//! Best of `RUNS` for each time. Prints markdown tables.
//!
//! Run: `cargo bench -p nctk-cli --bench compressed_classic [-- SECTION...]`,
//! where the sections `field`, `model`, `remote`, `cache`, `threads` pick
//! what to measure (all by default). Writes outputs under
//! `bench-data/compressed_classic/` (or `$NCTK_BENCH_DATA`), reused by the
//! read-only sections.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rayon::prelude::*;

use nctk::model::{DataSource, Selection, Values, VarId};
use nctk::Format;
use nctk_bench_support::{data_dir, write_temp_field, NLAT, NLON};
use nctk_classic::compressed::{
    block_shape, BlockCodec, CodecId, CompressOptions, CompressedSource, Index,
};
use nctk_classic::ClassicReader;
use nctk_store::bytes::{ByteSource, FileSource};
use nctk_test_servers::{Behaviour, FaultProxy, RangeFileServer};
use nctk_tools::copy::{copy, CopyOptions, NoProgress};

/// Time steps of the field.
const NT: u64 = 100;
/// Best of this many runs.
const RUNS: usize = 3;
/// Latency the proxy adds to every request in the `remote` section.
const LATENCY: Duration = Duration::from_millis(20);

/// One codec as both formats name it.
#[derive(Clone, Copy)]
struct Codec {
    id: CodecId,
    label: &'static str,
    /// The same codec with shuffle as an `nctk copy -F` specification.
    filter: &'static str,
}

const CODECS: [Codec; 3] = [
    Codec {
        id: CodecId::Zstd,
        label: "zstd-1",
        filter: "*,shuffle|zstd,1",
    },
    Codec {
        id: CodecId::Lz4,
        label: "lz4",
        filter: "*,shuffle|lz4",
    },
    Codec {
        id: CodecId::Zlib,
        label: "zlib-1",
        filter: "*,shuffle|zlib,1",
    },
];

/// Block sizes (and NCZarr chunk-size bounds), bytes.
const BLOCKS: [u64; 3] = [256 << 10, 1 << 20, 4 << 20];

/// One configuration: a codec (shuffle on) and a block size.
#[derive(Clone, Copy)]
struct Config {
    codec: Codec,
    block: u64,
}

impl Config {
    /// Every block size with every codec.
    fn all() -> Vec<Config> {
        BLOCKS
            .iter()
            .flat_map(|&block| CODECS.iter().map(move |&codec| Config { codec, block }))
            .collect()
    }

    /// The configurations read remotely: every codec at 1 MiB, zstd-1 at
    /// the other block sizes.
    fn remote() -> Vec<Config> {
        Config::all()
            .into_iter()
            .filter(|c| c.block == 1 << 20 || c.codec.id == CodecId::Zstd)
            .collect()
    }

    fn label(&self) -> String {
        format!("{} {}", self.codec.label, size_label(self.block))
    }

    /// File-name part.
    fn tag(&self) -> String {
        format!("{}_{}k", self.codec.label, self.block >> 10)
    }

    fn options(&self) -> CompressOptions {
        CompressOptions {
            codec: self.codec.id,
            level: None,
            shuffle: true,
            block_bytes: self.block,
        }
    }
}

/// `256 KiB`, `1 MiB`, ...
fn size_label(bytes: u64) -> String {
    if bytes >= 1 << 20 {
        format!("{} MiB", bytes >> 20)
    } else {
        format!("{} KiB", bytes >> 10)
    }
}

/// What one read case reads.
#[derive(Clone)]
enum What {
    /// A selection of one variable.
    Var(&'static str, Selection),
    /// Every variable whole, one after another.
    Every,
}

/// One read case.
#[derive(Clone)]
struct Read {
    name: &'static str,
    what: What,
}

/// One dataset: its uncompressed classic file and what is read of it.
struct Dataset {
    name: &'static str,
    classic: PathBuf,
    reads: Vec<Read>,
    /// The variable whose whole read gives the throughput column.
    main_var: &'static str,
}

impl Dataset {
    fn compressed(&self, cfg: &Config) -> PathBuf {
        out_dir().join(format!("{}_{}.nc", self.name, cfg.tag()))
    }

    fn nczarr(&self, cfg: &Config) -> PathBuf {
        out_dir().join(format!("{}_{}.zarr", self.name, cfg.tag()))
    }
}

/// Where the outputs go.
fn out_dir() -> PathBuf {
    data_dir().join("compressed_classic")
}

fn field() -> Dataset {
    let classic = data_dir().join("classic_temp_cdf5.nc");
    if !classic.exists() {
        std::fs::create_dir_all(data_dir()).unwrap();
        write_temp_field(&classic, NT);
    }
    Dataset {
        name: "field",
        classic,
        reads: vec![
            Read {
                name: "whole temp",
                what: What::Var("temp", Selection::all(&[NT, NLAT, NLON])),
            },
            Read {
                name: "temp[50,:,:]",
                what: What::Var("temp", Selection::block(&[50, 0, 0], &[1, NLAT, NLON])),
            },
            Read {
                name: "temp[:,360,720]",
                what: What::Var("temp", Selection::block(&[0, 360, 720], &[NT, 1, 1])),
            },
        ],
        main_var: "temp",
    }
}

/// The model-like dataset's shape.
const M_NT: u64 = 24;
const M_NLEV: u64 = 17;
const M_NLAT: u64 = 181;
const M_NLON: u64 = 360;

fn model() -> Dataset {
    let classic = out_dir().join("model.nc");
    if !classic.exists() {
        std::fs::create_dir_all(out_dir()).unwrap();
        write_model(&classic);
    }
    let shape4 = [M_NT, M_NLEV, M_NLAT, M_NLON];
    Dataset {
        name: "model",
        classic,
        reads: vec![
            Read {
                name: "whole ta",
                what: What::Var("ta", Selection::all(&shape4)),
            },
            Read {
                name: "ta[12,:,:,:]",
                what: What::Var(
                    "ta",
                    Selection::block(&[12, 0, 0, 0], &[1, M_NLEV, M_NLAT, M_NLON]),
                ),
            },
            Read {
                name: "ta[:,8,90,180]",
                what: What::Var("ta", Selection::block(&[0, 8, 90, 180], &[M_NT, 1, 1, 1])),
            },
            Read {
                name: "every variable",
                what: What::Every,
            },
        ],
        main_var: "ta",
    }
}

/// A deterministic noise in [-1, 1) (splitmix64 of `i`).
fn noise(i: u64) -> f32 {
    let mut z = i.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    (z >> 40) as f32 / (1u64 << 23) as f32 - 1.0
}

/// Writes the model-like dataset through `nctk::create` (CDF-2, an
/// unlimited `time`, 24 records).
fn write_model(path: &Path) {
    eprintln!("generating {} ...", path.display());
    let mut def = nctk::create(path, Format::Offset64).unwrap();
    def.put_attribute(
        "title",
        "model-output-like dataset (nctk compressed_classic bench)",
    )
    .unwrap();
    def.put_attribute("Conventions", "CF-1.8").unwrap();
    let time = def.add_unlimited_dimension("time").unwrap();
    let lev = def.add_dimension("lev", M_NLEV).unwrap();
    let lat = def.add_dimension("lat", M_NLAT).unwrap();
    let lon = def.add_dimension("lon", M_NLON).unwrap();
    let nv = def.add_dimension("nv", 2).unwrap();
    def.add_variable::<f64>("time", &[time])
        .unwrap()
        .put_attribute("units", "hours since 2000-01-01 00:00")
        .unwrap();
    def.add_variable::<f64>("time_bnds", &[time, nv]).unwrap();
    def.add_variable::<f64>("lev", &[lev])
        .unwrap()
        .put_attribute("units", "hPa")
        .unwrap();
    for (name, dim, units) in [("lat", lat, "degrees_north"), ("lon", lon, "degrees_east")] {
        def.add_variable::<f64>(name, &[dim])
            .unwrap()
            .put_attribute("units", units)
            .unwrap();
        def.add_variable::<f64>(&format!("{name}_bnds"), &[dim, nv])
            .unwrap();
    }
    def.add_variable::<i32>("crs", &[])
        .unwrap()
        .put_attribute("grid_mapping_name", "latitude_longitude")
        .unwrap();
    def.add_variable::<f64>("p0", &[]).unwrap();
    def.add_variable::<f32>("orog", &[lat, lon]).unwrap();
    def.add_variable::<i8>("sftlf", &[lat, lon]).unwrap();
    for name in ["ta", "ua"] {
        def.add_variable::<f32>(name, &[time, lev, lat, lon])
            .unwrap();
    }
    def.add_variable::<i16>("hus", &[time, lev, lat, lon])
        .unwrap()
        .put_attribute("scale_factor", 1e-6f32)
        .unwrap();
    for name in ["ps", "tas", "pr"] {
        def.add_variable::<f32>(name, &[time, lat, lon]).unwrap();
    }
    def.add_variable::<i16>("clt", &[time, lat, lon]).unwrap();
    let mut ds = def.end_define().unwrap();

    let degrees = |n: u64, span: f64, from: f64| -> Vec<f64> {
        (0..n).map(|i| from + span * i as f64 / n as f64).collect()
    };
    let lats = degrees(M_NLAT, 181.0, -90.0);
    let lons = degrees(M_NLON, 360.0, 0.0);
    let bounds = |c: &[f64], half: f64| -> Vec<f64> {
        c.iter().flat_map(|&x| [x - half, x + half]).collect()
    };
    ds.put_values("lat", .., &lats).unwrap();
    ds.put_values("lon", .., &lons).unwrap();
    ds.put_values("lat_bnds", .., &bounds(&lats, 0.5)).unwrap();
    ds.put_values("lon_bnds", .., &bounds(&lons, 0.5)).unwrap();
    ds.put_values("lev", .., &degrees(M_NLEV, -900.0, 1000.0))
        .unwrap();
    ds.put_values("crs", (), &[0i32]).unwrap();
    ds.put_values("p0", (), &[100_000f64]).unwrap();

    let grid = (M_NLAT * M_NLON) as usize;
    let coslat: Vec<f32> = lats.iter().map(|l| l.to_radians().cos() as f32).collect();
    let at = |i: usize| (i / M_NLON as usize, i % M_NLON as usize);
    let lonr = |j: usize| (lons[j] as f32).to_radians();
    let orog: Vec<f32> = (0..grid)
        .map(|i| {
            let (y, x) = at(i);
            (2000.0 * (3.0 * lonr(x)).sin() * coslat[y] + 200.0 * noise(i as u64)).max(0.0)
        })
        .collect();
    let sftlf: Vec<i8> = orog
        .iter()
        .map(|&h| if h > 0.0 { 100 } else { 0 })
        .collect();
    ds.put_values("orog", .., &orog).unwrap();
    ds.put_values("sftlf", .., &sftlf).unwrap();

    let level = M_NLEV as usize * grid;
    let mut seed = 1u64 << 40;
    let mut next = || {
        seed += 1;
        noise(seed)
    };
    for t in 0..M_NT as usize {
        let tf = t as f32;
        let hours = 6.0 * t as f64;
        ds.put_values("time", (t..t + 1,), &[hours]).unwrap();
        ds.put_values("time_bnds", (t..t + 1, ..), &[hours - 3.0, hours + 3.0])
            .unwrap();
        let field4 = |f: &dyn Fn(usize, usize, usize) -> f32| -> Vec<f32> {
            (0..level)
                .map(|i| {
                    let (k, rest) = (i / grid, i % grid);
                    let (y, x) = at(rest);
                    f(k, y, x)
                })
                .collect()
        };
        let ta = field4(&|k, y, x| {
            220.0 + 60.0 * coslat[y] - 3.0 * k as f32
                + 4.0 * (2.0 * lonr(x) + 0.3 * tf).sin() * coslat[y]
        });
        let ta: Vec<f32> = ta.into_iter().map(|v| v + 0.25 * next()).collect();
        let ua = field4(&|k, y, x| {
            25.0 * (2.0 * (lats[y] as f32).to_radians()).cos() * (k as f32 / 17.0)
                + 5.0 * (lonr(x) + 0.2 * tf).sin()
        });
        let ua: Vec<f32> = ua.into_iter().map(|v| v + next()).collect();
        let hus: Vec<i16> =
            field4(&|k, y, _| 20_000.0 * coslat[y] * coslat[y] * (-(k as f32) / 4.0).exp())
                .into_iter()
                .map(|v| (v + 300.0 * next()).clamp(0.0, 32_000.0) as i16)
                .collect();
        ds.put_values("ta", (t, .., .., ..), &ta).unwrap();
        ds.put_values("ua", (t, .., .., ..), &ua).unwrap();
        ds.put_values("hus", (t, .., .., ..), &hus).unwrap();
        let field3 = |f: &dyn Fn(usize, usize) -> f32| -> Vec<f32> {
            (0..grid)
                .map(|i| {
                    let (y, x) = at(i);
                    f(y, x)
                })
                .collect()
        };
        let ps: Vec<f32> = field3(&|y, x| {
            101_325.0 - 0.12 * orog[y * M_NLON as usize + x]
                + 1500.0 * (lonr(x) - 0.4 * tf).sin() * coslat[y]
        })
        .into_iter()
        .map(|v| v + 30.0 * next())
        .collect();
        let tas: Vec<f32> = ta[..grid].iter().map(|v| v + 2.0).collect();
        let pr: Vec<f32> = (0..grid).map(|_| (next() - 0.6).max(0.0) * 4e-4).collect();
        let clt: Vec<i16> = (0..grid).map(|_| ((next() + 1.0) * 50.0) as i16).collect();
        ds.put_values("ps", (t, .., ..), &ps).unwrap();
        ds.put_values("tas", (t, .., ..), &tas).unwrap();
        ds.put_values("pr", (t, .., ..), &pr).unwrap();
        ds.put_values("clt", (t, .., ..), &clt).unwrap();
    }
    ds.close().unwrap();
}

/// `-c var:n1,n2,...` for every non-scalar variable of `classic`: chunks
/// of the shape the compressed file's blocks have ([`block_shape`]), so
/// a chunk holds the bytes a block holds.
fn chunk_specs(classic: &Path, block: u64) -> Vec<String> {
    let ds = nctk::open(classic).unwrap();
    ds.variables()
        .filter(|v| !v.shape().is_empty())
        .map(|v| {
            let elem = v.dtype().size().unwrap() as u64;
            let lens = block_shape(&v.shape(), elem, block);
            let lens: Vec<String> = lens.iter().map(u64::to_string).collect();
            format!("{}:{}", v.name(), lens.join(","))
        })
        .collect()
}

/// Compresses `classic` into `out` with `cfg` (`nctk copy -k compressed
/// --codec C --block-size B`, through the copier's library function as
/// the NCZarr copy beside it), timed.
fn write_compressed(classic: &Path, out: &Path, cfg: &Config) -> Timing {
    let _ = std::fs::remove_file(out);
    let opts = CopyOptions {
        compress: Some(cfg.options()),
        ..CopyOptions::default()
    };
    timed(out, || {
        copy(classic, out, &opts, &mut NoProgress).unwrap();
    })
}

/// The floor of a write: every block of the compressed file `compressed`
/// (its index gives each variable's block size and codec) read from the
/// input file `classic` and shuffled and compressed, on all cores, with
/// nothing written. Any writer producing these compressed blocks from
/// this input (this format's, or NCZarr's chunks of the same bytes) reads
/// and compresses at least this; wall seconds, best of [`RUNS`].
fn write_floor(classic: &Path, compressed: &Path) -> f64 {
    let reader = ClassicReader::from_source(Arc::new(FileSource::open(classic).unwrap())).unwrap();
    let index = Index::open(&FileSource::open(compressed).unwrap()).unwrap();
    let blocks: Vec<(u32, u64, u64, BlockCodec)> = index
        .entries
        .iter()
        .enumerate()
        .flat_map(|(i, e)| {
            (0..e.nblocks).map(move |b| (i as u32, b * e.block_bytes, e.block_len(b), e.codec))
        })
        .collect();
    best(|| {
        let t0 = Instant::now();
        let stored: usize = blocks
            .par_iter()
            .map_init(Vec::new, |raw, &(var, start, len, codec)| {
                raw.resize(len as usize, 0);
                reader.read_stream(VarId(var), start, raw).unwrap();
                codec.encode_block(raw).unwrap().len()
            })
            .sum();
        std::hint::black_box(stored);
        t0.elapsed().as_secs_f64()
    })
}

/// Copies `classic` to the NCZarr directory store `out` with `cfg`'s codec
/// and shuffle, chunked by `specs` (`nctk copy -k nc4 -c ... -F ...`),
/// timed.
fn write_nczarr(classic: &Path, out: &Path, cfg: &Config, specs: &[String]) -> Timing {
    let _ = std::fs::remove_dir_all(out);
    let opts = CopyOptions {
        kind: Some(Format::Netcdf4),
        chunkspecs: specs.to_vec(),
        filters: vec![cfg.codec.filter.into()],
        ..CopyOptions::default()
    };
    timed(out, || {
        copy(classic, out, &opts, &mut NoProgress).unwrap();
    })
}

/// This process's CPU seconds so far (user + system, all threads).
fn cpu_seconds() -> f64 {
    // SAFETY: getrusage fills the zeroed struct it is given.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut usage);
        usage
    };
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    secs(usage.ru_utime) + secs(usage.ru_stime)
}

/// The times of one write.
#[derive(Clone, Copy)]
struct Timing {
    /// Wall seconds of the copy.
    wall: f64,
    /// CPU seconds of the copy (the work done, whatever else runs on the
    /// machine).
    cpu: f64,
    /// Wall seconds of the copy and a `syncfs` of the output's file system
    /// after it: the copy made durable. The compressed file is synced by
    /// the copy itself (as every file output); an NCZarr store's objects
    /// are not (as netCDF-C and zarr-python), so the kernel writes them
    /// back later, and this adds that.
    durable: f64,
}

/// Times the write `f` of `out`. Dirty pages of earlier writes are
/// written back first, outside the time, so that no write pays for
/// another's.
fn timed(out: &Path, f: impl FnOnce()) -> Timing {
    // SAFETY: sync takes no arguments and cannot fail.
    unsafe { libc::sync() };
    let (t0, c0) = (Instant::now(), cpu_seconds());
    f();
    let (wall, cpu) = (t0.elapsed().as_secs_f64(), cpu_seconds() - c0);
    let fs = std::fs::File::open(out).unwrap();
    // SAFETY: `fs` is an open descriptor for the duration of the call.
    assert_eq!(
        unsafe { libc::syncfs(std::os::fd::AsRawFd::as_raw_fd(&fs)) },
        0
    );
    Timing {
        wall,
        cpu,
        durable: t0.elapsed().as_secs_f64(),
    }
}

/// Best of [`RUNS`] of `f`'s times (each the least).
fn best_timed(mut f: impl FnMut() -> Timing) -> Timing {
    (0..RUNS).map(|_| f()).fold(
        Timing {
            wall: f64::MAX,
            cpu: f64::MAX,
            durable: f64::MAX,
        },
        |a, b| Timing {
            wall: a.wall.min(b.wall),
            cpu: a.cpu.min(b.cpu),
            durable: a.durable.min(b.durable),
        },
    )
}

/// Bytes of a file, or of every file under a directory.
fn size_of(path: &Path) -> u64 {
    let meta = std::fs::metadata(path).unwrap();
    if !meta.is_dir() {
        return meta.len();
    }
    std::fs::read_dir(path)
        .unwrap()
        .map(|e| size_of(&e.unwrap().path()))
        .sum()
}

/// Best of [`RUNS`] of `f`, seconds.
fn best(mut f: impl FnMut() -> f64) -> f64 {
    (0..RUNS).map(|_| f()).fold(f64::MAX, f64::min)
}

/// The sum of the values, as f64 (the cross-reader check).
fn checksum(values: &Values) -> f64 {
    fn sum<T: Copy + Into<f64>>(v: &[T]) -> f64 {
        v.iter().map(|&x| x.into()).sum()
    }
    match values {
        Values::Byte(v) => sum(v),
        Values::Short(v) => sum(v),
        Values::Int(v) => sum(v),
        Values::Float(v) => sum(v),
        Values::Double(v) => sum(v),
        other => panic!("no checksum for {:?}", other.dtype()),
    }
}

/// Opens `target` and reads `what`: (seconds, checksum), best of [`RUNS`].
fn read(target: &str, what: &What) -> (f64, f64) {
    let mut check = 0.0;
    let secs = best(|| {
        let t0 = Instant::now();
        let ds = nctk::open(target).unwrap_or_else(|e| panic!("{target}: {e}"));
        check = match what {
            What::Var(name, sel) => checksum(&ds.variable(name).unwrap().read_values(sel).unwrap()),
            What::Every => ds
                .variables()
                .map(|v| checksum(&v.read_values(&Selection::all(&v.shape())).unwrap()))
                .sum(),
        };
        t0.elapsed().as_secs_f64()
    });
    (secs, check)
}

/// One reader of a dataset: a label and the target `nctk::open` takes.
struct Target {
    label: String,
    target: String,
}

/// The read targets of `ds`: the classic file, then each compressed file
/// and each NCZarr store of `configs`, addressed by `addr(path)`.
fn targets(ds: &Dataset, configs: &[Config], addr: &dyn Fn(&Path, bool) -> String) -> Vec<Target> {
    let mut t = vec![Target {
        label: "classic (uncompressed)".into(),
        target: addr(&ds.classic, false),
    }];
    for c in configs {
        t.push(Target {
            label: format!("compressed {}", c.label()),
            target: addr(&ds.compressed(c), false),
        });
    }
    for c in configs {
        t.push(Target {
            label: format!("NCZarr {}", c.label()),
            target: addr(&ds.nczarr(c), true),
        });
    }
    t
}

/// Prints the read table of `ds` over `targets`: per read case, the time
/// and its ratio to the classic file's (the first target), with the
/// requests `proxy` saw for each read when given. Panics when
/// two readers' sums differ.
fn read_table(ds: &Dataset, targets: &[Target], proxy: Option<&FaultProxy>) {
    let mut head = "| reader |".to_string();
    let mut rule = "| --- |".to_string();
    for r in &ds.reads {
        head += &format!(" {} | x classic |", r.name);
        rule += " --- | --- |";
        if proxy.is_some() {
            head += " requests |";
            rule += " --- |";
        }
    }
    head += &format!(" whole {} MB/s |", ds.main_var);
    rule += " --- |";
    println!("{head}\n{rule}");
    let bytes = {
        let src = nctk::open(&ds.classic).unwrap();
        let v = src.variable(ds.main_var).unwrap();
        v.shape().iter().product::<u64>() * v.dtype().size().unwrap() as u64
    };
    let mut sums: Vec<Option<f64>> = vec![None; ds.reads.len()];
    let mut classic: Vec<f64> = vec![];
    for t in targets {
        let mut row = format!("| {} |", t.label);
        let mut whole = f64::NAN;
        for (i, r) in ds.reads.iter().enumerate() {
            if let Some(p) = proxy {
                p.reset_stats();
            }
            let (secs, sum) = read(&t.target, &r.what);
            match sums[i] {
                None => sums[i] = Some(sum),
                Some(s) => assert_eq!(s, sum, "{}: {} reads other values", t.target, r.name),
            }
            if classic.len() <= i {
                classic.push(secs);
            }
            if r.name == format!("whole {}", ds.main_var) {
                whole = secs;
            }
            row += &format!(" {} | {:.2} |", fmt_secs(secs), secs / classic[i]);
            if let Some(p) = proxy {
                row += &format!(" {} |", p.stats().requests() / RUNS);
            }
        }
        row += &format!(" {:.0} |", bytes as f64 / 1e6 / whole);
        println!("{row}");
    }
    println!();
}

fn fmt_secs(s: f64) -> String {
    if s < 0.1 {
        format!("{:.1} ms", s * 1e3)
    } else {
        format!("{s:.3} s")
    }
}

/// The `field`/`model` section: writes, sizes, local reads.
fn write_and_read(ds: &Dataset) {
    let classic_len = size_of(&ds.classic);
    println!(
        "### {}: `{}`, {:.1} MB uncompressed\n",
        ds.name,
        ds.classic.display(),
        classic_len as f64 / 1e6
    );
    println!("| configuration | compressed | / uncompressed | NCZarr | compressed / NCZarr | compress | NCZarr write | NCZarr / compress | compress, durable | NCZarr, durable | NCZarr / compress, durable | compress CPU | NCZarr CPU | NCZarr / compress CPU | read + codec floor | NCZarr / floor |");
    println!("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
    std::fs::create_dir_all(out_dir()).unwrap();
    for cfg in Config::all() {
        let specs = chunk_specs(&ds.classic, cfg.block);
        let (cpath, zpath) = (ds.compressed(&cfg), ds.nczarr(&cfg));
        let c = best_timed(|| write_compressed(&ds.classic, &cpath, &cfg));
        let z = best_timed(|| write_nczarr(&ds.classic, &zpath, &cfg, &specs));
        let floor = write_floor(&ds.classic, &cpath);
        let (cs, zs) = (size_of(&cpath), size_of(&zpath));
        println!(
            "| {} | {:.1} MB | {:.3} | {:.1} MB | {:.3} | {} | {} | {:.2}x | {} | {} | {:.2}x | {} | {} | {:.2}x | {} | {:.2}x |",
            cfg.label(),
            cs as f64 / 1e6,
            cs as f64 / classic_len as f64,
            zs as f64 / 1e6,
            cs as f64 / zs as f64,
            fmt_secs(c.wall),
            fmt_secs(z.wall),
            z.wall / c.wall,
            fmt_secs(c.durable),
            fmt_secs(z.durable),
            z.durable / c.durable,
            fmt_secs(c.cpu),
            fmt_secs(z.cpu),
            z.cpu / c.cpu,
            fmt_secs(floor),
            z.wall / floor
        );
    }
    println!();
    let local = |p: &Path, _store: bool| p.display().to_string();
    println!("Local reads (open + read, best of {RUNS}):\n");
    read_table(ds, &targets(ds, &Config::all(), &local), None);
}

/// Makes sure every output of `ds` exists (a read-only section run alone).
fn ensure_outputs(ds: &Dataset, configs: &[Config]) {
    std::fs::create_dir_all(out_dir()).unwrap();
    for cfg in configs {
        if !ds.compressed(cfg).exists() {
            write_compressed(&ds.classic, &ds.compressed(cfg), cfg);
        }
        if !ds.nczarr(cfg).join(".zgroup").exists() {
            let specs = chunk_specs(&ds.classic, cfg.block);
            write_nczarr(&ds.classic, &ds.nczarr(cfg), cfg, &specs);
        }
    }
}

/// The `remote` section: the same reads over HTTP through a proxy with
/// [`LATENCY`] per request.
fn remote(datasets: &[&Dataset]) {
    let dir = data_dir();
    let server = RangeFileServer::start_dir(&dir, Behaviour::Honest).unwrap();
    let proxy = FaultProxy::start(&server.endpoint()).unwrap();
    proxy.set_latency(LATENCY);
    let endpoint = proxy.endpoint();
    let addr = |p: &Path, store: bool| {
        let rel = p.strip_prefix(&dir).unwrap().display().to_string();
        let mode = if store { "nczarr" } else { "bytes" };
        format!("{endpoint}/{rel}#mode={mode}")
    };
    let configs = Config::remote();
    for ds in datasets {
        ensure_outputs(ds, &configs);
        println!(
            "### {} over HTTP, {} ms per request (requests counted at the proxy, per read)\n",
            ds.name,
            LATENCY.as_millis()
        );
        read_table(ds, &targets(ds, &configs, &addr), Some(&proxy));
    }
}

/// A classic reader over the compressed file `path`, with the block cache
/// of `cache_bytes` (`None`: the default).
fn compressed_reader(path: &Path, cache_bytes: Option<u64>) -> ClassicReader {
    let stored: Arc<dyn ByteSource> = Arc::new(FileSource::open(path).unwrap());
    let mut source = CompressedSource::open(stored).unwrap();
    if let Some(n) = cache_bytes {
        source = source.with_cache_bytes(n);
    }
    ClassicReader::from_source(Arc::new(source)).unwrap()
}

/// The `cache` section: reads of the field's zstd-1 1 MiB file that touch
/// a block more than once, with the default block cache and with the
/// least one (two blocks), beside the uncompressed file.
fn cache(ds: &Dataset) {
    let cfg = Config {
        codec: CODECS[0],
        block: 1 << 20,
    };
    ensure_outputs(ds, &[cfg]);
    let path = ds.compressed(&cfg);
    let var = VarId(0);
    // Ten time steps row by row, the time innermost: each read needs one
    // of about 40 blocks in turn, each block read ~180 times.
    let rows = |r: &dyn DataSource| -> f64 {
        let mut sum = 0.0;
        for y in (0..NLAT).step_by(4) {
            for t in 0..10 {
                let sel = Selection::block(&[t, y, 0], &[1, 1, NLON]);
                sum += checksum(&r.read(var, &sel).unwrap());
            }
        }
        sum
    };
    let strided = |r: &dyn DataSource| -> f64 {
        let sel = Selection {
            start: vec![0, 0, 0],
            count: vec![10, NLAT.div_ceil(4), NLON / 4],
            stride: vec![1, 4, 4],
        };
        checksum(&r.read(var, &sel).unwrap())
    };
    let points = |r: &dyn DataSource| -> f64 {
        let sel = Selection::block(&[0, 360, 720], &[NT, 1, 1]);
        checksum(&r.read(var, &sel).unwrap())
    };
    type Case<'a> = (&'a str, &'a dyn Fn(&dyn DataSource) -> f64);
    let cases: [Case; 3] = [
        (
            "temp[t,y,:], y in 0:721:4, t in 0:10 innermost: 1810 reads",
            &rows,
        ),
        ("temp[0:10,::4,::4]: one strided read", &strided),
        ("temp[:,360,720]: one read", &points),
    ];
    println!(
        "### Block cache: the field, zstd-1 1 MiB blocks, local (open + read, best of {RUNS})\n"
    );
    println!("| read | classic (uncompressed) | compressed, cache 64 MiB (default) | compressed, cache 2 blocks (the least) | least / default |");
    println!("| --- | --- | --- | --- | --- |");
    for (name, f) in cases {
        let time = |open: &dyn Fn() -> ClassicReader| -> (f64, f64) {
            let mut sum = 0.0;
            let secs = best(|| {
                let t0 = Instant::now();
                sum = f(&open());
                t0.elapsed().as_secs_f64()
            });
            (secs, sum)
        };
        let (tc, sc) = time(&|| {
            ClassicReader::from_source(Arc::new(FileSource::open(&ds.classic).unwrap())).unwrap()
        });
        let (on, s_on) = time(&|| compressed_reader(&path, None));
        let (off, s_off) = time(&|| compressed_reader(&path, Some(0)));
        assert_eq!((sc, sc), (s_on, s_off), "{name}: values differ");
        println!(
            "| {name} | {} | {} | {} | {:.1}x |",
            fmt_secs(tc),
            fmt_secs(on),
            fmt_secs(off),
            off / on
        );
    }
    println!();
}

/// The `threads` section: compression of the field on 1 and 2 threads.
fn threads(ds: &Dataset) {
    println!("### Parallel compression: the field, 1 MiB blocks (best of {RUNS})\n");
    println!("| codec | 1 thread | 2 threads | speed-up |");
    println!("| --- | --- | --- | --- |");
    std::fs::create_dir_all(out_dir()).unwrap();
    for codec in CODECS {
        let cfg = Config {
            codec,
            block: 1 << 20,
        };
        let out = ds.compressed(&cfg);
        let on = |n: usize| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build()
                .unwrap();
            best(|| pool.install(|| write_compressed(&ds.classic, &out, &cfg).wall))
        };
        let (one, two) = (on(1), on(2));
        println!(
            "| {} | {} | {} | {:.2}x |",
            codec.label,
            fmt_secs(one),
            fmt_secs(two),
            one / two
        );
    }
    println!();
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let want = |s: &str| args.is_empty() || args.iter().any(|a| a == s);
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "compressed_classic: {} cores, load average at start {}\n",
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        load.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    );
    let t0 = Instant::now();
    let field = field();
    let model = model();
    if want("field") {
        write_and_read(&field);
    }
    if want("model") {
        write_and_read(&model);
    }
    if want("remote") {
        remote(&[&field, &model]);
    }
    if want("cache") {
        cache(&field);
    }
    if want("threads") {
        threads(&field);
    }
    eprintln!("total {:.0} s", t0.elapsed().as_secs_f64());
}
