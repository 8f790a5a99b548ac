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
use crate::message::shared;
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
    ctx: FileCtx,
    superblock: Superblock,
    global_heap: GlobalHeap,
}

impl Hdf5File {
    /// Opens the HDF5 file in `source`: finds and reads its superblock.
    pub fn open(source: Arc<dyn ByteSource>) -> Result<Hdf5File> {
        let (superblock, ctx) = Superblock::find(&source)?;
        Ok(Hdf5File {
            ctx,
            superblock,
            global_heap: GlobalHeap::default(),
        })
    }

    /// The byte access context (for the data reader).
    pub fn ctx(&self) -> &FileCtx {
        &self.ctx
    }

    /// The superblock.
    pub fn superblock(&self) -> &Superblock {
        &self.superblock
    }

    /// The object header address of the root group.
    pub fn root_addr(&self) -> u64 {
        self.superblock.root_addr
    }

    /// Reads the object header at relative address `addr`.
    pub fn object_header(&self, addr: u64) -> Result<ObjectHeader> {
        ObjectHeader::read(&self.ctx, addr)
    }

    /// What the object at `addr` is.
    pub fn object_kind(&self, addr: u64) -> Result<ObjectKind> {
        kind_of(&self.ctx, &self.object_header(addr)?)
    }

    /// The group at `addr`, with its links and attributes.
    pub fn group(&self, addr: u64) -> Result<Group> {
        let header = self.expect(addr, ObjectKind::Group)?;
        Ok(Group {
            addr,
            links: group::links(&self.ctx, &header)?,
            attributes: attribute::attributes(&self.ctx, &header)?,
        })
    }

    /// The dataset at `addr`.
    pub fn dataset(&self, addr: u64) -> Result<DatasetInfo> {
        let header = self.expect(addr, ObjectKind::Dataset)?;
        let ctx = &self.ctx;
        let required = |k: u16, what: &str| {
            header
                .first(k)
                .ok_or_else(|| ctx.corrupt("dataset", addr, format!("no {what} message")))
        };
        let (datatype, datatype_committed) =
            message_datatype(ctx, required(kind::DATATYPE, "datatype")?)?;
        let space = required(kind::DATASPACE, "dataspace")?;
        if space.is_shared() {
            return Err(ctx.unsupported("dataset", addr, "a shared dataspace"));
        }
        let dataspace = Dataspace::parse(
            &mut ctx.cursor(&space.body, space.addr, "dataspace message"),
            ctx.sizeof_size(),
        )?;
        let layout = required(kind::LAYOUT, "layout")?;
        let fill = match (header.first(kind::FILL), header.first(kind::FILL_OLD)) {
            (Some(m), _) => {
                FillValue::parse(&mut ctx.cursor(&m.body, m.addr, "fill value message"))?
            }
            (None, Some(m)) => {
                FillValue::parse_old(&mut ctx.cursor(&m.body, m.addr, "old fill value message"))?
            }
            (None, None) => FillValue::default(),
        };
        Ok(DatasetInfo {
            addr,
            datatype,
            datatype_committed,
            dataspace,
            layout_message: (layout.addr, layout.body.clone()),
            filter_message: header.first(kind::FILTER).map(|m| (m.addr, m.body.clone())),
            fill,
            attributes: attribute::attributes(ctx, &header)?,
        })
    }

    /// The committed datatype at `addr`.
    pub fn named_datatype(&self, addr: u64) -> Result<NamedDatatype> {
        let header = self.expect(addr, ObjectKind::NamedDatatype)?;
        let msg = header.first(kind::DATATYPE).ok_or_else(|| {
            self.ctx
                .corrupt("named datatype", addr, "no datatype message")
        })?;
        Ok(NamedDatatype {
            addr,
            datatype: message_datatype(&self.ctx, msg)?.0,
            attributes: attribute::attributes(&self.ctx, &header)?,
        })
    }

    /// The bytes of object `index` of the global heap collection at
    /// `collection_addr` (a variable-length element's data).
    pub fn global_heap_object(&self, collection_addr: u64, index: u32) -> Result<Vec<u8>> {
        let collection = self.global_heap.collection(&self.ctx, collection_addr)?;
        Ok(collection.object(&self.ctx, index)?.to_vec())
    }

    /// The header at `addr`, checked to be of kind `want`.
    fn expect(&self, addr: u64, want: ObjectKind) -> Result<ObjectHeader> {
        let header = self.object_header(addr)?;
        let found = kind_of(&self.ctx, &header)?;
        if found != want {
            return Err(self.ctx.corrupt(
                "object header",
                addr,
                format!("a {found:?} where a {want:?} was expected"),
            ));
        }
        Ok(header)
    }
}

/// A datatype message's type, resolving a shared (committed) one.
fn message_datatype(ctx: &FileCtx, msg: &Message) -> Result<(Datatype, Option<u64>)> {
    shared::datatype(ctx, &msg.body, msg.addr, msg.is_shared())
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
