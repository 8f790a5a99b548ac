//! Values -> the payload that follows a `Data` message, as netCDF-Java 4
//! writes it: big-endian numbers (siphon reads primitives big-endian
//! whatever `bigend` says, so nctk writes big-endian and says so), `char`
//! bytes, strings and opaque blobs as counted lists, vlens as counted lists
//! of their elements, compounds as a `StructureData` message (rows packed
//! without padding in the member order of the header, strings as an index
//! into the message's string heap).

use nctk_model::bytes::values_as_bytes;
use nctk_model::{CompoundField, DataType, Schema, UserTypeKind, Values};
use prost::Message;

use crate::error::{NcStreamError, Result};
use crate::proto;
use crate::wire::put_varint;

/// A data message's payload before framing.
#[derive(Debug, Clone, PartialEq)]
pub enum Payload {
    /// Fixed-size elements (numbers, `char`, enums), big-endian: framed as
    /// a varint byte count and the bytes, which may be deflated.
    Block(Vec<u8>),
    /// Strings, opaque blobs or vlens, already framed (a varint count of
    /// objects, each a varint length and its bytes); never deflated.
    Objects(Vec<u8>),
    /// An encoded `StructureData` message: framed as a varint length and
    /// the message.
    Structure(Vec<u8>),
}

/// The big-endian bytes of numbers or `char`s; `None` for other values.
/// One pass over the values' memory (copied and swapped together).
pub fn fixed_bytes(values: &Values) -> Option<Vec<u8>> {
    let native = values_as_bytes(values)?;
    let size = values.dtype().size().unwrap_or(1);
    if cfg!(target_endian = "big") || size == 1 {
        return Some(native.to_vec());
    }
    let mut out = vec![0u8; native.len()];
    macro_rules! swap {
        ($t:ty) => {{
            const N: usize = std::mem::size_of::<$t>();
            for (dst, src) in out.chunks_exact_mut(N).zip(native.chunks_exact(N)) {
                let v = <$t>::from_ne_bytes(src.try_into().expect("chunks of N bytes"));
                dst.copy_from_slice(&v.to_be_bytes());
            }
        }};
    }
    match size {
        2 => swap!(u16),
        4 => swap!(u32),
        8 => swap!(u64),
        _ => unreachable!("numbers are 1, 2, 4 or 8 bytes"),
    }
    Some(out)
}

/// The payload of `values`, which are values of `dtype` (checked);
/// `item` names the variable for errors.
pub fn encode(schema: &Schema, dtype: DataType, values: &Values, item: &str) -> Result<Payload> {
    schema
        .check_values(dtype, values)
        .map_err(|e| NcStreamError::unwritable(item, e.to_string()))?;
    if let Some(bytes) = fixed_bytes(values) {
        return Ok(Payload::Block(bytes));
    }
    let mut out = Vec::new();
    match (schema.user_kind(dtype), values) {
        (_, Values::String(v)) => {
            put_varint(&mut out, v.len() as u64);
            // ncstream has no null string: a null goes as "".
            for s in v {
                put_object(&mut out, s.as_deref().unwrap_or_default().as_bytes());
            }
        }
        (_, Values::Opaque { size, bytes }) => {
            let size = (*size).max(1);
            put_varint(&mut out, (bytes.len() / size) as u64);
            for blob in bytes.chunks_exact(size) {
                put_object(&mut out, blob);
            }
        }
        (_, Values::Vlen(seqs)) => {
            put_varint(&mut out, seqs.len() as u64);
            for s in seqs {
                let bytes = fixed_bytes(s).ok_or_else(|| {
                    NcStreamError::unwritable(item, "a vlen of other than numbers or chars")
                })?;
                put_object(&mut out, &bytes);
            }
        }
        (Some(UserTypeKind::Compound { fields, .. }), Values::Compound { len, fields: vs }) => {
            return Ok(Payload::Structure(structure_data(
                schema, fields, *len, vs, item,
            )?));
        }
        (_, other) => {
            return Err(NcStreamError::unwritable(
                item,
                format!("values of type {} are not supported", other.dtype()),
            ))
        }
    }
    Ok(Payload::Objects(out))
}

fn put_object(out: &mut Vec<u8>, bytes: &[u8]) {
    put_varint(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

/// The rows of a compound being packed: the fixed part and the string heap.
#[derive(Default)]
struct Rows {
    data: Vec<u8>,
    heap_count: Vec<u32>,
    sdata: Vec<String>,
}

/// `len` compound values (field-major `vs`) as an encoded `StructureData`.
fn structure_data(
    schema: &Schema,
    fields: &[CompoundField],
    len: usize,
    vs: &[Values],
    item: &str,
) -> Result<Vec<u8>> {
    let row_length = row_size(schema, fields, item)?;
    let mut rows = Rows {
        data: Vec::with_capacity(len.saturating_mul(row_length as usize)),
        ..Default::default()
    };
    for r in 0..len {
        pack_row(schema, fields, vs, r, &mut rows, item)?;
    }
    let message = proto::StructureData {
        member: Vec::new(),
        data: Some(rows.data),
        heap_count: rows.heap_count,
        sdata: rows.sdata,
        nrows: Some(len as u64),
        row_length: Some(u32::try_from(row_length).map_err(|_| {
            NcStreamError::unwritable(item, "a structure row of more than 2^32 bytes")
        })?),
    };
    Ok(message.encode_to_vec())
}

/// The fields in the order rows are packed: plain fields, then nested
/// compounds (the order the header lists them in, `header::encode`).
fn packing_order<'a>(
    schema: &Schema,
    fields: &'a [CompoundField],
) -> impl Iterator<Item = (usize, &'a CompoundField)> {
    let nested = |f: &CompoundField| {
        matches!(
            schema.user_kind(f.dtype),
            Some(UserTypeKind::Compound { .. })
        )
    };
    let plain: Vec<_> = fields
        .iter()
        .enumerate()
        .filter(|(_, f)| !nested(f))
        .collect();
    let inner: Vec<_> = fields
        .iter()
        .enumerate()
        .filter(|(_, f)| nested(f))
        .collect();
    plain.into_iter().chain(inner)
}

/// Bytes of one packed row: numbers at their size, a string member 4 (a
/// heap index), nested compounds their own rows, times the member's count.
fn row_size(schema: &Schema, fields: &[CompoundField], item: &str) -> Result<u64> {
    let mut total = 0u64;
    for f in fields {
        let one = match (f.dtype, schema.user_kind(f.dtype)) {
            (DataType::String, _) => 4,
            (_, Some(UserTypeKind::Compound { fields: inner, .. })) => {
                row_size(schema, inner, item)?
            }
            (_, Some(UserTypeKind::Enum { base, .. })) => base.size().unwrap_or(0) as u64,
            (t, None) if t.size().is_some() => t.size().unwrap_or(0) as u64,
            _ => {
                return Err(NcStreamError::unwritable(
                    item,
                    format!(
                    "structure member {:?} of type {} (vlen and opaque members are not supported)",
                    f.name,
                    schema.type_name(f.dtype)
                ),
                ))
            }
        };
        total = one
            .checked_mul(f.count() as u64)
            .and_then(|n| total.checked_add(n))
            .ok_or_else(|| NcStreamError::unwritable(item, "a structure row overflows"))?;
    }
    Ok(total)
}

fn pack_row(
    schema: &Schema,
    fields: &[CompoundField],
    vs: &[Values],
    row: usize,
    rows: &mut Rows,
    item: &str,
) -> Result<()> {
    for (i, f) in packing_order(schema, fields) {
        let count = f.count();
        let range = row * count..(row + 1) * count;
        match &vs[i] {
            Values::String(v) => {
                let index = rows.heap_count.len() as u32;
                rows.data.extend_from_slice(&index.to_be_bytes());
                rows.heap_count.push(count as u32);
                // ncstream has no null string: a null goes as "".
                rows.sdata
                    .extend(v[range].iter().map(|s| s.clone().unwrap_or_default()));
            }
            Values::Compound { fields: vs2, .. } => {
                let Some(UserTypeKind::Compound { fields: inner, .. }) = schema.user_kind(f.dtype)
                else {
                    unreachable!("check_values matched compound values to a compound type")
                };
                for r in range {
                    pack_row(schema, inner, vs2, r, rows, item)?;
                }
            }
            v => {
                let bytes = fixed_bytes(&v.slice(range)).ok_or_else(|| {
                    NcStreamError::unwritable(item, format!("structure member {:?}", f.name))
                })?;
                rows.data.extend_from_slice(&bytes);
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_become_big_endian() {
        let v = Values::Int(vec![1, -2]);
        assert_eq!(
            fixed_bytes(&v).unwrap(),
            [0, 0, 0, 1, 0xff, 0xff, 0xff, 0xfe]
        );
        let v = Values::Double(vec![1.5]);
        assert_eq!(fixed_bytes(&v).unwrap(), 1.5f64.to_be_bytes());
        let v = Values::UShort(vec![0x0102]);
        assert_eq!(fixed_bytes(&v).unwrap(), [1, 2]);
        assert_eq!(fixed_bytes(&Values::String(vec![])), None);
    }
}
