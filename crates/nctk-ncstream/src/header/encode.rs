//! [`Schema`] -> the `Header` message, as netCDF-Java 4 (`NcStream.encodeGroup`
//! and friends, proto2) writes it.
//!
//! The mapping (the reader, `header::decode`, undoes it):
//!
//! * groups, dimensions (an unlimited one with its current length),
//!   variables and attributes in netCDF-Java's order: dimensions,
//!   attributes, enum typedefs, variables (compound ones as `structs`),
//!   subgroups;
//! * attribute numbers big-endian in `data` (what netCDF-Java writes and
//!   siphon reads), with both the old `type` (an unsigned type as the
//!   signed type of its size and `unsigned = true`) and `dataType`;
//!   `string` attributes as `sdata` strings; a `char` attribute as one
//!   `sdata` string too (netCDF-Java's attributes are strings, and siphon
//!   reads nothing else) with, in addition, its exact bytes in `data` and
//!   `dataType` CHAR: every other reader takes the string (the fallback
//!   rules send an attribute of `dataType` CHAR, old type STRING and
//!   `sdata` to STRING), nctk's reader takes `char` when `data` is present
//!   with `dataType` CHAR, so a round trip keeps `char`; an enum-typed attribute
//!   as its base integers;
//! * a compound variable as a `Structure` whose members are the fields (an
//!   array field's lengths as private anonymous dimensions; a nested
//!   compound field as a nested `Structure`, listed after the other fields,
//!   the order netCDF-Java's reader rebuilds, and the order
//!   `payload::encode` packs rows in); the compound type's name is not
//!   carried (netCDF-Java's header has no place for it); an attribute of
//!   the variable's own compound type holding one value (its `_FillValue`)
//!   becomes an attribute of each member holding its field's part, as
//!   netCDF-Java shows a netCDF-4 compound `_FillValue`; other compound,
//!   vlen and opaque attributes are refused (netCDF-Java and siphon have
//!   no attribute of those types);
//! * a vlen variable as a variable of the base type with a last dimension
//!   `*` (`isVlen`, private); an opaque variable as `OPAQUE` (its size is
//!   not carried); an enum variable as `ENUM1/2/4` naming its typedef
//!   (codes as `uint32`: a negative value is its two's complement);
//! * no immediate data (clients ask for every variable's values).

use nctk_model::{
    Attribute, CompoundField, DataType, GroupId, Schema, UserTypeKind, Values, VarId,
};

use crate::error::{NcStreamError, Result};
use crate::proto;

/// The header version nctk writes (netCDF-Java 4, proto2).
pub const HEADER_VERSION: u32 = 2;

/// The `Header` message describing `schema`; `location` names the dataset.
pub fn header(schema: &Schema, location: &str) -> Result<proto::Header> {
    Ok(proto::Header {
        location: Some(location.to_string()),
        title: None,
        id: None,
        root: Some(group(schema, GroupId::ROOT)?),
        version: Some(HEADER_VERSION),
    })
}

/// How values of a netCDF type travel in ncstream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct StreamType {
    /// The message's `DataType` (a vlen's: its base type's).
    pub dtype: proto::DataType,
    /// A vlen: the variable has a last `*` dimension, data messages `vdata`.
    pub vlen: bool,
}

/// The ncstream type of `dtype`; `item` names what has it, for the error.
pub(crate) fn stream_type(schema: &Schema, dtype: DataType, item: &str) -> Result<StreamType> {
    use proto::DataType as P;
    let plain = |dtype| StreamType { dtype, vlen: false };
    Ok(match dtype {
        DataType::Byte => plain(P::Byte),
        DataType::Char => plain(P::Char),
        DataType::Short => plain(P::Short),
        DataType::Int => plain(P::Int),
        DataType::Float => plain(P::Float),
        DataType::Double => plain(P::Double),
        DataType::UByte => plain(P::Ubyte),
        DataType::UShort => plain(P::Ushort),
        DataType::UInt => plain(P::Uint),
        DataType::Int64 => plain(P::Long),
        DataType::UInt64 => plain(P::Ulong),
        DataType::String => plain(P::String),
        DataType::User(_) => match schema.user_kind(dtype) {
            Some(UserTypeKind::Compound { .. }) => plain(P::Structure),
            Some(UserTypeKind::Opaque { .. }) => plain(P::Opaque),
            Some(UserTypeKind::Enum { base, .. }) => plain(match base.size() {
                Some(1) => P::Enum1,
                Some(2) => P::Enum2,
                Some(4) => P::Enum4,
                _ => {
                    return Err(NcStreamError::unwritable(
                        item,
                        format!("ncstream has no enum of base type {base}"),
                    ))
                }
            }),
            Some(UserTypeKind::Vlen { base }) => {
                let inner = stream_type(schema, *base, item)?;
                let fixed = schema.type_size(*base).is_some();
                if inner.vlen || !fixed || inner.dtype == P::Structure {
                    return Err(NcStreamError::unwritable(
                        item,
                        format!(
                            "a vlen of {} (only vlens of numbers, chars and enums)",
                            schema.type_name(*base)
                        ),
                    ));
                }
                StreamType {
                    dtype: inner.dtype,
                    vlen: true,
                }
            }
            None => {
                return Err(NcStreamError::unwritable(
                    item,
                    "its user type is not in the schema",
                ))
            }
        },
        other => {
            return Err(NcStreamError::unwritable(
                item,
                format!("type {other} is not supported"),
            ))
        }
    })
}

fn group(schema: &Schema, id: GroupId) -> Result<proto::Group> {
    let g = schema.group(id);
    let path = schema.group_path(id);
    let mut out = proto::Group {
        name: Some(if id == GroupId::ROOT {
            String::new()
        } else {
            g.name.clone()
        }),
        ..Default::default()
    };
    out.dims = g.dims.iter().map(|&d| shared_dim(schema, d)).collect();
    out.atts = g
        .attributes
        .iter()
        .map(|a| attribute(schema, a, &path))
        .collect::<Result<_>>()?;
    for &t in &g.types {
        let ut = schema.user_type(t);
        if let UserTypeKind::Enum { members, .. } = &ut.kind {
            out.enum_types.push(enum_typedef(&ut.name, members)?);
        }
    }
    for &v in &g.vars {
        match variable(schema, v)? {
            Member::Var(var) => out.vars.push(var),
            Member::Struct(s) => out.structs.push(s),
        }
    }
    out.groups = g
        .groups
        .iter()
        .map(|&c| group(schema, c))
        .collect::<Result<_>>()?;
    Ok(out)
}

fn shared_dim(schema: &Schema, d: nctk_model::DimId) -> proto::Dimension {
    let dim = schema.dim(d);
    proto::Dimension {
        name: Some(dim.name.clone()),
        length: Some(dim.len),
        is_unlimited: Some(dim.unlimited),
        is_vlen: Some(false),
        is_private: Some(false),
    }
}

/// An anonymous dimension of a structure member's shape.
fn private_dim(len: u64) -> proto::Dimension {
    proto::Dimension {
        name: None,
        length: Some(len),
        is_unlimited: Some(false),
        is_vlen: Some(false),
        is_private: Some(true),
    }
}

/// The `*` dimension of a vlen variable.
fn vlen_dim() -> proto::Dimension {
    proto::Dimension {
        name: Some("*".into()),
        length: None,
        is_unlimited: Some(false),
        is_vlen: Some(true),
        is_private: Some(true),
    }
}

fn enum_typedef(name: &str, members: &[nctk_model::EnumMember]) -> Result<proto::EnumTypedef> {
    let map = members
        .iter()
        .map(|m| {
            let code = i32::try_from(m.value)
                .map(|v| v as u32)
                .or_else(|_| u32::try_from(m.value))
                .map_err(|_| {
                    NcStreamError::unwritable(
                        format!("enum type {name:?}"),
                        format!("member {:?} = {} does not fit 32 bits", m.name, m.value),
                    )
                })?;
            Ok(proto::enum_typedef::EnumType {
                code: Some(code),
                value: Some(m.name.clone()),
            })
        })
        .collect::<Result<_>>()?;
    Ok(proto::EnumTypedef {
        name: Some(name.to_string()),
        map,
    })
}

enum Member {
    Var(proto::Variable),
    Struct(proto::Structure),
}

fn variable(schema: &Schema, v: VarId) -> Result<Member> {
    let var = schema.var(v);
    let item = format!("variable {:?}", schema.var_path(v));
    let shape: Vec<proto::Dimension> = var.dims.iter().map(|&d| shared_dim(schema, d)).collect();
    // An attribute of the structure's own compound type (its `_FillValue`)
    // goes to the members, one value each, as netCDF-Java shows it.
    let (own, others): (Vec<&Attribute>, Vec<&Attribute>) = var.attributes.iter().partition(|a| {
        let own_type = matches!(var.dtype, DataType::User(t) if a.user_type == Some(t));
        own_type && matches!(a.value, Values::Compound { len: 1, .. })
    });
    let atts = others
        .into_iter()
        .map(|a| attribute(schema, a, &schema.var_path(v)))
        .collect::<Result<Vec<_>>>()?;
    if let Some(UserTypeKind::Compound { fields, .. }) = schema.user_kind(var.dtype) {
        let own: Vec<(&str, &[Values])> = own
            .iter()
            .filter_map(|a| match &a.value {
                Values::Compound { fields, .. } => Some((a.name.as_str(), fields.as_slice())),
                _ => None,
            })
            .collect();
        let (vars, structs) = members(schema, fields, &own, &item)?;
        return Ok(Member::Struct(proto::Structure {
            name: Some(var.name.clone()),
            data_type: Some(proto::DataType::Structure as i32),
            shape,
            atts,
            vars,
            structs,
        }));
    }
    let mut out = plain_variable(schema, &var.name, var.dtype, shape, &item)?;
    out.atts = atts;
    Ok(Member::Var(out))
}

/// A non-compound variable or member: its type, enum typedef, `*` dimension.
fn plain_variable(
    schema: &Schema,
    name: &str,
    dtype: DataType,
    mut shape: Vec<proto::Dimension>,
    item: &str,
) -> Result<proto::Variable> {
    let st = stream_type(schema, dtype, item)?;
    if st.vlen {
        shape.push(vlen_dim());
    }
    let element = match schema.user_kind(dtype) {
        Some(UserTypeKind::Vlen { base }) => *base,
        _ => dtype,
    };
    let enum_type = match schema.user_kind(element) {
        Some(UserTypeKind::Enum { .. }) => Some(schema.type_name(element).to_string()),
        _ => None,
    };
    Ok(proto::Variable {
        name: Some(name.to_string()),
        data_type: Some(st.dtype as i32),
        shape,
        atts: Vec::new(),
        unsigned: is_unsigned(element).then_some(true),
        data: None,
        enum_type,
    })
}

/// The fields of a compound type as structure members: plain fields, then
/// nested compounds (the order rows are packed in, see `payload::encode`).
/// `own` holds attributes of the compound type (name, one value's fields):
/// each member gets its field's part under the same name.
fn members(
    schema: &Schema,
    fields: &[CompoundField],
    own: &[(&str, &[Values])],
    item: &str,
) -> Result<(Vec<proto::Variable>, Vec<proto::Structure>)> {
    let mut vars = Vec::new();
    let mut structs = Vec::new();
    for (i, f) in fields.iter().enumerate() {
        let shape: Vec<_> = f.dims.iter().map(|&n| private_dim(n)).collect();
        let field_item = format!("{item}, field {:?}", f.name);
        let parts = own.iter().map(|(name, values)| (*name, &values[i]));
        if let Some(UserTypeKind::Compound { fields: inner, .. }) = schema.user_kind(f.dtype) {
            let inner_own: Vec<(&str, &[Values])> = parts
                .filter_map(|(name, v)| match v {
                    Values::Compound { fields, len: 1 } => Some((name, fields.as_slice())),
                    _ => None,
                })
                .collect();
            let (v, s) = members(schema, inner, &inner_own, &field_item)?;
            structs.push(proto::Structure {
                name: Some(f.name.clone()),
                data_type: Some(proto::DataType::Structure as i32),
                shape,
                atts: Vec::new(),
                vars: v,
                structs: s,
            });
            continue;
        }
        let atts = parts
            .map(|(name, v)| attribute(schema, &Attribute::new(name, v.clone()), &field_item))
            .collect::<Result<Vec<_>>>()?;
        let st = stream_type(schema, f.dtype, &field_item)?;
        if st.vlen || st.dtype == proto::DataType::Opaque {
            return Err(NcStreamError::unwritable(
                field_item,
                "vlen and opaque structure members are not supported",
            ));
        }
        let mut var = plain_variable(schema, &f.name, f.dtype, shape, &field_item)?;
        var.atts = atts;
        vars.push(var);
    }
    Ok((vars, structs))
}

fn is_unsigned(dtype: DataType) -> bool {
    matches!(
        dtype,
        DataType::UByte | DataType::UShort | DataType::UInt | DataType::UInt64
    )
}

/// The old (before 5.0) attribute type of a number type: an unsigned type
/// as the signed type of its size.
fn old_attribute_type(dtype: DataType) -> proto::attribute::Type {
    use proto::attribute::Type as T;
    match dtype {
        DataType::Byte | DataType::UByte => T::Byte,
        DataType::Short | DataType::UShort => T::Short,
        DataType::Int | DataType::UInt => T::Int,
        DataType::Int64 | DataType::UInt64 => T::Long,
        DataType::Float => T::Float,
        DataType::Double => T::Double,
        _ => T::String,
    }
}

/// One attribute; `owner` (a group or variable path) names it in errors.
pub(crate) fn attribute(schema: &Schema, a: &Attribute, owner: &str) -> Result<proto::Attribute> {
    let item = || format!("attribute {:?} of {owner:?}", a.name);
    let strings = |sdata: Vec<String>| proto::Attribute {
        name: Some(a.name.clone()),
        r#type: Some(proto::attribute::Type::String as i32),
        len: Some(sdata.len() as u32),
        data: None,
        sdata,
        unsigned: None,
        data_type: Some(proto::DataType::String as i32),
    };
    match &a.value {
        // ncstream has no null string (protobuf strings are never null;
        // netCDF-Java cannot encode one): a null goes as "".
        Values::String(v) => {
            return Ok(strings(
                v.iter().map(|s| s.clone().unwrap_or_default()).collect(),
            ))
        }
        Values::Char(bytes) => {
            // netCDF-Java's attributes are strings: the text in `sdata` (for
            // siphon and netCDF-Java); the exact bytes also in `data` with
            // `dataType` CHAR, which only nctk's reader reads as `char`.
            let text = String::from_utf8_lossy(bytes);
            let text = text.trim_end_matches('\0');
            let sdata = if bytes.is_empty() {
                Vec::new()
            } else {
                vec![text.to_string()]
            };
            return Ok(proto::Attribute {
                data: (!bytes.is_empty()).then(|| bytes.clone()),
                data_type: Some(proto::DataType::Char as i32),
                ..strings(sdata)
            });
        }
        _ => {}
    }
    let Some(bytes) = crate::payload::encode::fixed_bytes(&a.value) else {
        return Err(NcStreamError::unwritable(
            item(),
            format!(
                "attributes of type {} are not supported",
                a.user_type.map_or_else(
                    || a.value.dtype().to_string(),
                    |t| { schema.user_type(t).name.clone() }
                )
            ),
        ));
    };
    let len = u32::try_from(a.value.len())
        .map_err(|_| NcStreamError::unwritable(item(), "more than 2^32 values"))?;
    let dtype = a.value.dtype();
    let st = stream_type(schema, dtype, &item())?;
    Ok(proto::Attribute {
        name: Some(a.name.clone()),
        r#type: Some(old_attribute_type(dtype) as i32),
        len: Some(len),
        data: (len > 0).then_some(bytes),
        sdata: Vec::new(),
        unsigned: is_unsigned(dtype).then_some(true),
        data_type: Some(st.dtype as i32),
    })
}
