//! Fill values: the fill value message (type 5, versions 1 to 3) and the
//! old fill value message (type 4, a size and the value).

use crate::error::Result;
use crate::io::Cursor;

/// A dataset's fill value settings.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FillValue {
    /// Space allocation time (1 early, 2 late, 3 incremental).
    pub alloc_time: u8,
    /// Fill value write time (0 on allocation, 1 never, 2 if set).
    pub fill_time: u8,
    /// Whether a fill value is defined (by the user or the default).
    pub defined: bool,
    /// The fill value's bytes (file byte order), when stored.
    pub value: Option<Vec<u8>>,
}

impl FillValue {
    /// Decodes a fill value message (type 5) body at the cursor.
    pub fn parse(cur: &mut Cursor<'_>) -> Result<FillValue> {
        let version = cur.u8()?;
        match version {
            1 | 2 => {
                let alloc_time = cur.u8()?;
                let fill_time = cur.u8()?;
                let defined = cur.u8()? != 0;
                let value = if version == 1 || defined {
                    sized_value(cur)?
                } else {
                    None
                };
                Ok(FillValue {
                    alloc_time,
                    fill_time,
                    defined,
                    value,
                })
            }
            3 => {
                let flags = cur.u8()?;
                let undefined = flags & 0x10 != 0;
                let has_value = flags & 0x20 != 0;
                if undefined && has_value {
                    return Err(cur.corrupt("fill value both undefined and given"));
                }
                Ok(FillValue {
                    alloc_time: flags & 0x03,
                    fill_time: (flags >> 2) & 0x03,
                    defined: !undefined,
                    value: if has_value { sized_value(cur)? } else { None },
                })
            }
            v => Err(cur.corrupt(format!("fill value message version {v}"))),
        }
    }

    /// Decodes an old fill value message (type 4) body at the cursor.
    pub fn parse_old(cur: &mut Cursor<'_>) -> Result<FillValue> {
        let value = sized_value(cur)?;
        Ok(FillValue {
            alloc_time: 2,
            fill_time: 2,
            defined: value.is_some(),
            value,
        })
    }
}

/// A 4-byte size and that many bytes; a size of 0 is no value.
fn sized_value(cur: &mut Cursor<'_>) -> Result<Option<Vec<u8>>> {
    let size = cur.u32()? as usize;
    (size > 0)
        .then(|| cur.bytes(size).map(<[u8]>::to_vec))
        .transpose()
}
