//! Reads a slab of a variable: `cargo run -p nctk --example read_slab -- FILE VAR`
//! (any path or URL `nctk::open` takes). With no arguments it writes a
//! small classic file first and reads a time series and a map out of it.

use nctk::Format;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let dir = tempfile::tempdir()?;
    let (path, var) = match args.as_slice() {
        [path, var] => (path.into(), var.clone()),
        [] => (sample(dir.path())?, "temp".to_string()),
        _ => return Err("usage: read_slab [FILE VAR]".into()),
    };
    let ds = nctk::open(&path)?;
    let v = ds
        .variable(&var)
        .ok_or_else(|| format!("{}: no variable {var}", path.display()))?;
    println!(
        "{var}{:?}: {} of shape {:?}",
        v.dimension_names(),
        v.dtype(),
        v.shape()
    );
    let shape = v.shape();
    if shape.len() == 3 {
        // One grid point through time, then the first time step's map.
        let series: Vec<f64> = v.get_values((.., 1, 2))?;
        println!("point (1, 2) through time: {series:?}");
        let map: Vec<f64> = v.get_values((0, .., ..))?;
        println!("first map: {map:?}");
    } else {
        let all: Vec<f64> = v.get_values(..)?;
        println!("values: {all:?}");
    }
    Ok(())
}

/// A classic file with `temp(time, lat, lon)`.
fn sample(dir: &std::path::Path) -> Result<std::path::PathBuf, nctk::Error> {
    let path = dir.join("slab.nc");
    let mut def = nctk::create(&path, Format::Classic)?;
    let time = def.add_unlimited_dimension("time")?;
    let lat = def.add_dimension("lat", 3)?;
    let lon = def.add_dimension("lon", 4)?;
    def.add_variable::<f32>("temp", &[time, lat, lon])?
        .put_attribute("units", "K")?;
    let mut ds = def.end_define()?;
    let values: Vec<f32> = (0..2 * 3 * 4).map(|i| 270.0 + i as f32).collect();
    ds.put_values("temp", (0..2, .., ..), &values)?;
    ds.close()?;
    Ok(path)
}
