//! Paths and URLs as netCDF-C reads them (`libdispatch/dinfermodel.c`).
//!
//! * `file:///abs/x.zarr#mode=nczarr,file`, `...#mode=zarr,zip`: a local store;
//! * `s3://bucket/key#mode=nczarr`, `https://bucket.s3.<region>.amazonaws.com/key#mode=zarr`,
//!   `https://s3.<region>.amazonaws.com/bucket/key#mode=zarr`,
//!   `https://s3.amazonaws.com/bucket/key#mode=zarr`, other hosts with the
//!   `s3` mode (`http://127.0.0.1:9000/bucket/key#mode=nczarr,s3`, path
//!   style), `gs3://bucket/key` and `https://storage.googleapis.com/...`
//!   (GCS's S3 API): an S3 store ([`S3Location`], whose
//!   [`S3Location::target`] is what `nctk_store_object::aws::resolve` reads);
//! * `gs://bucket/key`, `az://container/key`,
//!   `abfs[s]://container@account.dfs.core.windows.net/key`,
//!   `https://account.blob.core.windows.net/container/key` and any other
//!   `http(s)://host/path` without the `s3` mode, with a Zarr mode: a
//!   store as `object_store` names it ([`CloudLocation`]; plain HTTP(S) is
//!   read-only);
//! * `http(s)://...#mode=bytes` (and `s3://` or the AWS forms): one
//!   object read by byte ranges;
//! * `cdmremote:http://host/path`, `cdmremote:https://...`: a dataset on a
//!   cdmremote server (netCDF-Java's prefix; THREDDS serves them under
//!   `/thredds/cdmremote/`), read by HTTP requests (`door::cdmremote`);
//! * anything else without a scheme: a local path whose kind (classic file,
//!   directory store, zip store) the door decides by looking (`door::open_target`).
//!
//! The fragment is `key=value&key&...`. As in netCDF-C, a bare key is a
//! macro (`#zarr` = `#mode=nczarr,zarr`, `#xarray` = `#mode=zarr`, ...),
//! repeated keys merge, and mode flags imply others: `zarr` => `nczarr`,
//! `xarray` => `zarr`, `noxarray` => `zarr` and `nczarr`; `noxarray`
//! cancels `xarray`. Unlike netCDF-C, a mode flag nctk does not know is an
//! error rather than silently ignored.

use std::path::PathBuf;

use nctk_store_object::aws::{is_s3_host, parse_address, S3Target};
use nctk_store_object::connect::{cloud_service, CloudService};

pub use nctk_store_object::aws::S3Style;

/// A path or URL that cannot be parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{url}: {reason}")]
pub struct UrlError {
    /// The URL as given.
    pub url: String,
    /// What is wrong.
    pub reason: String,
}

/// A URL that does not parse is the caller's mistake.
impl nctk_model::HasErrorKind for UrlError {
    fn kind(&self) -> nctk_model::ErrorKind {
        nctk_model::ErrorKind::InvalidInput
    }
}

/// What a path or URL names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A local path with no URL around it: a classic file, a directory
    /// store or a zip store, decided by looking.
    Path(PathBuf),
    /// A single-file dataset named by a `file://` URL without Zarr modes.
    File(PathBuf),
    /// A Zarr / NCZarr store.
    Zarr(ZarrTarget),
    /// A single-file dataset read by HTTP byte ranges (`#mode=bytes`).
    Bytes(String),
    /// A dataset on a cdmremote server (`cdmremote:http://host/path`): the
    /// endpoint's `http(s)` URL, without the prefix, query or fragment.
    CdmRemote(String),
}

/// A Zarr store and how to read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ZarrTarget {
    /// The URL as given.
    pub url: String,
    /// Where the store lives.
    pub location: StoreLocation,
    /// `mode=zarr`: pure Zarr, ignore NCZarr metadata.
    pub pure_zarr: bool,
    /// Use xarray's `_ARRAY_DIMENSIONS` (true unless `noxarray`).
    pub xarray: bool,
    /// `mode=consolidated`: read the consolidated `.zmetadata`.
    pub consolidated: bool,
    /// Every mode flag after macro expansion and inference, in order.
    pub modes: Vec<String>,
}

/// Where a store lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoreLocation {
    /// A local directory tree (`mode=file`).
    Directory(PathBuf),
    /// A local zip file (`mode=zip`).
    Zip(PathBuf),
    /// An S3 (or S3-compatible) bucket and key.
    S3(S3Location),
    /// A GCS, Azure or plain HTTP(S) store, as `object_store` names it.
    Cloud(CloudLocation),
}

/// A store on GCS, Azure or a plain HTTP(S) server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CloudLocation {
    /// The URL without its fragment (what `nctk_store_object::connect::cloud` opens).
    pub url: String,
    /// The service.
    pub service: CloudService,
}

impl CloudLocation {
    /// Whether the store can only be read (a plain HTTP(S) server).
    pub fn read_only(&self) -> bool {
        self.service == CloudService::Http
    }
}

/// An S3 location.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct S3Location {
    /// The addressing style of the URL.
    pub style: S3Style,
    /// The host as written (`None` for `s3://`).
    pub host: Option<String>,
    /// The endpoint requests go to: `None` for AWS, `scheme://host[:port]`
    /// for another host, `https://storage.googleapis.com` for `gs3://`.
    pub endpoint: Option<String>,
    /// The bucket.
    pub bucket: String,
    /// The key of the dataset's root within the bucket (may be empty).
    pub key: String,
    /// The region: `aws.region` in the fragment, else from the host.
    pub region: Option<String>,
    /// The AWS profile: `aws.profile` in the fragment.
    pub profile: Option<String>,
}

impl ZarrTarget {
    /// The reader options the mode flags ask for.
    pub fn options(&self) -> nctk_zarr::ZarrOptions {
        nctk_zarr::ZarrOptions {
            pure_zarr: self.pure_zarr,
            xarray: self.xarray,
            consolidated: self.consolidated,
        }
    }
}

impl S3Location {
    /// The region the URL alone names, else netCDF-C's default `us-east-1`
    /// (the region used is `nctk_store_object::aws::resolve(&self.target())`'s,
    /// which also reads the profile, the rc files and the environment).
    #[cfg(test)]
    pub fn effective_region(&self) -> &str {
        self.region.as_deref().unwrap_or("us-east-1")
    }

    /// What the AWS rules (`nctk_store_object::aws::resolve`) need to know
    /// of this location.
    #[cfg_attr(not(feature = "cloud"), allow(dead_code))] // read by the cloud arm
    pub fn target(&self) -> S3Target {
        S3Target {
            endpoint: self.endpoint.clone(),
            bucket: self.bucket.clone(),
            key: self.key.clone(),
            virtual_hosted: self.style == S3Style::Virtual,
            region: self.region.clone(),
            profile: self.profile.clone(),
        }
    }
}

/// A parsed path or URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DatasetUrl {
    /// The text as given.
    pub original: String,
    /// What it names.
    pub target: Target,
    /// The fragment's key/value pairs after macro expansion, merging and
    /// mode inference (`mode` holds the comma-joined flags).
    pub fragment: Vec<(String, String)>,
}

const KNOWN_MODES: &[&str] = &[
    "nczarr",
    "zarr",
    "xarray",
    "noxarray",
    "file",
    "zip",
    "s3",
    "gs3",
    "bytes",
    "consolidated",
    "v2",
    "v3",
    // nctk's own: write netCDF-C 4.9.0's NCZarr layout (see docs/zarr.md).
    "nczarr490",
];

fn url_err(url: &str, reason: impl Into<String>) -> UrlError {
    UrlError {
        url: url.to_string(),
        reason: reason.into(),
    }
}

fn percent_decode(url: &str, s: &str) -> Result<String, UrlError> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = s
                .get(i + 1..i + 3)
                .and_then(|h| u8::from_str_radix(h, 16).ok());
            let Some(v) = hex else {
                return Err(url_err(url, "bad percent escape"));
            };
            out.push(v);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| url_err(url, "percent escapes do not decode to UTF-8"))
}

/// netCDF-Java's prefix of a cdmremote URL.
const CDMREMOTE: &str = "cdmremote:";

/// Parses a path or URL as netCDF-C does (no I/O); `cdmremote:` URLs as
/// netCDF-Java does.
pub fn parse(s: &str) -> Result<DatasetUrl, UrlError> {
    if let Some(endpoint) = strip_prefix_ignore_case(s, CDMREMOTE) {
        return Ok(DatasetUrl {
            original: s.to_string(),
            target: Target::CdmRemote(cdmremote_endpoint(s, endpoint)?),
            fragment: vec![],
        });
    }
    let Some((scheme, rest)) = split_scheme(s) else {
        // Not a URL: a plain path. A trailing fragment is not special.
        return Ok(DatasetUrl {
            original: s.to_string(),
            target: Target::Path(PathBuf::from(s)),
            fragment: vec![],
        });
    };
    let scheme = scheme.to_ascii_lowercase();
    let (before_frag, frag) = match rest.split_once('#') {
        Some((a, f)) => (a, Some(f)),
        None => (rest, None),
    };
    let before_query = before_frag.split_once('?').map_or(before_frag, |(a, _)| a);

    let mut pairs = scheme_pairs(s, &scheme)?;
    if let Some(f) = frag {
        pairs.extend(fragment_pairs(s, f)?);
    }
    let (fragment, modes) = resolve_modes(s, pairs)?;
    if !modes.iter().any(|m| m == "nczarr" || m == "zarr") {
        let target = single_file_target(s, &scheme, before_query, &modes)?;
        return Ok(DatasetUrl {
            original: s.to_string(),
            target,
            fragment,
        });
    }
    let location = store_location(s, &scheme, before_query, &modes, &fragment)?;
    Ok(store_url(s, location, modes, fragment))
}

/// Fragment key/value pairs, in order.
type Pairs = Vec<(String, String)>;

/// The fragment pairs a URL scheme implies (`s3://` is `mode=s3`), or why
/// the scheme is refused.
fn scheme_pairs(s: &str, scheme: &str) -> Result<Pairs, UrlError> {
    let mut pairs: Pairs = vec![];
    match scheme {
        "file" | "http" | "https" => {}
        "gs" | "az" | "azure" | "abfs" | "abfss" | "adl" => {}
        "s3" => pairs.push(("mode".into(), "s3".into())),
        "gs3" => pairs.push(("mode".into(), "gs3".into())),
        "dods" | "dap4" => return Err(url_err(s, "DAP servers are not supported")),
        other => return Err(url_err(s, format!("unknown URL scheme {other:?}"))),
    }
    Ok(pairs)
}

/// The `key=value&key&...` items of the fragment `f`, percent-decoded, in
/// order; a bare key has an empty value.
fn fragment_pairs(s: &str, f: &str) -> Result<Pairs, UrlError> {
    let mut pairs: Pairs = vec![];
    for item in f.split('&').filter(|x| !x.is_empty()) {
        let (k, v) = match item.split_once('=') {
            Some((k, v)) => (k, v),
            None => (item, ""),
        };
        if k.is_empty() {
            return Err(url_err(s, format!("fragment item {item:?} has no key")));
        }
        let (k, v) = (percent_decode(s, k)?, percent_decode(s, v)?);
        if k.eq_ignore_ascii_case("mode") && v.contains('=') {
            // `mode=nczarr,awsprofile=unidata` (the seed's example): a
            // `key=value` item in the mode list is a fragment pair.
            let (pairs_in_mode, flags): (Vec<&str>, Vec<&str>) =
                v.split(',').partition(|m| m.contains('='));
            for kv in pairs_in_mode {
                let (k2, v2) = kv.split_once('=').unwrap_or((kv, ""));
                pairs.push((k2.to_string(), v2.to_string()));
            }
            pairs.push((k, flags.join(",")));
        } else {
            pairs.push((k, v));
        }
    }
    Ok(pairs)
}

/// The fragment after macro expansion and merging, its `mode` rewritten
/// to the inferred flags; and those flags, each one nctk knows.
fn resolve_modes(s: &str, pairs: Pairs) -> Result<(Pairs, Vec<String>), UrlError> {
    let pairs = expand_macros(s, pairs)?;
    let mut fragment = merge(pairs);
    let modes = infer_modes(
        fragment
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case("mode"))
            .map(|(_, v)| v.as_str())
            .unwrap_or(""),
    );
    for m in &modes {
        match m.as_str() {
            "dap2" | "dap4" => return Err(url_err(s, "DAP servers are not supported")),
            m if KNOWN_MODES.contains(&m) => {}
            other => return Err(url_err(s, format!("unknown mode {other:?}"))),
        }
    }
    if !modes.is_empty() {
        let joined = modes.join(",");
        match fragment
            .iter_mut()
            .find(|(k, _)| k.eq_ignore_ascii_case("mode"))
        {
            Some(slot) => slot.1 = joined,
            None => fragment.push(("mode".into(), joined)),
        }
    }
    Ok((fragment, modes))
}

/// What a URL without a Zarr mode names: a `file://` URL a local file,
/// `#mode=bytes` one object read by byte ranges; any other is refused.
fn single_file_target(
    s: &str,
    scheme: &str,
    before_query: &str,
    modes: &[String],
) -> Result<Target, UrlError> {
    let bytes = modes.iter().any(|m| m == "bytes");
    Ok(match scheme {
        "file" if !bytes => Target::File(PathBuf::from(file_path(s, before_query)?)),
        _ if bytes => {
            refuse_dot_dot(s, before_query)?;
            Target::Bytes(s.split('#').next().unwrap_or(s).to_string())
        }
        _ => {
            return Err(url_err(
                s,
                "a remote URL needs #mode=nczarr, #mode=zarr or #mode=bytes",
            ))
        }
    })
}

/// Where the store a URL with a Zarr mode names lives: on a cloud service
/// `object_store` names, on the local disk, or in S3.
fn store_location(
    s: &str,
    scheme: &str,
    before_query: &str,
    modes: &[String],
    fragment: &[(String, String)],
) -> Result<StoreLocation, UrlError> {
    // The storage: the last of file, zip, s3 named wins, as in netCDF-C
    // (`applycontrols`, which ignores gs3 there).
    let storage = modes
        .iter()
        .rev()
        .map(String::as_str)
        .find(|m| matches!(*m, "file" | "zip" | "s3"));
    // netCDF-C's NC_iss3: the s3 or gs3 scheme or mode, or an AWS or
    // Google host; any other remote URL is a store as object_store names it.
    let s3 = matches!(scheme, "s3" | "gs3")
        || modes.iter().any(|m| m == "gs3")
        || is_s3_host(before_query.split('/').next().unwrap_or(""));
    if storage.is_none() && scheme != "file" && !s3 {
        return cloud_store(s, before_query);
    }
    if is_local_storage(s, scheme, storage)? {
        local_store(s, scheme, before_query, storage)
    } else {
        s3_store(s, scheme, before_query, fragment)
    }
}

/// A store on GCS, Azure or an HTTP(S) server, as `object_store` names it.
fn cloud_store(s: &str, before_query: &str) -> Result<StoreLocation, UrlError> {
    let url = s.split('#').next().unwrap_or(s);
    let Some(service) = cloud_service(url) else {
        return Err(url_err(
            s,
            "not a GCS, Azure or HTTP(S) store URL; add mode s3 for an S3-compatible server",
        ));
    };
    refuse_dot_dot(s, before_query)?;
    Ok(StoreLocation::Cloud(CloudLocation {
        url: url.to_string(),
        service,
    }))
}

/// Whether the `storage` mode (file, zip or s3, if any) names local
/// storage; S3 storage cannot be reached through a `file://` URL (netCDF-C
/// 4.9.0: "Malformed URL") nor any scheme but http(s), s3 and gs3.
fn is_local_storage(s: &str, scheme: &str, storage: Option<&str>) -> Result<bool, UrlError> {
    Ok(match storage {
        Some("s3") if scheme == "file" => {
            return Err(url_err(
                s,
                "mode s3 names S3 storage, which a file:// URL cannot reach; \
                 use an s3:// or https:// URL, or mode file or zip for a local store",
            ))
        }
        Some("s3") if !matches!(scheme, "http" | "https" | "s3" | "gs3") => {
            return Err(url_err(
                s,
                format!("mode s3 names S3 storage, which a {scheme}:// URL cannot reach"),
            ))
        }
        Some("s3") => false,
        Some(_) => true,
        None => scheme == "file",
    })
}

/// A local store named by a `file://` URL: a zip file when the mode says
/// `zip` (or, with neither `file` nor `zip`, the name ends in `.zip`),
/// else a directory.
fn local_store(
    s: &str,
    scheme: &str,
    before_query: &str,
    storage: Option<&str>,
) -> Result<StoreLocation, UrlError> {
    if scheme != "file" {
        return Err(url_err(s, "file and zip storage need a file:// URL"));
    }
    let path = PathBuf::from(file_path(s, before_query)?);
    Ok(if storage == Some("zip") {
        StoreLocation::Zip(path)
    } else if storage == Some("file") {
        StoreLocation::Directory(path)
    } else if path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("zip"))
    {
        StoreLocation::Zip(path)
    } else {
        StoreLocation::Directory(path)
    })
}

/// An S3 store, its region and profile taken from the fragment
/// (`aws.region`, `aws.profile` or netCDF-C's older `awsregion`,
/// `awsprofile`) when it names them.
fn s3_store(
    s: &str,
    scheme: &str,
    before_query: &str,
    fragment: &[(String, String)],
) -> Result<StoreLocation, UrlError> {
    let get = |k: &str| {
        fragment
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(k))
            .map(|(_, v)| v.clone())
            .filter(|v| !v.is_empty())
    };
    let mut loc = s3_location(s, scheme, before_query)?;
    if let Some(r) = get("aws.region").or_else(|| get("awsregion")) {
        loc.region = Some(r);
    }
    loc.profile = get("aws.profile").or_else(|| get("awsprofile"));
    Ok(StoreLocation::S3(loc))
}

/// The parsed URL `s` of a store at `location`, read as its `modes` say.
fn store_url(
    s: &str,
    location: StoreLocation,
    modes: Vec<String>,
    fragment: Vec<(String, String)>,
) -> DatasetUrl {
    let has = |m: &str| modes.iter().any(|x| x == m);
    DatasetUrl {
        original: s.to_string(),
        target: Target::Zarr(ZarrTarget {
            url: s.to_string(),
            location,
            pure_zarr: has("zarr"),
            xarray: !has("noxarray"),
            consolidated: has("consolidated"),
            modes,
        }),
        fragment,
    }
}

/// `s` without `prefix`, when it starts with it in any case.
fn strip_prefix_ignore_case<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    let head = s.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &s[prefix.len()..])
}

/// The endpoint of `cdmremote:URL` (`url` is what follows the prefix): an
/// `http` or `https` URL with a host and a path; a query or fragment
/// (the client adds its own `req=` query) is dropped.
fn cdmremote_endpoint(s: &str, url: &str) -> Result<String, UrlError> {
    let Some((scheme, rest)) = split_scheme(url) else {
        return Err(url_err(s, "cdmremote: needs an http:// or https:// URL"));
    };
    if !matches!(scheme.to_ascii_lowercase().as_str(), "http" | "https") {
        return Err(url_err(
            s,
            format!("cdmremote: reads http and https URLs, not {scheme:?}"),
        ));
    }
    let rest = rest.split(['?', '#']).next().unwrap_or("");
    let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
    if host.is_empty() || path.is_empty() {
        return Err(url_err(
            s,
            "cdmremote: needs the host and path of a dataset",
        ));
    }
    Ok(format!("{}://{rest}", scheme.to_ascii_lowercase()))
}

/// `scheme://rest`, when `s` starts with a URL scheme.
fn split_scheme(s: &str) -> Option<(&str, &str)> {
    let (scheme, rest) = s.split_once("://")?;
    let mut chars = scheme.chars();
    let ok = chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    ok.then_some((scheme, rest))
}

/// The local path of a `file://` URL: `file:///abs/x` is `/abs/x`;
/// `file://rel/x` (which netCDF-C also accepts) is the relative `rel/x`;
/// `file://localhost/abs` is `/abs`.
fn file_path(url: &str, rest: &str) -> Result<String, UrlError> {
    let p = rest
        .strip_prefix("localhost/")
        .map(|r| format!("/{r}"))
        .unwrap_or_else(|| rest.to_string());
    if p.is_empty() {
        return Err(url_err(url, "a file:// URL needs a path"));
    }
    percent_decode(url, &p)
}

/// netCDF-C's macros: a fragment key without a value stands for a mode list.
fn expand_macros(
    url: &str,
    pairs: Vec<(String, String)>,
) -> Result<Vec<(String, String)>, UrlError> {
    let mut out = vec![];
    for (k, v) in pairs {
        if v.is_empty() {
            let modes: Option<&str> = match k.as_str() {
                "zarr" => Some("nczarr,zarr"),
                "s3" => Some("s3,nczarr"),
                "gs3" => Some("gs3,nczarr"),
                "bytes" => Some("bytes"),
                "xarray" => Some("zarr"),
                "noxarray" => Some("nczarr,noxarray"),
                "nczarr" => Some("nczarr"),
                "dap2" | "dap4" => return Err(url_err(url, "DAP servers are not supported")),
                _ => None,
            };
            if let Some(m) = modes {
                out.push(("mode".to_string(), m.to_string()));
                continue;
            }
        }
        out.push((k, v));
    }
    Ok(out)
}

/// Merges repeated keys (case-insensitively), splitting values on commas
/// and dropping duplicates, keeping first-seen order.
fn merge(pairs: Vec<(String, String)>) -> Vec<(String, String)> {
    let mut out: Vec<(String, Vec<String>)> = vec![];
    for (k, v) in pairs {
        let slot = match out
            .iter_mut()
            .position(|(key, _)| key.eq_ignore_ascii_case(&k))
        {
            Some(i) => &mut out[i].1,
            None => {
                out.push((k, vec![]));
                &mut out.last_mut().expect("just pushed").1
            }
        };
        for part in v.split(',').filter(|p| !p.is_empty()) {
            if !slot.iter().any(|x| x.eq_ignore_ascii_case(part)) {
                slot.push(part.to_string());
            }
        }
    }
    out.into_iter().map(|(k, v)| (k, v.join(","))).collect()
}

/// Applies netCDF-C's mode inferences and negations to a comma list.
pub fn infer_modes(mode: &str) -> Vec<String> {
    let mut modes: Vec<String> = vec![];
    for m in mode.split(',').filter(|m| !m.is_empty()) {
        let m = m.to_ascii_lowercase();
        if !modes.contains(&m) {
            modes.push(m);
        }
    }
    let mut i = 0;
    while i < modes.len() {
        let implied: &[&str] = match modes[i].as_str() {
            "zarr" => &["nczarr"],
            "xarray" => &["zarr"],
            "noxarray" => &["nczarr", "zarr"],
            _ => &[],
        };
        for m in implied {
            if !modes.iter().any(|x| x == m) {
                modes.push(m.to_string());
            }
        }
        i += 1;
    }
    let negate = |modes: &mut Vec<String>, key: &str, what: &[&str]| {
        if modes.iter().any(|m| m == key) {
            modes.retain(|m| !what.contains(&m.as_str()));
        }
    };
    negate(&mut modes, "bytes", &["nczarr", "zarr"]);
    negate(&mut modes, "noxarray", &["xarray"]);
    modes
}

fn s3_location(url: &str, scheme: &str, rest: &str) -> Result<S3Location, UrlError> {
    let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
    let path = percent_decode(url, path)?;
    let a = parse_address(scheme, authority, &path).map_err(|reason| url_err(url, reason))?;
    refuse_dot_dot(url, &a.key)?;
    Ok(S3Location {
        endpoint: a.endpoint(scheme),
        style: a.style,
        host: a.host,
        bucket: a.bucket,
        key: a.key,
        region: a.region,
        profile: None,
    })
}

/// A key or path with a `..` segment (after percent decoding) names
/// something outside the dataset: refused.
fn refuse_dot_dot(url: &str, path: &str) -> Result<(), UrlError> {
    let decoded = percent_decode(url, path)?;
    if decoded.split('/').any(|seg| seg == "..") {
        return Err(url_err(url, "a key with a `..` segment"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn zarr(s: &str) -> ZarrTarget {
        match parse(s).unwrap().target {
            Target::Zarr(z) => z,
            other => panic!("{s}: {other:?}"),
        }
    }

    #[test]
    fn file_urls() {
        let z = zarr("file:///abs/x.zarr#mode=nczarr,file");
        assert_eq!(z.location, StoreLocation::Directory("/abs/x.zarr".into()));
        assert!(!z.pure_zarr && z.xarray);
        let z = zarr("file:///abs/x.zip#mode=zarr,zip");
        assert_eq!(z.location, StoreLocation::Zip("/abs/x.zip".into()));
        assert!(z.pure_zarr);
        assert_eq!(z.modes, ["zarr", "zip", "nczarr"]);
        let z = zarr("file:///a/b%20c.file#mode=noxarray,file");
        assert_eq!(z.location, StoreLocation::Directory("/a/b c.file".into()));
        assert!(z.pure_zarr && !z.xarray);
        let z = zarr("file:///a/x#xarray&mode=file");
        assert!(z.pure_zarr);
        let z = zarr("file:///a/x.zip#zarr");
        assert_eq!(z.location, StoreLocation::Zip("/a/x.zip".into()));
        assert_eq!(
            parse("file:///x.nc").unwrap().target,
            Target::File("/x.nc".into())
        );
        assert_eq!(parse("x.nc").unwrap().target, Target::Path("x.nc".into()));
        assert_eq!(
            parse("/d/x.zarr").unwrap().target,
            Target::Path("/d/x.zarr".into())
        );
    }

    #[test]
    fn cdmremote_urls() {
        let target = |s: &str| parse(s).unwrap().target;
        assert_eq!(
            target("cdmremote:http://h:8080/thredds/cdmremote/x.nc"),
            Target::CdmRemote("http://h:8080/thredds/cdmremote/x.nc".into())
        );
        assert_eq!(
            target("CdmRemote:HTTPS://h/d/x.nc?req=header#frag"),
            Target::CdmRemote("https://h/d/x.nc".into())
        );
        for bad in [
            "cdmremote:ftp://h/x",
            "cdmremote:http://h",
            "cdmremote:http:///x",
            "cdmremote:/local/x.nc",
            "cdmremote:",
        ] {
            let e = parse(bad).unwrap_err();
            assert_eq!(e.url, bad);
            assert!(e.reason.contains("cdmremote"), "{bad}: {e}");
        }
    }

    #[test]
    fn v3_chooses_the_version() {
        for url in ["file:///x#mode=zarr,v3", "file:///x#mode=nczarr,v3"] {
            assert!(zarr(url).modes.iter().any(|m| m == "v3"), "{url}");
        }
    }

    #[test]
    fn bad_urls() {
        assert!(parse("file:///x#mode=nczarr,bogus").is_err());
        assert!(parse("ftp://x/y").is_err());
        assert!(parse("https://host/x").is_err());
        assert!(parse("s3://b/k#mode=zarr,file").is_err());
    }

    #[test]
    fn inferences() {
        assert_eq!(
            infer_modes("xarray,file"),
            ["xarray", "file", "zarr", "nczarr"]
        );
        assert_eq!(
            infer_modes("noxarray,xarray"),
            ["noxarray", "nczarr", "zarr"]
        );
        assert_eq!(infer_modes("bytes,zarr"), ["bytes"]);
    }

    #[test]
    fn s3_urls() {
        let z = zarr("s3://bucket/a/key#mode=nczarr&aws.profile=unidata");
        let StoreLocation::S3(l) = &z.location else {
            panic!()
        };
        assert_eq!(
            (l.style, l.bucket.as_str(), l.key.as_str()),
            (S3Style::S3, "bucket", "a/key")
        );
        assert_eq!(l.profile.as_deref(), Some("unidata"));
        assert_eq!(l.effective_region(), "us-east-1");
        let z = zarr("https://bkt.s3.us-west-2.amazonaws.com/root/ds#mode=zarr");
        let StoreLocation::S3(l) = &z.location else {
            panic!()
        };
        assert_eq!(
            (
                l.style,
                l.bucket.as_str(),
                l.key.as_str(),
                l.region.as_deref()
            ),
            (S3Style::Virtual, "bkt", "root/ds", Some("us-west-2"))
        );
        let z = zarr("https://s3.eu-west-1.amazonaws.com/bkt/ds#mode=nczarr,s3&aws.region=x-1");
        let StoreLocation::S3(l) = &z.location else {
            panic!()
        };
        assert_eq!(
            (
                l.style,
                l.bucket.as_str(),
                l.key.as_str(),
                l.region.as_deref()
            ),
            (S3Style::Path, "bkt", "ds", Some("x-1"))
        );
        let z = zarr("https://minio.local:9000/bkt/ds#mode=zarr,s3");
        let StoreLocation::S3(l) = &z.location else {
            panic!()
        };
        assert_eq!((l.style, l.bucket.as_str()), (S3Style::Other, "bkt"));
        assert!(matches!(
            parse("https://h/x.nc#mode=bytes").unwrap().target,
            Target::Bytes(_)
        ));
    }

    fn s3(s: &str) -> S3Location {
        match zarr(s).location {
            StoreLocation::S3(l) => l,
            other => panic!("{s}: {other:?}"),
        }
    }

    fn cloud(s: &str) -> CloudLocation {
        match zarr(s).location {
            StoreLocation::Cloud(c) => c,
            other => panic!("{s}: {other:?}"),
        }
    }

    /// netCDF-C's URL forms, numbered as in `NC_s3urlrebuild`
    /// (`libdispatch/ds3util.c`): bucket, key, region and endpoint.
    #[test]
    fn netcdf_c_s3_forms() {
        /// URL, style, bucket, key, region, endpoint.
        type Case<'a> = (
            &'a str,
            S3Style,
            &'a str,
            &'a str,
            Option<&'a str>,
            Option<&'a str>,
        );
        let cases: &[Case] = &[
            // (1) virtual with region, (2) virtual without.
            (
                "https://bkt.s3.us-west-2.amazonaws.com/a/b",
                S3Style::Virtual,
                "bkt",
                "a/b",
                Some("us-west-2"),
                None,
            ),
            (
                "https://bkt.s3.amazonaws.com/a",
                S3Style::Virtual,
                "bkt",
                "a",
                None,
                None,
            ),
            // (3) path with region, (4) path without.
            (
                "https://s3.eu-west-1.amazonaws.com/bkt/a/b",
                S3Style::Path,
                "bkt",
                "a/b",
                Some("eu-west-1"),
                None,
            ),
            (
                "https://s3.amazonaws.com/bkt/a",
                S3Style::Path,
                "bkt",
                "a",
                None,
                None,
            ),
            // (5) s3://; (7) gs3:// (GCS's S3 API).
            ("s3://bkt/a/b", S3Style::S3, "bkt", "a/b", None, None),
            (
                "gs3://bkt/a",
                S3Style::S3,
                "bkt",
                "a",
                None,
                Some("https://storage.googleapis.com"),
            ),
            // (6) Google's host.
            (
                "https://storage.googleapis.com/bkt/a",
                S3Style::Other,
                "bkt",
                "a",
                None,
                Some("https://storage.googleapis.com"),
            ),
            // (8) another host, (10) another host naming a region.
            (
                "http://127.0.0.1:9000/bkt/a#mode=nczarr,s3",
                S3Style::Other,
                "bkt",
                "a",
                None,
                Some("http://127.0.0.1:9000"),
            ),
            (
                "https://s3.region-9.example.com/bkt/a#s3",
                S3Style::Other,
                "bkt",
                "a",
                Some("region-9"),
                Some("https://s3.region-9.example.com"),
            ),
            // The seed's ncgen example: an s3:// URL naming an AWS host.
            (
                "s3://s3.us-west-1.amazonaws.com/datasetbucket",
                S3Style::Path,
                "datasetbucket",
                "",
                Some("us-west-1"),
                None,
            ),
        ];
        for &(url, style, bucket, key, region, endpoint) in cases {
            let text = if url.contains('#') {
                url.to_string()
            } else {
                format!("{url}#mode=nczarr")
            };
            let l = s3(&text);
            assert_eq!(
                (
                    l.style,
                    l.bucket.as_str(),
                    l.key.as_str(),
                    l.region.as_deref(),
                    l.endpoint.as_deref()
                ),
                (style, bucket, key, region, endpoint),
                "{url}"
            );
            let t = l.target();
            assert_eq!((t.bucket.as_str(), t.key.as_str()), (bucket, key));
            assert_eq!(t.endpoint.as_deref(), endpoint);
            assert_eq!(t.virtual_hosted, style == S3Style::Virtual);
            assert_eq!(t.region, l.region);
        }
    }

    /// The seeds' examples (NCZarr documentation, Appendix D and the
    /// profile example).
    #[test]
    fn seed_examples() {
        let goes = "https://s3.us-east-1.amazonaws.com/noaa-goes16/ABI-L1b-RadC/2017/059/03/OR_ABI-L1b-RadC-M3C13_G16_s20170590337505_e20170590340289_c20170590340316.nc#mode=bytes";
        assert!(matches!(parse(goes).unwrap().target, Target::Bytes(u) if !u.contains('#')));
        let thredds = "https://thredds-test.unidata.ucar.edu/thredds/fileServer/irma/metar/files/METAR_20170910_0000.nc#bytes";
        assert!(matches!(parse(thredds).unwrap().target, Target::Bytes(_)));
        let l = s3("s3://datasetbucket/rootkey#mode=nczarr,awsprofile=unidata");
        assert_eq!(
            (l.bucket.as_str(), l.key.as_str()),
            ("datasetbucket", "rootkey")
        );
        assert_eq!(l.profile.as_deref(), Some("unidata"));
        let l = s3("https://s3.us-west-1.amazonaws.com/ds#mode=nczarr,s3&aws.profile=xxx");
        assert_eq!(l.target().profile.as_deref(), Some("xxx"));
        let z = zarr("s3://s3.uswest-1.amazonaws.com/datasetbucket#mode=zarr");
        assert!(z.pure_zarr);
    }

    /// GCS, Azure and plain HTTP(S) stores, as object_store names them.
    #[test]
    fn cloud_urls() {
        let c = cloud("gs://bucket/a/ds.zarr#mode=zarr");
        assert_eq!(
            (c.service, c.url.as_str()),
            (CloudService::Gcs, "gs://bucket/a/ds.zarr")
        );
        assert!(!c.read_only());
        assert_eq!(
            cloud("az://container/ds#mode=nczarr").service,
            CloudService::Azure
        );
        assert_eq!(
            cloud("abfs://container@account.dfs.core.windows.net/ds#mode=zarr").service,
            CloudService::Azure
        );
        assert_eq!(
            cloud("https://account.blob.core.windows.net/container/ds#mode=zarr").service,
            CloudService::Azure
        );
        let c = cloud("https://data.example.org/pub/ds.zarr#mode=zarr");
        assert_eq!(c.service, CloudService::Http);
        assert!(c.read_only());
        // With the s3 mode another host is an S3-compatible server.
        assert!(matches!(
            zarr("https://data.example.org/b/k#mode=zarr,s3").location,
            StoreLocation::S3(_)
        ));
        assert!(parse("gs://bucket/ds#mode=zarr,s3").is_err());
        assert!(parse("gs://bucket/ds").is_err(), "a store URL needs a mode");
    }

    #[test]
    fn dot_dot_keys_are_refused() {
        for url in [
            "s3://b/a/../c#mode=zarr",
            "s3://b/..#mode=zarr",
            "https://s3.amazonaws.com/b/%2e%2e/x#mode=zarr",
            "gs://b/x/../y#mode=zarr",
            "https://h/a/../x.nc#mode=bytes",
        ] {
            let e = parse(url).unwrap_err();
            assert!(e.to_string().contains(".."), "{url}: {e}");
        }
        assert!(parse("s3://b/a..b/c#mode=zarr").is_ok());
    }

    proptest::proptest! {
        /// Any text parses or fails with an error naming it; never a panic.
        #[test]
        fn parse_never_panics(s in "\\PC{0,80}") {
            let _ = parse(&s);
        }

        /// URL-shaped text (schemes, hosts, fragments the parser reads)
        /// parses or fails with an error naming the URL.
        #[test]
        fn url_shaped_text_never_panics(
            scheme in "(s3|gs3|gs|az|abfs|https?|file|ftp|S3)",
            host in "[a-z0-9.:@-]{0,30}",
            path in "[a-zA-Z0-9./%_-]{0,30}",
            frag in "(#[a-z.=,&%0-9]{0,30})?",
        ) {
            let url = format!("{scheme}://{host}/{path}{frag}");
            if let Err(e) = parse(&url) {
                proptest::prop_assert_eq!(&e.url, &url);
            }
        }
    }
}
