//! The link message (type 6): one link of a new-style group, compact (in
//! the group's header) or dense (an object in the group's fractal heap).

use crate::error::Result;
use crate::group::{Link, LinkTarget};
use crate::io::{Cursor, FileCtx};

/// Decodes a link message from `body`, read at relative address `addr`.
pub fn parse(ctx: &FileCtx, body: &[u8], addr: u64) -> Result<Link> {
    let mut cur = ctx.cursor(body, addr, "link message");
    let version = cur.u8()?;
    if version != 1 {
        return Err(cur.corrupt(format!("link message version {version}")));
    }
    let flags = cur.u8()?;
    let link_type = if flags & 0x08 != 0 { cur.u8()? } else { 0 };
    let creation_order = if flags & 0x04 != 0 {
        Some(cur.u64()?)
    } else {
        None
    };
    if flags & 0x10 != 0 {
        cur.skip(1)?; // character set: names are kept as UTF-8 either way
    }
    let name_len = cur.uint(1 << (flags & 3))?;
    let name = text(&mut cur, name_len, "link name")?;
    if name.is_empty() {
        return Err(cur.corrupt("empty link name"));
    }
    let target =
        match link_type {
            0 => LinkTarget::Hard(cur.address()?.ok_or_else(|| {
                cur.corrupt(format!("hard link {name:?} to the undefined address"))
            })?),
            1 => {
                let len = u64::from(cur.u16()?);
                LinkTarget::Soft(text(&mut cur, len, "soft link value")?)
            }
            64 => {
                let len = usize::from(cur.u16()?);
                let value = cur.bytes(len)?;
                let mut parts = value.get(1..).unwrap_or_default().split(|&b| b == 0);
                let mut part =
                    || String::from_utf8_lossy(parts.next().unwrap_or_default()).into_owned();
                LinkTarget::External {
                    file: part(),
                    path: part(),
                }
            }
            t => return Err(cur.unsupported(format!("user-defined link type {t}"))),
        };
    Ok(Link {
        name,
        creation_order,
        target,
    })
}

/// `len` bytes of text (checked against the block before it is cut).
fn text(cur: &mut Cursor<'_>, len: u64, what: &str) -> Result<String> {
    let n = usize::try_from(len)
        .ok()
        .filter(|&n| n <= cur.remaining())
        .ok_or_else(|| cur.corrupt(format!("{what} of {len} bytes does not fit")))?;
    Ok(String::from_utf8_lossy(cur.bytes(n)?).into_owned())
}
