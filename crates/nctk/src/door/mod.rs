//! The one door from a path or netCDF-C URL to storage and a format.
//!
//! Everything below the facade receives a [`ByteSource`] / [`ByteSink`] or
//! a store, never a path or URL: this module is the only place that parses
//! URLs ([`url`]), matches on what they name, opens files and directories,
//! and answers what is not available; `#mode=bytes` files are read by
//! range requests (`bytes`), stores on S3 through `object`, `-` (standard
//! input) by spooling it to an anonymous temporary file (`stdin`), and
//! `cdmremote:` URLs by HTTP requests to a cdmremote server (`cdmremote`).
//! A new kind of storage or a new format is added here, once.
//!
//! * Reading: [`open_target`] gives an [`Opened`]: a byte source and the
//!   format its magic number names, or a store and the Zarr reader options
//!   the URL's mode flags ask for.
//! * Writing: [`store_target`] reads where a store output goes and in which
//!   layout (no I/O); [`create_store`] and [`create_file`] make the
//!   storage at a path (the copier passes a temporary name beside the
//!   output); [`open_file`] reopens a file to append; [`read_file`] reads
//!   one whatever it holds.

#[cfg(feature = "cloud")]
mod bytes;
#[cfg(feature = "cdmremote")]
mod cdmremote;
#[cfg(feature = "cloud")]
mod object;
#[cfg(feature = "cloud")]
mod publish;
mod stdin;
pub mod url;

pub use stdin::STDIN;

#[cfg(feature = "cloud")]
use object::ObjectLocation;
#[cfg(feature = "cloud")]
pub(crate) use object::{create_store as create_object_store, ObjectTarget};
#[cfg(feature = "cloud")]
pub(crate) use publish::remove_unfinished;

/// Top-level objects that make a prefix a Zarr / NCZarr store, which an
/// output may replace (`.nczarr` is netCDF-C 4.8's, `zarr.json` Zarr v3's).
pub(crate) const STORE_MARKERS: [&str; 6] = [
    ".zgroup",
    ".zarray",
    ".zattrs",
    ".zmetadata",
    ".nczarr",
    "zarr.json",
];

/// The error for a target this build cannot reach: it needs `feature`.
#[cfg(not(all(feature = "cloud", feature = "cdmremote")))]
fn built_without(name: &str, what: &str, feature: &str) -> Error {
    crate::formats::built_without(name, what, feature)
}

use std::path::{Path, PathBuf};
use std::sync::Arc;

use nctk_store::bytes::{ByteError, ByteSink, ByteSource, FileSink, FileSource};
use nctk_store::kv::{DirectoryStore, ReadListStore, StagedZipStore, ZipStore};
use nctk_zarr::write::ReadWriteStore;
use nctk_zarr::ZarrOptions;

use crate::{Error, OpenOptions, StoreLayout};
use url::{StoreLocation, Target};

/// What a path or URL opens as.
pub(crate) enum Opened {
    /// A single blob of bytes, whose format the format table recognises.
    File(Arc<dyn ByteSource>),
    /// A Zarr / NCZarr store (a directory or an object store).
    Store {
        /// The store.
        store: Arc<dyn ReadListStore>,
        /// How to read it, as the URL's mode flags ask.
        options: ZarrOptions,
        /// What its objects' keys are relative to, for references to
        /// them: the directory's absolute path, or the object store's URL
        /// (without fragment); `None` for a zip archive.
        root: Option<String>,
    },
    /// A dataset read through a protocol of its own (a cdmremote server),
    /// ready.
    #[cfg(feature = "cdmremote")]
    Dataset(crate::Dataset),
}

/// Opening `path` failed in its store, byte source or URL parser: the
/// error is kept as the source.
fn open_error(path: &str, source: impl Into<nctk_model::SourceError>) -> Error {
    Error::Source {
        path: path.to_string(),
        source: source.into(),
    }
}

/// `path` names storage nctk cannot use (yet).
fn unsupported(path: &str, reason: impl std::fmt::Display) -> Error {
    Error::Unsupported {
        path: path.to_string(),
        reason: reason.to_string(),
    }
}

/// The remote settings `options` give, else the environment's.
#[cfg(feature = "cloud")]
fn remote_options(
    options: &OpenOptions,
    name: &str,
) -> Result<nctk_store_object::RemoteOptions, Error> {
    match &options.remote {
        Some(remote) => Ok(remote.clone()),
        None => nctk_store_object::RemoteOptions::from_env().map_err(|e| open_error(name, e)),
    }
}

/// True when `target` is to be parsed as a netCDF-C URL rather than a path.
pub(crate) fn looks_like_url(target: &Path) -> bool {
    target
        .to_str()
        .is_some_and(|s| s.contains("://") || s.contains("#mode="))
}

/// The S3 bucket and key `text` names, when it is an S3 URL by the rules
/// nctk reads a store's or a file's URL by (netCDF-C's): `s3://bucket/key`,
/// an AWS `https://` host, or any `http(s)://host[:port]/bucket/key` whose
/// fragment has the `s3` mode (`#mode=s3`, `#mode=bytes,s3`, ...), with the
/// fragment's `aws.region` and `aws.profile`: what
/// [`nctk_store_object::aws::resolve`] reads to find the region, endpoint
/// and credentials nctk's own S3 stores use. `None` for a path or any
/// other URL; a URL that does not parse is an error naming it.
pub fn s3_target(text: &str) -> Result<Option<nctk_store_object::aws::S3Target>, Error> {
    if !looks_like_url(Path::new(text)) {
        return Ok(None);
    }
    // Read as a store's URL: the fragment's pairs but the `bytes` mode,
    // with the `zarr` mode.
    let (bare, fragment) = text.split_once('#').unwrap_or((text, ""));
    let mut pairs: Vec<String> = vec![];
    for pair in fragment.split('&').filter(|p| !p.is_empty()) {
        match pair.split_once('=') {
            Some((key, modes)) if key.eq_ignore_ascii_case("mode") => {
                let kept: Vec<&str> = modes
                    .split(',')
                    .filter(|m| !m.is_empty() && !m.eq_ignore_ascii_case("bytes"))
                    .collect();
                if !kept.is_empty() {
                    pairs.push(format!("mode={}", kept.join(",")));
                }
            }
            None if pair.eq_ignore_ascii_case("bytes") => {}
            _ => pairs.push(pair.to_string()),
        }
    }
    pairs.push("mode=zarr".into());
    let as_store = format!("{bare}#{}", pairs.join("&"));
    let parsed = url::parse(&as_store).map_err(|e| open_error(text, e))?;
    Ok(match parsed.target {
        Target::Zarr(z) => match z.location {
            StoreLocation::S3(location) => Some(location.target()),
            _ => None,
        },
        _ => None,
    })
}

/// Parses `target` as a netCDF-C URL, naming it in the error.
fn parse(target: &Path) -> Result<url::DatasetUrl, Error> {
    let name = target.display().to_string();
    url::parse(&name).map_err(|e| open_error(&name, e))
}

/// Opens what a path or netCDF-C URL names, for reading:
///
/// * a directory: a directory store, read in NCZarr mode;
/// * a file: its bytes, with the format its magic number names (a zip
///   archive is a zip store; HDF5 is also found after a user block);
/// * `file:///abs/x.zarr#mode=nczarr,file`, `...#mode=zarr,zip`, ...: the
///   store the URL names, read as its mode flags ask; `file:///abs/x.nc`: a file.
///
/// * `http(s)://host/x.nc#mode=bytes`, `s3://bucket/x.nc#mode=bytes`: a
///   file (or a zip store) read by range requests;
/// * `s3://bucket/key#mode=nczarr,s3`, `http://host:port/bucket/key#mode=zarr,s3`:
///   a store on S3 or an S3-compatible server;
/// * `cdmremote:http://host/path` (or `https`): a dataset on a cdmremote
///   server, its header read now, its data by a request per read;
/// * `-`: standard input, read to its end into an anonymous temporary
///   file, then a file as above.
#[cfg_attr(not(feature = "cloud"), allow(unused_variables))]
pub(crate) fn open_target(target: &Path, options: &OpenOptions) -> Result<Opened, Error> {
    let name = target.display().to_string();
    if name == STDIN {
        return Ok(Opened::File(stdin::spool(std::io::stdin().lock())?));
    }
    if !looks_like_url(target) {
        return open_local(target, &name);
    }
    let parsed = parse(target)?;
    match parsed.target {
        Target::Path(p) | Target::File(p) => open_local(&p, &name),
        Target::Zarr(z) => {
            let store: Arc<dyn ReadListStore> = match &z.location {
                StoreLocation::Directory(p) => {
                    Arc::new(DirectoryStore::open(p).map_err(|e| open_error(&name, e))?)
                }
                StoreLocation::Zip(p) => {
                    Arc::new(ZipStore::open_file(p).map_err(|e| open_error(&name, e))?)
                }
                #[cfg(feature = "cloud")]
                StoreLocation::S3(l) => {
                    return object::open(&ObjectLocation::S3(l.clone()), &z, options)
                }
                #[cfg(feature = "cloud")]
                StoreLocation::Cloud(l) => {
                    return object::open(&ObjectLocation::Cloud(l.clone()), &z, options)
                }
                #[cfg(not(feature = "cloud"))]
                StoreLocation::S3(_) | StoreLocation::Cloud(_) => {
                    return Err(built_without(&name, "a store on an object store", "cloud"))
                }
            };
            let root = match &z.location {
                StoreLocation::Directory(p) => Some(absolute(p)),
                _ => None,
            };
            Ok(Opened::Store {
                store,
                options: z.options(),
                root,
            })
        }
        #[cfg(feature = "cloud")]
        Target::Bytes(url) => {
            let source = bytes::source(&url, &parsed.fragment, &name, options)?;
            Ok(Opened::File(Arc::new(source)))
        }
        #[cfg(not(feature = "cloud"))]
        Target::Bytes(_) => Err(built_without(&name, "a #mode=bytes URL", "cloud")),
        #[cfg(feature = "cdmremote")]
        Target::CdmRemote(endpoint) => cdmremote::open(&endpoint, &name, options),
        #[cfg(not(feature = "cdmremote"))]
        Target::CdmRemote(_) => Err(built_without(&name, "a cdmremote URL", "cdmremote")),
    }
}

/// A local path: a directory store, a zip store or a single file, decided
/// by looking (the directory through the store, the rest by magic number
/// read through the file's byte source).
fn open_local(path: &Path, name: &str) -> Result<Opened, Error> {
    if let Ok(dir) = DirectoryStore::open(path) {
        return Ok(Opened::Store {
            store: Arc::new(dir),
            options: ZarrOptions::default(),
            root: Some(absolute(path)),
        });
    }
    let source = FileSource::open(path).map_err(|e| match e {
        ByteError::Io { source, .. } => Error::Io {
            path: path.display().to_string(),
            source,
        },
        e => open_error(name, e),
    })?;
    Ok(Opened::File(Arc::new(source)))
}

/// `path` made absolute (symbolic links resolved when it exists), as
/// references to a directory store's objects name them.
fn absolute(path: &Path) -> String {
    std::fs::canonicalize(path)
        .or_else(|_| std::path::absolute(path))
        .unwrap_or_else(|_| path.to_path_buf())
        .display()
        .to_string()
}

/// The file or directory a path or netCDF-C URL names on disk (the text
/// itself when it names nothing local or does not parse).
pub fn local_path(target: &Path) -> PathBuf {
    let parsed = target.to_str().and_then(|t| url::parse(t).ok());
    match parsed.map(|u| u.target) {
        Some(Target::Path(p) | Target::File(p)) => p,
        Some(Target::Zarr(z)) => match z.location {
            StoreLocation::Directory(p) | StoreLocation::Zip(p) => p,
            StoreLocation::S3(_) | StoreLocation::Cloud(_) => target.to_path_buf(),
        },
        _ => target.to_path_buf(),
    }
}

/// Where a store output goes and how it is laid out: what [`store_target`]
/// reads from a path or URL.
#[derive(Debug, Clone, PartialEq)]
pub struct StoreTarget {
    /// The directory or zip file on disk.
    pub path: PathBuf,
    /// A zip archive rather than a directory.
    pub zip: bool,
    /// The layout the URL's mode flags ask for (`None`: the caller's choice).
    pub layout: Option<StoreLayout>,
    /// `mode=consolidated`: also write the consolidated `.zmetadata`.
    pub consolidated: bool,
    /// A store on an object store (`path` is then its URL, for messages).
    #[cfg(feature = "cloud")]
    pub object: Option<ObjectTarget>,
}

/// Reads where a store output goes (no I/O):
///
/// * `file:///abs/x.zarr#mode=nczarr,file` (directory), `...#mode=nczarr,zip`
///   (zip), with `zarr`, `noxarray` or `nczarr490` choosing the layout and
///   `consolidated` asking for `.zmetadata`;
/// * a plain path or `file://` URL: a zip when it ends in `.zip`, else a directory.
///
/// * `s3://bucket/key#mode=nczarr,s3`, `https://host/bucket/key#mode=zarr,s3`:
///   a store on S3 ([`StoreTarget::object`]).
///
/// `#mode=bytes` is refused.
pub fn store_target(text: &str) -> Result<StoreTarget, Error> {
    let refuse = |reason: &str| unsupported(text, reason);
    let parsed = url::parse(text).map_err(|e| open_error(text, e))?;
    match parsed.target {
        Target::Path(path) | Target::File(path) => Ok(StoreTarget {
            zip: is_zip(&path),
            path,
            layout: None,
            consolidated: false,
            #[cfg(feature = "cloud")]
            object: None,
        }),
        Target::Zarr(z) => {
            let layout = layout_for_modes(&z.modes);
            let consolidated = z.modes.iter().any(|m| m == "consolidated");
            let (path, zip) = match &z.location {
                StoreLocation::Directory(p) => (p.clone(), false),
                StoreLocation::Zip(p) => (p.clone(), true),
                StoreLocation::Cloud(l) if l.read_only() => {
                    return Err(refuse(nctk_store_object::connect::HTTP_READ_ONLY))
                }
                #[cfg(feature = "cloud")]
                StoreLocation::S3(l) => {
                    let location = ObjectLocation::S3(l.clone());
                    return Ok(object::store_target(&location, &z, layout, consolidated));
                }
                #[cfg(feature = "cloud")]
                StoreLocation::Cloud(l) => {
                    let location = ObjectLocation::Cloud(l.clone());
                    return Ok(object::store_target(&location, &z, layout, consolidated));
                }
                #[cfg(not(feature = "cloud"))]
                StoreLocation::S3(_) | StoreLocation::Cloud(_) => {
                    return Err(built_without(text, "a store on an object store", "cloud"))
                }
            };
            Ok(StoreTarget {
                path,
                zip,
                layout,
                consolidated,
                #[cfg(feature = "cloud")]
                object: None,
            })
        }
        Target::Bytes(_) => Err(refuse("mode=bytes is read-only")),
        Target::CdmRemote(_) => Err(refuse("a cdmremote server is read-only")),
    }
}

fn is_zip(p: &Path) -> bool {
    p.extension().is_some_and(|e| e.eq_ignore_ascii_case("zip"))
}

/// The layout URL mode flags ask for: `v3` (Zarr v3: pure with `zarr`,
/// else NCZarr's v3 annotations), `zarr` (pure Zarr, with
/// `_ARRAY_DIMENSIONS` unless `noxarray`), `nczarr490` (netCDF-C 4.9.0's
/// layout), else `None` (the caller's choice, by default the newest NCZarr).
fn layout_for_modes(modes: &[String]) -> Option<StoreLayout> {
    let has = |m: &str| modes.iter().any(|x| x == m);
    if has("v3") {
        Some(StoreLayout::ZarrV3 {
            nczarr: !has("zarr"),
        })
    } else if has("nczarr490") {
        Some(StoreLayout::NcZarr490)
    } else if has("zarr") {
        Some(StoreLayout::PureZarr {
            xarray: !has("noxarray"),
        })
    } else {
        None
    }
}

/// Makes an empty store at `path` for a dataset in `layout`: a directory
/// (created if missing), or with `zip` a zip archive staged in a scratch
/// directory beside it (`<path>.nctk-partial`) and written when the store
/// is closed. NCZarr layouts put the dataset under a top-level directory
/// named after the file (as netCDF-C); pure Zarr puts it at the top level
/// (as zarr-python).
pub fn create_store(
    path: &Path,
    zip: bool,
    layout: StoreLayout,
) -> Result<Arc<dyn ReadWriteStore>, Error> {
    let name = path.display().to_string();
    if !zip {
        let dir = DirectoryStore::create(path).map_err(|e| open_error(&name, e))?;
        return Ok(Arc::new(dir));
    }
    let top_dir = path
        .file_stem()
        .and_then(|s| layout.zip_dir(&s.to_string_lossy()));
    let mut scratch = path.as_os_str().to_owned();
    scratch.push(".nctk-partial");
    let sink = create_file(path).map_err(|e| open_error(&name, e))?;
    let staged = StagedZipStore::in_directory(PathBuf::from(scratch), sink, top_dir.as_deref())
        .map_err(|e| open_error(&name, e))?;
    Ok(Arc::new(staged))
}

/// Opens the store `target` names, which must exist (a directory or an
/// object store; a zip archive is refused), to write into its arrays in
/// place ([`crate::StoreOptions::existing`]).
pub fn open_store_for_write(target: &StoreTarget) -> Result<Arc<dyn ReadWriteStore>, Error> {
    let name = target.path.display().to_string();
    #[cfg(feature = "cloud")]
    if let Some(object) = &target.object {
        return object::open_store(object);
    }
    if target.zip {
        return Err(unsupported(
            &name,
            "a zip store cannot be written in place: write a directory or an object store",
        ));
    }
    let dir = DirectoryStore::open(&target.path).map_err(|e| open_error(&name, e))?;
    Ok(Arc::new(dir))
}

/// The bytes of the single file at `path`, whatever they hold (for
/// checkers such as `nctk validate`, which read files that do not open).
pub fn read_file(path: &Path) -> Result<Arc<dyn ByteSource>, ByteError> {
    Ok(Arc::new(FileSource::open(path)?))
}

/// Creates (or truncates) the single file at `path`.
pub fn create_file(path: &Path) -> Result<Arc<dyn ByteSink>, ByteError> {
    Ok(Arc::new(FileSink::create(path)?))
}

/// Opens the existing single file at `path`, never creating it: to append
/// to or redefine a file, or to write an output into the empty temporary
/// file its [`SafeOutput`](crate::output::SafeOutput) made. Once a signal
/// handler has removed that temporary, a writer thread opening it late
/// must fail, not make it again and leave it behind.
pub fn open_file(path: &Path) -> Result<Arc<dyn ByteSink>, ByteError> {
    Ok(Arc::new(FileSink::open(path)?))
}

#[cfg(test)]
mod s3_target_tests {
    use super::s3_target;

    /// (bucket, key, endpoint, virtual hosted, region) of an S3 URL.
    fn target(text: &str) -> (String, String, Option<String>, bool, Option<String>) {
        let t = s3_target(text)
            .unwrap()
            .unwrap_or_else(|| panic!("{text}: not S3"));
        (t.bucket, t.key, t.endpoint, t.virtual_hosted, t.region)
    }

    #[test]
    fn s3_urls_name_their_bucket_key_and_endpoint() {
        let at = |b: &str, k: &str, e: Option<&str>, v: bool, r: Option<&str>| {
            (b.into(), k.into(), e.map(Into::into), v, r.map(Into::into))
        };
        assert_eq!(
            target("s3://b/run/x.icechunk"),
            at("b", "run/x.icechunk", None, false, None)
        );
        assert_eq!(
            target("s3://b/x.nc#mode=bytes"),
            at("b", "x.nc", None, false, None)
        );
        assert_eq!(
            target("http://127.0.0.1:9000/b/k.nc#mode=bytes,s3"),
            at("b", "k.nc", Some("http://127.0.0.1:9000"), false, None)
        );
        assert_eq!(
            target("http://127.0.0.1:9000/b/r.icechunk#mode=s3&aws.region=eu-west-1"),
            at(
                "b",
                "r.icechunk",
                Some("http://127.0.0.1:9000"),
                false,
                Some("eu-west-1")
            )
        );
        assert_eq!(
            target("https://b.s3.us-west-2.amazonaws.com/k"),
            at("b", "k", None, true, Some("us-west-2"))
        );
    }

    #[test]
    fn paths_and_other_urls_are_not_s3() {
        for text in [
            "/data/x.icechunk",
            "x.nc",
            "http://host/x.nc#mode=bytes",
            "gs://b/k",
        ] {
            assert_eq!(s3_target(text).unwrap(), None, "{text}");
        }
    }
}
