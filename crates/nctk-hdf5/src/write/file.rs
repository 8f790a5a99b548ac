//! [`Hdf5Writer`]: an HDF5 file made over a [`ByteSink`]. Data goes to
//! the sink as it is written (contiguous blocks allocated on first write,
//! chunks encoded on every core and appended, [`super::chunks`]); the
//! metadata (chunk B-trees, object headers, the superblock) is written
//! by [`Hdf5Writer::finish`], headers after the data and the superblock
//! last, so a file whose `finish` did not end has no valid superblock.

use std::collections::BTreeMap;
use std::sync::Arc;

use nctk_codec::{Codec, CodecContext, Pipeline};
use nctk_store::bytes::ByteSink;

use super::attribute::{self, AttrValue, AttributeSpec};
use super::chunks::{ChunkQueue, DEFAULT_MEMORY};
use super::error::{WriteError, WriteResult};
use super::layout::{self, StoredLayout};
use super::object_header::{self, Message};
use super::{btree, dataspace, datatype, fill, heap, link, superblock};

/// A null variable-length element (a null string, an empty sequence) as
/// HDF5 writes it: count 0, collection address 0, object index 0; no
/// heap object.
pub const NULL_VLEN: [u8; 16] = [0; 16];
use crate::dataspace::Dataspace;
use crate::datatype::Datatype;
use crate::fill::FillValue;
use crate::filter::Filter;
use crate::object_header::kind;

/// An object (group or dataset) of the file being written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ObjectId(usize);

impl ObjectId {
    /// The root group.
    pub const ROOT: ObjectId = ObjectId(0);
}

/// How a dataset is stored.
#[derive(Debug, Clone, PartialEq)]
pub enum Storage {
    /// In the object header, held in memory until then (at most
    /// [`layout::MAX_COMPACT_BYTES`]).
    Compact,
    /// One block, allocated when first written.
    Contiguous,
    /// Chunks of `chunk` elements, each passed through `filters` in order.
    Chunked {
        /// The chunk lengths.
        chunk: Vec<u64>,
        /// The filter pipeline.
        filters: Vec<Filter>,
    },
}

/// A dataset's definition.
#[derive(Debug, Clone, PartialEq)]
pub struct DatasetSpec {
    /// Its element type.
    pub datatype: Datatype,
    /// Its shape (simple, with maximum dimensions when unlimited).
    pub dataspace: Dataspace,
    /// Its fill value settings.
    pub fill: FillValue,
    /// How it is stored.
    pub storage: Storage,
    /// The committed (named) datatype `datatype` is, when it is one
    /// ([`Hdf5Writer::add_named_datatype`]): the dataset then refers to it.
    pub named_type: Option<ObjectId>,
}

#[derive(Debug)]
struct Object {
    name: String,
    attributes: Vec<AttributeSpec>,
    body: Body,
}

#[derive(Debug)]
enum Body {
    Group(Vec<ObjectId>),
    Dataset(Box<Dataset>),
    Datatype(Datatype),
}

#[derive(Debug)]
struct Dataset {
    spec: DatasetSpec,
    element_size: u64,
    /// The contiguous block's address, once allocated.
    block: Option<u64>,
    /// A compact dataset's bytes.
    compact: Vec<u8>,
    pipeline: Option<Arc<Pipeline>>,
    btree: u64,
}

impl Dataset {
    /// The bytes of a whole chunk at `offset` (a chunked dataset's,
    /// aligned on its chunk grid), else an error.
    fn chunk_bytes(&self, offset: &[u64]) -> WriteResult<u64> {
        let Storage::Chunked { chunk, .. } = &self.spec.storage else {
            return Err(WriteError::Invalid(
                "a chunk of a contiguous dataset".into(),
            ));
        };
        let aligned =
            offset.len() == chunk.len() && offset.iter().zip(chunk).all(|(o, c)| o % c == 0);
        if !aligned {
            return Err(WriteError::Invalid(format!(
                "chunk at {offset:?} (chunks of {chunk:?})"
            )));
        }
        Ok(chunk.iter().product::<u64>() * self.element_size)
    }
}

/// An HDF5 file being written: groups, datasets and attributes defined
/// in any order, data written by byte ranges or whole chunks.
pub struct Hdf5Writer {
    sink: Arc<dyn ByteSink>,
    /// The end of the file, once the chunks have landed (until then the
    /// chunk queue allocates).
    eof: u64,
    objects: Vec<Object>,
    chunks: ChunkQueue,
    heap: heap::Collections,
}

impl Hdf5Writer {
    /// A new file over `sink` (which should be empty) with an empty root group.
    pub fn new(sink: Arc<dyn ByteSink>) -> Hdf5Writer {
        Hdf5Writer::with_memory(sink, DEFAULT_MEMORY)
    }

    /// A new file over `sink` whose chunks being encoded hold at most
    /// `memory` bytes (decoded, working and encoded copies; one chunk
    /// always may be in flight).
    pub fn with_memory(sink: Arc<dyn ByteSink>, memory: usize) -> Hdf5Writer {
        Hdf5Writer {
            chunks: ChunkQueue::new(sink.clone(), superblock::SIZE, memory),
            sink,
            eof: superblock::SIZE,
            objects: vec![Object {
                name: String::new(),
                attributes: Vec::new(),
                body: Body::Group(Vec::new()),
            }],
            heap: heap::Collections::default(),
        }
    }

    /// Stores a variable-length value in the global heap (`bytes`: a
    /// string's bytes, or the `count` elements of a sequence) and returns
    /// what a dataset or attribute element holds for it: the count, the
    /// collection's address and the object's index. Collections are
    /// written as they fill.
    pub fn put_vlen(&mut self, count: u32, bytes: Vec<u8>) -> WriteResult<[u8; 16]> {
        let chunks = &self.chunks;
        let ((addr, index), closed) = self.heap.insert(bytes, |n| chunks.alloc(n));
        if let Some(c) = closed {
            self.put(c.addr, &c.encode(), "global heap")?;
        }
        let mut e = super::encode::Enc::new();
        e.u32(count).u64(addr).u32(index);
        Ok(e.into_bytes().try_into().expect("16 bytes"))
    }

    /// Adds a group `name` in `parent`.
    pub fn add_group(&mut self, parent: ObjectId, name: &str) -> WriteResult<ObjectId> {
        self.add(parent, name, Body::Group(Vec::new()))
    }

    /// Adds a committed (named) datatype `name` in `parent`, which
    /// datasets and attributes may then refer to (their `named_type`).
    pub fn add_named_datatype(
        &mut self,
        parent: ObjectId,
        name: &str,
        datatype: Datatype,
    ) -> WriteResult<ObjectId> {
        datatype::encode(&datatype)?;
        self.add(parent, name, Body::Datatype(datatype))
    }

    /// The committed datatype `named`, checked to be `datatype`.
    fn check_named(&self, named: Option<ObjectId>, datatype: &Datatype) -> WriteResult<()> {
        let Some(n) = named else {
            return Ok(());
        };
        match self.objects.get(n.0).map(|o| &o.body) {
            Some(Body::Datatype(dt)) if dt == datatype => Ok(()),
            _ => Err(WriteError::Invalid(format!(
                "{named:?} is not a committed datatype {datatype:?}"
            ))),
        }
    }

    /// Adds a dataset `name` in `parent`.
    pub fn add_dataset(
        &mut self,
        parent: ObjectId,
        name: &str,
        spec: DatasetSpec,
    ) -> WriteResult<ObjectId> {
        datatype::encode(&spec.datatype)?;
        self.check_named(spec.named_type, &spec.datatype)?;
        let element_size = u64::from(spec.datatype.size());
        let total = spec.dataspace.element_count().unwrap_or(u64::MAX) * element_size;
        let mut compact = Vec::new();
        if spec.storage == Storage::Compact {
            if total > layout::MAX_COMPACT_BYTES {
                return Err(WriteError::Invalid(format!(
                    "dataset {name:?}: {total} bytes are too many for compact storage (at most {})",
                    layout::MAX_COMPACT_BYTES
                )));
            }
            let fill = spec.fill.value.as_deref().filter(|v| !v.is_empty());
            compact = match fill {
                Some(v) if spec.fill.fill_time != 1 => v.repeat((total / v.len() as u64) as usize),
                _ => vec![0; total as usize],
            };
        }
        let pipeline = match &spec.storage {
            Storage::Contiguous | Storage::Compact => None,
            Storage::Chunked { chunk, filters } => {
                if chunk.len() != spec.dataspace.dims.len() || chunk.contains(&0) {
                    return Err(WriteError::Invalid(format!(
                        "dataset {name:?}: chunk {chunk:?} for shape {:?}",
                        spec.dataspace.dims
                    )));
                }
                let ctx = CodecContext::new(element_size as usize);
                let filters = filters
                    .iter()
                    .map(|f| Codec::from_hdf5(u32::from(f.id), &f.params, &ctx))
                    .collect::<Result<Vec<_>, _>>()?;
                Some(Arc::new(Pipeline {
                    filters,
                    compressor: None,
                }))
            }
        };
        let ds = Dataset {
            spec,
            element_size,
            block: None,
            compact,
            pipeline,
            btree: super::encode::UNDEFINED,
        };
        self.add(parent, name, Body::Dataset(Box::new(ds)))
    }

    fn add(&mut self, parent: ObjectId, name: &str, body: Body) -> WriteResult<ObjectId> {
        if name.is_empty() || name.contains('/') || name == "." {
            return Err(WriteError::Invalid(format!("object name {name:?}")));
        }
        let id = ObjectId(self.objects.len());
        let taken = self
            .children(parent)?
            .iter()
            .any(|c| self.objects[c.0].name == name);
        if taken {
            return Err(WriteError::Invalid(format!(
                "a second object named {name:?}"
            )));
        }
        self.objects.push(Object {
            name: name.to_string(),
            attributes: Vec::new(),
            body,
        });
        if let Body::Group(children) = &mut self.objects[parent.0].body {
            children.push(id);
        }
        Ok(id)
    }

    fn children(&self, group: ObjectId) -> WriteResult<&[ObjectId]> {
        match self.objects.get(group.0).map(|o| &o.body) {
            Some(Body::Group(c)) => Ok(c),
            _ => Err(WriteError::Invalid(format!("{group:?} is not a group"))),
        }
    }

    /// Adds an attribute to `object`, after those given before (its
    /// creation order).
    pub fn add_attribute(&mut self, object: ObjectId, attr: AttributeSpec) -> WriteResult<()> {
        let expected =
            attr.dataspace.element_count().unwrap_or(u64::MAX) * u64::from(attr.datatype.size());
        if attr.value.stored_len() as u64 != expected {
            return Err(WriteError::Invalid(format!(
                "attribute {:?}: {} bytes for {expected}",
                attr.name,
                attr.value.stored_len()
            )));
        }
        attribute::encode(&attr, &vec![0; attr.value.stored_len()], None)?;
        self.check_named(attr.named_type, &attr.datatype)?;
        if let Some(bad) = self
            .referenced(&attr.value)
            .find(|r| r.0 >= self.objects.len())
        {
            return Err(WriteError::Invalid(format!(
                "a reference to no object ({bad:?})"
            )));
        }
        let obj = self
            .objects
            .get_mut(object.0)
            .ok_or_else(|| WriteError::Invalid(format!("no object {object:?}")))?;
        if obj.attributes.iter().any(|a| a.name == attr.name) {
            return Err(WriteError::Invalid(format!(
                "a second attribute {:?}",
                attr.name
            )));
        }
        obj.attributes.push(attr);
        Ok(())
    }

    fn referenced<'a>(&self, value: &'a AttrValue) -> Box<dyn Iterator<Item = ObjectId> + 'a> {
        match value {
            AttrValue::Bytes(_) => Box::new(std::iter::empty()),
            AttrValue::ReferenceList(r) => Box::new(r.iter().map(|(o, _)| *o)),
            AttrValue::ReferenceSequences(s) => Box::new(s.iter().flatten().copied()),
            AttrValue::VarStrings(_) => Box::new(std::iter::empty()),
        }
    }

    fn dataset(&mut self, id: ObjectId) -> WriteResult<&mut Dataset> {
        match self.objects.get_mut(id.0).map(|o| &mut o.body) {
            Some(Body::Dataset(d)) => Ok(d),
            _ => Err(WriteError::Invalid(format!("{id:?} is not a dataset"))),
        }
    }

    fn alloc(&mut self, len: u64) -> u64 {
        self.chunks.alloc(len)
    }

    fn put(&self, at: u64, bytes: &[u8], what: &str) -> WriteResult<()> {
        self.sink
            .write_at(at, bytes)
            .map_err(|source| WriteError::Io {
                what: what.to_string(),
                source,
            })
    }

    /// Writes `bytes` (file byte order) at byte `offset` of the contiguous
    /// dataset `id`, allocating its block on the first write (or of the
    /// compact dataset `id`, in memory until [`finish`](Self::finish)).
    pub fn write_contiguous(&mut self, id: ObjectId, offset: u64, bytes: &[u8]) -> WriteResult<()> {
        let ds = self.dataset(id)?;
        if ds.spec.storage == Storage::Compact {
            let end = offset.saturating_add(bytes.len() as u64);
            let Some(to) = ds.compact.get_mut(offset as usize..end as usize) else {
                return Err(WriteError::Invalid(format!(
                    "{} bytes at {offset} of a {}-byte dataset",
                    bytes.len(),
                    ds.compact.len()
                )));
            };
            to.copy_from_slice(bytes);
            return Ok(());
        }
        if ds.spec.storage != Storage::Contiguous {
            return Err(WriteError::Invalid(
                "a contiguous write to a chunked dataset".into(),
            ));
        }
        let total = ds.spec.dataspace.element_count().unwrap_or(u64::MAX) * ds.element_size;
        if offset
            .checked_add(bytes.len() as u64)
            .is_none_or(|end| end > total)
        {
            return Err(WriteError::Invalid(format!(
                "{} bytes at {offset} of a {total}-byte dataset",
                bytes.len()
            )));
        }
        if ds.spec.storage == Storage::Compact {
            let at = offset as usize;
            ds.compact[at..at + bytes.len()].copy_from_slice(bytes);
            return Ok(());
        }
        let block = ds.block;
        let at = match block {
            Some(a) => a,
            None => {
                let a = self.alloc(total);
                let ds = self.dataset(id)?;
                ds.block = Some(a);
                let fill = ds.spec.fill.clone();
                self.fill_block(a, total, &fill)?;
                a
            }
        };
        self.put(at + offset, bytes, "contiguous data")?;
        self.chunks.written(at + offset + bytes.len() as u64)
    }

    /// Writes the fill value over a block allocated at `at`, as HDF5 does
    /// unless the fill time is never or the value is the default (zeros,
    /// which a new block of the sink already reads as).
    fn fill_block(&self, at: u64, len: u64, fill: &FillValue) -> WriteResult<()> {
        let Some(value) = fill.value.as_ref().filter(|v| !v.is_empty()) else {
            return Ok(());
        };
        if fill.fill_time == 1 || value.iter().all(|&b| b == 0) {
            return Ok(());
        }
        const PIECE: u64 = 1 << 20;
        let per = (PIECE / value.len() as u64).max(1);
        let piece = value.repeat(per as usize);
        let mut done = 0;
        while done < len {
            let n = (len - done).min(piece.len() as u64);
            self.put(at + done, &piece[..n as usize], "fill value")?;
            done += n;
        }
        Ok(())
    }

    /// An empty buffer with room for a chunk of `len` bytes, for
    /// [`write_chunk`](Self::write_chunk): one of a chunk already written
    /// when there is one.
    pub fn chunk_buffer(&self, len: usize) -> Vec<u8> {
        self.chunks.buffer(len)
    }

    /// Writes one whole chunk of dataset `id` whose first element is at
    /// `offset`: `bytes` (file byte order, the full chunk's lengths)
    /// passed through the dataset's filters and appended to the file, on
    /// another core when one is free. An error of an earlier chunk may be
    /// returned here.
    pub fn write_chunk(&mut self, id: ObjectId, offset: &[u64], bytes: Vec<u8>) -> WriteResult<()> {
        let ds = self.dataset(id)?;
        let expected = ds.chunk_bytes(offset)?;
        if bytes.len() as u64 != expected {
            return Err(WriteError::Invalid(format!(
                "chunk at {offset:?} of {} bytes for {expected}",
                bytes.len()
            )));
        }
        let pipeline = ds.pipeline.clone();
        self.chunks.submit(id, offset.to_vec(), bytes, pipeline, 0)
    }

    /// Writes one chunk of dataset `id` whose first element is at
    /// `offset` as it is stored elsewhere: `bytes` already passed through
    /// the dataset's filters (those of `mask` skipped), appended as they are.
    pub fn write_stored_chunk(
        &mut self,
        id: ObjectId,
        offset: &[u64],
        bytes: Vec<u8>,
        mask: u32,
    ) -> WriteResult<()> {
        self.dataset(id)?.chunk_bytes(offset)?;
        self.chunks.submit(id, offset.to_vec(), bytes, None, mask)
    }

    /// Changes the current dimensions of dataset `id` (an unlimited
    /// dimension grown by the records written).
    pub fn set_dims(&mut self, id: ObjectId, dims: &[u64]) -> WriteResult<()> {
        let ds = self.dataset(id)?;
        if dims.len() != ds.spec.dataspace.dims.len() {
            return Err(WriteError::Invalid(format!("dimensions {dims:?}")));
        }
        ds.spec.dataspace.dims = dims.to_vec();
        Ok(())
    }

    /// Writes the chunk indexes, the object headers and the superblock,
    /// and flushes the sink.
    pub fn finish(mut self) -> WriteResult<()> {
        let mut index;
        (index, self.eof) = self.chunks.finish()?;
        for i in 0..self.objects.len() {
            let at = self.eof;
            let Body::Dataset(ds) = &mut self.objects[i].body else {
                continue;
            };
            let Storage::Chunked { chunk, .. } = &ds.spec.storage else {
                continue;
            };
            let entries: Vec<_> = index
                .remove(&ObjectId(i))
                .map(|c| c.into_values().collect())
                .unwrap_or_default();
            let (nodes, root) = btree::encode(&entries, chunk, at);
            ds.btree = root;
            self.eof += nodes.len() as u64;
            self.put(at, &nodes, "chunk B-tree")?;
        }
        if let Some(c) = self.heap.close() {
            self.put(c.addr, &c.encode(), "global heap")?;
        }
        // The attributes' variable-length values (reference sequences,
        // strings) go in collections placed now and encoded once the
        // objects' addresses are known.
        let mut attr_heap = heap::Collections::default();
        let mut collections = Vec::new();
        let mut places = Vec::new();
        let mut first_place = Vec::with_capacity(self.objects.len());
        let mut eof = self.eof;
        for o in &self.objects {
            first_place.push(places.len());
            for item in o.attributes.iter().flat_map(|a| heap_items(&a.value)) {
                let (place, closed) = attr_heap.insert(vec![0; item.len()], |n| {
                    let at = eof;
                    eof += n;
                    at
                });
                places.push(place);
                collections.extend(closed);
            }
        }
        collections.extend(attr_heap.close());
        self.eof = eof;
        // Headers are sized first (addresses are fixed-width), then encoded
        // with every object's address known.
        let placeholder = vec![0; self.objects.len()];
        let mut addrs = Vec::with_capacity(self.objects.len());
        let mut at = self.eof;
        for i in 0..self.objects.len() {
            addrs.push(at);
            at += self
                .header(i, &placeholder, &places[first_place[i]..])?
                .len() as u64;
        }
        let mut headers = Vec::with_capacity((at - self.eof) as usize);
        for i in 0..self.objects.len() {
            headers.extend(self.header(i, &addrs, &places[first_place[i]..])?);
        }
        let start = self.eof;
        self.put(start, &headers, "object headers")?;
        let items = self
            .objects
            .iter()
            .flat_map(|o| &o.attributes)
            .flat_map(|a| heap_items(&a.value));
        let mut by_addr: BTreeMap<u64, &mut heap::Collection> =
            collections.iter_mut().map(|c| (c.addr, c)).collect();
        for (item, &(addr, index)) in items.zip(&places) {
            let c = by_addr.get_mut(&addr).expect("placed in a collection");
            c.objects[index as usize - 1] = item.bytes(&addrs);
        }
        for c in &collections {
            self.put(c.addr, &c.encode(), "global heap")?;
        }
        self.put(0, &superblock::encode(at, addrs[0]), "superblock")?;
        self.sink.flush().map_err(|source| WriteError::Io {
            what: "flush".into(),
            source,
        })
    }

    /// The object header of object `i`, given every object's address and
    /// where its attributes' global heap objects are (collection address
    /// and index, in the order of its attributes and their values).
    fn header(&self, i: usize, addrs: &[u64], places: &[(u64, u32)]) -> WriteResult<Vec<u8>> {
        let mut places = places.iter().copied();
        let obj = &self.objects[i];
        let mut msgs = Vec::new();
        match &obj.body {
            Body::Group(children) => {
                msgs.push(Message::new(
                    kind::LINK_INFO,
                    link::encode_link_info(children.len()),
                ));
                msgs.push(Message::new(kind::GROUP_INFO, link::encode_group_info()));
                for (order, c) in children.iter().enumerate() {
                    let body =
                        link::encode_hard_link(&self.objects[c.0].name, order as u64, addrs[c.0]);
                    msgs.push(Message::new(kind::LINK, body));
                }
            }
            Body::Dataset(ds) => {
                let spec = &ds.spec;
                msgs.push(Message::new(
                    kind::DATASPACE,
                    dataspace::encode(&spec.dataspace),
                ));
                msgs.push(match spec.named_type {
                    Some(n) => {
                        Message::new(kind::DATATYPE, datatype::encode_shared(addrs[n.0])).shared()
                    }
                    None => {
                        Message::new(kind::DATATYPE, datatype::encode(&spec.datatype)?).constant()
                    }
                });
                msgs.push(Message::new(kind::FILL, fill::encode(&spec.fill)).constant());
                let stored = match &spec.storage {
                    Storage::Compact => StoredLayout::Compact {
                        data: ds.compact.clone(),
                    },
                    Storage::Contiguous => StoredLayout::Contiguous {
                        addr: ds.block.unwrap_or(super::encode::UNDEFINED),
                        size: spec.dataspace.element_count().unwrap_or(0) * ds.element_size,
                    },
                    Storage::Chunked { chunk, filters } => {
                        if !filters.is_empty() {
                            msgs.push(Message::new(kind::FILTER, layout::encode_filters(filters)));
                        }
                        StoredLayout::Chunked {
                            btree: ds.btree,
                            chunk: chunk.iter().map(|&c| c as u32).collect(),
                            element_size: ds.element_size as u32,
                        }
                    }
                };
                msgs.push(Message::new(kind::LAYOUT, layout::encode(&stored)));
            }
            Body::Datatype(dt) => {
                msgs.push(Message::new(kind::DATATYPE, datatype::encode(dt)?).constant());
                // HDF5 counts each dataset and attribute of the type as a
                // link to it.
                let uses = self.uses_of(ObjectId(i));
                if uses > 0 {
                    let mut e = super::encode::Enc::new();
                    e.u8(0).u32(1 + uses);
                    msgs.push(Message::new(kind::REFCOUNT, e.into_bytes()));
                }
                return Ok(object_header::encode(&msgs, None));
            }
        }
        msgs.push(Message::new(
            kind::ATTRIBUTE_INFO,
            attribute::encode_info(obj.attributes.len()),
        ));
        for (order, a) in obj.attributes.iter().enumerate() {
            let raw = resolve(&a.value, addrs, &mut places);
            let named_at = a.named_type.map(|n| addrs[n.0]);
            let mut m = Message::new(kind::ATTRIBUTE, attribute::encode(a, &raw, named_at)?);
            m.order = order as u16;
            msgs.push(m);
        }
        Ok(object_header::encode(&msgs, Some(obj.attributes.len())))
    }

    /// How many datasets and attributes refer to the committed datatype `t`.
    fn uses_of(&self, t: ObjectId) -> u32 {
        let mut n = 0;
        for o in &self.objects {
            if let Body::Dataset(ds) = &o.body {
                n += u32::from(ds.spec.named_type == Some(t));
            }
            n += o
                .attributes
                .iter()
                .filter(|a| a.named_type == Some(t))
                .count() as u32;
        }
        n
    }
}

/// The stored bytes of `value`: references as the objects' addresses,
/// sequences as (length, collection address, object index), the heap
/// objects' places taken from `places` in order.
fn resolve(
    value: &AttrValue,
    addrs: &[u64],
    places: &mut impl Iterator<Item = (u64, u32)>,
) -> Vec<u8> {
    let mut e = super::encode::Enc::new();
    match value {
        AttrValue::Bytes(b) => return b.clone(),
        AttrValue::ReferenceList(r) => {
            for (o, dim) in r {
                e.u64(addrs[o.0]).u32(*dim as u32).u32(0);
            }
        }
        AttrValue::VarStrings(strings) => {
            for s in strings {
                match s {
                    Some(s) => {
                        let (addr, index) = places.next().expect("a place per string");
                        e.u32(s.len() as u32).u64(addr).u32(index);
                    }
                    None => {
                        e.bytes(&NULL_VLEN);
                    }
                }
            }
        }
        AttrValue::ReferenceSequences(seqs) => {
            for s in seqs {
                if s.is_empty() {
                    e.bytes(&NULL_VLEN);
                } else {
                    let (addr, index) = places.next().expect("a place per sequence");
                    e.u32(s.len() as u32).u64(addr).u32(index);
                }
            }
        }
    }
    e.into_bytes()
}

/// One object of the global heap: a sequence of references (resolved to
/// the objects' addresses) or the bytes of a string.
enum HeapItem<'a> {
    References(&'a [ObjectId]),
    Bytes(&'a [u8]),
}

impl HeapItem<'_> {
    fn len(&self) -> usize {
        match self {
            HeapItem::References(r) => 8 * r.len(),
            HeapItem::Bytes(b) => b.len(),
        }
    }

    fn bytes(&self, addrs: &[u64]) -> Vec<u8> {
        match self {
            HeapItem::References(r) => r.iter().flat_map(|o| addrs[o.0].to_le_bytes()).collect(),
            HeapItem::Bytes(b) => b.to_vec(),
        }
    }
}

/// The heap objects of `value`, in the order [`resolve`] numbers them:
/// each non-empty reference sequence, each string that is not null (an
/// empty one too, as HDF5 stores it).
fn heap_items(value: &AttrValue) -> Box<dyn Iterator<Item = HeapItem<'_>> + '_> {
    match value {
        AttrValue::Bytes(_) | AttrValue::ReferenceList(_) => Box::new(std::iter::empty()),
        AttrValue::ReferenceSequences(s) => Box::new(
            s.iter()
                .filter(|s| !s.is_empty())
                .map(|s| HeapItem::References(s)),
        ),
        AttrValue::VarStrings(s) => Box::new(s.iter().flatten().map(|s| HeapItem::Bytes(s))),
    }
}
