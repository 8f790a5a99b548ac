//! The key/value store seam ([`nctk_store::kv`]) over an object store: what
//! the Zarr reader and writer need of S3 and its peers.
//!
//! Reads are real requests (a ranged GET for `get_range`, a HEAD for
//! `size`); `get_many` keeps up to [`RemoteOptions::concurrency`] requests in
//! flight. Puts run in the background, at most `concurrency` at once and
//! at most [`UPLOAD_BUDGET`] bytes of values at once (a `put` waits for a
//! free slot and room, so memory stays bounded), large values by
//! multipart upload; an upload's failure is returned by the next `put`, by
//! `close`, or by the next read of that key. A read, listing or delete
//! first waits for the uploads it could observe, so a store reads its own
//! writes.
//!
//! A misbehaving server cannot hang or exhaust the client: a listing runs
//! under [`RemoteOptions::list_timeout`] (a server may answer every page
//! with "more to come"; `object_store` follows continuation tokens without
//! bound and its page-by-page `PaginatedListStore` is not reachable
//! through a `dyn ObjectStore`), and a whole value is read as a stream,
//! refused when its declared length passes
//! [`RemoteOptions::max_object_size`] and when its body runs past its
//! declared length ([`LimitError`]).
//!
//! [`RemoteOptions::concurrency`]: crate::RemoteOptions::concurrency
//! [`RemoteOptions::list_timeout`]: crate::RemoteOptions::list_timeout
//! [`RemoteOptions::max_object_size`]: crate::RemoteOptions::max_object_size

use std::collections::HashMap;
use std::ops::Range;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use bytes::Bytes;
use futures::{StreamExt, TryStreamExt};
use nctk_model::{ErrorKind, HasErrorKind, SourceError};
use nctk_store::kv::{
    ByteRange, Capabilities, ListableStore, Listing, ReadableStore, StoreError, StoreKey,
    StorePrefix, WritableStore,
};
use object_store::path::Path;
use object_store::{GetOptions, GetRange, ObjectStoreExt, PutPayload, WriteMultipart};
use tokio::sync::Semaphore;
use tokio::task::JoinHandle;

use crate::runtime::{block_on, spawn};
use crate::{Remote, RemoteError};

/// Values larger than this are uploaded in parts of this size.
pub const MULTIPART_THRESHOLD: usize = 8 << 20;

/// A server broke a bound the client keeps: each names the URL.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LimitError {
    /// A listing did not end in time (the server keeps saying more pages
    /// follow, or answers too slowly).
    #[error(
        "{url}: listing the prefix {prefix} did not finish within {after:?} (the server keeps \
         answering that more pages follow, or is too slow); see NCTK_S3_LIST_TIMEOUT"
    )]
    ListTimeout {
        /// The store's URL.
        url: String,
        /// The prefix listed (`/` for the root).
        prefix: String,
        /// The time allowed.
        after: Duration,
    },
    /// An object declares a length above the largest read whole.
    #[error("{url}: the server declares {declared} bytes, more than the {limit} bytes read whole")]
    TooLarge {
        /// The object's URL.
        url: String,
        /// The length the server declared.
        declared: u64,
        /// [`RemoteOptions::max_object_size`](crate::RemoteOptions::max_object_size).
        limit: u64,
    },
    /// An object's body runs past the length the server declared for it.
    #[error("{url}: the body runs past the {declared} bytes the server declared")]
    LongerThanDeclared {
        /// The object's URL.
        url: String,
        /// The length the server declared.
        declared: u64,
    },
}

/// A listing that did not end in time is a failure of the server (I/O);
/// an object larger than allowed or than declared breaks its store
/// (invalid data).
impl HasErrorKind for LimitError {
    fn kind(&self) -> ErrorKind {
        match self {
            LimitError::ListTimeout { .. } => ErrorKind::Io,
            LimitError::TooLarge { .. } | LimitError::LongerThanDeclared { .. } => {
                ErrorKind::InvalidData
            }
        }
    }
}

/// The most bytes of values uploading at once: `put` waits beyond it, so
/// a writer's memory stays bounded whatever the chunk size (a value larger
/// than this uploads alone).
pub const UPLOAD_BUDGET: u64 = 16 << 20;

/// [`UPLOAD_BUDGET`] in the budget semaphore's units (KiB).
const BUDGET_PERMITS: u32 = (UPLOAD_BUDGET >> 10) as u32;

/// A background upload of one key.
type Upload = JoinHandle<Result<(), StoreError>>;

/// A Zarr / NCZarr store kept in an object store under a [`Remote`]'s prefix.
pub struct ObjectKvStore {
    remote: Remote,
    writable: bool,
    /// Free upload slots (`concurrency` of them).
    slots: Arc<Semaphore>,
    /// Free upload memory, in KiB ([`UPLOAD_BUDGET`] in all).
    budget: Arc<Semaphore>,
    /// Uploads not yet waited for, by key.
    uploads: Mutex<HashMap<StoreKey, Upload>>,
}

impl std::fmt::Debug for ObjectKvStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ObjectKvStore")
            .field("url", &self.remote.url())
            .field("writable", &self.writable)
            .finish_non_exhaustive()
    }
}

/// `error` (met doing `op` on `key`) as the store seam's error: a backend
/// failure naming the key, the remote error (which names its URL) kept as
/// the source.
fn backend(key: &str, op: &'static str, error: RemoteError) -> StoreError {
    StoreError::Backend {
        key: key.to_string(),
        op,
        source: error.into(),
    }
}

/// The answer to a read of one key: `None` when it does not exist, an
/// error for every other failure.
fn found<T>(
    remote: &Remote,
    key: &str,
    op: &'static str,
    r: object_store::Result<T>,
) -> Result<Option<T>, StoreError> {
    match r {
        Ok(v) => Ok(Some(v)),
        Err(e) => match RemoteError::from_object_store(remote.key_url(key), e) {
            e if e.is_not_found() => Ok(None),
            e => Err(backend(key, op, e)),
        },
    }
}

/// From this many keys on, [`ReadableStore::sizes`] lists their prefix
/// instead of asking for each one.
const LIST_FOR_SIZES: usize = 32;

/// The deepest prefix every one of `keys` lies under.
fn common_prefix(keys: &[StoreKey]) -> StorePrefix {
    let mut prefix = keys
        .first()
        .map_or_else(StorePrefix::root, StoreKey::parent);
    while !prefix.is_root() && !keys.iter().all(|k| k.is_under(&prefix)) {
        let up = prefix.as_str().rsplit_once('/').map_or("", |(dir, _)| dir);
        prefix = StorePrefix::new(up).unwrap_or_else(|_| StorePrefix::root());
    }
    prefix
}

impl ObjectKvStore {
    /// A store for reading and writing the dataset at `remote`.
    pub fn new(remote: Remote) -> Self {
        Self::with_access(remote, true)
    }

    /// A store that only reads (plain HTTP servers).
    pub fn read_only(remote: Remote) -> Self {
        Self::with_access(remote, false)
    }

    fn with_access(remote: Remote, writable: bool) -> Self {
        let slots = Arc::new(Semaphore::new(remote.options().concurrency.max(1)));
        ObjectKvStore {
            remote,
            writable,
            slots,
            budget: Arc::new(Semaphore::new(BUDGET_PERMITS as usize)),
            uploads: Mutex::new(HashMap::new()),
        }
    }

    /// Where the store is.
    pub fn remote(&self) -> &Remote {
        &self.remote
    }

    fn uploads(&self) -> MutexGuard<'_, HashMap<StoreKey, Upload>> {
        // Every update is one insert or remove: a panic cannot leave the
        // map half-updated.
        self.uploads.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Waits for `upload`, giving its result.
    fn join(key: &StoreKey, upload: Upload) -> Result<(), StoreError> {
        match block_on(upload) {
            Ok(r) => r,
            Err(e) => Err(StoreError::Backend {
                key: key.to_string(),
                op: "put",
                source: SourceError::new(ErrorKind::Io, e),
            }),
        }
    }

    /// Waits for the upload of `key`, if one is under way.
    fn settle_key(&self, key: &StoreKey) -> Result<(), StoreError> {
        let pending = self.uploads().remove(key);
        match pending {
            Some(upload) => Self::join(key, upload),
            None => Ok(()),
        }
    }

    /// Waits for every upload under way; the first failure is the error
    /// (the others are waited for all the same).
    pub fn settle(&self) -> Result<(), StoreError> {
        let pending: Vec<(StoreKey, Upload)> = self.uploads().drain().collect();
        Self::join_all(pending)
    }

    /// Collects finished uploads, returning the first failure among them.
    fn reap(&self) -> Result<(), StoreError> {
        let done: Vec<(StoreKey, Upload)> = {
            let mut map = self.uploads();
            let keys: Vec<StoreKey> = map
                .iter()
                .filter(|(_, u)| u.is_finished())
                .map(|(k, _)| k.clone())
                .collect();
            keys.into_iter()
                .filter_map(|k| map.remove(&k).map(|u| (k, u)))
                .collect()
        };
        Self::join_all(done)
    }

    /// Waits for every one of `uploads`; the first failure is the error.
    fn join_all(uploads: Vec<(StoreKey, Upload)>) -> Result<(), StoreError> {
        let mut first = Ok(());
        for (key, upload) in uploads {
            let r = Self::join(&key, upload);
            if first.is_ok() {
                first = r;
            }
        }
        first
    }

    fn refuse_write(&self, key: &StoreKey, op: &'static str) -> Result<(), StoreError> {
        if self.writable {
            return Ok(());
        }
        Err(StoreError::Unsupported {
            key: key.to_string(),
            op,
            reason: "this store is read-only (plain HTTP)",
        })
    }

    /// Every key under the dataset's prefix (a listing without a
    /// delimiter, every page), in no particular order.
    pub fn keys(&self) -> Result<Vec<StoreKey>, StoreError> {
        self.settle()?;
        let store = self.remote.store().clone();
        let root = self.remote.path("");
        let prefix = (!root.as_ref().is_empty()).then_some(root);
        let metas: Vec<_> = self.listing(&StorePrefix::root(), async move {
            store.list(prefix.as_ref()).try_collect().await
        })?;
        metas
            .iter()
            .map(|m| self.listed_key(&m.location, &StorePrefix::root()))
            .collect()
    }

    /// The length of every object under `prefix` (a listing without a
    /// delimiter, every page), by key.
    fn listed_sizes(&self, prefix: &StorePrefix) -> Result<HashMap<StoreKey, u64>, StoreError> {
        self.settle()?;
        let store = self.remote.store().clone();
        let path = self.remote.path(prefix.as_str());
        let at = (!path.as_ref().is_empty()).then_some(path);
        let metas: Vec<_> = self.listing(prefix, async move {
            store.list(at.as_ref()).try_collect().await
        })?;
        metas
            .iter()
            .map(|m| Ok((self.listed_key(&m.location, prefix)?, m.size)))
            .collect()
    }

    /// Runs the listing `list` of `prefix` under the list deadline; its
    /// failure, or its not ending in time, is an error naming the URL and
    /// the prefix.
    fn listing<T, F>(&self, prefix: &StorePrefix, list: F) -> Result<T, StoreError>
    where
        F: std::future::Future<Output = object_store::Result<T>> + Send + 'static,
        T: Send + 'static,
    {
        let after = self.remote.options().list_timeout;
        let url = self.remote.key_url(prefix.as_str());
        let name = prefix.to_string();
        match block_on(async move { tokio::time::timeout(after, list).await }) {
            Ok(Ok(listed)) => Ok(listed),
            Ok(Err(e)) => Err(backend(
                &name,
                "list",
                RemoteError::from_object_store(url, e),
            )),
            Err(_) => Err(StoreError::Backend {
                key: name.clone(),
                op: "list",
                source: LimitError::ListTimeout {
                    url: self.remote.url().to_string(),
                    prefix: name,
                    after,
                }
                .into(),
            }),
        }
    }

    /// Deletes every key in `keys`, `concurrency` requests at a time.
    pub fn delete_all(&self, keys: &[StoreKey]) -> Result<(), StoreError> {
        for key in keys {
            self.refuse_write(key, "delete")?;
            self.settle_key(key)?;
        }
        let jobs: Vec<(StoreKey, Path)> = keys
            .iter()
            .map(|k| (k.clone(), self.remote.path(k.as_str())))
            .collect();
        let remote = self.remote.clone();
        let n = self.remote.options().concurrency.max(1);
        block_on(async move {
            futures::stream::iter(jobs)
                .map(|(key, path)| {
                    let remote = remote.clone();
                    async move {
                        let r = remote.store().delete(&path).await;
                        found(&remote, key.as_str(), "delete", r).map(drop)
                    }
                })
                .buffer_unordered(n)
                .try_collect::<Vec<()>>()
                .await
        })?;
        Ok(())
    }

    /// The store key of a listed object path, which must lie under
    /// `prefix`; anything else (outside the dataset, `..`, an invalid key)
    /// is an error naming it, never used.
    fn listed_key(&self, path: &Path, prefix: &StorePrefix) -> Result<StoreKey, StoreError> {
        let bad = |reason: &'static str| StoreError::InvalidKey {
            key: format!("{} (listed under {})", path.as_ref(), self.remote.url()),
            reason,
        };
        let rel = self
            .remote
            .key_of(path)
            .ok_or_else(|| bad("the server listed a key outside the dataset's prefix"))?;
        let key = StoreKey::new(rel).map_err(|_| {
            bad("the server listed an invalid key (empty or '..' segments, control characters)")
        })?;
        if !key.is_under(prefix) {
            return Err(bad("the server listed a key outside the prefix asked for"));
        }
        Ok(key)
    }

    /// One whole object (spawned by `get_many`), read as a stream within
    /// the length the server declared and [`RemoteOptions::max_object_size`].
    ///
    /// [`RemoteOptions::max_object_size`]: crate::RemoteOptions::max_object_size
    async fn fetch(remote: Remote, key: StoreKey) -> Result<Option<Bytes>, StoreError> {
        let path = remote.path(key.as_str());
        let got = match remote.store().get(&path).await {
            Ok(got) => got,
            Err(e) => return found(&remote, key.as_str(), "get", Err(e)),
        };
        let url = || remote.key_url(key.as_str());
        let limit = |e: LimitError| StoreError::Backend {
            key: key.to_string(),
            op: "get",
            source: e.into(),
        };
        let declared = got.meta.size;
        let max = remote.options().max_object_size;
        if declared > max {
            return Err(limit(LimitError::TooLarge {
                url: url(),
                declared,
                limit: max,
            }));
        }
        // Grown as the body arrives: a declared length is not trusted with
        // more than a first reservation.
        const FIRST: u64 = 64 << 20;
        let mut body = Vec::with_capacity(usize::try_from(declared.min(FIRST)).unwrap_or(0));
        let mut stream = got.into_stream();
        while let Some(part) = stream.next().await {
            let part = match part {
                Ok(part) => part,
                Err(e) => return found(&remote, key.as_str(), "get", Err(e)),
            };
            if (body.len() + part.len()) as u64 > declared {
                return Err(limit(LimitError::LongerThanDeclared {
                    url: url(),
                    declared,
                }));
            }
            body.extend_from_slice(&part);
        }
        Ok(Some(Bytes::from(body)))
    }

    /// `ask` of each of `items` (the key of each, `key_of`, settled
    /// first), up to `concurrency` in flight; the answers in item order,
    /// the first failure in item order the error.
    fn in_flight<I, T, Fut>(
        &self,
        items: Vec<I>,
        key_of: fn(&I) -> &StoreKey,
        ask: fn(Remote, I) -> Fut,
    ) -> Result<Vec<T>, StoreError>
    where
        I: Send + 'static,
        T: Send + 'static,
        Fut: std::future::Future<Output = Result<T, StoreError>> + Send + 'static,
    {
        for item in &items {
            self.settle_key(key_of(item))?;
        }
        let remote = self.remote.clone();
        let n = self.remote.options().concurrency.max(1);
        block_on(async move {
            futures::stream::iter(items)
                .map(|item| ask(remote.clone(), item))
                .buffered(n)
                .try_collect()
                .await
        })
    }

    /// One HEAD: the object's length, `None` when it does not exist.
    async fn head_size(remote: Remote, key: StoreKey) -> Result<Option<u64>, StoreError> {
        let path = remote.path(key.as_str());
        let r = remote.store().head(&path).await;
        Ok(found(&remote, key.as_str(), "head", r)?.map(|m| m.size))
    }

    /// One ranged GET of a [`ByteRange`]; the bytes must be exactly the
    /// range asked for (a shorter answer means the object is shorter).
    async fn fetch_range(
        remote: Remote,
        key: StoreKey,
        range: ByteRange,
    ) -> Result<Option<Bytes>, StoreError> {
        let path = remote.path(key.as_str());
        let (want, get) = match &range {
            ByteRange::Bounded(r) => (r.end - r.start, GetRange::Bounded(r.clone())),
            ByteRange::Suffix(n) => (*n, GetRange::Suffix(*n)),
        };
        let r = async {
            let got = remote
                .store()
                .get_opts(&path, GetOptions::new().with_range(Some(get)))
                .await?;
            let len = got.meta.size;
            Ok::<_, object_store::Error>((len, got.bytes().await?))
        }
        .await;
        match found(&remote, key.as_str(), "get", r)? {
            None => Ok(None),
            Some((_, bytes)) if bytes.len() as u64 == want => Ok(Some(bytes)),
            Some((len, bytes)) => Err(StoreError::RangeOutOfBounds {
                key: remote.key_url(key.as_str()),
                start: match range {
                    ByteRange::Bounded(r) => r.start,
                    ByteRange::Suffix(_) => len.saturating_sub(bytes.len() as u64),
                },
                end: want,
                len,
            }),
        }
    }

    /// Uploads `value` at `path`: one PUT, or a multipart upload above
    /// [`MULTIPART_THRESHOLD`].
    async fn upload(remote: Remote, key: StoreKey, value: Bytes) -> Result<(), StoreError> {
        let path = remote.path(key.as_str());
        let fail = |e| {
            backend(
                key.as_str(),
                "put",
                RemoteError::from_object_store(remote.key_url(key.as_str()), e),
            )
        };
        if value.len() <= MULTIPART_THRESHOLD {
            remote
                .store()
                .put(&path, PutPayload::from(value))
                .await
                .map_err(fail)?;
            return Ok(());
        }
        let upload = remote.store().put_multipart(&path).await.map_err(fail)?;
        let mut parts = WriteMultipart::new_with_chunk_size(upload, MULTIPART_THRESHOLD);
        parts.put(value);
        parts.finish().await.map_err(fail)?;
        Ok(())
    }
}

impl ReadableStore for ObjectKvStore {
    fn get(&self, key: &StoreKey) -> Result<Option<Bytes>, StoreError> {
        self.settle_key(key)?;
        block_on(Self::fetch(self.remote.clone(), key.clone()))
    }

    /// A ranged GET; a range past the object's end is an error.
    fn get_range(&self, key: &StoreKey, range: Range<u64>) -> Result<Option<Bytes>, StoreError> {
        self.settle_key(key)?;
        let out_of_bounds = |len: u64| StoreError::RangeOutOfBounds {
            key: self.remote.key_url(key.as_str()),
            start: range.start,
            end: range.end,
            len,
        };
        if range.start >= range.end {
            // No bytes to ask for (HTTP cannot say an empty range): the
            // object's length answers existence and bounds.
            return match self.size(key)? {
                None => Ok(None),
                Some(len) if range.start > range.end || range.end > len => Err(out_of_bounds(len)),
                Some(_) => Ok(Some(Bytes::new())),
            };
        }
        let store = self.remote.store().clone();
        let path = self.remote.path(key.as_str());
        let want = range.clone();
        let r = block_on(async move {
            let got = store
                .get_opts(&path, GetOptions::new().with_range(Some(want)))
                .await?;
            let len = got.meta.size;
            Ok::<_, object_store::Error>((len, got.bytes().await?))
        });
        match found(&self.remote, key.as_str(), "get", r) {
            Ok(None) => Ok(None),
            Ok(Some((len, _))) if range.end > len => Err(out_of_bounds(len)),
            Ok(Some((_, bytes))) if bytes.len() as u64 != range.end - range.start => {
                Err(out_of_bounds(range.start + bytes.len() as u64))
            }
            Ok(Some((_, bytes))) => Ok(Some(bytes)),
            // A range the server refuses (416) is past the end: say so
            // when the object's length confirms it.
            Err(e) => match self.size(key) {
                Ok(Some(len)) if range.end > len => Err(out_of_bounds(len)),
                _ => Err(e),
            },
        }
    }

    /// A HEAD request.
    fn size(&self, key: &StoreKey) -> Result<Option<u64>, StoreError> {
        self.settle_key(key)?;
        block_on(Self::head_size(self.remote.clone(), key.clone()))
    }

    /// For many keys (an array's chunks), one listing of their common
    /// prefix (a request per thousand objects, not one per key); for a
    /// few, or when the server cannot list (plain HTTP), up to
    /// `concurrency` HEADs in flight.
    fn sizes(&self, keys: &[StoreKey]) -> Result<Vec<Option<u64>>, StoreError> {
        if keys.len() >= LIST_FOR_SIZES {
            if let Ok(listed) = self.listed_sizes(&common_prefix(keys)) {
                return Ok(keys.iter().map(|k| listed.get(k).copied()).collect());
            }
        }
        self.in_flight(keys.to_vec(), |k| k, Self::head_size)
    }

    /// Up to `concurrency` GETs in flight, values in key order.
    fn get_many(&self, keys: &[StoreKey]) -> Result<Vec<Option<Bytes>>, StoreError> {
        self.in_flight(keys.to_vec(), |k| k, Self::fetch)
    }

    /// Up to `concurrency` ranged GETs in flight (a suffix in one request),
    /// values in request order.
    fn get_ranges(
        &self,
        requests: &[(StoreKey, ByteRange)],
    ) -> Result<Vec<Option<Bytes>>, StoreError> {
        self.in_flight(
            requests.to_vec(),
            |(key, _)| key,
            |remote, (key, range)| Self::fetch_range(remote, key, range),
        )
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities {
            partial_reads: true,
            listable: true,
            writable: self.writable,
            write_once: false,
            fetch_ahead: true,
        }
    }
}

impl ListableStore for ObjectKvStore {
    /// A delimiter listing (every page, within the list deadline).
    fn list_dir(&self, prefix: &StorePrefix) -> Result<Listing, StoreError> {
        self.settle()?;
        let store = self.remote.store().clone();
        let path = self.remote.path(prefix.as_str());
        let at = (!path.as_ref().is_empty()).then_some(path);
        let listed = self.listing(prefix, async move {
            store.list_with_delimiter(at.as_ref()).await
        })?;
        let mut out = Listing::default();
        for meta in &listed.objects {
            out.keys.push(self.listed_key(&meta.location, prefix)?);
        }
        for p in &listed.common_prefixes {
            out.prefixes.push(self.listed_key(p, prefix)?.into());
        }
        out.normalize();
        Ok(out)
    }
}

impl WritableStore for ObjectKvStore {
    /// Starts the upload in the background once a slot is free; returns
    /// the failure of an earlier upload, if any finished failing.
    fn put(&self, key: &StoreKey, value: Bytes) -> Result<(), StoreError> {
        self.refuse_write(key, "put")?;
        // Two uploads of one key must not race: the last put wins.
        self.settle_key(key)?;
        self.reap()?;
        let (slots, budget) = (self.slots.clone(), self.budget.clone());
        let kib = u32::try_from(value.len().div_ceil(1024))
            .unwrap_or(u32::MAX)
            .clamp(1, BUDGET_PERMITS);
        let permit = block_on(async move {
            let slot = slots.acquire_owned().await?;
            let memory = budget.acquire_many_owned(kib).await?;
            Ok::<_, tokio::sync::AcquireError>((slot, memory))
        });
        let permit = permit.map_err(|e| StoreError::Backend {
            key: key.to_string(),
            op: "put",
            source: SourceError::new(ErrorKind::Io, e),
        })?;
        let remote = self.remote.clone();
        let task_key = key.clone();
        let upload = spawn(async move {
            let r = Self::upload(remote, task_key, value).await;
            drop(permit);
            r
        });
        self.uploads().insert(key.clone(), upload);
        Ok(())
    }

    fn delete(&self, key: &StoreKey) -> Result<(), StoreError> {
        self.delete_all(std::slice::from_ref(key))
    }

    /// Waits for every upload; the first failure is the error.
    fn close(&self) -> Result<(), StoreError> {
        self.settle()
    }
}

impl Drop for ObjectKvStore {
    /// Uploads still under way finish (or fail) before the store goes, so
    /// that whoever cleans up after it sees every object it wrote.
    fn drop(&mut self) {
        let _ = self.settle();
    }
}
