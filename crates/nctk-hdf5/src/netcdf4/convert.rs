//! How netCDF values are stored in HDF5 ([`Stored`]) and raw HDF5 bytes
//! decoded into [`Values`]: numbers in either byte order, fixed and
//! variable-length strings, and the user types (enum values as their base
//! integers, opaque blobs, compounds field by field, vlens through the
//! global heap).

use nctk_model::{DataType, TypeId, Values};

use crate::datatype::StringPadding;
use crate::{Hdf5File, Result};

/// How one netCDF value is stored in the file.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Stored {
    /// A fixed-width number or `char`, in this byte order.
    Atomic {
        /// The netCDF type.
        dtype: DataType,
        /// Stored big-endian.
        big_endian: bool,
    },
    /// A fixed-length string of `size` bytes, read as a netCDF `string`.
    FixedString {
        /// Bytes per string.
        size: usize,
        /// How the stored string is padded.
        padding: StringPadding,
    },
    /// A variable-length string in the global heap.
    VarString,
    /// An enum: values travel as the base integer type's.
    Enum {
        /// The schema's type.
        id: TypeId,
        /// The base integer type and its byte order.
        base: Box<Stored>,
    },
    /// Opaque blobs of `size` bytes.
    Opaque {
        /// The schema's type.
        id: TypeId,
        /// Bytes per value.
        size: usize,
    },
    /// A compound of `size` bytes.
    Compound {
        /// The schema's type.
        id: TypeId,
        /// Bytes per value.
        size: usize,
        /// The fields in the type's order.
        fields: Vec<Field>,
    },
    /// A variable-length sequence of `base` values in the global heap.
    Vlen {
        /// The schema's type.
        id: TypeId,
        /// The element type.
        base: Box<Stored>,
    },
}

/// One field of a compound as stored.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Field {
    /// Byte offset in the compound value.
    pub offset: usize,
    /// Number of elements (the product of an array field's dimensions).
    pub count: usize,
    /// How each element is stored.
    pub stored: Stored,
}

/// The size of a variable-length element: a 4-byte length, the global
/// heap collection's address and a 4-byte object index.
pub(crate) fn vlen_element_size(sizeof_addr: u8) -> usize {
    8 + usize::from(sizeof_addr)
}

impl Stored {
    /// The netCDF type.
    pub(crate) fn dtype(&self) -> DataType {
        match self {
            Stored::Atomic { dtype, .. } => *dtype,
            Stored::FixedString { .. } | Stored::VarString => DataType::String,
            Stored::Enum { id, .. }
            | Stored::Opaque { id, .. }
            | Stored::Compound { id, .. }
            | Stored::Vlen { id, .. } => DataType::User(*id),
        }
    }

    /// Bytes per stored element (`sizeof_addr` sizes a vlen element).
    pub(crate) fn element_size(&self, sizeof_addr: u8) -> usize {
        match self {
            Stored::Atomic { dtype, .. } => dtype.size().unwrap_or(1),
            Stored::FixedString { size, .. }
            | Stored::Opaque { size, .. }
            | Stored::Compound { size, .. } => *size,
            Stored::VarString | Stored::Vlen { .. } => vlen_element_size(sizeof_addr),
            Stored::Enum { base, .. } => base.element_size(sizeof_addr),
        }
    }
}

/// Decodes `raw` (whole elements as stored) into values of `stored`.
/// `what` names the object in errors; `addr` is where `raw` was read.
pub(crate) fn decode(
    file: &Hdf5File,
    stored: &Stored,
    raw: &[u8],
    addr: u64,
    what: &str,
) -> Result<Values> {
    let sizeof_addr = file.ctx().sizeof_addr();
    let width = stored.element_size(sizeof_addr).max(1);
    Ok(match stored {
        Stored::Atomic {
            dtype: DataType::Char,
            ..
        } => Values::Char(raw.to_vec()),
        Stored::Atomic { dtype, big_endian } => Values::from_bytes(*dtype, raw, *big_endian),
        Stored::Enum { base, .. } => decode(file, base, raw, addr, what)?,
        Stored::Opaque { size, .. } => Values::Opaque {
            size: *size,
            bytes: raw[..raw.len() / width * width].to_vec(),
        },
        Stored::FixedString { padding, .. } => Values::String(
            raw.chunks_exact(width)
                .map(|s| Some(fixed_string(s, *padding)))
                .collect(),
        ),
        Stored::VarString => {
            let mut out = Vec::with_capacity(raw.len() / width);
            for (i, element) in raw.chunks_exact(width).enumerate() {
                let at = addr.saturating_add((i * width) as u64);
                // A null element is a null string (netCDF-C's NULL `char *`).
                let bytes = vlen_bytes(file, element, at, what, 1)?;
                out.push(bytes.map(|b| String::from_utf8_lossy(&b).into_owned()));
            }
            Values::String(out)
        }
        Stored::Vlen { base, .. } => {
            let base_size = base.element_size(sizeof_addr);
            let mut out = Vec::with_capacity(raw.len() / width);
            for (i, element) in raw.chunks_exact(width).enumerate() {
                let at = addr.saturating_add((i * width) as u64);
                // A null sequence is an empty one (netCDF has no null vlen).
                let bytes = vlen_bytes(file, element, at, what, base_size)?.unwrap_or_default();
                out.push(decode(file, base, &bytes, at, what)?);
            }
            Values::Vlen(out)
        }
        Stored::Compound { fields, .. } => {
            let len = raw.len() / width;
            let mut columns = Vec::with_capacity(fields.len());
            for f in fields {
                let fsize = f.stored.element_size(sizeof_addr) * f.count;
                let mut column = Vec::with_capacity(len * fsize);
                for element in raw.chunks_exact(width) {
                    let part = element.get(f.offset..f.offset + fsize).ok_or_else(|| {
                        file.ctx().corrupt(
                            what,
                            addr,
                            format!(
                                "a compound field at offset {} of {fsize} bytes passes the value's {width} bytes",
                                f.offset
                            ),
                        )
                    })?;
                    column.extend_from_slice(part);
                }
                columns.push(decode(file, &f.stored, &column, addr, what)?);
            }
            Values::Compound {
                len,
                fields: columns,
            }
        }
    })
}

/// A fixed-length string: up to the first NUL (netCDF-C copies it as a C
/// string), without trailing blanks when space-padded.
fn fixed_string(bytes: &[u8], padding: StringPadding) -> String {
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    let mut s = &bytes[..end];
    if padding == StringPadding::SpacePad {
        while let [rest @ .., b' '] = s {
            s = rest;
        }
    }
    String::from_utf8_lossy(s).into_owned()
}

/// The bytes of one variable-length element (`count` base elements of
/// `base_size` bytes each), read from the global heap; `None` for a null
/// element (no collection: address 0 or undefined, as HDF5 writes a null
/// string or an empty sequence).
pub(crate) fn vlen_bytes(
    file: &Hdf5File,
    element: &[u8],
    addr: u64,
    what: &str,
    base_size: usize,
) -> Result<Option<Vec<u8>>> {
    let ctx = file.ctx();
    let mut c = ctx.cursor(element, addr, what);
    let count = c.u32()? as usize;
    let collection = c.address()?;
    let index = c.u32()?;
    let Some(collection) = collection.filter(|&a| a != 0) else {
        return Ok(None);
    };
    if count == 0 {
        return Ok(Some(Vec::new()));
    }
    let mut object = file.global_heap_object(collection, index)?;
    let want = count.saturating_mul(base_size);
    if object.len() < want {
        return Err(ctx.corrupt(
            what,
            addr,
            format!(
                "a variable-length element of {count} values needs {want} bytes, its heap object {index} has {}",
                object.len()
            ),
        ));
    }
    object.truncate(want);
    Ok(Some(object))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_strings_stop_at_nul_and_lose_space_padding() {
        assert_eq!(fixed_string(b"ab\0cd", StringPadding::NullPad), "ab");
        assert_eq!(fixed_string(b"ab  ", StringPadding::SpacePad), "ab");
        assert_eq!(fixed_string(b"ab  ", StringPadding::NullTerminate), "ab  ");
    }
}
