//! The references as an Icechunk repository (on-disk spec version 1, what
//! icechunk 1.x for Python reads): every group and variable of kerchunk's
//! reference document as Zarr v3 metadata (`zarr.json`, codecs as
//! numcodecs' Zarr v3 codecs, `dimension_names`, `_FillValue` as xarray
//! writes it for Zarr v3), every chunk reference a virtual chunk of the
//! branch `main` (inline chunks stored in the repository), committed once.
//! Each place the chunks live (a local directory, an HTTP server, an S3
//! bucket) is a virtual chunk container of the repository's configuration;
//! readers authorise it when they open the repository.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use base64::Engine;
use icechunk::config::{HttpConfig, S3Options};
use icechunk::format::manifest::{VirtualChunkLocation, VirtualChunkRef};
use icechunk::format::ChunkIndices;
use icechunk::store::SetVirtualRefsResult;
use icechunk::virtual_chunks::VirtualChunkContainer;
use icechunk::{ObjectStoreConfig, Repository, RepositoryConfig, Store};
use serde_json::{json, Map, Value};

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

/// Writes the references `refs` (kerchunk's `refs` map) as an Icechunk
/// repository in the empty directory `dir`; the arrays named in `masked`
/// have a `_FillValue` (the others' fill value only says what chunks never
/// written read as).
pub fn write_repository(
    refs: &Map<String, Value>,
    masked: &[String],
    dir: &Path,
) -> std::io::Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(write(refs, masked, dir))
}

async fn write(refs: &Map<String, Value>, masked: &[String], dir: &Path) -> std::io::Result<()> {
    let nodes = Nodes::of(refs, masked)?;
    let mut config = RepositoryConfig::default();
    for prefix in containers(refs)? {
        let store = container_store(&prefix)?;
        let container =
            VirtualChunkContainer::new(prefix.clone(), store).map_err(|e| failed(&prefix, e))?;
        config
            .set_virtual_chunk_container(container)
            .map_err(|e| failed(&prefix, e))?;
    }
    let storage = icechunk::new_local_filesystem_storage(dir)
        .await
        .map_err(|e| failed("storage", e))?;
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
    let session = Arc::new(tokio::sync::RwLock::new(session));
    let store = Store::from_session(session.clone()).await;
    for (path, meta) in &nodes.metadata {
        let key = if path.is_empty() {
            "zarr.json".to_string()
        } else {
            format!("{path}/zarr.json")
        };
        store
            .set(&key, meta.to_string().into_bytes().into())
            .await
            .map_err(|e| failed(&key, e))?;
    }
    // Each array's virtual chunks set in one call (the chunks come array
    // by array: the document's keys are sorted).
    let mut batch: Vec<(ChunkIndices, VirtualChunkRef)> = vec![];
    let mut batch_array: Option<&str> = None;
    for (array, index, value) in &nodes.chunks {
        if let Some(done) = batch_array.filter(|a| a != array) {
            set_virtual(&store, done, &mut batch).await?;
        }
        let key = chunk_key(array, index);
        match value {
            Value::Array(r) => {
                let reference = virtual_ref(r).map_err(|e| invalid(format!("{key}: {e}")))?;
                batch.push((ChunkIndices(index.clone()), reference));
                batch_array = Some(array);
            }
            Value::String(s) => {
                let bytes = inline_bytes(s).map_err(|e| invalid(format!("{key}: {e}")))?;
                store
                    .set(&key, bytes.into())
                    .await
                    .map_err(|e| failed(&key, e))?;
            }
            other => return Err(invalid(format!("{key}: not a reference: {other}"))),
        }
    }
    if let Some(array) = batch_array {
        set_virtual(&store, array, &mut batch).await?;
    }
    drop(store);
    let mut session = session.write().await;
    session
        .commit("nctk refs")
        .execute()
        .await
        .map_err(|e| failed("commit", e))?;
    Ok(())
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

/// The groups and arrays of a reference document as Zarr v3 metadata, by
/// path, and its chunks (array, chunk index, reference).
struct Nodes<'a> {
    metadata: BTreeMap<String, Value>,
    chunks: Vec<(String, Vec<u32>, &'a Value)>,
}

impl<'a> Nodes<'a> {
    fn of(refs: &'a Map<String, Value>, masked: &[String]) -> std::io::Result<Nodes<'a>> {
        let json_of = |key: &str| -> std::io::Result<Option<Value>> {
            match refs.get(key) {
                None => Ok(None),
                Some(Value::String(s)) => serde_json::from_str(s)
                    .map(Some)
                    .map_err(|e| invalid(format!("{key}: {e}"))),
                Some(other) => Ok(Some(other.clone())),
            }
        };
        let mut metadata = BTreeMap::new();
        let mut arrays = BTreeMap::new();
        for key in refs.keys() {
            let (parent, name) = key.rsplit_once('/').unwrap_or(("", key));
            let attrs_key = if parent.is_empty() {
                ".zattrs".to_string()
            } else {
                format!("{parent}/.zattrs")
            };
            let attrs = json_of(&attrs_key)?.unwrap_or_else(|| json!({}));
            match name {
                ".zgroup" => {
                    metadata.insert(parent.to_string(), group(attrs));
                }
                ".zarray" => {
                    let zarray = json_of(key)?.unwrap_or_default();
                    let fill_value_attr = masked.iter().any(|m| m == parent);
                    let meta = array(&zarray, attrs, fill_value_attr)
                        .map_err(|e| invalid(format!("{key}: {e}")))?;
                    let rank = zarray["shape"].as_array().map_or(0, Vec::len);
                    arrays.insert(parent.to_string(), rank);
                    metadata.insert(parent.to_string(), meta);
                }
                _ => {}
            }
        }
        let mut chunks = vec![];
        for (key, value) in refs {
            let Some((array, name)) = key.rsplit_once('/') else {
                continue;
            };
            let Some(&rank) = arrays.get(array) else {
                continue;
            };
            if name.starts_with('.') {
                continue;
            }
            let index: Vec<u32> = if rank == 0 {
                vec![]
            } else {
                name.split('.')
                    .map(str::parse)
                    .collect::<Result<_, _>>()
                    .map_err(|_| invalid(format!("{key}: not a chunk key")))?
            };
            if index.len() != rank {
                return Err(invalid(format!(
                    "{key}: not a chunk key of a rank-{rank} array"
                )));
            }
            chunks.push((array.to_string(), index, value));
        }
        Ok(Nodes { metadata, chunks })
    }
}

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

/// A kerchunk chunk reference `[url, offset, length]` as a virtual chunk;
/// a local path becomes a `file://` URL.
fn virtual_ref(r: &[Value]) -> Result<VirtualChunkRef, String> {
    let (Some(url), Some(offset), Some(length)) = (
        r.first().and_then(Value::as_str),
        r.get(1).and_then(Value::as_u64),
        r.get(2).and_then(Value::as_u64),
    ) else {
        return Err("not a reference [url, offset, length]".into());
    };
    let location =
        VirtualChunkLocation::from_url(&location_url(url)?).map_err(|e| e.to_string())?;
    Ok(VirtualChunkRef {
        location,
        offset,
        length,
        checksum: None,
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

/// The bytes of an inline chunk: `base64:...`, or the text itself.
fn inline_bytes(s: &str) -> Result<Vec<u8>, String> {
    match s.strip_prefix("base64:") {
        Some(b) => base64::engine::general_purpose::STANDARD
            .decode(b)
            .map_err(|e| e.to_string()),
        None => Ok(s.as_bytes().to_vec()),
    }
}

/// The virtual chunk containers the references need: one for the local
/// files (`file:///dir/`, the directory holding them all, so a store's
/// chunk objects in their many directories share one), one per HTTP
/// server (`http://host:port/`) and one per S3 bucket (`s3://bucket/`).
fn containers(refs: &Map<String, Value>) -> std::io::Result<Vec<String>> {
    let mut prefixes = std::collections::BTreeSet::new();
    let mut local: Option<String> = None;
    for (key, value) in refs {
        let Some(url) = value.get(0).and_then(Value::as_str) else {
            continue;
        };
        let url = location_url(url).map_err(|e| invalid(format!("{key}: {e}")))?;
        let prefix = container_prefix(&url)
            .ok_or_else(|| invalid(format!("{key}: {url}: no container for this URL")))?;
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

/// How the chunks of a container are fetched.
fn container_store(prefix: &str) -> std::io::Result<ObjectStoreConfig> {
    let (scheme, rest) = prefix.split_once("://").unwrap_or(("", prefix));
    Ok(match scheme {
        "file" => ObjectStoreConfig::LocalFileSystem(rest.into()),
        "http" | "https" => ObjectStoreConfig::Http(HttpConfig::default()),
        "s3" => ObjectStoreConfig::S3(S3Options::default()),
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
