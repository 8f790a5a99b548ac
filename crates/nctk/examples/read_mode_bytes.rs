//! Reads a file over HTTP by range requests (netCDF-C's `#mode=bytes`):
//! `cargo run -p nctk --example read_mode_bytes -- 'https://host/x.nc#mode=bytes'`.
//! With no argument it serves the repository's `samples/enhanced.nc` from
//! a range server on loopback and reads it from there.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server;
    let url = match std::env::args().nth(1) {
        Some(url) => url,
        None => {
            let sample = concat!(env!("CARGO_MANIFEST_DIR"), "/../../samples/enhanced.nc");
            server = nctk_test_servers::RangeFileServer::start(Default::default())?;
            server.add_blob("enhanced.nc", std::fs::read(sample)?);
            format!("{}#mode=bytes", server.url("enhanced.nc"))
        }
    };
    let ds = nctk::open(&url)?;
    println!("{url}: {}", ds.format().name());
    for v in ds.variables() {
        println!("  {} {:?} {:?}", v.name(), v.dimension_names(), v.shape());
    }
    if let Some(temp) = ds.variable("temp") {
        let values: Vec<f32> = temp.get_values(..)?;
        println!("temp = {values:?}");
    }
    Ok(())
}
