//! Attributes: compact (attribute messages in the object header) and dense
//! (an attribute info message pointing at a fractal heap of attribute
//! messages indexed by a B-tree v2, record type 8), listed in the order
//! netCDF-C lists them: creation order where it is tracked, else the
//! storage's own order -- message order for compact storage, the name
//! index's (name-hash) order for dense storage, which is what
//! `H5Aiterate2(.., H5_INDEX_CRT_ORDER, ..)` falls back to in netCDF-C.

use crate::btree::v2;
use crate::dataspace::Dataspace;
use crate::datatype::Datatype;
use crate::error::Result;
use crate::heap::fractal::FractalHeap;
use crate::message::attribute;
use crate::message::info::DenseInfo;
use crate::meta::Meta;
use crate::object_header::{kind, ObjectHeader, FLAG_SHARED};

/// An attribute with its raw value.
#[derive(Debug, Clone, PartialEq)]
pub struct Attribute {
    /// The attribute's name.
    pub name: String,
    /// Its element type.
    pub datatype: Datatype,
    /// The committed datatype's object header, when the type is shared.
    pub datatype_committed: Option<u64>,
    /// Its shape.
    pub dataspace: Dataspace,
    /// The value: every element in file byte order (variable-length
    /// elements as length, collection address and object index).
    pub raw: Vec<u8>,
    /// The creation order, when tracked.
    pub creation_order: Option<u64>,
}

/// The attributes of the object whose header is `header`.
pub fn attributes(meta: &Meta, header: &ObjectHeader) -> Result<Vec<Attribute>> {
    let ctx = meta.ctx();
    let mut attrs = header
        .all(kind::ATTRIBUTE)
        .map(|m| {
            let body = meta.body(kind::ATTRIBUTE, &m.body, m.addr, m.is_shared())?;
            attribute::parse(
                meta,
                &body.bytes,
                body.addr,
                m.creation_order.map(u64::from),
            )
        })
        .collect::<Result<Vec<_>>>()?;
    if let Some(msg) = header.first(kind::ATTRIBUTE_INFO) {
        let info = DenseInfo::parse(ctx, &msg.body, msg.addr, false)?;
        if let (Some(heap), Some(index)) = (info.heap, info.name_index) {
            attrs.extend(dense(meta, heap, index)?);
        }
        if !info.order_tracked {
            for a in &mut attrs {
                a.creation_order = None;
            }
        }
    }
    if attrs.iter().all(|a| a.creation_order.is_some()) {
        attrs.sort_by_key(|a| a.creation_order);
    }
    Ok(attrs)
}

/// The attributes kept in a fractal heap, with the creation order of the
/// name index's records.
fn dense(meta: &Meta, heap_addr: u64, index: u64) -> Result<Vec<Attribute>> {
    let ctx = meta.ctx();
    let heap = FractalHeap::open(ctx, heap_addr)?;
    let mut attrs = Vec::new();
    v2::walk(ctx, index, 8, &mut |record| {
        let mut cur = ctx.cursor(record, index, "attribute name index record");
        let mut id = [0u8; 8];
        id.copy_from_slice(cur.bytes(8)?);
        let flags = cur.u8()?;
        let order = cur.u32()?;
        // A shared attribute's ID is one of the shared message heap's.
        let body = if flags & FLAG_SHARED != 0 {
            meta.heap_message(kind::ATTRIBUTE, &id, index)?
        } else {
            heap.get(ctx, &id)?
        };
        attrs.push(attribute::parse(
            meta,
            &body,
            heap_addr,
            Some(u64::from(order)),
        )?);
        Ok(())
    })?;
    Ok(attrs)
}
