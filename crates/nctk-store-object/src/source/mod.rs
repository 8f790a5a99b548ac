//! One remote object (S3, or a file on an HTTP server) as a
//! [`ByteSource`]: the `#mode=bytes` access to single-file datasets.
//!
//! * `len` is one HEAD, cached with the object's (strong) ETag; every
//!   later GET asks for that version (`If-Match`), so an object replaced
//!   while it is read is an error, never a mix of two versions.
//! * Small reads (`read_at`, `read_full`: a header, a magic number) go
//!   through a bounded cache of aligned [`BLOCK`]-byte blocks (least
//!   recently used evicted; `RemoteOptions::cache_bytes` at most,
//!   [`CACHE_BLOCKS`] blocks by default), so a header read costs one
//!   request and the reads after it none.
//! * Batches (`read_ranges_into`) are merged as [`RemoteSource::coalesce`]
//!   says (gaps under 1 MiB read through), cut into parts of at most
//!   [`PART`] bytes and fetched with up to `concurrency` requests in
//!   flight; they use cached blocks when they hold a range whole, and
//!   bypass the cache otherwise, as do large reads.
//! * A server that ignores `Range` (200 with the whole body) is detected
//!   on the first range request: the body is then fetched once into a
//!   local copy (memory or a spill file) that serves every later read. A
//!   wrong `Content-Range` or a body of the wrong length is an error
//!   naming the URL and the offset, never wrong bytes.

mod cache;
mod whole;

use std::ops::Range;
use std::sync::{Arc, Mutex, OnceLock};

use bytes::Bytes;
use futures::{SinkExt, StreamExt};
use nctk_model::{ErrorKind, HasErrorKind, SourceError};
use nctk_store::bytes::{ByteError, ByteSource, Coalesce};
use object_store::path::Path;
use object_store::{GetOptions, ObjectStore, ObjectStoreExt};

use crate::{runtime, Remote, RemoteError};
use cache::BlockCache;
use whole::WholeCopy;

/// The size of a cached block, and the alignment of small reads.
pub const BLOCK: u64 = 1 << 20;

/// The number of blocks the cache holds (32 MiB).
pub const CACHE_BLOCKS: usize = 32;

/// The most bytes one request of a batch asks for: longer spans are cut
/// into parts fetched concurrently.
pub const PART: u64 = 2 << 20;

/// The bytes a reader hands a remote source in one batch.
pub const REMOTE_BATCH: u64 = 256 << 20;

/// How a remote source merges a batch's ranges: a request costs a round
/// trip (tens of milliseconds on a real object store), so gaps under
/// 1 MiB are read through; a merged span stays under 16 MiB (its parts
/// are fetched concurrently).
pub const REMOTE_COALESCE: Coalesce = Coalesce {
    gap: 1 << 20,
    alone_from: u64::MAX,
    max_span: 16 << 20,
};

/// A server answered a range request wrongly (the source of a
/// [`ByteError::Remote`]).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RemoteSourceError {
    /// The body of a range answer was not as long as the range asked for.
    #[error(
        "asked for bytes {start}..{end}, the server sent {got} bytes (a short or overlong body)"
    )]
    Length {
        /// First byte asked for.
        start: u64,
        /// End (exclusive) of the bytes asked for.
        end: u64,
        /// Bytes received.
        got: u64,
    },
    /// The server ignores `Range`, and its whole-object answer does not
    /// hold the bytes HEAD announced.
    #[error(
        "the server ignores Range; its whole answer declared {declared} bytes \
         and sent {got} where HEAD announced {expected}"
    )]
    WholeLength {
        /// The length HEAD announced.
        expected: u64,
        /// The length the GET declared.
        declared: u64,
        /// Bytes received (when the declared length agreed).
        got: u64,
    },
    /// The object was replaced while it was being read (HTTP 412 to a
    /// request for the version first seen).
    #[error("the object changed while it was being read")]
    Changed,
    /// The local copy of an object served by a server that ignores `Range`
    /// could not be written.
    #[error("cannot write the local copy of the object: {0}")]
    Spill(#[source] std::io::Error),
}

/// A body of the wrong length, or an object that changed while read, is
/// a wrong answer (invalid data); a local copy that cannot be written has
/// its I/O error's kind.
impl HasErrorKind for RemoteSourceError {
    fn kind(&self) -> ErrorKind {
        match self {
            RemoteSourceError::Length { .. }
            | RemoteSourceError::WholeLength { .. }
            | RemoteSourceError::Changed => ErrorKind::InvalidData,
            RemoteSourceError::Spill(e) => ErrorKind::of_io(e),
        }
    }
}

/// A [`ByteError::Remote`] for the object at `url`.
fn remote_error(url: &str, offset: u64, source: impl Into<SourceError>) -> ByteError {
    ByteError::Remote {
        path: url.to_string(),
        offset,
        source: source.into(),
    }
}

/// A [`ByteError::Remote`] for a request to the object at `url` that
/// failed: "changed" for a failed `If-Match`, else `object_store`'s error
/// classified ([`RemoteError`]).
fn request_error(url: &str, offset: u64, e: object_store::Error) -> ByteError {
    match e {
        object_store::Error::Precondition { .. } => {
            remote_error(url, offset, RemoteSourceError::Changed)
        }
        e => remote_error(url, offset, RemoteError::from_object_store(url, e)),
    }
}

/// What a batch of range requests brought back.
enum Fetched {
    /// Each part's offset and bytes, in the order asked (sorted).
    Parts(Vec<(u64, Bytes)>),
    /// The server ignores `Range`.
    RangeIgnored,
}

/// Whether `e` says the server answered a range request with the whole
/// object (200): `object_store`'s HTTP client reports it as not supported,
/// its S3 client as a non-partial response.
fn ignores_range(e: &object_store::Error) -> bool {
    match e {
        object_store::Error::NotSupported { .. } => true,
        object_store::Error::Generic { source, .. } => {
            source.to_string().contains("non-partial response")
        }
        _ => false,
    }
}

/// `span` cut into consecutive parts of at most [`PART`] bytes.
fn parts(span: Range<u64>) -> impl Iterator<Item = Range<u64>> {
    (span.start..span.end)
        .step_by(PART as usize)
        .map(move |s| s..(s + PART).min(span.end))
}

/// Copies the bytes from `offset` out of `parts` (sorted, `(offset, bytes)`)
/// into `dst` until it is full or the parts stop being contiguous; returns
/// how many were copied.
fn copy_out(parts: &[(u64, Bytes)], offset: u64, dst: &mut [u8]) -> usize {
    let mut i = parts.partition_point(|(s, b)| s + b.len() as u64 <= offset);
    let mut done = 0;
    while done < dst.len() && i < parts.len() {
        let (start, bytes) = &parts[i];
        let pos = offset + done as u64;
        if pos < *start {
            break;
        }
        let from = (pos - start) as usize;
        let n = bytes.len().saturating_sub(from).min(dst.len() - done);
        dst[done..done + n].copy_from_slice(&bytes[from..from + n]);
        done += n;
        i += 1;
    }
    done
}

/// One object of a [`Remote`] read by range requests.
pub struct RemoteSource {
    store: Arc<dyn ObjectStore>,
    path: Path,
    url: String,
    concurrency: usize,
    /// The length and the strong ETag (if any) HEAD gave.
    meta: OnceLock<(u64, Option<String>)>,
    cache: Mutex<BlockCache>,
    /// The local copy, once the server turned out to ignore `Range`.
    whole: Mutex<Option<Arc<WholeCopy>>>,
}

impl std::fmt::Debug for RemoteSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RemoteSource")
            .field("url", &self.url)
            .finish_non_exhaustive()
    }
}

/// The whole blocks `options` let a source's cache hold.
fn cache_blocks(options: &crate::RemoteOptions) -> usize {
    usize::try_from(options.cache_bytes / BLOCK).unwrap_or(usize::MAX)
}

impl RemoteSource {
    /// The object `key` of `remote` (no request is made until a read).
    pub fn new(remote: &Remote, key: &str) -> Self {
        RemoteSource {
            store: remote.store().clone(),
            path: remote.path(key),
            url: remote.key_url(key),
            concurrency: remote.options().concurrency.max(1),
            meta: OnceLock::new(),
            cache: Mutex::new(BlockCache::new(cache_blocks(remote.options()))),
            whole: Mutex::new(None),
        }
    }

    /// The object's URL.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The local copy, when the server was found to ignore `Range`.
    fn copy(&self) -> Option<Arc<WholeCopy>> {
        self.whole.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// The local copy, fetched now (once, other readers waiting) if needed.
    fn make_copy(&self) -> Result<Arc<WholeCopy>, ByteError> {
        let mut slot = self.whole.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(copy) = &*slot {
            return Ok(copy.clone());
        }
        let (len, etag) = self.meta()?;
        let fetch = whole::fetch(
            self.store.clone(),
            self.path.clone(),
            self.url.clone(),
            len,
            etag,
        );
        let copy = Arc::new(runtime::block_on(fetch)?);
        *slot = Some(copy.clone());
        Ok(copy)
    }

    /// Fetches `spans` (non-empty) with up to `concurrency` requests in
    /// flight and hands each answer, checked for length, to `take` (its
    /// span's index and bytes) on the calling thread as it arrives, so that
    /// copying overlaps the transfers and at most `concurrency` answers
    /// wait in memory. `Ok(false)` when the server ignores `Range`.
    fn fetch_each(
        &self,
        spans: Vec<Range<u64>>,
        mut take: impl FnMut(usize, Bytes),
    ) -> Result<bool, ByteError> {
        let (_, etag) = self.meta()?;
        let store = self.store.clone();
        let path = self.path.clone();
        let concurrency = self.concurrency;
        let (mut tx, mut rx) = futures::channel::mpsc::channel(concurrency);
        let task = runtime::spawn(async move {
            let mut answers = futures::stream::iter(spans.into_iter().enumerate())
                .map(|(i, r)| {
                    let (store, path) = (store.clone(), path.clone());
                    let options = GetOptions {
                        range: Some(r.clone().into()),
                        if_match: etag.clone(),
                        ..GetOptions::default()
                    };
                    async move {
                        let answer = match store.get_opts(&path, options).await {
                            Ok(answer) => answer.bytes().await,
                            Err(e) => Err(e),
                        };
                        answer.map(|b| (i, r.clone(), b)).map_err(|e| (r.start, e))
                    }
                })
                .buffer_unordered(concurrency);
            while let Some(answer) = answers.next().await {
                let failed = answer.is_err();
                if tx.send(answer).await.is_err() || failed {
                    break;
                }
            }
        });
        let outcome = loop {
            match futures::executor::block_on(rx.next()) {
                None => break Ok(true),
                Some(Ok((i, r, bytes))) => {
                    let got = bytes.len() as u64;
                    if got != r.end - r.start {
                        let e = RemoteSourceError::Length {
                            start: r.start,
                            end: r.end,
                            got,
                        };
                        break Err(remote_error(&self.url, r.start, e));
                    }
                    take(i, bytes);
                }
                Some(Err((_, e))) if ignores_range(&e) => break Ok(false),
                Some(Err((offset, e))) => break Err(request_error(&self.url, offset, e)),
            }
        };
        // Stops the requests still in flight after a failure.
        task.abort();
        outcome
    }

    /// Fetches `spans` (sorted, non-empty) as [`fetch_each`](Self::fetch_each)
    /// does, keeping every answer.
    fn fetch(&self, spans: Vec<Range<u64>>) -> Result<Fetched, ByteError> {
        let starts: Vec<u64> = spans.iter().map(|r| r.start).collect();
        let mut parts = Vec::with_capacity(spans.len());
        if !self.fetch_each(spans, |i, bytes| parts.push((starts[i], bytes)))? {
            return Ok(Fetched::RangeIgnored);
        }
        parts.sort_by_key(|(start, _)| *start);
        Ok(Fetched::Parts(parts))
    }

    /// The bytes `offset..end` (inside the object) through the block cache,
    /// when every block they lie in is cached.
    fn cached(&self, offset: u64, end: u64, dst: &mut [u8]) -> Option<usize> {
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        let blocks = (offset / BLOCK..=(end - 1) / BLOCK)
            .map(|b| Some((b * BLOCK, cache.get(b)?)))
            .collect::<Option<Vec<_>>>()?;
        Some(copy_out(&blocks, offset, dst))
    }

    /// A small read of `offset..end` (inside an object of `len` bytes):
    /// the blocks it lies in, fetched (and kept) when not cached.
    fn read_cached(
        &self,
        offset: u64,
        end: u64,
        len: u64,
        dst: &mut [u8],
    ) -> Result<usize, ByteError> {
        let mut have = Vec::new();
        let mut missing = Vec::new();
        {
            let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
            for b in offset / BLOCK..=(end - 1) / BLOCK {
                match cache.get(b) {
                    Some(data) => have.push((b * BLOCK, data)),
                    None => missing.push(b * BLOCK..((b + 1) * BLOCK).min(len)),
                }
            }
        }
        if !missing.is_empty() {
            let Fetched::Parts(fetched) = self.fetch(missing)? else {
                return self.make_copy()?.source.read_full(offset, dst);
            };
            let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
            for (start, data) in &fetched {
                cache.insert(start / BLOCK, data.clone());
            }
            have.extend(fetched);
            have.sort_by_key(|(start, _)| *start);
        }
        Ok(copy_out(&have, offset, dst))
    }
}

impl RemoteSource {
    /// The object's length and strong ETag: one HEAD, then cached. A weak
    /// ETag (`W/"..."`) is not kept: `If-Match` never matches one.
    fn meta(&self) -> Result<(u64, Option<String>), ByteError> {
        if let Some(meta) = self.meta.get() {
            return Ok(meta.clone());
        }
        let (store, path) = (self.store.clone(), self.path.clone());
        let meta = runtime::block_on(async move { store.head(&path).await })
            .map_err(|e| request_error(&self.url, 0, e))?;
        let etag = meta.e_tag.filter(|t| !t.starts_with("W/"));
        Ok(self.meta.get_or_init(|| (meta.size, etag)).clone())
    }
}

impl ByteSource for RemoteSource {
    fn len(&self) -> Result<u64, ByteError> {
        Ok(self.meta()?.0)
    }

    /// Reads as much of `buf` as the object holds from `offset` (never
    /// fewer bytes than that).
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<usize, ByteError> {
        if let Some(copy) = self.copy() {
            return copy.source.read_full(offset, buf);
        }
        let len = self.len()?;
        if offset >= len || buf.is_empty() {
            return Ok(0);
        }
        let end = offset.saturating_add(buf.len() as u64).min(len);
        let dst = &mut buf[..(end - offset) as usize];
        if end - offset < BLOCK {
            return self.read_cached(offset, end, len, dst);
        }
        Ok(self.read_ranges_into(&mut [(offset, dst)])?[0])
    }

    fn read_full(&self, offset: u64, buf: &mut [u8]) -> Result<usize, ByteError> {
        self.read_at(offset, buf)
    }

    fn name(&self) -> String {
        self.url.clone()
    }

    fn coalesce(&self) -> Coalesce {
        REMOTE_COALESCE
    }

    /// Large: a batch costs a round trip, and its parts land straight in
    /// the caller's buffers (at most `concurrency` parts wait in memory).
    fn batch_bytes(&self) -> u64 {
        REMOTE_BATCH
    }

    fn read_ranges(&self, ranges: &[Range<u64>]) -> Result<Vec<Bytes>, ByteError> {
        let len = self.len()?;
        let mut bufs = Vec::with_capacity(ranges.len());
        for r in ranges {
            let n = r.end.min(len).saturating_sub(r.start);
            let n = usize::try_from(n).map_err(|_| ByteError::TooLarge {
                path: self.url.clone(),
                offset: r.start,
                len: n,
            })?;
            bufs.push(vec![0u8; n]);
        }
        let mut reads: Vec<(u64, &mut [u8])> = ranges
            .iter()
            .zip(bufs.iter_mut())
            .map(|(r, b)| (r.start, b.as_mut_slice()))
            .collect();
        let got = self.read_ranges_into(&mut reads)?;
        Ok(bufs
            .into_iter()
            .zip(got)
            .map(|(mut b, n)| {
                b.truncate(n);
                Bytes::from(b)
            })
            .collect())
    }

    fn read_ranges_into(&self, reads: &mut [(u64, &mut [u8])]) -> Result<Vec<usize>, ByteError> {
        if let Some(copy) = self.copy() {
            return copy.source.read_ranges_into(reads);
        }
        let len = self.len()?;
        let mut got = vec![0usize; reads.len()];
        // The ranges the cache cannot serve whole: (index, clipped range).
        let mut misses: Vec<(usize, Range<u64>)> = Vec::new();
        for (i, (offset, buf)) in reads.iter_mut().enumerate() {
            let end = offset.saturating_add(buf.len() as u64).min(len);
            if *offset >= end {
                continue;
            }
            match self.cached(*offset, end, buf) {
                Some(n) => got[i] = n,
                None => misses.push((i, *offset..end)),
            }
        }
        if misses.is_empty() {
            return Ok(got);
        }
        let ranges: Vec<Range<u64>> = misses.iter().map(|(_, r)| r.clone()).collect();
        let (order, requests) = self.coalesce().plan(&ranges);
        // Each part's span, and the positions (in `order`) of the ranges
        // its request covers.
        let (spans, covers): (Vec<Range<u64>>, Vec<Range<usize>>) = requests
            .into_iter()
            .flat_map(|(span, covered)| parts(span).map(move |p| (p, covered.clone())))
            .unzip();
        let starts: Vec<u64> = spans.iter().map(|r| r.start).collect();
        let complete = self.fetch_each(spans, |i, bytes| {
            let part = starts[i]..starts[i] + bytes.len() as u64;
            for &m in &order[covers[i].clone()] {
                let (read, r) = &misses[m];
                let (from, to) = (r.start.max(part.start), r.end.min(part.end));
                if from < to {
                    let dst =
                        &mut reads[*read].1[(from - r.start) as usize..(to - r.start) as usize];
                    dst.copy_from_slice(
                        &bytes[(from - part.start) as usize..(to - part.start) as usize],
                    );
                }
            }
        })?;
        if complete {
            for (i, r) in misses {
                got[i] = (r.end - r.start) as usize;
            }
        } else {
            let copy = self.make_copy()?;
            for (i, _) in misses {
                let (offset, buf) = &mut reads[i];
                got[i] = copy.source.read_full(*offset, buf)?;
            }
        }
        Ok(got)
    }
}
