//! Which object store service a URL names, by the rules of `object_store`
//! 0.14's `ObjectStoreScheme::parse`, without `object_store` (so builds
//! without the `connect` feature can tell a cloud URL from others).
//!
//! `gs://` is GCS; `az://`, `adl://`, `azure://`, `abfs://` and `abfss://`
//! are Azure; `http://` is a plain HTTP(S) server, and so is `https://`
//! unless its host ends with `dfs.core.windows.net`,
//! `blob.core.windows.net`, `dfs.fabric.microsoft.com` or
//! `blob.fabric.microsoft.com` (Azure, the first path segment being the
//! container) or with `amazonaws.com` or `r2.cloudflarestorage.com` (S3).
//! Each needs a host, and a path `object_store` takes as an object path
//! (percent-decoded to UTF-8; no empty, `.` or `..` segment and no control
//! character). The URL is read as `object_store`'s URL parser reads it
//! ([`url_parts`]).

mod url_parts;

/// An object store service other than S3, as `object_store` names it
/// from a URL (`object_store::ObjectStoreScheme`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CloudService {
    /// Google Cloud Storage: `gs://bucket/key`.
    Gcs,
    /// Azure Blob Storage / Data Lake: `az://container/key`,
    /// `abfs[s]://container@account.dfs.core.windows.net/key`, `azure://`,
    /// `adl://`, `https://account.blob.core.windows.net/container/key`.
    Azure,
    /// A plain HTTP(S) server (read-only): `https://host/path`.
    Http,
}

/// Why a store on a plain HTTP(S) server cannot be written.
pub const HTTP_READ_ONLY: &str =
    "a plain HTTP(S) server is read-only; write to s3://, gs:// or az:// storage";

/// What is done with a store: a plain HTTP(S) server can only be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Reads only.
    Read,
    /// Reads and writes.
    Write,
}

/// The service `url` names as `object_store` reads it (S3 and local URLs,
/// which nctk reads by netCDF-C's rules, and unknown schemes give `None`).
pub fn cloud_service(url: &str) -> Option<CloudService> {
    let parts = url_parts::parse(url)?;
    let azure_host = [
        "dfs.core.windows.net",
        "blob.core.windows.net",
        "dfs.fabric.microsoft.com",
        "blob.fabric.microsoft.com",
    ];
    let s3_host = ["amazonaws.com", "r2.cloudflarestorage.com"];
    let (service, path) = match parts.scheme.as_str() {
        "gs" => (CloudService::Gcs, parts.path.as_str()),
        "az" | "adl" | "azure" | "abfs" | "abfss" => (CloudService::Azure, parts.path.as_str()),
        "http" => (CloudService::Http, parts.path.as_str()),
        "https" if azure_host.iter().any(|h| parts.host.ends_with(h)) => {
            (CloudService::Azure, after_container(&parts.path))
        }
        "https" if s3_host.iter().any(|h| parts.host.ends_with(h)) => return None,
        "https" => (CloudService::Http, parts.path.as_str()),
        _ => return None,
    };
    is_object_path(path).then_some(service)
}

/// The path after its first segment (the container), empty when there is
/// no second.
fn after_container(path: &str) -> &str {
    path.strip_prefix('/')
        .and_then(|p| p.split_once('/'))
        .map_or("", |(_, rest)| rest)
}

/// Whether `object_store` takes the URL path `path` as an object path
/// (`object_store::path::Path::from_url_path`).
fn is_object_path(path: &str) -> bool {
    let Ok(path) = String::from_utf8(url_parts::percent_decode(path)) else {
        return false;
    };
    let path = path.strip_prefix('/').unwrap_or(&path);
    if path.is_empty() {
        return true;
    }
    let path = path.strip_suffix('/').unwrap_or(path);
    path.split('/').all(|segment| {
        !segment.is_empty()
            && segment != "."
            && segment != ".."
            && !segment.chars().any(|c| c.is_ascii_control())
    })
}

#[cfg(all(test, feature = "connect"))]
mod tests;
