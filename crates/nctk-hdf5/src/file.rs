//! [`Hdf5File`]: an open HDF5 file, walked object by object: groups with
//! their links and attributes, datasets with the messages the data reader
//! needs, committed datatypes, and the global heap of variable-length data.

use std::sync::Arc;

use nctk_store::bytes::ByteSource;

use crate::attribute::{self, Attribute};
use crate::dataspace::Dataspace;
use crate::datatype::Datatype;
use crate::error::Result;
use crate::fill::FillValue;
use crate::group::{self, Group};
use crate::heap::global::GlobalHeap;
use crate::io::FileCtx;
use crate::meta::{Body, Meta};
use crate::object_header::{kind, Message, ObjectHeader};
use crate::superblock::Superblock;

/// What an object header describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ObjectKind {
    /// A group (symbol table, link info, link or group info messages).
    Group,
    /// A dataset (a layout message).
    Dataset,
    /// A committed (named) datatype (a datatype message alone).
    NamedDatatype,
}

/// A dataset's metadata: what the data reader and the netCDF layer need.
#[derive(Debug, Clone)]
pub struct DatasetInfo {
    /// Relative address of the dataset's object header.
    pub addr: u64,
    /// The element type.
    pub datatype: Datatype,
    /// The committed datatype's object header, when the type is shared.
    pub datatype_committed: Option<u64>,
    /// The shape.
    pub dataspace: Dataspace,
    /// The layout message (type 8): relative address of its body, and the body.
    pub layout_message: (u64, Vec<u8>),
    /// The filter pipeline message (type 11), when there is one.
    pub filter_message: Option<(u64, Vec<u8>)>,
    /// The fill value (message 5, else the old message 4, else the default).
    pub fill: FillValue,
    /// The attributes, in the order netCDF-C lists them.
    pub attributes: Vec<Attribute>,
}

/// A committed (named) datatype.
#[derive(Debug, Clone)]
pub struct NamedDatatype {
    /// Relative address of its object header.
    pub addr: u64,
    /// The type.
    pub datatype: Datatype,
    /// Its attributes.
    pub attributes: Vec<Attribute>,
}

/// An open HDF5 file.
#[derive(Debug)]
pub struct Hdf5File {
    meta: Meta,
    superblock: Superblock,
    global_heap: GlobalHeap,
}

impl Hdf5File {
    /// Opens the HDF5 file in `source`: finds and reads its superblock.
    pub fn open(source: Arc<dyn ByteSource>) -> Result<Hdf5File> {
        let (superblock, ctx) = Superblock::find(&source)?;
        Ok(Hdf5File {
            meta: Meta::new(ctx, &superblock)?,
            superblock,
            global_heap: GlobalHeap::default(),
        })
    }

    /// The byte access context (for the data reader).
    pub fn ctx(&self) -> &FileCtx {
        self.meta.ctx()
    }

    /// The superblock.
    pub fn superblock(&self) -> &Superblock {
        &self.superblock
    }

    /// The object header address of the root group.
    pub fn root_addr(&self) -> u64 {
        self.superblock.root_addr
    }

    /// The object header at relative address `addr` (read once, then cached).
    pub fn object_header(&self, addr: u64) -> Result<Arc<ObjectHeader>> {
        self.meta.header(addr)
    }

    /// What the object at `addr` is.
    pub fn object_kind(&self, addr: u64) -> Result<ObjectKind> {
        kind_of(self.ctx(), &*self.object_header(addr)?)
    }

    /// The group at `addr`, with its links and attributes.
    pub fn group(&self, addr: u64) -> Result<Group> {
        let header = self.expect(addr, ObjectKind::Group)?;
        Ok(Group {
            addr,
            links: group::links(self.ctx(), &header)?,
            attributes: attribute::attributes(&self.meta, &header)?,
        })
    }

    /// The dataset at `addr`.
    pub fn dataset(&self, addr: u64) -> Result<DatasetInfo> {
        let header = self.expect(addr, ObjectKind::Dataset)?;
        let ctx = self.ctx();
        let required = |k: u16, what: &str| {
            header
                .first(k)
                .ok_or_else(|| ctx.corrupt("dataset", addr, format!("no {what} message")))
        };
        let dt = self.body(required(kind::DATATYPE, "datatype")?)?;
        let datatype = Datatype::parse(&mut ctx.cursor(&dt.bytes, dt.addr, "datatype message"))?;
        let space = self.body(required(kind::DATASPACE, "dataspace")?)?;
        let dataspace = Dataspace::parse(
            &mut ctx.cursor(&space.bytes, space.addr, "dataspace message"),
            ctx.sizeof_size(),
        )?;
        let layout = required(kind::LAYOUT, "layout")?;
        let fill = match (header.first(kind::FILL), header.first(kind::FILL_OLD)) {
            (Some(m), _) => {
                let b = self.body(m)?;
                FillValue::parse(&mut ctx.cursor(&b.bytes, b.addr, "fill value message"))?
            }
            (None, Some(m)) => {
                FillValue::parse_old(&mut ctx.cursor(&m.body, m.addr, "old fill value message"))?
            }
            (None, None) => FillValue::default(),
        };
        let filter_message = match header.first(kind::FILTER) {
            Some(m) => {
                let b = self.body(m)?;
                Some((b.addr, b.bytes.into_owned()))
            }
            None => None,
        };
        Ok(DatasetInfo {
            addr,
            datatype,
            datatype_committed: dt.committed,
            dataspace,
            layout_message: (layout.addr, layout.body.clone()),
            filter_message,
            fill,
            attributes: attribute::attributes(&self.meta, &header)?,
        })
    }

    /// The committed datatype at `addr`.
    pub fn named_datatype(&self, addr: u64) -> Result<NamedDatatype> {
        let header = self.expect(addr, ObjectKind::NamedDatatype)?;
        let msg = header.first(kind::DATATYPE).ok_or_else(|| {
            self.ctx()
                .corrupt("named datatype", addr, "no datatype message")
        })?;
        let dt = self.body(msg)?;
        Ok(NamedDatatype {
            addr,
            datatype: Datatype::parse(&mut self.ctx().cursor(
                &dt.bytes,
                dt.addr,
                "datatype message",
            ))?,
            attributes: attribute::attributes(&self.meta, &header)?,
        })
    }

    /// The bytes of object `index` of the global heap collection at
    /// `collection_addr` (a variable-length element's data).
    pub fn global_heap_object(&self, collection_addr: u64, index: u32) -> Result<Vec<u8>> {
        let collection = self.global_heap.collection(self.ctx(), collection_addr)?;
        Ok(collection.object(self.ctx(), index)?.to_vec())
    }

    /// A header message's body, resolved when it is shared.
    fn body<'a>(&self, msg: &'a Message) -> Result<Body<'a>> {
        self.meta
            .body(msg.kind, &msg.body, msg.addr, msg.is_shared())
    }

    /// The header at `addr`, checked to be of kind `want`.
    fn expect(&self, addr: u64, want: ObjectKind) -> Result<Arc<ObjectHeader>> {
        let header = self.object_header(addr)?;
        let found = kind_of(self.ctx(), &header)?;
        if found != want {
            return Err(self.ctx().corrupt(
                "object header",
                addr,
                format!("a {found:?} where a {want:?} was expected"),
            ));
        }
        Ok(header)
    }
}

/// Classifies an object header by its messages.
fn kind_of(ctx: &FileCtx, header: &ObjectHeader) -> Result<ObjectKind> {
    if header.has(kind::LAYOUT) {
        Ok(ObjectKind::Dataset)
    } else if [
        kind::SYMBOL_TABLE,
        kind::LINK_INFO,
        kind::LINK,
        kind::GROUP_INFO,
    ]
    .iter()
    .any(|&k| header.has(k))
    {
        Ok(ObjectKind::Group)
    } else if header.has(kind::DATATYPE) && !header.has(kind::DATASPACE) {
        Ok(ObjectKind::NamedDatatype)
    } else {
        Err(ctx.corrupt(
            "object header",
            header.addr,
            "neither a group, a dataset nor a named datatype",
        ))
    }
}
