//! The format table: one entry per container (classic family,
//! block-compressed classic, HDF5, Zarr/NCZarr, ncstream, cdmremote) saying
//! how it is recognised, opened from a byte source (or a store), created on
//! a sink, and what `ncdump -k` calls its datasets. [`crate::open`],
//! [`crate::open_mem`], [`crate::kind`] and [`crate::create`] all go
//! through it, and nothing else in the facade matches on formats: adding a
//! format is one entry here plus its crate (docs/architecture.md walks
//! through it).
//!
//! Every entry is always in the table; an entry whose crate a cargo
//! feature leaves out still recognises its files and answers every
//! request with a clear "built without the `X` feature" error.

mod cdmremote;
mod classic;
mod compressed;
mod hdf5;
mod ncstream;
mod zarr;

use std::path::Path;
use std::sync::Arc;

use nctk_model::{ChunkRefs, Format, Schema, VarId};
use nctk_store::bytes::{ByteSource, MemSource};

use crate::output::{CreateOptions, OutputError, Sink};
use crate::{Container, Dataset, Error, OpenOptions};

pub(crate) use zarr::open_store;

/// What every entry of the table does. Only [`FormatEntry::name`],
/// [`FormatEntry::holds`] and [`FormatEntry::open`] are required; the rest
/// have the defaults most formats want.
pub(crate) trait FormatEntry: Sync {
    /// The container's name in messages ("classic", "HDF5", ...).
    fn name(&self) -> &'static str;

    /// True when this entry reads and writes `container`.
    fn holds(&self, container: Container) -> bool;

    /// The container whose magic number starts `bytes`, when it is this
    /// entry's (at most the first 8 bytes are given).
    fn recognise(&self, _bytes: &[u8]) -> Option<Container> {
        None
    }

    /// The container found past the first bytes of `source` (HDF5 after a
    /// user block), when [`recognise`](Self::recognise) found none.
    fn find(&self, _source: &dyn ByteSource) -> Result<Option<Container>, Error> {
        Ok(None)
    }

    /// Opens the dataset in the single file `source` (named `name` in
    /// errors).
    fn open(&self, source: Arc<dyn ByteSource>, name: &str) -> Result<Dataset, Error>;

    /// Opens the dataset in a file's bytes held in memory.
    fn open_bytes(&self, bytes: bytes_crate::Bytes, name: &str) -> Result<Dataset, Error> {
        self.open(Arc::new(MemSource::new(bytes).with_name(name)), name)
    }

    /// The netCDF format of the file `source`, reading no more than it
    /// needs (by default: the opened dataset's).
    fn kind(&self, source: Arc<dyn ByteSource>, name: &str) -> Result<Format, Error> {
        self.open(source, name).map(|d| d.format())
    }

    /// Where the stored bytes of each chunk of `var` are in the file or
    /// store `dataset` was opened from ([`crate::chunk_refs`]): by default the
    /// container has no references.
    fn chunk_refs(&self, dataset: &Dataset, var: VarId) -> Result<ChunkRefs, Error> {
        let _ = var;
        Err(Error::Unsupported {
            path: dataset.name().to_string(),
            reason: format!(
                "references to the chunks of a {} dataset are not supported",
                self.name()
            ),
        })
    }

    /// Refuses an output at `path` before any work (as nccopy refuses
    /// the output first) when the container cannot be written; by default
    /// it is read-only.
    fn check_writable(&self, path: &Path) -> Result<(), OutputError> {
        Err(read_only(self.name(), path))
    }

    /// Creates the writer of a new dataset, as `request` says; by default
    /// the container is read-only (entries that write override both this
    /// and [`check_writable`](Self::check_writable)).
    fn create(&self, request: &CreateRequest<'_>) -> Result<Sink, OutputError> {
        self.check_writable(request.path)?;
        Err(read_only(self.name(), request.path))
    }
}

/// The error of a container nctk reads but does not write.
fn read_only(name: &'static str, path: &Path) -> OutputError {
    OutputError::Unsupported {
        path: path.display().to_string(),
        format: name,
        reason: "nctk reads this container but does not write it".into(),
    }
}

/// What a writer is created with (the output side's [`crate::output`]
/// fills it in).
pub(crate) struct CreateRequest<'a> {
    /// Where the bytes go (a temporary beside `target`, or a store).
    pub(crate) path: &'a Path,
    /// The output's final name (an ncstream's header carries it).
    pub(crate) target: &'a Path,
    /// A zip archive rather than a directory (stores only).
    pub(crate) zip: bool,
    /// The container being written.
    pub(crate) container: Container,
    /// The netCDF format being written (a container may hold several;
    /// only the HDF5 writer tells them apart).
    #[cfg_attr(not(feature = "hdf5"), allow(dead_code))]
    pub(crate) format: Format,
    /// Every definition of the dataset.
    pub(crate) schema: &'a Schema,
    /// How it is written.
    pub(crate) options: &'a CreateOptions,
}

/// The table. The order is the order magic numbers are tried in.
static FORMATS: &[&dyn FormatEntry] = &[
    &ncstream::NcStream,
    &compressed::Compressed,
    &classic::Classic,
    &hdf5::Hdf5,
    &zarr::Zarr,
    &cdmremote::CdmRemote,
];

/// The entry that reads and writes `container`.
pub(crate) fn entry(container: Container) -> &'static dyn FormatEntry {
    FORMATS
        .iter()
        .copied()
        .find(|f| f.holds(container))
        .unwrap_or_else(|| unreachable!("the table has an entry for {container:?}"))
}

/// The container whose magic number starts `bytes`, if any entry's.
pub(crate) fn recognise(bytes: &[u8]) -> Option<Container> {
    FORMATS.iter().find_map(|f| f.recognise(bytes))
}

/// What the single file `source` holds: by its first bytes, else by what
/// an entry finds further in; an error naming the file when neither.
pub(crate) fn recognise_source(source: &dyn ByteSource) -> Result<Container, Error> {
    let mut magic = [0u8; 8];
    let n = source.read_full(0, &mut magic).map_err(|e| Error::Source {
        path: source.name(),
        source: e.into(),
    })?;
    if let Some(container) = recognise(&magic[..n]) {
        return Ok(container);
    }
    for entry in FORMATS {
        if let Some(container) = entry.find(source)? {
            return Ok(container);
        }
    }
    Err(Error::Open {
        path: source.name(),
        reason: ncstream::unknown_magic_reason(source, &magic[..n]),
    })
}

/// Opens the single file `source` (named `name`) with the entry its
/// container names, as `options` asks.
pub(crate) fn open_source(
    source: Arc<dyn ByteSource>,
    name: &str,
    options: &OpenOptions,
) -> Result<(Dataset, Container), Error> {
    let container = recognise_source(source.as_ref())?;
    let entry = entry(container);
    let dataset = if options.in_memory {
        let bytes = source
            .len()
            .and_then(|len| source.read_range(0..len))
            .map_err(|e| Error::Source {
                path: name.to_string(),
                source: e.into(),
            })?;
        entry.open_bytes(bytes, name)?
    } else {
        entry.open(source, name)?
    };
    Ok((dataset.in_container(container).named(name), container))
}

/// Opens a file's bytes held in memory (named `name`).
pub(crate) fn open_bytes(name: &str, bytes: bytes_crate::Bytes) -> Result<Dataset, Error> {
    let Some(container) = recognise(&bytes[..bytes.len().min(8)]) else {
        let source = MemSource::new(bytes).with_name(name);
        return open_source(Arc::new(source), name, &OpenOptions::default()).map(|(d, _)| d);
    };
    entry(container)
        .open_bytes(bytes, name)
        .map(|d| d.in_container(container).named(name))
}

/// The netCDF format of the single file `source`.
pub(crate) fn kind_of_source(source: Arc<dyn ByteSource>, name: &str) -> Result<Format, Error> {
    let container = recognise_source(source.as_ref())?;
    entry(container).kind(source, name)
}

/// A format reader's or writer's error opening `path`, kept as the source.
pub(crate) fn open_error(path: &str, e: impl Into<nctk_model::SourceError>) -> Error {
    Error::Source {
        path: path.to_string(),
        source: e.into(),
    }
}

/// The error of an entry whose crate this build leaves out.
#[allow(dead_code)] // used only by builds without some feature
pub(crate) fn built_without(path: &str, what: &str, feature: &str) -> Error {
    Error::Unsupported {
        path: path.to_string(),
        reason: format!(
            "{what}: this nctk was built without the `{feature}` feature \
             (enable it in Cargo.toml: nctk = {{ features = [\"{feature}\"] }})"
        ),
    }
}

/// The references of `var` through the reader of `dataset`, whose
/// offsets are the file's own (the entries of containers read from their
/// own bytes call it).
fn source_chunk_refs(dataset: &Dataset, var: VarId) -> Result<ChunkRefs, Error> {
    dataset
        .source()
        .chunk_refs(var)
        .map_err(|e| open_error(dataset.name(), e))
}

/// Where the stored bytes of each chunk of `var` are in the file
/// `dataset` was opened from, through its container's entry.
pub(crate) fn chunk_refs(dataset: &Dataset, var: VarId) -> Result<ChunkRefs, Error> {
    match dataset.container() {
        Some(container) => entry(container).chunk_refs(dataset, var),
        None => Err(Error::Unsupported {
            path: dataset.name().to_string(),
            reason: "references need a dataset opened from a file".into(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_container_has_one_entry() {
        let containers = [
            Container::Classic(Format::Classic),
            Container::Classic(Format::Offset64),
            Container::Classic(Format::Cdf5),
            Container::Compressed,
            Container::Hdf5,
            Container::Zarr,
            Container::NcStream,
            Container::CdmRemote,
        ];
        for c in containers {
            let holders = FORMATS.iter().filter(|f| f.holds(c)).count();
            assert_eq!(holders, 1, "{c:?} has {holders} entries");
        }
    }

    #[test]
    fn magic_numbers() {
        let classic = |f| Some(Container::Classic(f));
        assert_eq!(recognise(b"CDF\x01\0\0\0\0"), classic(Format::Classic));
        assert_eq!(recognise(b"CDF\x02"), classic(Format::Offset64));
        assert_eq!(recognise(b"CDF\x05"), classic(Format::Cdf5));
        assert_eq!(recognise(b"\x89HDF\r\n\x1a\n"), Some(Container::Hdf5));
        assert_eq!(recognise(b"CDF\x03"), None);
        assert_eq!(recognise(b"\x89NCB\r\n\x1a\n"), Some(Container::Compressed));
        // A prefix of the magic is not enough.
        assert_eq!(recognise(b"\x89NCB"), None);
        assert_eq!(recognise(b"CDFS\xad\xec"), Some(Container::NcStream));
        assert_eq!(
            recognise(&[0xad, 0xec, 0xce, 0xda, 0x10]),
            Some(Container::NcStream)
        );
        // A data response alone is not a dataset: it needs its header.
        assert_eq!(recognise(&[0xab, 0xec, 0xce, 0xba]), None);
        assert_eq!(recognise(b"PK\x03\x04"), Some(Container::Zarr));
        assert_eq!(recognise(b""), None);
    }
}
