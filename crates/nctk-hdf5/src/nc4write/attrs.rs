//! netCDF attributes as HDF5 attributes, as netCDF-C stores them: text as
//! one fixed-length null-terminated string (a scalar), strings as a
//! one-dimensional array of variable-length UTF-8 strings, numbers as a
//! one-dimensional array of their type; and the hidden attributes of the
//! netCDF-4 mapping.

use nctk_model::bytes::values_as_bytes;
use nctk_model::{Attribute, DataType, Values};

use crate::dataspace::{Dataspace, DataspaceKind};
use crate::datatype::{Datatype, StringPadding};
use crate::write::{AttrValue, AttributeSpec, WriteError, WriteResult};

/// The HDF5 datatype of netCDF type `dtype` (`big_endian` for numbers
/// stored big-endian).
pub fn datatype(dtype: DataType, big_endian: bool) -> WriteResult<Datatype> {
    let int = |size, signed| Datatype::Integer {
        size,
        signed,
        big_endian,
    };
    Ok(match dtype {
        DataType::Byte => int(1, true),
        DataType::UByte => int(1, false),
        DataType::Short => int(2, true),
        DataType::UShort => int(2, false),
        DataType::Int => int(4, true),
        DataType::UInt => int(4, false),
        DataType::Int64 => int(8, true),
        DataType::UInt64 => int(8, false),
        DataType::Float => Datatype::Float {
            size: 4,
            big_endian,
        },
        DataType::Double => Datatype::Float {
            size: 8,
            big_endian,
        },
        DataType::Char => text_type(1),
        // netCDF-C: variable-length UTF-8 strings, null-terminated.
        DataType::String => Datatype::VarString {
            padding: StringPadding::NullTerminate,
            utf8: true,
        },
        _ => return Err(not_yet("user-defined types")),
    })
}

/// What this writer does not write yet, as its error.
pub fn not_yet(what: &str) -> WriteError {
    WriteError::Unsupported(format!("{what} (netCDF-4 output)"))
}

fn text_type(size: u32) -> Datatype {
    Datatype::String {
        size,
        padding: StringPadding::NullTerminate,
        utf8: false,
    }
}

fn scalar() -> Dataspace {
    Dataspace {
        kind: DataspaceKind::Scalar,
        dims: vec![],
        max_dims: None,
    }
}

/// A one-dimensional dataspace of `n` elements.
pub fn vector(n: u64) -> Dataspace {
    Dataspace {
        kind: DataspaceKind::Simple,
        dims: vec![n],
        max_dims: None,
    }
}

/// A text attribute: a scalar string of the text's length (one null
/// byte for empty text, as netCDF-C writes it).
pub fn text(name: &str, bytes: &[u8]) -> AttributeSpec {
    let raw = if bytes.is_empty() {
        vec![0]
    } else {
        bytes.to_vec()
    };
    AttributeSpec {
        named_type: None,
        name: name.to_string(),
        datatype: text_type(raw.len() as u32),
        dataspace: scalar(),
        value: AttrValue::Bytes(raw),
    }
}

/// A scalar 32-bit integer attribute (`_Netcdf4Dimid`).
pub fn int_scalar(name: &str, v: i32) -> AttributeSpec {
    AttributeSpec {
        named_type: None,
        name: name.to_string(),
        datatype: datatype(DataType::Int, false).expect("int is written"),
        dataspace: scalar(),
        value: AttrValue::Bytes(v.to_le_bytes().to_vec()),
    }
}

/// A 32-bit integer array attribute (`_Netcdf4Coordinates`).
pub fn int_vector(name: &str, v: &[i32]) -> AttributeSpec {
    AttributeSpec {
        named_type: None,
        name: name.to_string(),
        datatype: datatype(DataType::Int, false).expect("int is written"),
        dataspace: vector(v.len() as u64),
        value: AttrValue::Bytes(v.iter().flat_map(|x| x.to_le_bytes()).collect()),
    }
}

/// A netCDF attribute as netCDF-C stores it.
pub fn user(attr: &Attribute) -> WriteResult<AttributeSpec> {
    let dtype = attr.dtype();
    match &attr.value {
        Values::Char(bytes) => Ok(text(&attr.name, bytes)),
        Values::String(strings) => Ok(AttributeSpec {
            named_type: None,
            name: attr.name.clone(),
            datatype: datatype(DataType::String, false)?,
            dataspace: vector(strings.len() as u64),
            value: AttrValue::VarStrings(
                strings
                    .iter()
                    .map(|s| s.as_ref().map(|s| s.as_bytes().to_vec()))
                    .collect(),
            ),
        }),
        v => {
            let raw = little_endian_bytes(v)
                .ok_or_else(|| not_yet(&format!("attribute {:?} of type {dtype}", attr.name)))?;
            Ok(AttributeSpec {
                named_type: None,
                name: attr.name.clone(),
                datatype: datatype(dtype, false)?,
                dataspace: vector(v.len() as u64),
                value: AttrValue::Bytes(raw),
            })
        }
    }
}

/// The little-endian bytes of numbers; `None` for strings and user values.
pub fn little_endian_bytes(v: &Values) -> Option<Vec<u8>> {
    let bytes = values_as_bytes(v)?;
    let mut out = bytes.to_vec();
    if cfg!(target_endian = "big") {
        let size = v.dtype().size().unwrap_or(1);
        out.chunks_mut(size).for_each(<[u8]>::reverse);
    }
    Some(out)
}
