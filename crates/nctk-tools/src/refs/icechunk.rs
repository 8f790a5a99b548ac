//! The references as an Icechunk repository (on-disk spec version 1, what
//! icechunk 1.x for Python reads): every group and variable of the
//! combined dataset as Zarr v3 metadata (`zarr.json`, translated from the
//! kerchunk metadata: codecs as numcodecs' Zarr v3 codecs,
//! `dimension_names`, `_FillValue` as xarray writes it for Zarr v3),
//! every chunk reference a virtual chunk of the branch `main` (inline
//! chunks stored in the repository), committed once. The chunks are set
//! as the inputs are read, a window at a time (each array's chunks of a
//! window in one call, its metadata updated to the shape so far first);
//! icechunk's session holds every change until the commit, so the
//! repository's change set (about a hundred bytes per chunk) is what
//! grows with the inputs. Each place the chunks live (a local directory,
//! an HTTP server, an S3 bucket) is a virtual chunk container of the
//! repository's configuration; readers authorise it when they open the
//! repository.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::Arc;

use base64::Engine;
use icechunk::config::{HttpConfig, S3Options};
use icechunk::format::manifest::{VirtualChunkLocation, VirtualChunkRef};
use icechunk::format::ChunkIndices;
use icechunk::store::SetVirtualRefsResult;
use icechunk::virtual_chunks::VirtualChunkContainer;
use icechunk::{ObjectStoreConfig, Repository, RepositoryConfig, Storage, Store};
use nctk::model::ChunkRef;
use nctk_store_object::aws::S3Target;
use serde_json::{json, Map, Value};
use tokio::runtime::Runtime;

use super::combine::{Chunks, Collection, VarLayout};
use super::icechunk_s3;
use super::kerchunk::{self, group_attributes, group_prefix, summary};
use super::stream::{stream, RefsSink};
use super::{RefsError, RefsProgress, RefsSummary};

/// The branch the references are committed to.
pub const BRANCH: &str = "main";

/// An error turning references into a repository: the message names the
/// key or the URL.
fn invalid(what: impl Into<String>) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidData, what.into())
}

fn failed(what: &str, e: impl std::fmt::Display) -> std::io::Error {
    std::io::Error::other(format!("icechunk: {what}: {e}"))
}

/// Writes the references of the collection as an Icechunk repository in
/// the empty directory `dir` (`output` names it in errors), the inputs
/// read `window` at a time, each input opened and each variable
/// referenced reported to `progress`.
pub fn write_repository(
    inputs: &Collection,
    dir: &Path,
    output: &Path,
    window: usize,
    progress: &mut dyn RefsProgress,
) -> Result<RefsSummary, RefsError> {
    let written = |e| super::write_error(output, e);
    let runtime = runtime().map_err(written)?;
    let storage = runtime
        .block_on(icechunk::new_local_filesystem_storage(dir))
        .map_err(|e| written(failed("storage", e)))?;
    write_to(inputs, storage, &runtime, output, window, progress)
}

/// Writes the references of the collection as an Icechunk repository
/// under the S3 prefix `target` (the URL `url`), reached by the region,
/// endpoint and credentials nctk's S3 rules give; a prefix that holds
/// anything is refused, and what a failure leaves there is deleted.
pub fn write_repository_s3(
    inputs: &Collection,
    target: &S3Target,
    url: &str,
    window: usize,
    progress: &mut dyn RefsProgress,
) -> Result<RefsSummary, RefsError> {
    let output = Path::new(url);
    let written = |e| super::write_error(output, e);
    let settings = icechunk_s3::settings(target).map_err(written)?;
    let prefix = icechunk_s3::Prefix::new(target, &settings, url).map_err(written)?;
    prefix.refuse_existing().map_err(written)?;
    let runtime = runtime().map_err(written)?;
    let storage = runtime
        .block_on(icechunk::new_s3_object_store_storage(
            icechunk_s3::options(&settings),
            target.bucket.clone(),
            Some(target.key.clone()),
            Some(icechunk_s3::credentials(&settings)),
            vec![],
            vec![],
        ))
        .map_err(|e| written(failed("storage", e)))?;
    let made = write_to(inputs, storage, &runtime, output, window, progress);
    if made.is_err() {
        // The error that stopped the writing is the one to report; a
        // prefix that cannot be emptied too is named by the next run's
        // refusal.
        let _ = prefix.remove_all();
    }
    made
}

/// The runtime icechunk's futures run on (on the calling thread).
fn runtime() -> std::io::Result<Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
}

/// Writes the references of the collection as a new repository in
/// `storage` (empty), on `runtime`; `output` names it in errors.
fn write_to(
    inputs: &Collection,
    storage: Arc<dyn Storage + Send + Sync>,
    runtime: &Runtime,
    output: &Path,
    window: usize,
    progress: &mut dyn RefsProgress,
) -> Result<RefsSummary, RefsError> {
    let written = |e| super::write_error(output, e);
    let locations = Locations::of(inputs).map_err(written)?;
    let config = locations.config().map_err(written)?;
    let store = runtime
        .block_on(create(storage, config, inputs))
        .map_err(written)?;
    let mut sink = IcechunkSink {
        runtime,
        store: &store,
        locations: &locations,
        output,
        shapes: HashMap::new(),
    };
    let layouts = stream(inputs, window, progress, &mut sink)?;
    runtime.block_on(commit(store)).map_err(written)?;
    Ok(summary(&layouts))
}

/// Where each input's chunks are for icechunk: an input on S3 as
/// `s3://bucket/key`, its bucket's container reached with the options
/// nctk's S3 rules give for its URL (an `http(s)://` URL of an
/// S3-compatible server included), any other input as its URL (a local
/// path as a `file://` URL).
struct Locations {
    /// Each input's location.
    inputs: Vec<String>,
    /// The options of each bucket's container (`s3://bucket/`).
    buckets: BTreeMap<String, S3Options>,
}

impl Locations {
    fn of(inputs: &Collection) -> std::io::Result<Locations> {
        let mut locations = Locations {
            inputs: Vec::with_capacity(inputs.len()),
            buckets: BTreeMap::new(),
        };
        for i in 0..inputs.len() {
            let name = inputs.name(i);
            let target = nctk::s3_target(name).map_err(|e| invalid(e.to_string()))?;
            let location = match target {
                Some(target) => {
                    let bucket = format!("s3://{}/", target.bucket);
                    if !locations.buckets.contains_key(&bucket) {
                        let settings = icechunk_s3::settings(&target)
                            .map_err(|e| invalid(format!("{name}: {e}")))?;
                        locations
                            .buckets
                            .insert(bucket.clone(), icechunk_s3::options(&settings));
                    }
                    format!("{bucket}{}", target.key)
                }
                None => location_url(inputs.url(i)).map_err(invalid)?,
            };
            locations.inputs.push(location);
        }
        Ok(locations)
    }

    /// The location of a chunk of input `i` at `url` (the input's own URL
    /// or, for a store, one of its objects').
    fn of_chunk(&self, inputs: &Collection, i: usize, url: &str) -> Result<String, String> {
        match url.strip_prefix(inputs.url(i)) {
            Some(rest) => Ok(format!("{}{rest}", self.inputs[i])),
            None => location_url(url),
        }
    }

    /// The repository's configuration: a virtual chunk container for each
    /// place the inputs are.
    fn config(&self) -> std::io::Result<RepositoryConfig> {
        let mut config = RepositoryConfig::default();
        let urls: Vec<&str> = self.inputs.iter().map(String::as_str).collect();
        for prefix in containers(&urls)? {
            let store = match self.buckets.get(&prefix) {
                Some(options) if options.endpoint_url.is_some() => {
                    ObjectStoreConfig::S3Compatible(options.clone())
                }
                Some(options) => ObjectStoreConfig::S3(options.clone()),
                None => container_store(&prefix)?,
            };
            let container = VirtualChunkContainer::new(prefix.clone(), store)
                .map_err(|e| failed(&prefix, e))?;
            config
                .set_virtual_chunk_container(container)
                .map_err(|e| failed(&prefix, e))?;
        }
        Ok(config)
    }
}

/// A new repository in `storage` with `config`, a writable session of
/// its branch and the first input's groups set.
async fn create(
    storage: Arc<dyn Storage + Send + Sync>,
    config: RepositoryConfig,
    inputs: &Collection,
) -> std::io::Result<Store> {
    let repo = Repository::create(storage)
        .spec_version(icechunk::format::format_constants::SpecVersionBin::V1)
        .config(config)
        .execute()
        .await
        .map_err(|e| failed("create", e))?;
    let session = repo
        .writable_session(BRANCH)
        .await
        .map_err(|e| failed("session", e))?;
    let store = Store::from_session(Arc::new(tokio::sync::RwLock::new(session))).await;
    let schema = inputs.first().schema();
    for g in schema.group_ids() {
        let key = format!("{}zarr.json", group_prefix(schema, g));
        let meta = group(group_attributes(schema, g));
        set(&store, &key, meta.to_string().into_bytes()).await?;
    }
    Ok(store)
}

/// Commits the session of `store`.
async fn commit(store: Store) -> std::io::Result<()> {
    let session = store.session();
    drop(store);
    let mut session = session.write().await;
    session
        .commit("nctk refs")
        .execute()
        .await
        .map_err(|e| failed("commit", e))?;
    Ok(())
}

/// Sets `key` of `store` to `bytes`.
async fn set(store: &Store, key: &str, bytes: Vec<u8>) -> std::io::Result<()> {
    store
        .set(key, bytes.into())
        .await
        .map_err(|e| failed(key, e))
}

/// The chunks set into the session of a store as they come.
struct IcechunkSink<'a> {
    runtime: &'a Runtime,
    store: &'a Store,
    locations: &'a Locations,
    output: &'a Path,
    /// Each array's shape in its metadata set so far.
    shapes: HashMap<String, Vec<u64>>,
}

impl RefsSink for IcechunkSink<'_> {
    fn chunks(
        &mut self,
        inputs: &Collection,
        layout: &VarLayout,
        chunks: Chunks,
    ) -> Result<(), RefsError> {
        if self.shapes.get(&layout.name) != Some(&layout.shape) {
            self.set_array(inputs, layout)?;
        }
        let (runtime, store) = (self.runtime, self.store);
        runtime
            .block_on(set_chunks(
                store,
                inputs,
                self.locations,
                &layout.name,
                chunks,
            ))
            .map_err(|e| super::write_error(self.output, e))
    }

    fn close(&mut self, inputs: &Collection, layout: &VarLayout) -> Result<(), RefsError> {
        self.set_array(inputs, layout)
    }
}

impl IcechunkSink<'_> {
    /// Sets the metadata of the array `layout` describes.
    fn set_array(&mut self, inputs: &Collection, layout: &VarLayout) -> Result<(), RefsError> {
        let ds = inputs.first();
        let (zarray, zattrs) = kerchunk::array(ds, layout)?;
        let masked = ds
            .schema()
            .var(layout.var)
            .attribute("_FillValue")
            .is_some();
        let key = format!("{}/zarr.json", layout.name);
        let meta = array(&zarray, zattrs, masked)
            .map_err(|e| super::write_error(self.output, invalid(format!("{key}: {e}"))))?;
        self.runtime
            .block_on(set(self.store, &key, meta.to_string().into_bytes()))
            .map_err(|e| super::write_error(self.output, e))?;
        self.shapes
            .insert(layout.name.clone(), layout.shape.clone());
        Ok(())
    }
}

/// Sets `chunks` of `array`: the references as virtual chunks in one
/// call, inline chunks as chunks of the repository.
async fn set_chunks(
    store: &Store,
    inputs: &Collection,
    locations: &Locations,
    array: &str,
    chunks: Chunks,
) -> std::io::Result<()> {
    let mut refs: Vec<(ChunkIndices, VirtualChunkRef)> = Vec::with_capacity(chunks.len());
    for (coords, input, r) in chunks {
        let index: Vec<u32> = coords
            .iter()
            .map(|&c| u32::try_from(c))
            .collect::<Result<_, _>>()
            .map_err(|_| invalid(format!("{array}: chunk {coords:?}: index past 2^32")))?;
        let key = chunk_key(array, &index);
        let (url, offset, length) = match &r {
            ChunkRef::Range { offset, length } => (inputs.url(input), *offset, *length),
            ChunkRef::Object {
                object,
                offset,
                length,
            } => (object.as_str(), *offset, *length),
            ChunkRef::Inline(bytes) => {
                set(store, &key, bytes.to_vec()).await?;
                continue;
            }
        };
        let location = locations
            .of_chunk(inputs, input, url)
            .and_then(|u| VirtualChunkLocation::from_url(&u).map_err(|e| e.to_string()))
            .map_err(|e| invalid(format!("{key}: {e}")))?;
        let reference = VirtualChunkRef {
            location,
            offset,
            length,
            checksum: None,
        };
        refs.push((ChunkIndices(index), reference));
    }
    if refs.is_empty() {
        return Ok(());
    }
    set_virtual(store, array, &mut refs).await
}

/// Sets `refs` (emptied) as virtual chunks of `array`; a chunk whose
/// location no container of the repository covers is an error naming it
/// (never a chunk silently left to read as fill).
async fn set_virtual(
    store: &Store,
    array: &str,
    refs: &mut Vec<(ChunkIndices, VirtualChunkRef)>,
) -> std::io::Result<()> {
    let path = icechunk::format::Path::new(&format!("/{array}")).map_err(|e| failed(array, e))?;
    let result = store
        .set_virtual_refs(&path, true, std::mem::take(refs))
        .await
        .map_err(|e| failed(array, e))?;
    match result {
        SetVirtualRefsResult::Done => Ok(()),
        SetVirtualRefsResult::FailedRefs(chunks) => {
            let first = chunks
                .first()
                .map(|c| chunk_key(array, &c.0))
                .unwrap_or_default();
            Err(invalid(format!(
                "{first}: no virtual chunk container covers its location ({} chunks of {array})",
                chunks.len()
            )))
        }
    }
}

/// The Zarr v3 chunk key of chunk `index` of `array`.
fn chunk_key(array: &str, index: &[u32]) -> String {
    let mut key = format!("{array}/c");
    for i in index {
        key.push('/');
        key.push_str(&i.to_string());
    }
    key
}

/// A group's Zarr v3 metadata.
fn group(attrs: Value) -> Value {
    json!({"zarr_format": 3, "node_type": "group", "attributes": attrs})
}

/// The Zarr v3 metadata of a Zarr v2 array (`.zarray`, `.zattrs`) whose
/// codecs are numcodecs codecs; its fill value also as xarray's
/// `_FillValue` attribute when `fill_value_attr`.
fn array(zarray: &Value, attrs: Value, fill_value_attr: bool) -> Result<Value, String> {
    let dtype = zarray["dtype"].as_str().ok_or("no dtype")?;
    let (data_type, endian, kind) = data_type(dtype)?;
    let mut attributes = match attrs {
        Value::Object(m) => m,
        _ => Map::new(),
    };
    let dims = attributes.remove("_ARRAY_DIMENSIONS");
    let fill = &zarray["fill_value"];
    let fill_value = match (fill, kind) {
        (Value::Null, 'S') => json!(""),
        (Value::Null, 'f') => json!(0.0),
        (Value::Null, _) => json!(0),
        (v, _) => v.clone(),
    };
    if fill_value_attr && !fill.is_null() {
        attributes.insert("_FillValue".into(), xarray_fill(fill, kind)?);
    }
    let mut codecs = vec![match endian {
        Some(e) => json!({"name": "bytes", "configuration": {"endian": e}}),
        None => json!({"name": "bytes"}),
    }];
    let filters = zarray["filters"].as_array().cloned().unwrap_or_default();
    for codec in filters
        .iter()
        .chain(Some(&zarray["compressor"]).filter(|c| !c.is_null()))
    {
        let mut config = codec
            .as_object()
            .cloned()
            .ok_or("a codec that is not an object")?;
        let id = config
            .remove("id")
            .and_then(|v| v.as_str().map(str::to_string))
            .ok_or("a codec without an id")?;
        if id.starts_with("imagecodecs_") {
            return Err(format!(
                "codec {id} (an HDF5 filter imagecodecs decodes) has no Zarr v3 form that \
                 icechunk's readers know; write JSON or Parquet references instead"
            ));
        }
        codecs.push(json!({"name": format!("numcodecs.{id}"), "configuration": config}));
    }
    let mut meta = json!({
        "zarr_format": 3,
        "node_type": "array",
        "shape": zarray["shape"],
        "data_type": data_type,
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": zarray["chunks"]}},
        "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
        "fill_value": fill_value,
        "codecs": codecs,
        "attributes": attributes,
    });
    if let Some(dims) = dims {
        meta["dimension_names"] = dims;
    }
    Ok(meta)
}

/// The Zarr v3 data type of a NumPy dtype string, its byte order for the
/// `bytes` codec (none for one-byte types) and its kind.
fn data_type(dtype: &str) -> Result<(Value, Option<&'static str>, char), String> {
    let bad = || format!("dtype {dtype:?} has no Zarr v3 data type here");
    let mut chars = dtype.chars();
    let order = chars.next().ok_or_else(bad)?;
    let kind = chars.next().ok_or_else(bad)?;
    let size: usize = chars.as_str().parse().map_err(|_| bad())?;
    let endian = match (order, size) {
        (_, 1) | ('|', _) => None,
        ('<', _) => Some("little"),
        ('>', _) => Some("big"),
        _ => return Err(bad()),
    };
    let name = match (kind, size) {
        ('S', n) => {
            return Ok((
                json!({"name": "null_terminated_bytes", "configuration": {"length_bytes": n}}),
                None,
                'S',
            ))
        }
        ('i', 1 | 2 | 4 | 8) => format!("int{}", size * 8),
        ('u', 1 | 2 | 4 | 8) => format!("uint{}", size * 8),
        ('f', 2 | 4 | 8) => format!("float{}", size * 8),
        ('b', 1) => "bool".to_string(),
        _ => return Err(bad()),
    };
    Ok((Value::from(name), endian, kind))
}

/// `_FillValue` as xarray writes it among a Zarr v3 array's attributes:
/// floats as the base64 of their little-endian float64 bytes, integers as
/// numbers, bytes as base64.
fn xarray_fill(fill: &Value, kind: char) -> Result<Value, String> {
    let b64 = &base64::engine::general_purpose::STANDARD;
    Ok(match kind {
        'f' => {
            let x = match fill {
                Value::Number(n) => n.as_f64().ok_or("a fill value out of range")?,
                Value::String(s) => match s.as_str() {
                    "NaN" => f64::NAN,
                    "Infinity" => f64::INFINITY,
                    "-Infinity" => f64::NEG_INFINITY,
                    _ => return Err(format!("fill value {s:?}")),
                },
                other => return Err(format!("fill value {other}")),
            };
            Value::from(b64.encode(x.to_le_bytes()))
        }
        _ => fill.clone(),
    })
}

/// The URL of a referenced file: itself, or a local path made absolute
/// as a `file://` URL.
fn location_url(url: &str) -> Result<String, String> {
    if url.contains("://") {
        return Ok(url.to_string());
    }
    let path = std::path::absolute(url).map_err(|e| format!("{url}: {e}"))?;
    Ok(format!("file://{}", path.display()))
}

/// The virtual chunk containers the references need: one for the local
/// files (`file:///dir/`, the directory holding them all, so a store's
/// chunk objects in their many directories share one), one per HTTP
/// server (`http://host:port/`) and one per S3 bucket (`s3://bucket/`).
fn containers(urls: &[&str]) -> std::io::Result<Vec<String>> {
    let mut prefixes = std::collections::BTreeSet::new();
    let mut local: Option<String> = None;
    for url in urls {
        let url = location_url(url).map_err(invalid)?;
        let prefix = container_prefix(&url)
            .ok_or_else(|| invalid(format!("{url}: no Icechunk container for this URL")))?;
        if prefix.starts_with("file://") {
            local = Some(match local {
                None => prefix,
                Some(dir) => common_directory(&dir, &prefix).to_string(),
            });
        } else {
            prefixes.insert(prefix);
        }
    }
    Ok(local.into_iter().chain(prefixes).collect())
}

/// The longest directory (ending in `/`) both directory URLs lie in.
fn common_directory<'a>(a: &'a str, b: &str) -> &'a str {
    let same = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    let end = a[..same].rfind('/').map_or(0, |i| i + 1);
    &a[..end]
}

/// The container prefix of a chunk's URL: a file's directory, a server
/// or a bucket.
fn container_prefix(url: &str) -> Option<String> {
    let (scheme, rest) = url.split_once("://")?;
    match scheme {
        "file" => {
            let dir = &rest[..rest.rfind('/')? + 1];
            Some(format!("file://{dir}"))
        }
        "http" | "https" | "s3" | "gs" | "az" => {
            let host = rest.split('/').next()?;
            Some(format!("{scheme}://{host}/"))
        }
        _ => None,
    }
}

/// How the chunks of a container not on S3 are fetched.
fn container_store(prefix: &str) -> std::io::Result<ObjectStoreConfig> {
    let (scheme, rest) = prefix.split_once("://").unwrap_or(("", prefix));
    Ok(match scheme {
        "file" => ObjectStoreConfig::LocalFileSystem(rest.into()),
        "http" | "https" => ObjectStoreConfig::Http(HttpConfig::default()),
        "gs" | "az" => {
            return Err(invalid(format!(
                "{prefix}: Icechunk containers on GCS and Azure are not made yet"
            )))
        }
        _ => {
            return Err(invalid(format!(
                "{prefix}: no Icechunk container for this scheme"
            )))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::common_directory;

    #[test]
    fn local_files_share_the_directory_holding_them_all() {
        assert_eq!(
            common_directory("file:///data/run/a/", "file:///data/run/ab/"),
            "file:///data/run/"
        );
        assert_eq!(
            common_directory("file:///d/x/", "file:///d/x/"),
            "file:///d/x/"
        );
        assert_eq!(common_directory("file:///a/", "file:///b/"), "file:///");
    }
}
