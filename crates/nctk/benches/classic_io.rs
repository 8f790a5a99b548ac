//! Classic I/O benchmark: nctk against netCDF-C on a 400 MB CDF-5 file.
//!
//! Generates (once) `temp(time=100, lat=721, lon=1440)` as float32 under
//! `bench-data/` (or `$NCTK_BENCH_DATA`), then measures a full read into a
//! reused buffer, the same read into a fresh vector through the facade's
//! `Variable::read_values` (its ratios to the first and to the
//! fresh-output floor are printed below the table: `read_into` a vector
//! allocated just before, as any reader that returns a new array must
//! fault its pages in; the two take turns, five times each), the time series `temp[:, 360, 720]`, and writing the file;
//! the same with netCDF-C through `benches/peer/classic_peer.c` when
//! `nc-config` and `cc` exist. Prints a markdown table.
//!
//! Run: `cargo bench -p nctk --bench classic_io`

use nctk_bench_support::{
    classic_peer, data_dir, print_speed_head, print_speed_row, write_temp_field, NLAT, NLON,
};
use nctk_classic::{ClassicReader, ClassicWriter, FillMode, Version};
use nctk_model::{DataType, GroupId, Schema, Selection};
use std::path::Path;
use std::time::Instant;

const NT: u64 = 100;
fn schema() -> Schema {
    let mut s = Schema::new();
    let t = s.add_dim(GroupId::ROOT, "time", NT, false).unwrap();
    let y = s.add_dim(GroupId::ROOT, "lat", NLAT, false).unwrap();
    let x = s.add_dim(GroupId::ROOT, "lon", NLON, false).unwrap();
    s.add_var(GroupId::ROOT, "temp", DataType::Float, &[t, y, x])
        .unwrap();
    s
}

struct Results {
    full_read: f64,
    fresh_read: f64,
    fresh_floor: f64,
    time_series: f64,
    write: f64,
    checksum: f64,
}

fn bench_nctk(input: &Path, output: &Path) -> Results {
    let r = nctk_store::bytes::FileSource::open(input)
        .map_err(nctk_classic::ClassicError::from)
        .and_then(|s| ClassicReader::from_source(std::sync::Arc::new(s)))
        .unwrap();
    let var = nctk_model::VarId(0);
    let all = Selection::all(&[NT, NLAT, NLON]);
    let mut buf = vec![0f32; (NT * NLAT * NLON) as usize];
    let mut full_read = f64::MAX;
    for _ in 0..3 {
        let t0 = Instant::now();
        r.read_into(var, &all, &mut buf).unwrap();
        full_read = full_read.min(t0.elapsed().as_secs_f64());
    }
    let checksum: f64 = buf.iter().step_by(9973).map(|&x| x as f64).sum();
    let ds = nctk::open(input).unwrap();
    let temp = ds.variable("temp").unwrap();
    // `read_values` and its fresh-output floor (the same read into a vector
    // allocated, as `read_values` allocates it, huge pages advised, just
    // before) take turns, so both meet the same memory: whichever ran first
    // used to pay the kernel's compaction of huge pages for both.
    let mut fresh_read = f64::MAX;
    let mut fresh_floor = f64::MAX;
    for _ in 0..5 {
        let t0 = Instant::now();
        let values = temp.read_values(&all).unwrap();
        fresh_read = fresh_read.min(t0.elapsed().as_secs_f64());
        let nctk_model::Values::Float(v) = values else {
            panic!("temp is not float")
        };
        assert!(v == buf, "read_values and read_into differ");
        drop(v);
        let t0 = Instant::now();
        let mut fresh: Vec<f32> = nctk_codec::buffer::zeroed(buf.len()).unwrap();
        r.read_into(var, &all, &mut fresh).unwrap();
        fresh_floor = fresh_floor.min(t0.elapsed().as_secs_f64());
        assert!(fresh == buf, "fresh read_into differs");
    }
    let ts_sel = Selection::block(&[0, 360, 720], &[NT, 1, 1]);
    let mut ts = vec![0f32; NT as usize];
    let t0 = Instant::now();
    for _ in 0..50 {
        r.read_into(var, &ts_sel, &mut ts).unwrap();
    }
    let time_series = t0.elapsed().as_secs_f64() / 50.0;
    let t0 = Instant::now();
    let mut w = ClassicWriter::create_in_with_schema(
        std::sync::Arc::new(nctk_store::bytes::FileSink::create(output).unwrap()),
        &schema(),
        Version::Cdf5,
        FillMode::Fill,
    )
    .unwrap();
    w.write_from(var, &all, &buf).unwrap();
    w.close().unwrap();
    let write = t0.elapsed().as_secs_f64();
    Results {
        full_read,
        fresh_read,
        fresh_floor,
        time_series,
        write,
        checksum,
    }
}

fn bench_netcdf_c(input: &Path, output: &Path) -> Option<Results> {
    let times = classic_peer(input, output)?;
    Some(Results {
        full_read: times.get("full_read")?,
        fresh_read: times.get("full_read")?,
        fresh_floor: times.get("full_read")?,
        time_series: times.get("time_series")?,
        write: times.get("write")?,
        checksum: times.get("checksum")?,
    })
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let dir = data_dir();
    std::fs::create_dir_all(&dir).unwrap();
    let input = dir.join("classic_temp_cdf5.nc");
    if !input.exists() {
        write_temp_field(&input, NT);
    }
    let bytes = (NT * NLAT * NLON * 4) as f64;
    let ours_out = dir.join("nctk_write.nc");
    let theirs_out = dir.join("netcdf_c_write.nc");
    let ours = bench_nctk(&input, &ours_out);
    let theirs = bench_netcdf_c(&input, &theirs_out);
    if let Some(t) = &theirs {
        assert!(
            (t.checksum - ours.checksum).abs() < 1e-3 * ours.checksum.abs(),
            "checksums differ"
        );
        let same = std::fs::read(&ours_out).ok() == std::fs::read(&theirs_out).ok();
        eprintln!("written files identical: {same}");
    }
    let _ = std::fs::remove_file(&ours_out);
    let _ = std::fs::remove_file(&theirs_out);
    print_speed_head();
    let row = print_speed_row;
    let gbs = |s: f64| format!("{:.2} GB/s ({:.0} ms)", bytes / s / 1e9, s * 1e3);
    let us = |s: f64| format!("{:.1} us", s * 1e6);
    row(
        "full read `temp` (415 MB)",
        ours.full_read,
        theirs.as_ref().map(|t| t.full_read),
        &gbs,
    );
    row(
        "full read `temp` into a fresh vector (`Variable::read_values`)",
        ours.fresh_read,
        theirs.as_ref().map(|t| t.fresh_read),
        &gbs,
    );
    row(
        "time series `temp[:, 360, 720]`",
        ours.time_series,
        theirs.as_ref().map(|t| t.time_series),
        &us,
    );
    row(
        "write the file (fill mode)",
        ours.write,
        theirs.as_ref().map(|t| t.write),
        &gbs,
    );
    println!(
        "\n`read_values` into a fresh vector / `read_into` a reused buffer: {:.2}x; \
         / the fresh-output floor (`read_into` a vector allocated just before, {:.0} ms): {:.2}x",
        ours.fresh_read / ours.full_read,
        ours.fresh_floor * 1e3,
        ours.fresh_read / ours.fresh_floor
    );
}
