//! A server that ignores `Range` (200 with the whole body): the body is
//! fetched once, streamed into memory (small objects) or a spill file,
//! never held twice, and every later read is served from that copy.

use std::io::Write;
use std::sync::Arc;

use futures::TryStreamExt;
use nctk_store::bytes::{ByteError, ByteSource, FileSource, MemSource};
use object_store::path::Path;
use object_store::{GetOptions, ObjectStore};

use super::{remote_error, request_error, RemoteSourceError};

/// Objects up to this size are copied into memory; larger ones into a
/// temporary file.
const IN_MEMORY: u64 = 16 << 20;

/// The local copy of a whole object.
pub(super) struct WholeCopy {
    /// The copy's bytes.
    pub(super) source: Box<dyn ByteSource>,
    /// The spill file, deleted when the copy is dropped.
    _spill: Option<tempfile::TempPath>,
}

/// Where the body is being written.
enum Sink {
    Memory(Vec<u8>),
    Spill(tempfile::NamedTempFile),
}

/// Fetches the whole object at `path` (whose HEAD said `expected` bytes)
/// and ETag `etag` with one GET without `Range`; `url` names it in errors.
pub(super) async fn fetch(
    store: Arc<dyn ObjectStore>,
    path: Path,
    url: String,
    expected: u64,
    etag: Option<String>,
) -> Result<WholeCopy, ByteError> {
    let request = |e| request_error(&url, 0, e);
    let options = GetOptions {
        if_match: etag,
        ..GetOptions::default()
    };
    let answer = store.get_opts(&path, options).await.map_err(request)?;
    let declared = answer.meta.size;
    let wrong_length = |got| {
        remote_error(
            &url,
            0,
            RemoteSourceError::WholeLength {
                expected,
                declared,
                got,
            },
        )
    };
    if declared != expected {
        return Err(wrong_length(0));
    }
    let spill_error = |e| remote_error(&url, 0, RemoteSourceError::Spill(e));
    let mut sink = if declared <= IN_MEMORY {
        Sink::Memory(Vec::with_capacity(declared as usize))
    } else {
        Sink::Spill(tempfile::NamedTempFile::new().map_err(spill_error)?)
    };
    let mut got = 0u64;
    let mut body = answer.into_stream();
    while let Some(chunk) = body.try_next().await.map_err(request)? {
        got += chunk.len() as u64;
        if got > declared {
            return Err(wrong_length(got));
        }
        match &mut sink {
            Sink::Memory(v) => v.extend_from_slice(&chunk),
            Sink::Spill(f) => f.write_all(&chunk).map_err(spill_error)?,
        }
    }
    if got != declared {
        return Err(wrong_length(got));
    }
    Ok(match sink {
        Sink::Memory(v) => WholeCopy {
            source: Box::new(MemSource::new(v)),
            _spill: None,
        },
        Sink::Spill(mut f) => {
            f.flush().map_err(spill_error)?;
            let path = f.into_temp_path();
            WholeCopy {
                source: Box::new(FileSource::open(&path)?),
                _spill: Some(path),
            }
        }
    })
}
