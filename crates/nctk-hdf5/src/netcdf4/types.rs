//! HDF5 datatypes as netCDF-C 4.9.0 maps them: atomic types
//! (`get_type_info2` for variables, `get_netcdf_type` for attributes and
//! members), and user types (`read_type`): committed (named) compound,
//! enum, vlen and opaque types. A dataset's or attribute's type is matched
//! to a committed one when they are equal (`H5Tequal` of the native types:
//! byte order aside); a dataset of another user type is no variable, as in
//! netCDF-C 4.9.0 (later versions name such types `_AnonymousCompound1`
//! and so on).

use nctk_model::{CompoundField, DataType, EnumMember, GroupId, Schema, TypeId, UserTypeKind};

use crate::datatype::Datatype;

use super::convert::{Field, Stored};
use super::error::Nc4Error;

/// The user types read so far, with the HDF5 type each came from.
pub(crate) struct TypeTable {
    file: String,
    types: Vec<(Datatype, Stored)>,
}

/// Why a type cannot be a netCDF user type.
type Refusal = String;

/// How a user type's values are stored, given the type's id in the schema.
type StoredAs = Box<dyn Fn(TypeId) -> Stored>;

/// `Some` when `dt` is one of netCDF's numbers (netCDF-C compares native
/// types, so byte order does not matter); `None` for others (a 16-bit
/// float, a 128-bit integer).
fn number(dt: &Datatype) -> Option<Stored> {
    let (dtype, big_endian) = match *dt {
        Datatype::Integer {
            size,
            signed,
            big_endian,
        } => (DataType::integer(u64::from(size), signed)?, big_endian),
        Datatype::Float { size, big_endian } => (
            match size {
                4 => DataType::Float,
                8 => DataType::Double,
                _ => return None,
            },
            big_endian,
        ),
        _ => return None,
    };
    Some(Stored::Atomic { dtype, big_endian })
}

const CHAR: Stored = Stored::Atomic {
    dtype: DataType::Char,
    big_endian: false,
};

/// `dt` with every byte order little-endian (what `H5Tequal` of native
/// types compares).
fn native(dt: &Datatype) -> Datatype {
    let mut dt = dt.clone();
    normalize(&mut dt);
    dt
}

fn normalize(dt: &mut Datatype) {
    match dt {
        Datatype::Integer { big_endian, .. }
        | Datatype::Float { big_endian, .. }
        | Datatype::Bitfield { big_endian, .. }
        | Datatype::Time { big_endian, .. } => *big_endian = false,
        Datatype::Compound { members, .. } => {
            members.iter_mut().for_each(|m| normalize(&mut m.datatype))
        }
        Datatype::Enum { base, members } => {
            if let Datatype::Integer {
                big_endian: big @ true,
                ..
            } = base.as_mut()
            {
                *big = false;
                members.iter_mut().for_each(|(_, v)| v.reverse());
            }
        }
        Datatype::VarLen { base } | Datatype::Array { base, .. } => normalize(base),
        _ => {}
    }
}

/// An enum member's value (raw bytes in the base type's order) as a number.
fn enum_value(raw: &[u8], signed: bool, big_endian: bool) -> i128 {
    let mut le = raw.to_vec();
    if big_endian {
        le.reverse();
    }
    let mut v: i128 = 0;
    for (i, &b) in le.iter().enumerate().take(16) {
        v |= i128::from(b) << (8 * i);
    }
    let bits = 8 * le.len().min(16) as u32;
    if signed && bits > 0 && bits < 128 && v >> (bits - 1) & 1 == 1 {
        v -= 1i128 << bits;
    }
    v
}

impl TypeTable {
    /// An empty table for the file named `file` (in errors).
    pub(crate) fn new(file: &str) -> TypeTable {
        TypeTable {
            file: file.to_string(),
            types: vec![],
        }
    }

    /// The user type read before that equals `dt`.
    fn find(&self, dt: &Datatype) -> Option<&Stored> {
        let dt = native(dt);
        self.types.iter().find(|(t, _)| *t == dt).map(|(_, s)| s)
    }

    /// A variable's type (`get_type_info2`): atomic (a fixed-length string
    /// longer than one byte reads as `string`) or a committed type read
    /// before; `None` for what netCDF-C skips (references, bitfields,
    /// 16-bit floats, user types never committed, ...).
    pub(crate) fn var_type(&self, dt: &Datatype) -> Option<Stored> {
        match dt {
            Datatype::VarString { .. } => Some(Stored::VarString),
            Datatype::String { size: 1, .. } => Some(CHAR),
            Datatype::String { size, padding, .. } => Some(Stored::FixedString {
                size: *size as usize,
                padding: *padding,
            }),
            Datatype::Integer { .. } | Datatype::Float { .. } => number(dt),
            _ => self.find(dt).cloned(),
        }
    }

    /// An attribute's type (`get_netcdf_type`, then `read_hdf5_att`): a
    /// scalar fixed-length string is `char` text, an array of them a
    /// `string` vector; a user type must have been read before; `None` for
    /// what netCDF-C skips.
    pub(crate) fn att_type(&self, dt: &Datatype, scalar: bool) -> Option<Stored> {
        match dt {
            Datatype::String { .. } if scalar => Some(CHAR),
            Datatype::String { size, padding, .. } => Some(Stored::FixedString {
                size: *size as usize,
                padding: *padding,
            }),
            _ => self.member_type(dt),
        }
    }

    /// A member's, base's or attribute's type (`get_netcdf_type`): fixed
    /// strings are `char`.
    fn member_type(&self, dt: &Datatype) -> Option<Stored> {
        match dt {
            Datatype::VarString { .. } => Some(Stored::VarString),
            Datatype::String { .. } => Some(CHAR),
            Datatype::Integer { .. } | Datatype::Float { .. } => number(dt),
            _ => self.find(dt).cloned(),
        }
    }

    /// Reads a committed type named `name` (`read_hdf5_obj` on a named
    /// datatype): an error for classes netCDF-C refuses, as its open does.
    pub(crate) fn read_named(
        &mut self,
        schema: &mut Schema,
        group: GroupId,
        name: &str,
        dt: &Datatype,
    ) -> Result<(), Nc4Error> {
        // A named variable-length string type is netCDF's `string`.
        if matches!(dt, Datatype::VarString { .. }) {
            return Ok(());
        }
        match self.read_type(schema, group, name, dt)? {
            Some(_) => Ok(()),
            None => Err(Nc4Error::Unsupported {
                file: self.file.clone(),
                object: name.to_string(),
                reason: format!(
                    "a named datatype netCDF-4 cannot represent ({})",
                    class_name(dt)
                ),
            }),
        }
    }

    /// `read_type`: adds the committed type `dt` named `name` to `group` of
    /// `schema`; `None` for classes netCDF-C refuses or members it cannot
    /// map.
    fn read_type(
        &mut self,
        schema: &mut Schema,
        group: GroupId,
        name: &str,
        dt: &Datatype,
    ) -> Result<Option<Stored>, Nc4Error> {
        let Ok((kind, layout)) = self.kind_of(dt) else {
            return Ok(None);
        };
        let id = schema
            .add_type(group, name, kind)
            .map_err(|e| Nc4Error::Model {
                file: self.file.clone(),
                object: name.to_string(),
                source: e,
            })?;
        let stored = layout(id);
        self.types.push((native(dt), stored.clone()));
        Ok(Some(stored))
    }

    /// The model's kind of a user type and how its values are stored.
    fn kind_of(&self, dt: &Datatype) -> Result<(UserTypeKind, StoredAs), Refusal> {
        let refuse = || format!("no netCDF type for {}", class_name(dt));
        Ok(match dt {
            Datatype::Opaque { size, .. } => {
                let size = *size as usize;
                (
                    UserTypeKind::Opaque { size: size as u64 },
                    Box::new(move |id| Stored::Opaque { id, size }),
                )
            }
            Datatype::Enum { base, members } => {
                let Some(base_stored @ Stored::Atomic { dtype, big_endian }) = number(base) else {
                    return Err(refuse());
                };
                if !dtype.is_integer() {
                    return Err(refuse());
                }
                let signed = matches!(**base, Datatype::Integer { signed: true, .. });
                let members = members
                    .iter()
                    .map(|(n, raw)| EnumMember {
                        name: n.clone(),
                        value: enum_value(raw, signed, big_endian),
                    })
                    .collect();
                (
                    UserTypeKind::Enum {
                        base: dtype,
                        members,
                    },
                    Box::new(move |id| Stored::Enum {
                        id,
                        base: Box::new(base_stored.clone()),
                    }),
                )
            }
            Datatype::VarLen { base } => {
                let base_stored = self.member_type(base).ok_or_else(refuse)?;
                (
                    UserTypeKind::Vlen {
                        base: base_stored.dtype(),
                    },
                    Box::new(move |id| Stored::Vlen {
                        id,
                        base: Box::new(base_stored.clone()),
                    }),
                )
            }
            Datatype::Compound { size, members } => {
                let mut fields = vec![];
                let mut stored_fields = vec![];
                for m in members {
                    let (dims, base): (Vec<u64>, &Datatype) = match &m.datatype {
                        Datatype::Array { base, .. } if matches!(**base, Datatype::String { size, .. } if size > 1) =>
                        {
                            return Err(refuse());
                        }
                        Datatype::Array { dims, base } => {
                            (dims.iter().map(|&d| u64::from(d)).collect(), base)
                        }
                        // A fixed-length string member: chars, one per byte.
                        Datatype::String { size, .. } if *size > 1 => {
                            (vec![u64::from(*size)], &m.datatype)
                        }
                        other => (vec![], other),
                    };
                    let stored = self.member_type(base).ok_or_else(refuse)?;
                    fields.push(CompoundField {
                        name: m.name.clone(),
                        offset: u64::from(m.offset),
                        dtype: stored.dtype(),
                        dims: dims.clone(),
                    });
                    stored_fields.push(Field {
                        offset: m.offset as usize,
                        count: dims.iter().product::<u64>() as usize,
                        stored,
                    });
                }
                let size = *size as usize;
                (
                    UserTypeKind::Compound {
                        size: size as u64,
                        fields,
                    },
                    Box::new(move |id| Stored::Compound {
                        id,
                        size,
                        fields: stored_fields.clone(),
                    }),
                )
            }
            _ => return Err(refuse()),
        })
    }
}

/// The class of a type, for errors.
fn class_name(dt: &Datatype) -> &'static str {
    match dt {
        Datatype::Compound { .. } => "Compound",
        Datatype::Enum { .. } => "Enum",
        Datatype::VarLen { .. } => "Vlen",
        Datatype::Opaque { .. } => "Opaque",
        Datatype::Integer { .. } => "Integer",
        Datatype::Float { .. } => "Float",
        Datatype::Reference { .. } => "Reference",
        Datatype::Bitfield { .. } => "Bitfield",
        Datatype::Array { .. } => "Array",
        Datatype::Time { .. } => "Time",
        Datatype::String { .. } | Datatype::VarString { .. } => "String",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// netCDF-C's mapping: signedness and size decide, byte order does not;
    /// a one-byte string is `char`, a longer one `string` for a variable.
    #[test]
    fn atomic_types_follow_netcdf_c() {
        let table = TypeTable::new("f");
        let var = |dt: Datatype| table.var_type(&dt).map(|s| s.dtype());
        let int = |size, signed| Datatype::Integer {
            size,
            signed,
            big_endian: true,
        };
        assert_eq!(var(int(1, true)), Some(DataType::Byte));
        assert_eq!(var(int(8, false)), Some(DataType::UInt64));
        let half = Datatype::Float {
            size: 2,
            big_endian: false,
        };
        assert_eq!(var(half), None);
        let s = |size| Datatype::String {
            size,
            padding: crate::datatype::StringPadding::NullTerminate,
            utf8: false,
        };
        assert_eq!(var(s(1)), Some(DataType::Char));
        assert_eq!(var(s(5)), Some(DataType::String));
        assert_eq!(table.att_type(&s(5), true).unwrap().dtype(), DataType::Char);
        assert_eq!(
            table.att_type(&s(5), false).unwrap().dtype(),
            DataType::String
        );
    }

    #[test]
    fn enum_values_follow_the_base_type() {
        assert_eq!(enum_value(&[0xff, 0xfe], true, true), -2);
        assert_eq!(enum_value(&[0xfe, 0xff], true, false), -2);
        assert_eq!(enum_value(&[0xfe, 0xff], false, false), 0xfffe);
        assert_eq!(enum_value(&[0xff; 8], false, false), u64::MAX as i128);
    }
}
