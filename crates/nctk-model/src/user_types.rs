//! The netCDF-4 user-defined types: compound, vlen, enum and opaque.
//!
//! A type is defined in a group ([`Schema::add_type`]) and referred to as
//! [`DataType::User`]. Values of user types travel as
//! [`Values::Compound`](crate::Values::Compound), [`Values::Vlen`](crate::Values::Vlen)
//! and [`Values::Opaque`](crate::Values::Opaque); enum
//! values travel as the base integer type's values (the variable's or
//! attribute's type says they are an enum).

use crate::{DataType, GroupId, ModelError, Schema, TypeId};

/// A user-defined type: its name, the group that defines it, and what it is.
#[derive(Debug, Clone, PartialEq)]
pub struct UserType {
    /// The type's name (unique among the group's types, variables and subgroups).
    pub name: String,
    /// The group that defines the type.
    pub group: GroupId,
    /// Compound, vlen, enum or opaque.
    pub kind: UserTypeKind,
}

/// What a user-defined type is.
#[derive(Debug, Clone, PartialEq)]
pub enum UserTypeKind {
    /// A record of named fields at byte offsets within `size` bytes.
    Compound {
        /// Size in bytes of one value as stored (what `nc_inq_type` reports).
        size: u64,
        /// The fields, in definition order.
        fields: Vec<CompoundField>,
    },
    /// A variable-length sequence of values of `base`.
    Vlen {
        /// The element type.
        base: DataType,
    },
    /// Named values of an integer base type.
    Enum {
        /// The base type (one of the eight atomic integer types).
        base: DataType,
        /// The members, in definition order.
        members: Vec<EnumMember>,
    },
    /// Uninterpreted blobs of `size` bytes.
    Opaque {
        /// Bytes per value.
        size: u64,
    },
}

/// A field of a compound type.
#[derive(Debug, Clone, PartialEq)]
pub struct CompoundField {
    /// The field's name.
    pub name: String,
    /// Byte offset of the field within the compound value.
    pub offset: u64,
    /// The field's element type.
    pub dtype: DataType,
    /// The field's array shape; empty for a scalar field.
    pub dims: Vec<u64>,
}

impl CompoundField {
    /// Number of elements of the field in one compound value (the product
    /// of its dimensions; 1 for a scalar field).
    pub fn count(&self) -> usize {
        self.dims
            .iter()
            .try_fold(1usize, |n, &d| n.checked_mul(usize::try_from(d).ok()?))
            .unwrap_or(usize::MAX)
    }
}

/// A named value of an enum type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnumMember {
    /// The member's name.
    pub name: String,
    /// Its value (in the range of the base type).
    pub value: i128,
}

impl UserTypeKind {
    /// The class name netCDF-C uses (`compound`, `vlen`, `enum`, `opaque`),
    /// for messages.
    pub fn class_name(&self) -> &'static str {
        match self {
            UserTypeKind::Compound { .. } => "compound",
            UserTypeKind::Vlen { .. } => "vlen",
            UserTypeKind::Enum { .. } => "enum",
            UserTypeKind::Opaque { .. } => "opaque",
        }
    }
}

impl UserTypeKind {
    /// NFC-normalizes the names of a compound's fields or an enum's
    /// members, refusing one netCDF-C cannot write or one used twice.
    pub(crate) fn normalize_names(&mut self) -> Result<(), ModelError> {
        let names: Vec<&mut String> = match self {
            UserTypeKind::Compound { fields, .. } => {
                fields.iter_mut().map(|f| &mut f.name).collect()
            }
            UserTypeKind::Enum { members, .. } => members.iter_mut().map(|m| &mut m.name).collect(),
            _ => return Ok(()),
        };
        let mut normalized = Vec::with_capacity(names.len());
        for n in names {
            *n = crate::name::normalize(n)?;
            normalized.push(n.clone());
        }
        match crate::name::first_duplicate(normalized.iter().map(String::as_str)) {
            Some(d) => Err(ModelError::DuplicateName(d.to_string())),
            None => Ok(()),
        }
    }
}

/// The inclusive range of an atomic integer type, if `t` is one.
fn integer_range(t: DataType) -> Option<(i128, i128)> {
    Some(match t {
        DataType::Byte => (i8::MIN.into(), i8::MAX.into()),
        DataType::UByte => (0, u8::MAX.into()),
        DataType::Short => (i16::MIN.into(), i16::MAX.into()),
        DataType::UShort => (0, u16::MAX.into()),
        DataType::Int => (i32::MIN.into(), i32::MAX.into()),
        DataType::UInt => (0, u32::MAX.into()),
        DataType::Int64 => (i64::MIN.into(), i64::MAX.into()),
        DataType::UInt64 => (0, u64::MAX.into()),
        _ => return None,
    })
}

impl Schema {
    /// Defines a user type named `name` in `group`. The name must be valid
    /// and NFC and unused by the group's types, variables and subgroups
    /// (netCDF-C's one namespace for them); every type the definition
    /// refers to must already exist (so definitions cannot form a cycle);
    /// an enum's base must be an integer type and its members fit it, with
    /// unique names; a compound's fields must have unique names and lie
    /// within its size (fields of vlen and string types included, at the
    /// size netCDF-C's memory layout gives them is not checked: a field's
    /// extent is checked only when the field's type has a fixed size).
    pub fn add_type(
        &mut self,
        group: GroupId,
        name: &str,
        kind: UserTypeKind,
    ) -> Result<TypeId, ModelError> {
        self.check_free_name(group, name)?;
        self.check_kind(name, &kind)?;
        let id = TypeId(self.types.len() as u32);
        self.types.push(UserType {
            name: name.to_string(),
            group,
            kind,
        });
        self.group_mut(group).types.push(id);
        Ok(id)
    }

    fn check_kind(&self, name: &str, kind: &UserTypeKind) -> Result<(), ModelError> {
        let bad = |reason: String| ModelError::BadType {
            name: name.to_string(),
            reason,
        };
        let known = |t: DataType| match t {
            DataType::User(id) if id.0 as usize >= self.types.len() => {
                Err(bad(format!("refers to an undefined type ({t})")))
            }
            _ => Ok(()),
        };
        match kind {
            UserTypeKind::Compound { size, fields } => {
                if fields.is_empty() {
                    return Err(bad("a compound type needs at least one field".into()));
                }
                crate::name::first_duplicate(fields.iter().map(|f| f.name.as_str()))
                    .map_or(Ok(()), |d| {
                        Err(bad(format!("field name {d:?} is used twice")))
                    })?;
                for f in fields {
                    known(f.dtype)?;
                    let extent = self
                        .type_size(f.dtype)
                        .and_then(|s| s.checked_mul(f.count() as u64))
                        .and_then(|s| s.checked_add(f.offset));
                    if extent.is_some_and(|end| end > *size) || f.offset > *size {
                        return Err(bad(format!(
                            "field {:?} at offset {} does not fit in {size} bytes",
                            f.name, f.offset
                        )));
                    }
                }
            }
            UserTypeKind::Vlen { base } => known(*base)?,
            UserTypeKind::Enum { base, members } => {
                let Some((lo, hi)) = integer_range(*base) else {
                    return Err(bad(format!("enum base type {base} is not an integer type")));
                };
                crate::name::first_duplicate(members.iter().map(|m| m.name.as_str()))
                    .map_or(Ok(()), |d| {
                        Err(bad(format!("member name {d:?} is used twice")))
                    })?;
                if let Some(m) = members.iter().find(|m| m.value < lo || m.value > hi) {
                    return Err(bad(format!(
                        "member {:?} = {} does not fit the base type {base}",
                        m.name, m.value
                    )));
                }
            }
            UserTypeKind::Opaque { size } => {
                if *size == 0 {
                    return Err(bad("an opaque type needs a size of at least 1".into()));
                }
            }
        }
        Ok(())
    }

    /// The user type `id`.
    ///
    /// # Panics
    /// When `id` is not a type of this schema (a programming error).
    pub fn user_type(&self, id: TypeId) -> &UserType {
        &self.types[id.0 as usize]
    }

    /// Every user type id, in definition order.
    pub fn type_ids(&self) -> impl Iterator<Item = TypeId> + '_ {
        (0..self.types.len() as u32).map(TypeId)
    }

    /// The user type of `dtype`, if it is one.
    pub fn user_kind(&self, dtype: DataType) -> Option<&UserTypeKind> {
        match dtype {
            DataType::User(id) => Some(&self.user_type(id).kind),
            _ => None,
        }
    }

    /// The type named `name` visible from `group` (this group first, then
    /// its ancestors, as netCDF-4 scoping says).
    pub fn type_by_name(&self, group: GroupId, name: &str) -> Option<TypeId> {
        self.find_up(group, |g| {
            g.types
                .iter()
                .copied()
                .find(|&t| self.user_type(t).name == name)
        })
    }

    /// The type's name: the CDL keyword of an atomic type, the name of a user type.
    pub fn type_name(&self, dtype: DataType) -> &str {
        match dtype {
            DataType::User(id) => &self.user_type(id).name,
            t => t.cdl_name(),
        }
    }

    /// Size in bytes of one stored value of `dtype`, as `nc_inq_type`
    /// reports it for fixed-size types: atomic sizes, a compound's declared
    /// size, an opaque's size, an enum's base size. `None` for `string` and
    /// vlen types, whose values have no fixed size (netCDF-C reports the
    /// size of its in-memory pointer/`nc_vlen_t`; nctk has no such layout).
    pub fn type_size(&self, dtype: DataType) -> Option<u64> {
        match self.user_kind(dtype) {
            None => dtype.size().map(|s| s as u64),
            Some(UserTypeKind::Compound { size, .. } | UserTypeKind::Opaque { size }) => {
                Some(*size)
            }
            Some(UserTypeKind::Enum { base, .. }) => self.type_size(*base),
            Some(UserTypeKind::Vlen { .. }) => None,
        }
    }

    /// The type values of `dtype` travel as: an enum's base type, else `dtype`.
    pub fn value_type(&self, dtype: DataType) -> DataType {
        match self.user_kind(dtype) {
            Some(UserTypeKind::Enum { base, .. }) => *base,
            _ => dtype,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Attribute, Values};

    fn cmp(s: &mut Schema) -> TypeId {
        let fields = vec![
            CompoundField {
                name: "a".into(),
                offset: 0,
                dtype: DataType::Int,
                dims: vec![],
            },
            CompoundField {
                name: "c".into(),
                offset: 4,
                dtype: DataType::Short,
                dims: vec![2],
            },
        ];
        s.add_type(
            GroupId::ROOT,
            "cmp_t",
            UserTypeKind::Compound { size: 8, fields },
        )
        .unwrap()
    }

    #[test]
    fn types_share_the_group_namespace_and_scope_down() {
        let mut s = Schema::new();
        let t = cmp(&mut s);
        let g = s.add_group(GroupId::ROOT, "g").unwrap();
        assert_eq!(s.type_by_name(g, "cmp_t"), Some(t));
        assert_eq!(s.type_name(DataType::User(t)), "cmp_t");
        assert!(matches!(
            s.add_var(GroupId::ROOT, "cmp_t", DataType::Int, &[]),
            Err(ModelError::DuplicateName(_))
        ));
        assert!(s.add_group(GroupId::ROOT, "cmp_t").is_err());
        assert!(s
            .add_type(GroupId::ROOT, "cmp_t", UserTypeKind::Opaque { size: 1 })
            .is_err());
        // Nor a dimension's (ncgen -k nc4 fails on it: HDF5 names both alike).
        s.add_dim(GroupId::ROOT, "d", 1, false).unwrap();
        assert!(s
            .add_type(GroupId::ROOT, "d", UserTypeKind::Opaque { size: 1 })
            .is_err());
    }

    #[test]
    fn bad_definitions_are_refused() {
        let mut s = Schema::new();
        let enum_of = |base, value| UserTypeKind::Enum {
            base,
            members: vec![EnumMember {
                name: "A".into(),
                value,
            }],
        };
        assert!(s
            .add_type(GroupId::ROOT, "e", enum_of(DataType::Float, 1))
            .is_err());
        assert!(s
            .add_type(GroupId::ROOT, "e", enum_of(DataType::UByte, 256))
            .is_err());
        assert!(s
            .add_type(GroupId::ROOT, "e", enum_of(DataType::Byte, -128))
            .is_ok());
        let dangling = UserTypeKind::Vlen {
            base: DataType::User(TypeId(9)),
        };
        assert!(s.add_type(GroupId::ROOT, "v", dangling).is_err());
        let too_small = UserTypeKind::Compound {
            size: 3,
            fields: vec![CompoundField {
                name: "a".into(),
                offset: 0,
                dtype: DataType::Int,
                dims: vec![],
            }],
        };
        assert!(s.add_type(GroupId::ROOT, "c", too_small).is_err());
        assert!(s
            .add_type(GroupId::ROOT, "o", UserTypeKind::Opaque { size: 0 })
            .is_err());
    }

    #[test]
    fn sizes_and_default_fills() {
        let mut s = Schema::new();
        let c = DataType::User(cmp(&mut s));
        let e = DataType::User(
            s.add_type(
                GroupId::ROOT,
                "e",
                UserTypeKind::Enum {
                    base: DataType::UShort,
                    members: vec![EnumMember {
                        name: "A".into(),
                        value: 1,
                    }],
                },
            )
            .unwrap(),
        );
        let v = DataType::User(
            s.add_type(
                GroupId::ROOT,
                "v",
                UserTypeKind::Vlen {
                    base: DataType::Int,
                },
            )
            .unwrap(),
        );
        let o = DataType::User(
            s.add_type(GroupId::ROOT, "o", UserTypeKind::Opaque { size: 3 })
                .unwrap(),
        );
        assert_eq!(s.type_size(c), Some(8));
        assert_eq!(s.type_size(e), Some(2));
        assert_eq!(s.type_size(v), None);
        assert_eq!(s.type_size(o), Some(3));
        assert_eq!(s.default_fill(e), Values::UShort(vec![65535]));
        let zero_cmp = Values::Compound {
            len: 1,
            fields: vec![Values::Int(vec![0]), Values::Short(vec![0, 0])],
        };
        assert_eq!(s.default_fill(c), zero_cmp);
        assert_eq!(s.default_fill(v), Values::Vlen(vec![Values::Int(vec![])]));
        assert_eq!(
            s.default_fill(o),
            Values::Opaque {
                size: 3,
                bytes: vec![0; 3]
            }
        );
        for t in [c, e, v, o] {
            s.check_values(t, &s.default_fill(t)).unwrap();
            assert_eq!(s.default_fill(t).len(), 1);
        }
        assert!(s.check_values(c, &Values::Int(vec![1])).is_err());
        let short_field = Values::Compound {
            len: 1,
            fields: vec![Values::Int(vec![0]), Values::Short(vec![0])],
        };
        assert!(s.check_values(c, &short_field).is_err());
        assert!(s
            .check_values(
                o,
                &Values::Opaque {
                    size: 2,
                    bytes: vec![0; 2]
                }
            )
            .is_err());
        assert!(s
            .check_values(v, &Values::Vlen(vec![Values::Short(vec![1])]))
            .is_err());
    }

    #[test]
    fn compound_values_slice_repeat_and_extend_field_major() {
        let v = Values::Compound {
            len: 2,
            fields: vec![Values::Int(vec![1, 2]), Values::Short(vec![10, 11, 20, 21])],
        };
        let second = v.slice(1..2);
        assert_eq!(
            second,
            Values::Compound {
                len: 1,
                fields: vec![Values::Int(vec![2]), Values::Short(vec![20, 21])]
            }
        );
        let mut joined = v.slice(0..1);
        joined.extend_from(&second);
        assert_eq!(joined, v);
        let r = Values::repeat(&second, 3);
        assert_eq!(r.len(), 3);
        assert_eq!(r.slice(2..3), second);
        let o = Values::Opaque {
            size: 2,
            bytes: vec![1, 2, 3, 4],
        };
        assert_eq!(o.len(), 2);
        assert_eq!(
            o.get(1),
            Some(Values::Opaque {
                size: 2,
                bytes: vec![3, 4]
            })
        );
        assert_eq!(Values::repeat(&o, 2).slice(1..2), o.slice(0..1));
        assert!(v.same_value_at(1, &second));
    }

    #[test]
    fn writable_normalizes_type_names_and_checks_typed_attributes() {
        let mut s = Schema::new();
        let c = cmp(&mut s);
        // "e" + combining acute: NFC makes it one character, as netCDF-C stores names.
        let decomposed = "caf\u{65}\u{301}";
        let o = s
            .add_type(GroupId::ROOT, decomposed, UserTypeKind::Opaque { size: 2 })
            .unwrap();
        let good = Values::Compound {
            len: 1,
            fields: vec![Values::Int(vec![1]), Values::Short(vec![2, 3])],
        };
        s.set_attr(
            GroupId::ROOT,
            None,
            Attribute::typed("a", DataType::User(c), good),
        );
        let w = s.writable().unwrap();
        assert_eq!(w.user_type(o).name, "caf\u{e9}");
        s.set_attr(
            GroupId::ROOT,
            None,
            Attribute::typed(
                "b",
                DataType::User(o),
                Values::Opaque {
                    size: 3,
                    bytes: vec![0; 3],
                },
            ),
        );
        assert!(matches!(
            s.writable(),
            Err(ModelError::ValuesMismatch { .. })
        ));
    }
}
