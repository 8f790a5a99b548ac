//! Zarr / NCZarr stores on a plain HTTP(S) server (read-only, as
//! `object_store` names them): `nctk-test-servers`' range server serving
//! corpus store directories. A consolidated store dumps exactly as the
//! same store on disk (whose dump is checked against ncdump and
//! zarr-python in the corpus tests); one that needs a listing is a clear
//! error; writing to such a URL is refused.

use nctk_cdl::print::{dump, Options};
use nctk_test_servers::{Behaviour, RangeFileServer};
use nctk_test_support::require;

fn dump_of(target: &str, name: &str) -> String {
    let ds = nctk::open(target).unwrap_or_else(|e| panic!("{target}: {e}"));
    let mut out = vec![];
    dump(ds.source(), name, &Options::default(), &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

#[test]
fn stores_on_a_plain_http_server_dump_as_on_disk() {
    let Some(corpus) = require::corpus() else {
        return;
    };
    let root = corpus.join("generated/other-writers");
    let server = RangeFileServer::start_dir(&root, Behaviour::Honest).unwrap();
    // xarray's consolidated store: read with no listing.
    let store = "xarray-zarr2/sample_nocomp.zarr";
    let local = format!(
        "file://{}#mode=zarr,consolidated",
        root.join(store).display()
    );
    let remote = format!("{}#mode=zarr,consolidated", server.url(store));
    assert_eq!(dump_of(&remote, "s"), dump_of(&local, "s"), "{remote}");
    assert!(server.stats().requests() > 0);
    // A store without consolidated metadata must be listed, which a plain
    // HTTP server cannot do (object_store lists by WebDAV PROPFIND): a
    // clear error naming the URL, not an empty dataset.
    let remote = format!("{}#mode=zarr", server.url("zarr-python-v2/codecs.zarr"));
    let err = match nctk::open(&remote) {
        Ok(_) => panic!("{remote}: opened without a listing"),
        Err(e) => e.to_string(),
    };
    assert!(
        err.contains(&server.url("zarr-python-v2/codecs.zarr")),
        "{err}"
    );
    assert!(err.contains("list"), "{err}");
}

#[test]
fn writing_to_a_plain_http_server_is_refused() {
    let Some(corpus) = require::corpus() else {
        return;
    };
    let server = RangeFileServer::start_dir(&corpus, Behaviour::Honest).unwrap();
    let url = format!("{}#mode=zarr", server.url("new.zarr"));
    let err = nctk::create(&url, nctk::Format::Netcdf4)
        .err()
        .unwrap_or_else(|| panic!("{url}: created"))
        .to_string();
    assert!(err.contains("read-only"), "{err}");
    assert!(err.contains(&server.endpoint()), "{err}");
}
