//! netCDF-4 types and values as netCDF-C stores them: user-defined types
//! as committed (named) datatypes of their group, with the HDF5 types
//! netCDF-C builds (a compound's array fields as array types, a vlen as a
//! sequence, an enum over its base, an opaque type with no tag), and
//! values of every type as stored bytes, the variable-length parts
//! (strings, vlens) put in the global heap.

use nctk_model::{Attribute, DataType, Schema, TypeId, UserTypeKind, Values};

use super::attrs::{self, not_yet};
use crate::datatype::{CompoundMember, Datatype};
use crate::write::{AttrValue, AttributeSpec, Hdf5Writer, ObjectId, WriteError, WriteResult};

/// The committed datatype of each user type, by type id.
pub type Committed = Vec<Option<ObjectId>>;

/// Commits the user types of group `g` (object `group`) in their order.
pub fn commit(
    w: &mut Hdf5Writer,
    schema: &Schema,
    g: nctk_model::GroupId,
    group: ObjectId,
    committed: &mut Committed,
) -> WriteResult<()> {
    for &t in &schema.group(g).types {
        let dt = hdf5_type(schema, DataType::User(t), false)?;
        let id = w.add_named_datatype(group, &schema.user_type(t).name, dt)?;
        committed[t.0 as usize] = Some(id);
    }
    Ok(())
}

/// The HDF5 datatype of `dtype`; `big_endian` for atomic numbers stored
/// big-endian (user types are stored little-endian, as netCDF-C makes them).
pub fn hdf5_type(schema: &Schema, dtype: DataType, big_endian: bool) -> WriteResult<Datatype> {
    let DataType::User(t) = dtype else {
        return attrs::datatype(dtype, big_endian);
    };
    let user = schema.user_type(t);
    let size = |n: u64| {
        u32::try_from(n).map_err(|_| not_yet(&format!("type {:?} of {n} bytes", user.name)))
    };
    Ok(match &user.kind {
        UserTypeKind::Compound {
            size: total,
            fields,
        } => {
            // HDF5 lays the committed type out for the file: a field
            // whose stored size differs from its size in memory (a string:
            // a pointer of 8 bytes, 16 stored) moves the fields after it
            // and the compound's size by the difference.
            let mut order: Vec<usize> = (0..fields.len()).collect();
            order.sort_by_key(|&i| fields[i].offset);
            let mut shift = vec![0i64; fields.len()];
            let mut change = 0i64;
            for &i in &order {
                shift[i] = change;
                let f = &fields[i];
                let stored = i64::from(hdf5_type(schema, f.dtype, false)?.size());
                change += (stored - memory_size(schema, f.dtype) as i64) * f.count() as i64;
            }
            let mut members = Vec::with_capacity(fields.len());
            for (f, shift) in fields.iter().zip(shift) {
                let base = hdf5_type(schema, f.dtype, false)?;
                let datatype = if f.dims.is_empty() {
                    base
                } else {
                    Datatype::Array {
                        dims: f.dims.iter().map(|&d| size(d)).collect::<Result<_, _>>()?,
                        base: Box::new(base),
                    }
                };
                members.push(CompoundMember {
                    name: f.name.clone(),
                    offset: size(f.offset.saturating_add_signed(shift))?,
                    datatype,
                });
            }
            Datatype::Compound {
                size: size(total.saturating_add_signed(change))?,
                members,
            }
        }
        UserTypeKind::Vlen { base } => Datatype::VarLen {
            base: Box::new(hdf5_type(schema, *base, false)?),
        },
        UserTypeKind::Enum { base, members } => {
            let width = base.size().unwrap_or(1);
            Datatype::Enum {
                base: Box::new(attrs::datatype(*base, false)?),
                members: members
                    .iter()
                    .map(|m| (m.name.clone(), m.value.to_le_bytes()[..width].to_vec()))
                    .collect(),
            }
        }
        UserTypeKind::Opaque { size: n } => Datatype::Opaque {
            size: size(*n)?,
            tag: String::new(),
        },
    })
}

/// The size of a value of `dtype` in netCDF-C's memory layout (a string
/// is a pointer, a vlen an `nc_vlen_t`).
pub fn memory_size(schema: &Schema, dtype: DataType) -> u64 {
    match dtype {
        DataType::String => 8,
        _ => schema.type_size(dtype).unwrap_or(16),
    }
}

/// The committed datatype `dtype` refers to, if it is a user type.
pub fn named(committed: &Committed, dtype: DataType) -> Option<ObjectId> {
    match dtype {
        DataType::User(TypeId(t)) => committed.get(t as usize).copied().flatten(),
        _ => None,
    }
}

/// The stored bytes (little-endian) of `values` of type `dtype`, their
/// variable-length parts put in the heap of `w`.
pub fn stored(
    w: &mut Hdf5Writer,
    schema: &Schema,
    dtype: DataType,
    values: &Values,
) -> WriteResult<Vec<u8>> {
    let mismatch = || {
        WriteError::Invalid(format!(
            "values of type {} for type {}",
            values.dtype(),
            schema.type_name(dtype)
        ))
    };
    let user = match dtype {
        DataType::User(t) => &schema.user_type(t).kind,
        _ => {
            return match values {
                Values::String(s) => super::strings::stored(w, s),
                v if v.dtype() == dtype => attrs::little_endian_bytes(v).ok_or_else(mismatch),
                _ => Err(mismatch()),
            }
        }
    };
    match (user, values) {
        (UserTypeKind::Enum { base, .. }, v) if v.dtype() == *base => {
            attrs::little_endian_bytes(v).ok_or_else(mismatch)
        }
        (UserTypeKind::Opaque { size }, Values::Opaque { size: n, bytes })
            if *size == *n as u64 =>
        {
            Ok(bytes.clone())
        }
        (UserTypeKind::Vlen { base }, Values::Vlen(items)) => {
            let mut out = Vec::with_capacity(16 * items.len());
            for item in items {
                let inner = stored(w, schema, *base, item)?;
                let count = u32::try_from(item.len())
                    .map_err(|_| not_yet("a vlen of 2^32 elements or more"))?;
                out.extend(w.put_vlen(count, inner)?);
            }
            Ok(out)
        }
        (
            UserTypeKind::Compound { fields, .. },
            Values::Compound {
                len,
                fields: values,
            },
        ) if values.len() == fields.len() => {
            let Datatype::Compound { size, members } = hdf5_type(schema, dtype, false)? else {
                unreachable!("a compound type's HDF5 type is a compound");
            };
            let size = size as usize;
            let mut out = vec![0; len * size];
            for ((f, m), v) in fields.iter().zip(&members).zip(values) {
                let bytes = stored(w, schema, f.dtype, v)?;
                let count = f.count();
                if v.len() != len * count {
                    return Err(mismatch());
                }
                let per = bytes.len() / (len * count).max(1) * count;
                for k in 0..*len {
                    let at = k * size + m.offset as usize;
                    out[at..at + per].copy_from_slice(&bytes[k * per..(k + 1) * per]);
                }
            }
            Ok(out)
        }
        _ => Err(mismatch()),
    }
}

/// A netCDF attribute as netCDF-C stores it: one of a user type as an
/// array of that committed type, others as [`attrs::user`] makes them.
pub fn attribute(
    w: &mut Hdf5Writer,
    schema: &Schema,
    committed: &Committed,
    a: &Attribute,
) -> WriteResult<AttributeSpec> {
    let Some(t) = a.user_type else {
        return attrs::user(a);
    };
    let dtype = DataType::User(t);
    let raw = stored(w, schema, dtype, &a.value)
        .map_err(|e| WriteError::Invalid(format!("attribute {:?}: {e}", a.name)))?;
    Ok(AttributeSpec {
        name: a.name.clone(),
        datatype: hdf5_type(schema, dtype, false)?,
        dataspace: attrs::vector(a.value.len() as u64),
        value: AttrValue::Bytes(raw),
        named_type: named(committed, dtype),
    })
}
