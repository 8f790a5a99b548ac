//! `nctk serve`: a cdmremote server, the protocol netCDF-Java's THREDDS
//! servers speak, over every dataset nctk opens (classic files, netCDF-4
//! files, NCZarr / Zarr stores and zips under a directory, and datasets
//! configured by name, such as store URLs).
//!
//! URLs are laid out as on THREDDS: `http://HOST:PORT/cdmremote/PATH?req=...`
//! where `PATH` is a dataset under the served directory ([`mod@catalog`]).
//! The requests ([`query`]): `capabilities` (XML), `header` (one ncstream
//! header message), `data&var=...` (data messages, streamed slab by slab:
//! [`data`]), `CDL` ([`cdl`], netCDF-Java's style) and `NcML` ([`ncml`]);
//! `deflate=N` compresses data messages, slabs on all cores.
//!
//! Errors are answered as THREDDS answers them: a path naming nothing
//! served (or outside the directory) is 404 `FileNotFound`; a malformed
//! query, an unknown variable or a section that does not fit is 400 with
//! the Java exception's name and the reason (THREDDS 5 answers a section
//! out of range with 500 from its catch-all handler; nctk answers 400, as
//! THREDDS 4's data handler did); an error once data is flowing ends the
//! body with an ncstream error message. The header, CDL and NcML show the
//! dataset as netCDF-Java does ([`java::served_schema`]): `_ChunkSizes` on
//! chunked variables, no compound, vlen or opaque attributes.

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;

pub mod body;
pub mod cache;
pub mod catalog;
pub mod cdl;
pub mod data;
pub mod error;
pub mod http;
pub mod java;
pub mod ncml;
pub mod query;
pub mod slabs;

pub use catalog::Catalog;
pub use error::{RequestError, ServeError};

/// Threads of the blocking pool (opening datasets, producing data
/// answers): a bound on how many answers are produced at once.
const BLOCKING_THREADS: usize = 64;

/// A server bound to its address, not yet answering.
pub struct Server {
    listener: std::net::TcpListener,
    state: Arc<http::State>,
}

impl Server {
    /// Binds `addr` (port 0: a free port) to serve `catalog`.
    pub fn bind(addr: &str, catalog: Catalog) -> Result<Server, ServeError> {
        let listener = std::net::TcpListener::bind(addr).map_err(|source| ServeError::Bind {
            addr: addr.to_string(),
            source,
        })?;
        listener.set_nonblocking(true)?;
        Ok(Server {
            listener,
            state: Arc::new(http::State {
                catalog,
                cache: cache::DatasetCache::default(),
            }),
        })
    }

    /// The address the server listens on.
    pub fn local_addr(&self) -> Result<SocketAddr, ServeError> {
        Ok(self.listener.local_addr()?)
    }

    /// Answers requests until the process ends, on a multi-threaded tokio
    /// runtime of its own.
    pub fn run(self) -> Result<(), ServeError> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .max_blocking_threads(BLOCKING_THREADS)
            .build()?;
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(self.listener)?;
            http::accept_loop(listener, self.state).await
        })?;
        Ok(())
    }
}

/// A catalog of `root` and the `NAME=TARGET` datasets of `--dataset`.
pub fn catalog(root: &Path, named: &[String]) -> Result<Catalog, ServeError> {
    let mut catalog = Catalog::new(root)?;
    for option in named {
        let (name, target) = option
            .split_once('=')
            .filter(|(n, t)| !n.is_empty() && !t.is_empty())
            .ok_or_else(|| ServeError::DatasetOption(option.clone()))?;
        catalog = catalog.with_named(name, target);
    }
    Ok(catalog)
}
