//! The datatype message (type 3): every class (0 to 10) in versions 1 to
//! 4, nested compound, enum, variable-length and array types.
//!
//! A datatype starts with a byte of class (low four bits) and version
//! (high four bits), 24 bits of class flags and a 4-byte element size,
//! followed by the class's properties.

use crate::error::Result;
use crate::io::Cursor;

/// How deep compound, enum, vlen and array types may nest before the
/// type is refused (a loop in made-up bytes ends here).
const MAX_NESTING: usize = 32;

/// The element size of a variable-length element: a 4-byte length, an
/// 8-byte global heap collection address and a 4-byte object index.
const VLEN_SIZE: u32 = 16;

/// How a fixed-length string is terminated or padded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StringPadding {
    /// Null terminated (a full-length string has no terminator).
    NullTerminate,
    /// Padded with nulls.
    NullPad,
    /// Padded with spaces (Fortran style).
    SpacePad,
}

/// What a reference type points at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReferenceKind {
    /// An object reference (an object header address).
    Object,
    /// A dataset region reference (a global heap entry).
    Region,
    /// A version-4 reference (`H5R_ref_t`) of the given type code.
    Other(u8),
}

/// One member of a compound type.
#[derive(Debug, Clone, PartialEq)]
pub struct CompoundMember {
    /// The member's name.
    pub name: String,
    /// Byte offset of the member in the compound element.
    pub offset: u32,
    /// The member's type (an [`Datatype::Array`] for array members).
    pub datatype: Datatype,
}

/// An HDF5 datatype as stored in a datatype message.
#[derive(Debug, Clone, PartialEq)]
pub enum Datatype {
    /// Class 0: a fixed-point integer.
    Integer {
        /// Size in bytes.
        size: u32,
        /// Two's complement signed.
        signed: bool,
        /// Big-endian byte order.
        big_endian: bool,
    },
    /// Class 1: an IEEE floating-point number.
    Float {
        /// Size in bytes.
        size: u32,
        /// Big-endian byte order.
        big_endian: bool,
    },
    /// Class 3: a fixed-length string.
    String {
        /// Size in bytes.
        size: u32,
        /// Termination or padding.
        padding: StringPadding,
        /// UTF-8 (else ASCII).
        utf8: bool,
    },
    /// Class 9, string flavour: a variable-length string in the global heap.
    VarString {
        /// Termination or padding.
        padding: StringPadding,
        /// UTF-8 (else ASCII).
        utf8: bool,
    },
    /// Class 4: a bit field.
    Bitfield {
        /// Size in bytes.
        size: u32,
        /// Big-endian byte order.
        big_endian: bool,
    },
    /// Class 5: opaque bytes with a tag.
    Opaque {
        /// Size in bytes.
        size: u32,
        /// The tag (trailing nulls removed).
        tag: String,
    },
    /// Class 6: a compound (struct) type.
    Compound {
        /// Size in bytes.
        size: u32,
        /// The members in stored order.
        members: Vec<CompoundMember>,
    },
    /// Class 7: a reference.
    Reference {
        /// Size in bytes.
        size: u32,
        /// What it points at.
        kind: ReferenceKind,
    },
    /// Class 8: an enumeration over an integer base type.
    Enum {
        /// The base type.
        base: Box<Datatype>,
        /// Member names and values (raw bytes in the base type's order), in
        /// definition order.
        members: Vec<(String, Vec<u8>)>,
    },
    /// Class 9, sequence flavour: a variable-length sequence in the global heap.
    VarLen {
        /// The element type.
        base: Box<Datatype>,
    },
    /// Class 10: a fixed-size array of a base type.
    Array {
        /// The array's dimensions.
        dims: Vec<u32>,
        /// The element type.
        base: Box<Datatype>,
    },
    /// Class 2: a time type (unused by netCDF).
    Time {
        /// Size in bytes.
        size: u32,
        /// Big-endian byte order.
        big_endian: bool,
    },
}

impl Datatype {
    /// The element size in bytes (16 for variable-length types: length,
    /// heap collection address, object index).
    pub fn size(&self) -> u32 {
        match self {
            Datatype::Integer { size, .. }
            | Datatype::Float { size, .. }
            | Datatype::String { size, .. }
            | Datatype::Bitfield { size, .. }
            | Datatype::Opaque { size, .. }
            | Datatype::Compound { size, .. }
            | Datatype::Reference { size, .. }
            | Datatype::Time { size, .. } => *size,
            Datatype::VarString { .. } | Datatype::VarLen { .. } => VLEN_SIZE,
            Datatype::Enum { base, .. } => base.size(),
            Datatype::Array { dims, base } => dims
                .iter()
                .fold(base.size(), |acc, &d| acc.saturating_mul(d)),
        }
    }

    /// Decodes a datatype at the cursor (the body of a datatype message,
    /// or a datatype nested in an attribute message or another type).
    pub fn parse(cur: &mut Cursor<'_>) -> Result<Datatype> {
        parse_at(cur, 0)
    }
}

fn parse_at(cur: &mut Cursor<'_>, depth: usize) -> Result<Datatype> {
    if depth > MAX_NESTING {
        return Err(cur.corrupt(format!("datatype nested more than {MAX_NESTING} deep")));
    }
    let class_version = cur.u8()?;
    let class = class_version & 0x0f;
    let version = class_version >> 4;
    if !(1..=5).contains(&version) {
        return Err(cur.corrupt(format!("datatype version {version}")));
    }
    let flags = cur.uint(3)? as u32;
    let size = cur.u32()?;
    let big_endian = flags & 1 != 0;
    let dt = match class {
        0 => {
            cur.skip(4)?; // bit offset, bit precision
            Datatype::Integer {
                size,
                signed: flags & 0x08 != 0,
                big_endian,
            }
        }
        1 => {
            if flags & 0x40 != 0 {
                return Err(cur.unsupported("VAX floating-point byte order"));
            }
            cur.skip(12)?;
            Datatype::Float { size, big_endian }
        }
        2 => {
            cur.skip(2)?;
            Datatype::Time { size, big_endian }
        }
        3 => Datatype::String {
            size,
            padding: padding(cur, flags & 0x0f)?,
            utf8: charset(cur, (flags >> 4) & 0x0f)?,
        },
        4 => {
            cur.skip(4)?;
            Datatype::Bitfield { size, big_endian }
        }
        5 => {
            let tag_len = (flags & 0xff) as usize;
            let tag = cur.bytes(tag_len)?;
            let end = tag.iter().position(|&b| b == 0).unwrap_or(tag.len());
            Datatype::Opaque {
                size,
                tag: String::from_utf8_lossy(&tag[..end]).into_owned(),
            }
        }
        6 => compound(cur, version, flags, size, depth)?,
        7 => Datatype::Reference {
            size,
            kind: match (version, flags & 0x0f) {
                (0..=3, 0) => ReferenceKind::Object,
                (0..=3, 1) => ReferenceKind::Region,
                (_, k) => ReferenceKind::Other(k as u8),
            },
        },
        8 => enumeration(cur, version, flags, depth)?,
        9 => {
            let base = parse_at(cur, depth + 1)?;
            if size != VLEN_SIZE {
                return Err(cur.unsupported(format!(
                    "variable-length elements of {size} bytes (files with 8-byte addresses store 16)"
                )));
            }
            match flags & 0x0f {
                0 => Datatype::VarLen {
                    base: Box::new(base),
                },
                1 => Datatype::VarString {
                    padding: padding(cur, (flags >> 4) & 0x0f)?,
                    utf8: charset(cur, (flags >> 8) & 0x0f)?,
                },
                t => return Err(cur.corrupt(format!("variable-length type {t}"))),
            }
        }
        10 => array(cur, version, depth)?,
        c => return Err(cur.corrupt(format!("datatype class {c}"))),
    };
    Ok(dt)
}

fn padding(cur: &Cursor<'_>, code: u32) -> Result<StringPadding> {
    match code {
        0 => Ok(StringPadding::NullTerminate),
        1 => Ok(StringPadding::NullPad),
        2 => Ok(StringPadding::SpacePad),
        p => Err(cur.corrupt(format!("string padding {p}"))),
    }
}

fn charset(cur: &Cursor<'_>, code: u32) -> Result<bool> {
    match code {
        0 => Ok(false),
        1 => Ok(true),
        c => Err(cur.corrupt(format!("character set {c}"))),
    }
}

/// A null-terminated name; versions 1 and 2 pad it (terminator included)
/// to a multiple of eight bytes.
fn name(cur: &mut Cursor<'_>, padded: bool) -> Result<String> {
    let rest = &cur.block()[cur.pos()..];
    let len = rest
        .iter()
        .position(|&b| b == 0)
        .ok_or_else(|| cur.corrupt("name without a terminating null"))?;
    let text = String::from_utf8_lossy(&rest[..len]).into_owned();
    let stored = if padded { (len + 8) & !7 } else { len + 1 };
    cur.skip(stored)?;
    Ok(text)
}

fn compound(
    cur: &mut Cursor<'_>,
    version: u8,
    flags: u32,
    size: u32,
    depth: usize,
) -> Result<Datatype> {
    let count = (flags & 0xffff) as usize;
    let offset_width = (size.max(1).ilog2() / 8 + 1) as usize;
    let mut members = Vec::with_capacity(count.min(cur.remaining()));
    for _ in 0..count {
        let member_name = name(cur, version < 3)?;
        let offset = if version >= 3 {
            cur.uint(offset_width)? as u32
        } else {
            cur.u32()?
        };
        let mut dims = Vec::new();
        if version == 1 {
            let rank = usize::from(cur.u8()?);
            cur.skip(3 + 4 + 4)?; // reserved, permutation, reserved
            if rank > 4 {
                return Err(cur.corrupt(format!("compound member of rank {rank} (at most 4)")));
            }
            for i in 0..4 {
                let d = cur.u32()?;
                if i < rank {
                    dims.push(d);
                }
            }
        }
        let base = parse_at(cur, depth + 1)?;
        let datatype = if dims.is_empty() {
            base
        } else {
            Datatype::Array {
                dims,
                base: Box::new(base),
            }
        };
        if u64::from(offset) + u64::from(datatype.size()) > u64::from(size) {
            return Err(cur.corrupt(format!(
                "compound member {member_name:?} at offset {offset} does not fit in {size} bytes"
            )));
        }
        members.push(CompoundMember {
            name: member_name,
            offset,
            datatype,
        });
    }
    Ok(Datatype::Compound { size, members })
}

fn enumeration(cur: &mut Cursor<'_>, version: u8, flags: u32, depth: usize) -> Result<Datatype> {
    let count = (flags & 0xffff) as usize;
    let base = parse_at(cur, depth + 1)?;
    let mut names = Vec::with_capacity(count.min(cur.remaining()));
    for _ in 0..count {
        names.push(name(cur, version < 3)?);
    }
    let width = base.size() as usize;
    let members = names
        .into_iter()
        .map(|n| Ok((n, cur.bytes(width)?.to_vec())))
        .collect::<Result<Vec<_>>>()?;
    Ok(Datatype::Enum {
        base: Box::new(base),
        members,
    })
}

fn array(cur: &mut Cursor<'_>, version: u8, depth: usize) -> Result<Datatype> {
    let rank = usize::from(cur.u8()?);
    if version < 3 {
        cur.skip(3)?;
    }
    let mut dims = Vec::with_capacity(rank);
    for _ in 0..rank {
        dims.push(cur.u32()?);
    }
    if version < 3 {
        cur.skip(4 * rank)?; // permutation indices
    }
    let base = parse_at(cur, depth + 1)?;
    Ok(Datatype::Array {
        dims,
        base: Box::new(base),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::FileCtx;
    use nctk_store::bytes::MemSource;
    use std::sync::Arc;

    fn parse(bytes: &[u8]) -> Result<Datatype> {
        let ctx = FileCtx::new(
            Arc::new(MemSource::new(bytes.to_vec())),
            bytes.len() as u64,
            0,
            8,
            8,
        );
        Datatype::parse(&mut ctx.cursor(bytes, 0, "datatype"))
    }

    /// A big-endian signed 32-bit integer as HDF5 documents it: class 0,
    /// version 1, flags byte order + signed, size 4, offset 0, precision 32.
    #[test]
    fn big_endian_int32() {
        let b = [0x10, 0x09, 0, 0, 4, 0, 0, 0, 0, 0, 32, 0];
        assert_eq!(
            parse(&b).unwrap(),
            Datatype::Integer {
                size: 4,
                signed: true,
                big_endian: true
            }
        );
    }

    #[test]
    fn truncated_and_bad_class_are_errors() {
        assert!(parse(&[0x10, 0x09, 0, 0, 4]).is_err());
        assert!(parse(&[0x1b, 0, 0, 0, 4, 0, 0, 0]).is_err());
        // An array nested in itself until the bytes run out, never a panic.
        let mut deep = Vec::new();
        for _ in 0..40 {
            deep.extend_from_slice(&[0x3a, 0, 0, 0, 4, 0, 0, 0, 1, 1, 0, 0, 0]);
        }
        assert!(parse(&deep).is_err());
    }
}
