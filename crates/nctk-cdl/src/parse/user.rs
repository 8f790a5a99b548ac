//! User-defined types in CDL: the declarations of the `types:` section
//! turned into model types, and data items turned into values of user
//! types, as netCDF-C 4.9.0's ncgen reads them.

use nctk_model::{CompoundField, DataType, EnumMember, Schema, UserTypeKind, Values};

use super::ast::{Datum, TypeAst, TypeKindAst};
use super::constants::{push_const, push_opaque, push_text, Const};
use super::error::{CdlError, Pos};
use super::semantics::{check_items, checked_name, integer, Builder};

/// Size and alignment of a value of `dtype` in netCDF-C's in-memory layout
/// (the C struct rules ncgen's compound types follow): atomic types their
/// size, `string` a pointer, a vlen an `nc_vlen_t` (length and pointer),
/// an opaque its size with byte alignment, a compound its declared size
/// and the largest alignment of its fields.
fn layout(schema: &Schema, dtype: DataType) -> (u64, u64) {
    const PTR: u64 = std::mem::size_of::<usize>() as u64;
    match schema.user_kind(dtype) {
        None if dtype == DataType::String => (PTR, PTR),
        None => {
            let s = dtype.size().unwrap_or(1) as u64;
            (s, s)
        }
        Some(UserTypeKind::Enum { base, .. }) => layout(schema, *base),
        Some(UserTypeKind::Opaque { size }) => (*size, 1),
        Some(UserTypeKind::Vlen { .. }) => (2 * PTR, PTR),
        Some(UserTypeKind::Compound { size, fields }) => (
            *size,
            fields
                .iter()
                .map(|f| layout(schema, f.dtype).1)
                .max()
                .unwrap_or(1),
        ),
    }
}

/// The model type a `types:` declaration defines.
pub(crate) fn kind(
    b: &Builder<'_>,
    gid: nctk_model::GroupId,
    name: &str,
    t: &TypeAst,
) -> Result<UserTypeKind, CdlError> {
    let positive = |c: Const, what: &str| match integer(c) {
        Some(n) if n > 0 && n <= u32::MAX.into() => Ok(n as u64),
        _ => Err(CdlError::semantic(
            t.pos,
            format!("type {name}: {what} must be a positive integer"),
        )),
    };
    Ok(match &t.kind {
        TypeKindAst::Opaque(size) => UserTypeKind::Opaque {
            size: positive(*size, "the opaque size")?,
        },
        TypeKindAst::Vlen(base) => UserTypeKind::Vlen {
            base: b.type_of(gid, base)?,
        },
        TypeKindAst::Enum(base, members) => UserTypeKind::Enum {
            base: *base,
            members: members
                .iter()
                .map(|(m, value, pos)| {
                    Ok(EnumMember {
                        name: checked_name(m, *pos)?,
                        value: integer(*value).ok_or_else(|| {
                            CdlError::semantic(*pos, "an enum value must be an integer")
                        })?,
                    })
                })
                .collect::<Result<_, CdlError>>()?,
        },
        TypeKindAst::Compound(fields) => {
            let schema = b.schema();
            let (mut offset, mut align) = (0u64, 1u64);
            let mut out = Vec::with_capacity(fields.len());
            for f in fields {
                let dtype = b.type_of(gid, &f.dtype)?;
                let dims = f
                    .dims
                    .iter()
                    .map(|&d| positive(d, "a field dimension"))
                    .collect::<Result<Vec<_>, _>>()?;
                let (size, a) = layout(schema, dtype);
                offset = offset.next_multiple_of(a);
                align = align.max(a);
                out.push(CompoundField {
                    name: checked_name(&f.name, f.pos)?,
                    offset,
                    dtype,
                    dims,
                });
                let count = out.last().map_or(1, |f: &CompoundField| f.count() as u64);
                offset = size
                    .checked_mul(count)
                    .and_then(|n| n.checked_add(offset))
                    .ok_or_else(|| CdlError::semantic(f.pos, "compound type too large"))?;
            }
            UserTypeKind::Compound {
                size: offset.next_multiple_of(align).max(1),
                fields: out,
            }
        }
    })
}

/// The value ncgen pads data of `dtype` with when the CDL gives none and no
/// `_FillValue` applies (`getfiller`): the atomic default fills; for a
/// compound, each field's; for a vlen, one element of its base type's;
/// for an opaque, zero bytes; for an enum, its base type's default.
pub(crate) fn ncgen_fill(schema: &Schema, dtype: DataType) -> Values {
    match schema.user_kind(dtype) {
        Some(UserTypeKind::Compound { fields, .. }) => Values::Compound {
            len: 1,
            fields: fields
                .iter()
                .map(|f| Values::repeat(&ncgen_fill(schema, f.dtype), f.count()))
                .collect(),
        },
        Some(UserTypeKind::Vlen { base }) => Values::Vlen(vec![ncgen_fill(schema, *base)]),
        _ => schema.default_fill(dtype),
    }
}

/// The values of an attribute of user type `dtype` (one value per item;
/// the items already checked by `semantics::attr_values`).
pub(crate) fn attr_values(
    schema: &Schema,
    dtype: DataType,
    items: &[Datum],
) -> Result<Values, CdlError> {
    let mut out = schema.empty_values(dtype, items.len());
    for d in items {
        push_value(schema, dtype, d, &mut out)?;
    }
    Ok(out)
}

/// The elements of a list item, nested lists flattened (an array field's
/// values); a plain item is one element.
fn flatten<'d>(d: &'d Datum, out: &mut Vec<&'d Datum>) {
    match d {
        Datum::List(items, _) => items.iter().for_each(|i| flatten(i, out)),
        other => out.push(other),
    }
}

/// The enum member an identifier names: `name`, or `type.name` with the
/// type's own name before the dot.
fn enum_value(schema: &Schema, dtype: DataType, ident: &[u8], pos: Pos) -> Result<i128, CdlError> {
    let text = String::from_utf8_lossy(ident);
    let Some(UserTypeKind::Enum { members, .. }) = schema.user_kind(dtype) else {
        return Err(CdlError::semantic(
            pos,
            format!("enum constant {text} used for a non-enum type"),
        ));
    };
    let type_name = schema.type_name(dtype);
    let member = text
        .strip_prefix(type_name)
        .and_then(|rest| rest.strip_prefix('.'))
        .unwrap_or(&text);
    members
        .iter()
        .find(|m| m.name == member)
        .map(|m| m.value)
        .ok_or_else(|| CdlError::semantic(pos, format!("Undefined enum or enum constant: {text}")))
}

/// Appends one value of `dtype` (any type) read from the data item `d`.
pub(crate) fn push_value(
    schema: &Schema,
    dtype: DataType,
    d: &Datum,
    out: &mut Values,
) -> Result<(), CdlError> {
    match (schema.user_kind(dtype), d) {
        (_, Datum::Call(..)) => check_items(std::slice::from_ref(d)),
        (None | Some(UserTypeKind::Enum { .. }), Datum::Num(c, p)) => push_const(out, *c, *p),
        (None, Datum::Str(s, p)) => push_text(out, s, *p),
        (None, Datum::Nil(_)) if dtype == DataType::String => {
            out.extend_from(&Values::String(vec![None]));
            Ok(())
        }
        (None | Some(UserTypeKind::Opaque { .. }), Datum::Opaque(h, p)) => {
            if push_opaque(out, h) {
                Ok(())
            } else {
                Err(CdlError::unsupported(
                    *p,
                    "an opaque constant (0x...) for this type",
                ))
            }
        }
        (Some(UserTypeKind::Enum { .. }), Datum::EnumRef(n, p)) => {
            let v = enum_value(schema, dtype, n, *p)?;
            let c = i64::try_from(v).map_or(Const::UInt64(v as u64), Const::Int64);
            push_const(out, c, *p)
        }
        (Some(UserTypeKind::Vlen { base }), d) => {
            let mut items = Vec::new();
            match d {
                Datum::List(list, _) => items.extend(list),
                other => items.push(other),
            }
            let mut seq = schema.empty_values(*base, items.len());
            for item in items {
                push_value(schema, *base, item, &mut seq)?;
            }
            out.extend_from(&Values::Vlen(vec![seq]));
            Ok(())
        }
        (Some(UserTypeKind::Compound { fields, .. }), Datum::List(items, p)) => {
            if items.len() > fields.len() {
                return Err(CdlError::semantic(
                    *p,
                    format!(
                        "{} values for compound type {} of {} fields",
                        items.len(),
                        schema.type_name(dtype),
                        fields.len()
                    ),
                ));
            }
            let Values::Compound { len, fields: vs } = out else {
                return Err(CdlError::semantic(
                    *p,
                    "compound data for a non-compound value",
                ));
            };
            for (k, f) in fields.iter().enumerate() {
                let n = f.count();
                let mut v = schema.empty_values(f.dtype, n.min(1 << 16));
                match items.get(k) {
                    None | Some(Datum::Fill(_)) => {}
                    Some(item) if f.dims.is_empty() && f.dtype != DataType::Char => {
                        push_value(schema, f.dtype, item, &mut v)?;
                    }
                    Some(item) if f.dtype == DataType::Char => {
                        let mut elems = Vec::new();
                        flatten(item, &mut elems);
                        for e in elems {
                            match (e, &mut v) {
                                (Datum::Str(s, _), Values::Char(c)) => c.extend_from_slice(s),
                                _ => push_value(schema, f.dtype, e, &mut v)?,
                            }
                        }
                    }
                    Some(item) => {
                        // Atomic elements may come in nested braces; each
                        // element of a user type is one item of the list.
                        let mut elems = Vec::new();
                        match item {
                            Datum::List(list, _) if f.dtype.is_user() => elems.extend(list),
                            _ => flatten(item, &mut elems),
                        }
                        if elems.len() > n {
                            return Err(CdlError::semantic(
                                item.pos(),
                                format!("too many values for field {} ({n})", f.name),
                            ));
                        }
                        for e in elems {
                            push_value(schema, f.dtype, e, &mut v)?;
                        }
                    }
                }
                // Pad (with the field's fill as ncgen makes it) or cut
                // (extra characters) to the field's size.
                if v.len() < n {
                    let pad = ncgen_fill(schema, f.dtype);
                    v.extend_from(&Values::repeat(&pad, n - v.len()));
                }
                vs[k].extend_from(&v.slice(0..n));
            }
            *len += 1;
            Ok(())
        }
        (Some(UserTypeKind::Compound { .. }), other) => Err(CdlError::semantic(
            other.pos(),
            format!(
                "compound type {}: expected {{...}}",
                schema.type_name(dtype)
            ),
        )),
        (_, Datum::List(_, p)) => Err(CdlError::semantic(*p, "Expected primitive found {..}")),
        (_, other) => {
            check_items(std::slice::from_ref(other))?;
            Err(CdlError::semantic(
                other.pos(),
                format!("value not allowed for type {}", schema.type_name(dtype)),
            ))
        }
    }
}
