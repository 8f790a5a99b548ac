//! A `Header` message -> a [`Schema`], with every rule of
//! `ncstream-messages.md` and netCDF-Java's `NcStream.readGroup`.
//!
//! The mapping of netCDF-Java's data model onto nctk's (netCDF-4's):
//!
//! * A `Structure` is a compound user type named after the structure
//!   (`NAME_t`, the header carries no typedef name) whose fields are the
//!   member variables (a member's shape becomes the field's `dims`; a nested
//!   structure a nested compound field), and a variable of that type with
//!   the structure's shape and attributes. The fields lie at the offsets of
//!   ncstream's rows (packed, no padding; a `string` member is the 4-byte
//!   index of its heap entry), so the compound's size is the row length.
//!   Member attributes have no place in the model and are dropped.
//! * A `Sequence` is a vlen (`NAME_seq_t`) of that compound.
//! * A variable with a variable-length dimension (`isVlen`, printed `*`,
//!   last in the shape) is a vlen user type of its element type (`NAME_t`)
//!   over the dimensions before the `*`.
//! * `OPAQUE` is an opaque user type (`NAME_t`); netCDF-Java does not carry
//!   its size, so it is the length of the variable's first value in the
//!   stream when the caller knows it ([`schema_with`]), else 1.
//! * `ENUM1/2/4` refer to an `EnumTypedef` of the group or an ancestor; the
//!   enum's base is `byte`/`short`/`int`, or the unsigned type of that size
//!   when a code does not fit the signed one (`ubyte` for codes up to 255).
//!   A variable whose `enumType` names no typedef (netCDF-Java 5 writes the
//!   variable's own name there) is of the one enum visible from its group
//!   when there is exactly one, else of the base integer type.
//!   An enum variable's `_FillValue`, which netCDF-Java gives as a member's
//!   name, is that member's value (of the enum type).
//! * `U*` types are unsigned; so are `BYTE`/`SHORT`/`INT`/`LONG` with the
//!   old `unsigned` flag, unless the variable has an `_Unsigned` attribute:
//!   then it keeps its signed type and the attribute, as netCDF-C shows a
//!   classic variable with `_Unsigned = "true"` (netCDF-Java 4 sets the flag
//!   from that attribute).
//! * A dimension in a variable's shape that is private, anonymous or not
//!   found in the group or its ancestors becomes a dimension of the
//!   variable's group named `phony_dim_N` (netCDF-C's name for an unnamed
//!   HDF5 dimension), N the first number giving a name no dimension of the
//!   group has; one such dimension per length and group is shared.
//! * Attribute values and immediate data (`Variable.data`) are big-endian,
//!   as netCDF-Java writes them (`ByteBuffer`'s default order).

use std::collections::HashMap;

use nctk_model::{
    Attribute, CompoundField, DataType, DimId, EnumMember, GroupId, Schema, TypeId, UserTypeKind,
    Values, VarId,
};

use crate::error::{NcStreamError, Result};
use crate::proto;

/// What a header (or several: later ones add definitions) says.
#[derive(Debug, Clone, Default)]
pub struct StreamHeader {
    /// The definitions.
    pub schema: Schema,
    /// Values the header carries itself (`Variable.data`, numeric variables
    /// only), each for the whole variable.
    pub immediate: Vec<(VarId, Values)>,
    /// `Header.location`, if given.
    pub location: Option<String>,
    /// `Header.title`, if given.
    pub title: Option<String>,
    /// `Header.id`, if given.
    pub id: Option<String>,
}

/// The definitions of one header message.
pub fn schema_of(header: &proto::Header) -> Result<StreamHeader> {
    schema_with(&[(0, header)], &HashMap::new())
}

/// The definitions of the header messages of a stream, in order (a later
/// header adds what an earlier one lacks; a name defined again is kept as
/// first defined), each with its stream offset (which its errors name).
/// `opaque_sizes` gives, by full name, the size of an opaque variable's
/// values when the stream shows it.
pub fn schema_with(
    headers: &[(u64, &proto::Header)],
    opaque_sizes: &HashMap<String, u64>,
) -> Result<StreamHeader> {
    let mut b = Builder {
        out: StreamHeader::default(),
        opaque_sizes,
        offset: 0,
    };
    for &(offset, h) in headers {
        b.offset = offset;
        b.out.location = b.out.location.take().or_else(|| h.location.clone());
        b.out.title = b.out.title.take().or_else(|| h.title.clone());
        b.out.id = b.out.id.take().or_else(|| h.id.clone());
        if let Some(root) = &h.root {
            b.group(GroupId::ROOT, root)?;
        }
    }
    Ok(b.out)
}

/// Bytes a value of `dtype` takes in an ncstream structure row (packed; a
/// string is the 4-byte index of its heap entry); `None` for a type rows
/// cannot hold (vlen).
pub(crate) fn row_size(schema: &Schema, dtype: DataType) -> Option<u64> {
    match schema.user_kind(dtype) {
        None if dtype == DataType::String => Some(4),
        Some(UserTypeKind::Vlen { .. }) => None,
        _ => schema.type_size(dtype),
    }
}

/// The model type of an ncstream atomic type, `None` for STRUCTURE,
/// SEQUENCE, ENUM* and OPAQUE (which need definitions).
pub(crate) fn atomic_type(t: proto::DataType, unsigned: bool) -> Option<DataType> {
    use proto::DataType as P;
    Some(match t {
        P::Char => DataType::Char,
        P::Byte if unsigned => DataType::UByte,
        P::Byte => DataType::Byte,
        P::Short if unsigned => DataType::UShort,
        P::Short => DataType::Short,
        P::Int if unsigned => DataType::UInt,
        P::Int => DataType::Int,
        P::Long if unsigned => DataType::UInt64,
        P::Long => DataType::Int64,
        P::Float => DataType::Float,
        P::Double => DataType::Double,
        P::String => DataType::String,
        P::Ubyte => DataType::UByte,
        P::Ushort => DataType::UShort,
        P::Uint => DataType::UInt,
        P::Ulong => DataType::UInt64,
        P::Enum1 if unsigned => DataType::UByte,
        P::Enum1 => DataType::Byte,
        P::Enum2 if unsigned => DataType::UShort,
        P::Enum2 => DataType::Short,
        P::Enum4 if unsigned => DataType::UInt,
        P::Enum4 => DataType::Int,
        P::Structure | P::Sequence | P::Opaque => return None,
    })
}

/// True when values sent as ncstream type `t` are values of the model type
/// `vt` (the same numbers; signedness aside, which the header's `unsigned`
/// says; an enum's as its base type's).
pub(crate) fn carries(t: proto::DataType, vt: DataType) -> bool {
    atomic_type(t, false) == Some(vt) || atomic_type(t, true) == Some(vt)
}

/// The ncstream type a raw enum number stands for, with a clear error for
/// a number the enum does not have.
pub(crate) fn proto_type(code: i32, offset: u64) -> Result<proto::DataType> {
    proto::DataType::try_from(code)
        .map_err(|_| NcStreamError::corrupt(offset, format!("unknown data type code {code}")))
}

/// Builds the schema group by group.
struct Builder<'a> {
    out: StreamHeader,
    opaque_sizes: &'a HashMap<String, u64>,
    offset: u64,
}

impl Builder<'_> {
    fn corrupt(&self, reason: String) -> NcStreamError {
        NcStreamError::corrupt(self.offset, reason)
    }

    fn unsupported(&self, reason: String) -> NcStreamError {
        NcStreamError::unsupported(self.offset, reason)
    }

    fn model(&self, what: &str, e: nctk_model::ModelError) -> NcStreamError {
        self.corrupt(format!("{what}: {e}"))
    }

    fn group(&mut self, id: GroupId, g: &proto::Group) -> Result<()> {
        for d in &g.dims {
            let name = d.name.clone().unwrap_or_default();
            // A dimension of the same name in a parent group is another
            // dimension (netCDF-Java lists each group's own); only one
            // already in this group (from an earlier header) is skipped.
            if name.is_empty() || d.is_vlen() {
                continue;
            }
            if self
                .out
                .schema
                .group(id)
                .dims
                .iter()
                .any(|&x| self.out.schema.dim(x).name == name)
            {
                continue;
            }
            self.out
                .schema
                .add_dim(id, &name, d.length(), d.is_unlimited())
                .map_err(|e| self.model(&format!("dimension {name:?}"), e))?;
        }
        for a in &g.atts {
            let attr = self.attribute(a)?;
            if !self
                .out
                .schema
                .group(id)
                .attributes
                .iter()
                .any(|x| x.name == attr.name)
            {
                self.out.schema.set_attr(id, None, attr);
            }
        }
        for e in &g.enum_types {
            self.enum_typedef(id, e)?;
        }
        for v in &g.vars {
            if self.out.schema.var_by_name(id, v.name()).is_none() {
                self.variable(id, v)?;
            }
        }
        for s in &g.structs {
            if self.out.schema.var_by_name(id, s.name()).is_none() {
                self.structure_variable(id, s)?;
            }
        }
        for child in &g.groups {
            let cid = match self.out.schema.group_by_name(id, child.name()) {
                Some(c) => c,
                None => self
                    .out
                    .schema
                    .add_group(id, child.name())
                    .map_err(|e| self.model(&format!("group {:?}", child.name()), e))?,
            };
            self.group(cid, child)?;
        }
        Ok(())
    }

    fn enum_typedef(&mut self, group: GroupId, e: &proto::EnumTypedef) -> Result<()> {
        let name = e.name();
        if self
            .out
            .schema
            .type_by_name(group, name)
            .is_some_and(|t| self.out.schema.user_type(t).group == group)
        {
            return Ok(());
        }
        let members: Vec<EnumMember> = e
            .map
            .iter()
            .map(|m| EnumMember {
                name: m.value().to_string(),
                value: i128::from(m.code()),
            })
            .collect();
        // The base is chosen when a variable uses the typedef (ENUM1/2/4
        // give the size); define it here with the smallest size the codes
        // fit, the variable refines it below if it says otherwise.
        let max = members.iter().map(|m| m.value).max().unwrap_or(0);
        let base = enum_base(max, 1);
        self.out
            .schema
            .add_type(group, name, UserTypeKind::Enum { base, members })
            .map_err(|e| self.model(&format!("enum type {name:?}"), e))?;
        Ok(())
    }

    /// The type of a variable of ncstream type `t`.
    fn var_type(&mut self, group: GroupId, v: &proto::Variable, full: &str) -> Result<DataType> {
        let t = proto_type(v.data_type.unwrap_or(0), self.offset)?;
        // netCDF-Java 4 sets the old flag for a variable with an
        // `_Unsigned = "true"` attribute; the attribute travels too, and
        // netCDF-C reads such a variable as the signed type with that
        // attribute, so only the flag without the attribute changes the type.
        let unsigned = v.unsigned() && !v.atts.iter().any(|a| a.name() == "_Unsigned");
        match t {
            proto::DataType::Opaque => {
                let size = self.opaque_sizes.get(full).copied().unwrap_or(1).max(1);
                let name = self.type_name(group, &format!("{}_t", v.name()));
                let id = self
                    .out
                    .schema
                    .add_type(group, &name, UserTypeKind::Opaque { size })
                    .map_err(|e| self.model(&format!("opaque type of {full:?}"), e))?;
                Ok(DataType::User(id))
            }
            proto::DataType::Enum1 | proto::DataType::Enum2 | proto::DataType::Enum4 => {
                let size = match t {
                    proto::DataType::Enum1 => 1,
                    proto::DataType::Enum2 => 2,
                    _ => 4,
                };
                let found = v
                    .enum_type
                    .as_deref()
                    .and_then(|n| self.out.schema.type_by_name(group, n))
                    .filter(|&id| self.is_enum(id))
                    .or_else(|| self.only_enum(group));
                match found {
                    Some(id) => self.sized_enum(id, size),
                    None => Ok(enum_base(0, size)),
                }
            }
            proto::DataType::Structure | proto::DataType::Sequence => Err(self.corrupt(format!(
                "variable {full:?} has type {} but is not a Structure message",
                t.as_str_name()
            ))),
            t => Ok(atomic_type(t, unsigned).expect("atomic")),
        }
    }

    fn is_enum(&self, id: TypeId) -> bool {
        matches!(
            self.out.schema.user_type(id).kind,
            UserTypeKind::Enum { .. }
        )
    }

    /// The one enum typedef visible from `group` (this group or an
    /// ancestor), when there is exactly one: what an `enumType` naming no
    /// typedef means (netCDF-Java 5 writes the variable's name there).
    fn only_enum(&self, group: GroupId) -> Option<TypeId> {
        let s = &self.out.schema;
        let mut found = vec![];
        let mut g = Some(group);
        while let Some(id) = g {
            found.extend(
                s.group(id)
                    .types
                    .iter()
                    .copied()
                    .filter(|&t| self.is_enum(t)),
            );
            g = s.group(id).parent;
        }
        (found.len() == 1).then(|| found[0])
    }

    /// The enum `id` with a base of `size` bytes: itself when its base has
    /// that size, else a copy of it (`NAME_N`) with that base.
    fn sized_enum(&mut self, id: TypeId, size: u64) -> Result<DataType> {
        let ut = self.out.schema.user_type(id).clone();
        let UserTypeKind::Enum { base, members } = ut.kind else {
            unreachable!("filtered to enums")
        };
        let max = members.iter().map(|m| m.value).max().unwrap_or(0);
        let want = enum_base(max, size);
        if base == want {
            return Ok(DataType::User(id));
        }
        let name = format!("{}_{size}", ut.name);
        if let Some(t) = self.out.schema.type_by_name(ut.group, &name) {
            return Ok(DataType::User(t));
        }
        let t = self
            .out
            .schema
            .add_type(
                ut.group,
                &name,
                UserTypeKind::Enum {
                    base: want,
                    members,
                },
            )
            .map_err(|e| self.model(&format!("enum type {name:?}"), e))?;
        Ok(DataType::User(t))
    }

    /// `base`, or `base_1`, `base_2`, ... : the first name no dimension,
    /// variable, group or type of `group` uses.
    fn type_name(&self, group: GroupId, base: &str) -> String {
        let s = &self.out.schema;
        let g = s.group(group);
        let taken = |n: &str| {
            g.vars.iter().any(|&v| s.var(v).name == n)
                || g.groups.iter().any(|&c| s.group(c).name == n)
                || g.types.iter().any(|&t| s.user_type(t).name == n)
        };
        std::iter::once(base.to_string())
            .chain((1..).map(|i| format!("{base}_{i}")))
            .find(|n| !taken(n))
            .expect("an unused name exists")
    }

    /// The dimensions of a shape, and whether it ends with a vlen `*`.
    fn shape(
        &mut self,
        group: GroupId,
        shape: &[proto::Dimension],
        full: &str,
    ) -> Result<(Vec<DimId>, bool)> {
        let mut dims = vec![];
        for (i, d) in shape.iter().enumerate() {
            if d.is_vlen() {
                if i + 1 != shape.len() {
                    return Err(self.unsupported(format!(
                        "variable {full:?}: a variable-length dimension not last in the shape"
                    )));
                }
                return Ok((dims, true));
            }
            let name = d.name.as_deref().unwrap_or("");
            let shared = (!d.is_private() && !name.is_empty())
                .then(|| self.out.schema.dim_by_name(group, name))
                .flatten()
                .filter(|&id| self.out.schema.dim(id).len == d.length());
            let id = match shared {
                Some(id) => id,
                None => self.phony_dim(group, d.length())?,
            };
            dims.push(id);
        }
        Ok((dims, false))
    }

    /// The `phony_dim_N` of `group` of length `len`, made if need be.
    fn phony_dim(&mut self, group: GroupId, len: u64) -> Result<DimId> {
        let s = &self.out.schema;
        let existing = s.group(group).dims.iter().copied().find(|&d| {
            s.dim(d).name.starts_with("phony_dim_") && s.dim(d).len == len && !s.dim(d).unlimited
        });
        if let Some(d) = existing {
            return Ok(d);
        }
        let name = (0..)
            .map(|i| format!("phony_dim_{i}"))
            .find(|n| !s.group(group).dims.iter().any(|&d| s.dim(d).name == *n))
            .expect("an unused name exists");
        self.out
            .schema
            .add_dim(group, &name, len, false)
            .map_err(|e| self.model(&format!("dimension {name:?}"), e))
    }

    fn full_name(&self, group: GroupId, name: &str) -> String {
        crate::names::full_name_in(&self.out.schema, group, name)
    }

    fn variable(&mut self, group: GroupId, v: &proto::Variable) -> Result<()> {
        let full = self.full_name(group, v.name());
        let (dims, vlen) = self.shape(group, &v.shape, &full)?;
        let elem = self.var_type(group, v, &full)?;
        let vlen_name = vlen.then(|| format!("{}_t", v.name()));
        let id = self.define_var(group, v.name(), elem, vlen_name, &dims, &v.atts, &full)?;
        if let Some(data) = v.data.as_deref().filter(|d| !d.is_empty()) {
            let values = self.immediate(id, data, &full)?;
            self.out.immediate.push((id, values));
        }
        Ok(())
    }

    /// Defines variable `name` of type `elem`, or of a vlen of it named
    /// after `vlen_name` when given, with its attributes.
    #[allow(clippy::too_many_arguments)]
    fn define_var(
        &mut self,
        group: GroupId,
        name: &str,
        elem: DataType,
        vlen_name: Option<String>,
        dims: &[DimId],
        atts: &[proto::Attribute],
        full: &str,
    ) -> Result<VarId> {
        let dtype = match vlen_name {
            Some(base) => {
                let tname = self.type_name(group, &base);
                let id = self
                    .out
                    .schema
                    .add_type(group, &tname, UserTypeKind::Vlen { base: elem })
                    .map_err(|e| self.model(&format!("vlen type of {full:?}"), e))?;
                DataType::User(id)
            }
            None => elem,
        };
        let id = self
            .out
            .schema
            .add_var(group, name, dtype, dims)
            .map_err(|e| self.model(&format!("variable {full:?}"), e))?;
        // A stream records no storage; its values are contiguous.
        self.out.schema.var_mut(id).storage.layout = nctk_model::Layout::Contiguous;
        for a in atts {
            let attr = self.enum_fill(dtype, self.attribute(a)?);
            self.out
                .schema
                .add_attr(group, Some(id), attr)
                .map_err(|e| self.model(&format!("attribute of {full:?}"), e))?;
        }
        Ok(id)
    }

    /// netCDF-Java gives an enum variable's `_FillValue` as the member's
    /// name; the model (netCDF-4) wants the member's value, of the enum type.
    fn enum_fill(&self, dtype: DataType, attr: Attribute) -> Attribute {
        let Some(UserTypeKind::Enum { base, members }) = self.out.schema.user_kind(dtype) else {
            return attr;
        };
        let code = match &attr.value {
            Values::String(names) if attr.name == "_FillValue" && names.len() == 1 => members
                .iter()
                .find(|m| names[0].as_deref() == Some(m.name.as_str()))
                .map(|m| m.value),
            _ => None,
        };
        match code {
            Some(code) => {
                let bytes = (code as i64).to_be_bytes();
                let size = base.size().expect("integer base");
                let value = Values::from_bytes(*base, &bytes[8 - size..], true);
                Attribute::typed(attr.name, dtype, value)
            }
            None => attr,
        }
    }

    /// A variable's immediate data: big-endian numbers (or characters)
    /// filling its shape.
    fn immediate(&self, var: VarId, data: &[u8], full: &str) -> Result<Values> {
        let s = &self.out.schema;
        let vt = s.value_type(s.var(var).dtype);
        if vt == DataType::Char && s.shape(var).iter().product::<u64>() == data.len() as u64 {
            return Ok(Values::Char(data.to_vec()));
        }
        let Some(size) = vt.size().filter(|_| vt.is_numeric()) else {
            return Err(self.unsupported(format!(
                "variable {full:?}: immediate data of type {}",
                s.type_name(s.var(var).dtype)
            )));
        };
        let n: Option<u64> = s.shape(var).iter().try_fold(1u64, |n, &d| n.checked_mul(d));
        if n.and_then(|n| n.checked_mul(size as u64)) != Some(data.len() as u64) {
            return Err(self.corrupt(format!(
                "variable {full:?}: immediate data of {} bytes for shape {:?} of {size}-byte values",
                data.len(),
                s.shape(var)
            )));
        }
        Ok(Values::from_bytes(vt, data, true))
    }

    fn structure_variable(&mut self, group: GroupId, st: &proto::Structure) -> Result<()> {
        let full = self.full_name(group, st.name());
        let (dims, vlen) = self.shape(group, &st.shape, &full)?;
        let compound = self.compound(group, st, &full)?;
        let is_seq = st.data_type == Some(proto::DataType::Sequence as i32);
        let seq_name = (is_seq || vlen).then(|| format!("{}_seq_t", st.name()));
        self.define_var(group, st.name(), compound, seq_name, &dims, &st.atts, &full)?;
        Ok(())
    }

    /// The compound type of a structure's members (nested structures first).
    fn compound(&mut self, group: GroupId, st: &proto::Structure, full: &str) -> Result<DataType> {
        let mut members: Vec<(String, DataType, Vec<u64>)> = vec![];
        for v in &st.vars {
            let mfull = format!("{full}.{}", crate::names::escape(v.name()));
            let mut dims = vec![];
            for d in &v.shape {
                if d.is_vlen() {
                    return Err(
                        self.unsupported(format!("structure member {mfull:?} of variable length"))
                    );
                }
                dims.push(d.length());
            }
            let t = self.var_type(group, v, &mfull)?;
            members.push((v.name().to_string(), t, dims));
        }
        for s in &st.structs {
            let mfull = format!("{full}.{}", crate::names::escape(s.name()));
            if s.data_type == Some(proto::DataType::Sequence as i32)
                || s.shape.iter().any(|d| d.is_vlen())
            {
                return Err(self.unsupported(format!("sequence {mfull:?} inside a structure")));
            }
            let t = self.compound(group, s, &mfull)?;
            members.push((
                s.name().to_string(),
                t,
                s.shape.iter().map(|d| d.length()).collect(),
            ));
        }
        let mut offset = 0u64;
        let mut fields = vec![];
        for (name, dtype, dims) in members {
            let count = dims.iter().try_fold(1u64, |n, &d| n.checked_mul(d));
            let size = row_size(&self.out.schema, dtype)
                .zip(count)
                .and_then(|(s, n)| s.checked_mul(n))
                .ok_or_else(|| self.corrupt(format!("member {name:?} of {full:?} is too large")))?;
            fields.push(CompoundField {
                name,
                offset,
                dtype,
                dims,
            });
            offset = offset
                .checked_add(size)
                .ok_or_else(|| self.corrupt(format!("structure {full:?} is too large")))?;
        }
        let name = self.type_name(group, &format!("{}_t", st.name()));
        let id = self
            .out
            .schema
            .add_type(
                group,
                &name,
                UserTypeKind::Compound {
                    size: offset,
                    fields,
                },
            )
            .map_err(|e| self.model(&format!("structure {full:?}"), e))?;
        Ok(DataType::User(id))
    }

    /// An attribute, with the type fallback rules of the compatibility
    /// section: `dataType` unless CHAR, then the old `type` unless STRING,
    /// then STRING when `sdata` has values, else CHAR.
    fn attribute(&self, a: &proto::Attribute) -> Result<Attribute> {
        let name = a.name().to_string();
        let new = proto_type(a.data_type.unwrap_or(0), self.offset)?;
        let dtype = if new != proto::DataType::Char {
            new
        } else {
            match a.r#type.map(proto::attribute::Type::try_from) {
                Some(Ok(old)) if old != proto::attribute::Type::String => match old {
                    proto::attribute::Type::Byte => proto::DataType::Byte,
                    proto::attribute::Type::Short => proto::DataType::Short,
                    proto::attribute::Type::Int => proto::DataType::Int,
                    proto::attribute::Type::Long => proto::DataType::Long,
                    proto::attribute::Type::Float => proto::DataType::Float,
                    proto::attribute::Type::Double => proto::DataType::Double,
                    proto::attribute::Type::String => unreachable!("guarded"),
                },
                Some(Err(_)) => {
                    return Err(self.corrupt(format!(
                        "attribute {name:?}: unknown old type code {}",
                        a.r#type.unwrap_or_default()
                    )))
                }
                // nctk writes a char attribute's text in `sdata` (for
                // siphon) and its bytes in `data`, with `dataType` CHAR.
                _ if a.data_type.is_some() && a.data.is_some() => proto::DataType::Char,
                _ if !a.sdata.is_empty() => proto::DataType::String,
                _ => proto::DataType::Char,
            }
        };
        let Some(t) = atomic_type(dtype, a.unsigned()) else {
            return Err(self.unsupported(format!(
                "attribute {name:?} of type {}",
                dtype.as_str_name()
            )));
        };
        let len = a.len() as usize;
        if len == 0 {
            return Ok(Attribute::new(name, Values::empty(t)));
        }
        let data = a.data.as_deref().unwrap_or(&[]);
        let value = match t {
            DataType::String => Values::strings(a.sdata.iter().cloned()),
            DataType::Char => Values::Char(data.to_vec()),
            t => {
                let size = t.size().expect("atomic numbers have a size");
                if data.len() != len.saturating_mul(size) {
                    return Err(self.corrupt(format!(
                        "attribute {name:?}: {} bytes for {len} values of {size} bytes",
                        data.len()
                    )));
                }
                Values::from_bytes(t, data, true)
            }
        };
        Ok(Attribute::new(name, value))
    }
}

/// The enum base of `size` bytes (at least): signed unless `max` needs the
/// unsigned type, a larger type when neither holds it.
fn enum_base(max: i128, size: u64) -> DataType {
    [1u64, 2, 4, 8]
        .into_iter()
        .filter(|&s| s >= size)
        .flat_map(|s| [(s, true), (s, false)])
        .find(|&(s, signed)| {
            let bits = 8 * s as u32 - u32::from(signed);
            max < (1i128 << bits)
        })
        .and_then(|(s, signed)| DataType::integer(s, signed))
        .unwrap_or(DataType::UInt64)
}
