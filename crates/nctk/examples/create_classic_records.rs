//! Creates a classic (CDF-1) file with a record variable, appends records
//! to it later, and reads them back:
//! `cargo run -p nctk --example create_classic_records -- [OUT.nc]`.

use nctk::Format;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let path = match std::env::args().nth(1) {
        Some(p) => p.into(),
        None => dir.path().join("records.nc"),
    };

    // Define mode: dimensions, variables, attributes.
    let mut def = nctk::create(&path, Format::Classic)?;
    let time = def.add_unlimited_dimension("time")?;
    let station = def.add_dimension("station", 3)?;
    def.add_variable::<f64>("time", &[time])?
        .put_attribute("units", "hours since 2026-01-01")?;
    def.add_variable::<f32>("rain", &[time, station])?
        .put_attribute("units", "mm")?
        .put_attribute("_FillValue", -1.0f32)?;
    def.put_attribute("title", "two records, then one more")?;

    // Data mode: writing past the last record adds records.
    let mut ds = def.end_define()?;
    ds.put_values("time", (0..2,), &[0.0, 1.0])?;
    ds.put_values("rain", (0..2, ..), &[0.0f32, 1.5, 0.2, 3.0, 0.0, 0.4])?;
    ds.close()?; // renamed into place only now

    // Append a third record to the file in place.
    let mut ds = nctk::append(&path)?;
    ds.put_values("time", (2..3,), &[2.0])?;
    ds.put_values("rain", (2, ..), &[0.1f32, 0.0, 7.25])?;
    ds.close()?;

    let ds = nctk::open(&path)?;
    let time = ds.dimension("time").expect("time");
    println!(
        "{}: {} ({} records)",
        path.display(),
        ds.format().name(),
        time.len()
    );
    let rain: Vec<f32> = ds.variable("rain").expect("rain").get_values(..)?;
    println!("rain = {rain:?}");
    assert_eq!(rain.len(), 9);
    Ok(())
}
