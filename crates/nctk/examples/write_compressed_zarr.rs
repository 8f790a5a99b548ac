//! Writes an NCZarr store with chunked, deflated and shuffled variables
//! (storage set on each variable as it is defined) and reads back what it
//! stored: `cargo run -p nctk --example write_compressed_zarr -- [OUT.zarr]`
//! (a directory, a `.zip`, or a netCDF-C URL such as
//! `file:///abs/out.zarr#mode=zarr,file` for pure Zarr).

use nctk::Format;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let target = match std::env::args().nth(1) {
        Some(p) => p.into(),
        None => dir.path().join("field.zarr"),
    };

    let mut def = nctk::create(&target, Format::Netcdf4)?;
    let y = def.add_dimension("y", 64)?;
    let x = def.add_dimension("x", 128)?;
    def.add_variable::<f32>("field", &[y, x])?
        .set_chunking(&[16, 128])?
        .set_compression(4, true)?
        .put_attribute("units", "m s-1")?;
    def.add_variable::<i16>("mask", &[y, x])?
        .set_chunking(&[64, 64])?
        .set_codecs(r#"[{"id": "zstd", "level": 3}]"#)?;
    let mut ds = def.end_define()?;
    let field: Vec<f32> = (0..64 * 128).map(|i| (i as f32 * 0.01).sin()).collect();
    ds.put_values("field", .., &field)?;
    let mask: Vec<i16> = (0..64 * 128).map(|i| (i % 3 == 0) as i16).collect();
    ds.put_values("mask", .., &mask)?;
    ds.close()?;

    let ds = nctk::open(&target)?;
    for v in ds.variables() {
        let storage = &ds.schema().var(v.id()).storage;
        println!(
            "{}: chunks {:?}, deflate {:?}, shuffle {}, codecs {}",
            v.name(),
            storage.layout,
            storage.deflate_level,
            storage.shuffle,
            storage.codecs.as_deref().unwrap_or("-")
        );
    }
    let back: Vec<f32> = ds.variable("field").expect("field").get_values(..)?;
    assert_eq!(back, field);
    Ok(())
}
