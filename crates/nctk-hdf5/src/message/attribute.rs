//! The attribute message (type 12), versions 1 to 3: name, datatype
//! (possibly a shared, committed one), dataspace and the raw value.

use crate::attribute::Attribute;
use crate::dataspace::Dataspace;
use crate::datatype::Datatype;
use crate::error::Result;
use crate::meta::Meta;
use crate::object_header::kind;

const WHAT: &str = "attribute message";

/// Decodes an attribute message from `body`, read at relative address
/// `addr`; `creation_order` comes from the message header or the index.
pub fn parse(
    meta: &Meta,
    body: &[u8],
    addr: u64,
    creation_order: Option<u64>,
) -> Result<Attribute> {
    let ctx = meta.ctx();
    let mut cur = ctx.cursor(body, addr, WHAT);
    let version = cur.u8()?;
    if !(1..=3).contains(&version) {
        return Err(cur.corrupt(format!("attribute message version {version}")));
    }
    let flags = cur.u8()?;
    let name_size = usize::from(cur.u16()?);
    let type_size = usize::from(cur.u16()?);
    let space_size = usize::from(cur.u16()?);
    if version == 3 {
        cur.skip(1)?; // name character set
    }
    let padded = |n: usize| if version == 1 { (n + 7) & !7 } else { n };
    let name_at = cur.addr();
    let name_field = cur.bytes(padded(name_size))?;
    let name_bytes = &name_field[..name_size];
    let name_bytes = name_bytes.strip_suffix(&[0]).unwrap_or(name_bytes);
    let name = String::from_utf8_lossy(name_bytes).into_owned();
    if name.is_empty() {
        return Err(ctx.corrupt(WHAT, name_at, "empty attribute name"));
    }
    let type_at = cur.addr();
    let type_bytes = &cur.bytes(padded(type_size))?[..type_size];
    let shared = |bit: u8| version > 1 && flags & bit != 0;
    let dt = meta.body(kind::DATATYPE, type_bytes, type_at, shared(1))?;
    let datatype = Datatype::parse(&mut ctx.cursor(&dt.bytes, dt.addr, "attribute datatype"))?;
    let space_at = cur.addr();
    let space_bytes = &cur.bytes(padded(space_size))?[..space_size];
    let space = meta.body(kind::DATASPACE, space_bytes, space_at, shared(2))?;
    let dataspace = Dataspace::parse(
        &mut ctx.cursor(&space.bytes, space.addr, "attribute dataspace"),
        ctx.sizeof_size(),
    )?;
    let data_len = dataspace
        .element_count()
        .and_then(|n| n.checked_mul(u64::from(datatype.size())))
        .filter(|&n| n <= cur.remaining() as u64)
        .ok_or_else(|| {
            cur.corrupt(format!(
                "attribute {name:?}: value of {:?} elements of {} bytes does not fit in the {} bytes left",
                dataspace.element_count(),
                datatype.size(),
                cur.remaining()
            ))
        })?;
    let raw = cur.bytes(data_len as usize)?.to_vec();
    Ok(Attribute {
        name,
        datatype,
        datatype_committed: dt.committed,
        dataspace,
        raw,
        creation_order,
    })
}
