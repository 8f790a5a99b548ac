//! The semantic pass: resolves names in scope, builds the schema, types and
//! converts attribute values, separates the special attributes, then hands
//! the data lists to [`super::data`].

use nctk_model::{
    name, Attribute, DataType, DimId, Endianness, Format, GroupId, KindNames, Schema, Values, VarId,
};

use super::ast::{
    Ast, AttrAst, AttrName, AttrTarget, Datum, GroupAst, Item, Ref, TypeAst, TypeKindAst, TypeRef,
};
use super::constants::{push_const, push_opaque, push_text, Const};
use super::data;
use super::error::{CdlError, Pos};
use super::lexer::{type_named, Special};
use super::{CdlDataset, Constructs, GlobalSpecial, ParseOptions, Storage, VarSpecial};

/// Builds the dataset from the syntax tree.
pub(crate) fn build(ast: &Ast, options: &ParseOptions) -> Result<CdlDataset, CdlError> {
    let mut b = Builder {
        schema: Schema::new(),
        lists: Vec::new(),
        specials: Vec::new(),
        global: GlobalSpecial::default(),
        constructs: Constructs::default(),
        options,
    };
    b.group(GroupId::ROOT, &ast.root)?;
    let data = data::generate(&mut b.schema, &b.lists, options.max_values)?;
    Ok(CdlDataset {
        name: ast.name.clone(),
        schema: b.schema,
        data,
        specials: b.specials,
        global: b.global,
        constructs: b.constructs,
        kind: options.kind,
    })
}

pub(crate) struct Builder<'a> {
    schema: Schema,
    /// Each variable's data list and where it starts.
    lists: Vec<Option<(&'a [Datum], Pos)>>,
    specials: Vec<VarSpecial>,
    global: GlobalSpecial,
    constructs: Constructs,
    options: &'a ParseOptions,
}

pub(crate) fn checked_name(raw: &[u8], pos: Pos) -> Result<String, CdlError> {
    let s =
        std::str::from_utf8(raw).map_err(|_| CdlError::semantic(pos, "name is not valid UTF-8"))?;
    name::normalize(s).map_err(|e| CdlError::semantic(pos, e.to_string()))
}

fn show(raw: &[u8]) -> String {
    String::from_utf8_lossy(raw).into_owned()
}

impl<'a> Builder<'a> {
    fn group(&mut self, gid: GroupId, g: &'a GroupAst) -> Result<(), CdlError> {
        let mut types_done = false;
        for item in &g.items {
            match item {
                Item::Dim { name, pos, size } => self.dim(gid, name, *pos, size.as_ref())?,
                Item::Var {
                    dtype,
                    name,
                    pos,
                    dims,
                } => {
                    let dtype = self.type_of(gid, dtype)?;
                    self.var(gid, dtype, name, *pos, dims)?
                }
                Item::Type(t) => {
                    self.constructs.types.get_or_insert(t.pos);
                    if !types_done {
                        types_done = true;
                        self.types(gid, g)?;
                    }
                }
                Item::Attr(a) => self.attr(gid, a)?,
                Item::Data { var, pos, values } => {
                    let v = self.var_ref(gid, var)?;
                    self.lists[v.0 as usize] = Some((values.as_slice(), *pos));
                }
                Item::Group(sub) => {
                    self.constructs.group.get_or_insert(sub.pos);
                    let name = checked_name(&sub.name, sub.pos)?;
                    let id = self.schema.add_group(gid, &name).map_err(|_| {
                        CdlError::semantic(
                            sub.pos,
                            format!("Duplicate group name in same scope: {name}"),
                        )
                    })?;
                    self.group(id, sub)?;
                }
            }
        }
        Ok(())
    }

    fn dim(
        &mut self,
        gid: GroupId,
        raw: &[u8],
        pos: Pos,
        size: Option<&Const>,
    ) -> Result<(), CdlError> {
        let name = checked_name(raw, pos)?;
        let (len, unlimited) = match size {
            None => (0, true),
            Some(c) => {
                let n: i128 = match *c {
                    Const::Int(v) => v.into(),
                    Const::UInt(v) => v.into(),
                    Const::Int64(v) => v.into(),
                    Const::UInt64(v) => v.into(),
                    _ => {
                        return Err(CdlError::semantic(
                            pos,
                            format!("dimension {name}: size must be an integer or UNLIMITED"),
                        ))
                    }
                };
                if n <= 0 {
                    return Err(CdlError::semantic(
                        pos,
                        format!("dimension {name}: size must be positive (use UNLIMITED for a record dimension)"),
                    ));
                }
                (n as u64, false)
            }
        };
        self.schema
            .add_dim(gid, &name, len, unlimited)
            .map_err(|_| {
                CdlError::semantic(pos, format!("Duplicate dimension declaration for {name}"))
            })?;
        self.constructs.dim_pos.push(pos);
        Ok(())
    }

    fn var(
        &mut self,
        gid: GroupId,
        dtype: DataType,
        raw: &[u8],
        pos: Pos,
        dims: &[Ref],
    ) -> Result<(), CdlError> {
        let name = checked_name(raw, pos)?;
        let dtype = match (dtype, self.options.kind) {
            (DataType::Int64, Some(k)) if k.classic_types_only() => DataType::Int,
            _ => dtype,
        };
        let dim_ids = dims
            .iter()
            .map(|r| self.dim_ref(gid, r))
            .collect::<Result<Vec<_>, _>>()?;
        if dim_ids.len() > 1024 {
            return Err(CdlError::semantic(
                pos,
                format!("{name} has too many dimensions"),
            ));
        }
        self.schema
            .add_var(gid, &name, dtype, &dim_ids)
            .map_err(|_| {
                CdlError::semantic(pos, format!("Duplicate variable declaration for {name}"))
            })?;
        self.lists.push(None);
        self.specials.push(VarSpecial::default());
        self.constructs.var_pos.push(pos);
        Ok(())
    }

    /// The type a declaration names: a primitive type, or a user type
    /// found as ncgen finds it (an absolute path; else in this group or an
    /// ancestor; else the first of that name anywhere).
    pub(crate) fn type_of(&self, gid: GroupId, t: &TypeRef) -> Result<DataType, CdlError> {
        let r = match t {
            TypeRef::Prim(p) => return Ok(*p),
            TypeRef::Named(r) => r,
        };
        let last = r.parts.last().map(Vec::as_slice).unwrap_or_default();
        let n = checked_name(last, r.pos)?;
        let s = &self.schema;
        let found = if r.absolute {
            let g = self.group_of(r)?;
            s.group(g)
                .types
                .iter()
                .copied()
                .find(|&t| s.user_type(t).name == n)
        } else {
            s.type_by_name(gid, &n)
                .or_else(|| s.type_ids().find(|&t| s.user_type(t).name == n))
        };
        found.map(DataType::User).ok_or_else(|| {
            CdlError::semantic(r.pos, format!("Undefined or forward referenced type: {n}"))
        })
    }

    /// Defines the group's types in the order ncgen defines them
    /// (`processtypes`): first the enums, opaques, vlens of primitive types
    /// and compounds of primitive fields, in CDL order; then, in passes
    /// over the rest in CDL order, each compound, and each vlen whose base
    /// type is already defined.
    fn types(&mut self, gid: GroupId, g: &'a GroupAst) -> Result<(), CdlError> {
        let decls: Vec<&TypeAst> = g
            .items
            .iter()
            .filter_map(|i| match i {
                Item::Type(t) => Some(t),
                _ => None,
            })
            .collect();
        let first = |t: &TypeAst| match &t.kind {
            TypeKindAst::Opaque(_) | TypeKindAst::Enum(..) => true,
            TypeKindAst::Vlen(base) => matches!(base, TypeRef::Prim(_)),
            TypeKindAst::Compound(fields) => {
                fields.iter().all(|f| matches!(f.dtype, TypeRef::Prim(_)))
            }
        };
        let mut done = vec![false; decls.len()];
        for (i, t) in decls.iter().enumerate() {
            if first(t) {
                self.define_type(gid, t)?;
                done[i] = true;
            }
        }
        loop {
            let mut added = false;
            for (i, t) in decls.iter().enumerate() {
                let ready = match &t.kind {
                    TypeKindAst::Vlen(base) => self.type_of(gid, base).is_ok(),
                    _ => true,
                };
                if !done[i] && ready {
                    self.define_type(gid, t)?;
                    done[i] = true;
                    added = true;
                }
            }
            if !added {
                break;
            }
        }
        match decls.iter().zip(&done).find(|(_, d)| !**d) {
            Some((t, _)) => Err(CdlError::semantic(
                t.pos,
                format!("Circular type dependency for type: {}", show(&t.name)),
            )),
            None => Ok(()),
        }
    }

    fn define_type(&mut self, gid: GroupId, t: &TypeAst) -> Result<(), CdlError> {
        let name = checked_name(&t.name, t.pos)?;
        let kind = super::user::kind(self, gid, &name, t)?;
        self.schema
            .add_type(gid, &name, kind)
            .map_err(|e| CdlError::semantic(t.pos, format!("type {name}: {e}")))?;
        Ok(())
    }

    /// The schema being built.
    pub(crate) fn schema(&self) -> &Schema {
        &self.schema
    }

    fn group_of(&self, r: &Ref) -> Result<GroupId, CdlError> {
        let mut g = GroupId::ROOT;
        for part in &r.parts[..r.parts.len() - 1] {
            let n = checked_name(part, r.pos)?;
            g = self.schema.group_by_name(g, &n).ok_or_else(|| {
                CdlError::semantic(r.pos, format!("Undefined or forward referenced group: {n}"))
            })?;
        }
        Ok(g)
    }

    fn dim_ref(&self, gid: GroupId, r: &Ref) -> Result<DimId, CdlError> {
        let last = r.parts.last().map(Vec::as_slice).unwrap_or_default();
        let n = checked_name(last, r.pos)?;
        let found = if r.absolute {
            let g = self.group_of(r)?;
            self.schema
                .group(g)
                .dims
                .iter()
                .copied()
                .find(|&d| self.schema.dim(d).name == n)
        } else {
            self.schema.dim_by_name(gid, &n)
        };
        found.ok_or_else(|| {
            CdlError::semantic(
                r.pos,
                format!("Undefined or forward referenced dimension: {n}"),
            )
        })
    }

    fn var_ref(&self, gid: GroupId, r: &Ref) -> Result<VarId, CdlError> {
        let last = r.parts.last().map(Vec::as_slice).unwrap_or_default();
        let n = checked_name(last, r.pos)?;
        let g = if r.absolute { self.group_of(r)? } else { gid };
        self.schema.var_by_name(g, &n).ok_or_else(|| {
            CdlError::semantic(
                r.pos,
                format!("Undefined or forward referenced variable: {n}"),
            )
        })
    }

    fn attr(&mut self, gid: GroupId, a: &AttrAst) -> Result<(), CdlError> {
        let var = match &a.target {
            AttrTarget::Global => None,
            AttrTarget::Var(r) => match self.var_ref(gid, r) {
                Ok(v) => Some(v),
                Err(e) => {
                    // `string :a = ...` where `string` is a name for the
                    // kind, or `vlen_t :a = ...` naming a user type, and
                    // no variable has the name: ncgen takes the name as
                    // the attribute's type.
                    let Some(dtype) = self.typed_global(gid, a, r) else {
                        return Err(e);
                    };
                    let typed = AttrAst {
                        target: AttrTarget::Global,
                        dtype: Some(dtype),
                        ..a.clone()
                    };
                    return self.attr(gid, &typed);
                }
            },
        };
        match &a.name {
            AttrName::Special(sp) => self.special(gid, var, *sp, a),
            AttrName::Plain(raw) if raw == b"_Codecs" && var.is_some() => {
                let v = var.unwrap_or(VarId(0));
                let text = string_value(a, "_Codecs")?;
                let s = &mut self.specials[v.0 as usize];
                s.pos.get_or_insert(a.pos);
                s.codecs = Some(text);
                Ok(())
            }
            AttrName::Plain(raw) => {
                let name = checked_name(raw, a.pos)?;
                let dtype = a.dtype.as_ref().map(|t| self.type_of(gid, t)).transpose()?;
                let values = attr_values(&self.schema, dtype, &a.values, &name, a.pos)?;
                if let Some(t @ DataType::User(_)) = dtype {
                    self.constructs.typed_attrs.push((a.pos, var, name.clone()));
                    self.schema
                        .set_attr(gid, var, Attribute::typed(name, t, values));
                    return Ok(());
                }
                if values.dtype() == DataType::String
                    && self.options.kind.is_some_and(|k| k != Format::Netcdf4)
                {
                    // ncgen 4.9.0 leaves `string` attributes out of the
                    // files of the kinds without strings, without a word.
                    return Ok(());
                }
                if !values.dtype().is_classic() {
                    self.constructs.typed_attrs.push((a.pos, var, name.clone()));
                }
                self.schema.set_attr(gid, var, Attribute::new(name, values));
                Ok(())
            }
        }
    }

    fn special(
        &mut self,
        gid: GroupId,
        var: Option<VarId>,
        sp: Special,
        a: &AttrAst,
    ) -> Result<(), CdlError> {
        let global = matches!(
            sp,
            Special::Format
                | Special::NcProperties
                | Special::IsNetcdf4
                | Special::SuperblockVersion
        );
        if global {
            if var.is_some() {
                return Err(CdlError::semantic(
                    a.pos,
                    format!("{}: must be global attribute", sp.name()),
                ));
            }
            match sp {
                Special::Format => {
                    let text = string_value(a, sp.name())?;
                    let kind =
                        Format::from_kind_name(&text, KindNames::Ncgen).ok_or_else(|| {
                            CdlError::semantic(a.pos, format!("_Format: illegal value: {text}"))
                        })?;
                    self.global.format = Some(kind);
                }
                Special::NcProperties => {
                    self.global.nc_properties = Some(string_value(a, sp.name())?)
                }
                Special::IsNetcdf4 => self.global.is_netcdf4 = Some(bool_value(a, sp.name())?),
                _ => self.global.superblock_version = Some(int_value(a, sp.name())? as i32),
            }
            return Ok(());
        }
        let Some(v) = var else {
            return Err(CdlError::semantic(
                a.pos,
                format!("{}: must be a variable attribute", sp.name()),
            ));
        };
        if sp == Special::FillValue {
            return self.fill_value(gid, v, a);
        }
        let s = &mut self.specials[v.0 as usize];
        s.pos.get_or_insert(a.pos);
        match sp {
            Special::Storage => {
                let text = string_value(a, sp.name())?;
                s.storage = Some(match text.as_str() {
                    "contiguous" => Storage::Contiguous,
                    "chunked" => Storage::Chunked,
                    "compact" => Storage::Compact,
                    _ => {
                        return Err(CdlError::semantic(
                            a.pos,
                            format!("_Storage: illegal value: {text}"),
                        ))
                    }
                });
            }
            Special::ChunkSizes => {
                let mut sizes = Vec::new();
                for d in &a.values {
                    match d {
                        Datum::Num(c, p) => match integer(*c) {
                            Some(n) if n > 0 => sizes.push(n as u64),
                            _ => return Err(CdlError::semantic(*p, "_ChunkSizes: illegal value")),
                        },
                        other => {
                            return Err(CdlError::semantic(
                                other.pos(),
                                "_ChunkSizes: illegal value",
                            ))
                        }
                    }
                }
                s.chunk_sizes = Some(sizes);
                s.storage = Some(Storage::Chunked);
            }
            Special::Fletcher32 => s.fletcher32 = Some(bool_value(a, sp.name())?),
            Special::Shuffle => s.shuffle = Some(bool_value(a, sp.name())?),
            Special::NoFill => s.no_fill = Some(bool_value(a, sp.name())?),
            Special::DeflateLevel => s.deflate_level = Some(int_value(a, sp.name())? as i32),
            Special::Endianness => {
                let text = string_value(a, sp.name())?;
                s.endianness = Some(match text.as_str() {
                    "little" => Endianness::Little,
                    "big" => Endianness::Big,
                    _ => {
                        return Err(CdlError::semantic(
                            a.pos,
                            format!("_Endianness: illegal value: {text}"),
                        ))
                    }
                });
            }
            Special::Filter => s.filter = Some(string_value(a, sp.name())?),
            _ => {}
        }
        Ok(())
    }

    fn fill_value(&mut self, gid: GroupId, v: VarId, a: &AttrAst) -> Result<(), CdlError> {
        let vtype = self.schema.var(v).dtype;
        if let Some(t) = a.dtype.as_ref().map(|t| self.type_of(gid, t)).transpose()? {
            let t = match (t, self.options.kind) {
                (DataType::Int64, Some(k)) if k.classic_types_only() => DataType::Int,
                _ => t,
            };
            if t != vtype {
                return Err(CdlError::semantic(
                    a.pos,
                    format!(
                        "_FillValue attribute type does not match variable type: {}",
                        self.schema.var(v).name
                    ),
                ));
            }
        }
        if a.values.iter().any(|d| matches!(d, Datum::Fill(_))) {
            return Err(CdlError::semantic(
                a.pos,
                "Attribute data may not contain fill values (i.e. _ )",
            ));
        }
        let single = a.values.len() == 1 || (vtype == DataType::Char && !a.values.is_empty());
        if !single {
            return Err(CdlError::semantic(
                a.pos,
                "_FillValue: must be a single (possibly compound) value",
            ));
        }
        let values = attr_values(&self.schema, Some(vtype), &a.values, "_FillValue", a.pos)?;
        self.schema
            .set_attr(gid, Some(v), Attribute::typed("_FillValue", vtype, values));
        Ok(())
    }

    /// The type an attribute's owner names when it names no variable: a
    /// plain name of a primitive type or of a user type, on an attribute
    /// without a type of its own.
    fn typed_global(&self, gid: GroupId, a: &AttrAst, r: &Ref) -> Option<TypeRef> {
        if a.dtype.is_some() {
            return None;
        }
        if let (false, [name]) = (r.absolute, r.parts.as_slice()) {
            if let Some(p) = type_named(name) {
                return Some(TypeRef::Prim(p));
            }
        }
        let named = TypeRef::Named(r.clone());
        self.type_of(gid, &named).ok().map(|_| named)
    }
}

pub(crate) fn integer(c: Const) -> Option<i128> {
    Some(match c {
        Const::Byte(v) => v.into(),
        Const::Short(v) => v.into(),
        Const::Int(v) => v.into(),
        Const::Int64(v) => v.into(),
        Const::UByte(v) => v.into(),
        Const::UShort(v) => v.into(),
        Const::UInt(v) => v.into(),
        Const::UInt64(v) => v.into(),
        Const::Float(_) | Const::Double(_) => return None,
    })
}

fn single(a: &AttrAst, what: &str) -> Result<Datum, CdlError> {
    match a.values.as_slice() {
        [d] => Ok(d.clone()),
        _ => Err(CdlError::semantic(
            a.pos,
            format!("{what}: illegal value (expected one value)"),
        )),
    }
}

fn string_value(a: &AttrAst, what: &str) -> Result<String, CdlError> {
    match single(a, what)? {
        Datum::Str(s, _) => Ok(String::from_utf8_lossy(&s).into_owned()),
        d => Err(CdlError::semantic(
            d.pos(),
            format!("{what}: illegal value (expected a string)"),
        )),
    }
}

fn int_value(a: &AttrAst, what: &str) -> Result<i128, CdlError> {
    match single(a, what)? {
        Datum::Num(c, p) => {
            integer(c).ok_or_else(|| CdlError::semantic(p, format!("{what}: illegal value")))
        }
        d => Err(CdlError::semantic(
            d.pos(),
            format!("{what}: illegal value (expected an integer)"),
        )),
    }
}

fn bool_value(a: &AttrAst, what: &str) -> Result<bool, CdlError> {
    let d = single(a, what)?;
    let v = match &d {
        Datum::Str(s, _) => match s.as_slice() {
            b"true" | b"1" => Some(true),
            b"false" | b"0" => Some(false),
            _ => None,
        },
        Datum::Num(c, _) => match integer(*c) {
            Some(0) => Some(false),
            Some(1) => Some(true),
            _ => None,
        },
        _ => None,
    };
    v.ok_or_else(|| CdlError::semantic(d.pos(), format!("{what}: illegal value")))
}

/// ncgen's type inference for an untyped attribute: text if every item is a
/// string, else double if any double, float if any float, uint64 if a value
/// needs it, else the widest integer type by signed rank (a later unsigned
/// type of equal rank wins).
fn infer_type(values: &[Datum]) -> Option<DataType> {
    if values.is_empty() {
        return Some(DataType::Char);
    }
    let mut consts = Vec::with_capacity(values.len());
    let mut strings = 0;
    for d in values {
        match d {
            Datum::Num(c, _) => consts.push(*c),
            Datum::Str(..) => strings += 1,
            _ => return None,
        }
    }
    if strings > 0 {
        return (strings == values.len()).then_some(DataType::Char);
    }
    if consts.iter().any(|c| matches!(c, Const::Double(_))) {
        return Some(DataType::Double);
    }
    if consts.iter().any(|c| matches!(c, Const::Float(_))) {
        return Some(DataType::Float);
    }
    if consts
        .iter()
        .any(|c| matches!(c, Const::UInt64(v) if *v > i64::MAX as u64))
    {
        return Some(DataType::UInt64);
    }
    let signed_rank = |t: DataType| match t {
        DataType::UByte => DataType::Byte.code(),
        DataType::UShort => DataType::Short.code(),
        DataType::UInt => DataType::Int.code(),
        DataType::UInt64 => DataType::Int64.code(),
        other => other.code(),
    };
    let mut result: Option<DataType> = None;
    for c in consts {
        let next = c.dtype();
        result = Some(match result {
            None => next,
            Some(prior) if signed_rank(prior) <= signed_rank(next) => next,
            Some(prior) => prior,
        });
    }
    result
}

/// Converts an attribute's value list to typed values (`dtype` given or
/// inferred; a user type's through [`super::user::attr_values`]).
pub(crate) fn attr_values(
    schema: &Schema,
    dtype: Option<DataType>,
    values: &[Datum],
    name: &str,
    pos: Pos,
) -> Result<Values, CdlError> {
    if let Some(d) = values.iter().find(|d| matches!(d, Datum::Fill(_))) {
        return Err(CdlError::semantic(
            d.pos(),
            format!("Attribute data may not contain fill values (i.e. _ ): {name}"),
        ));
    }
    let dtype = match dtype {
        Some(t) => t,
        None => match infer_type(values) {
            Some(t) => t,
            None => {
                check_items(values)?;
                return Err(CdlError::semantic(
                    pos,
                    format!("Non-simple list of values for untyped attribute: {name}"),
                ));
            }
        },
    };
    if values.is_empty() && dtype != DataType::Char {
        return Err(CdlError::semantic(
            pos,
            format!("Empty datalist can only be assigned to attributes of type char: {name}"),
        ));
    }
    if dtype.is_user() {
        return super::user::attr_values(schema, dtype, values);
    }
    check_items(values)?;
    let mut out = Values::with_capacity(dtype, values.len());
    for d in values {
        match (d, &mut out) {
            (Datum::Str(s, _), Values::Char(v)) => v.extend_from_slice(s),
            (Datum::Num(c @ (Const::Byte(_) | Const::UByte(_)), _), Values::Char(_)) => {
                push_const(&mut out, *c, d.pos())?
            }
            (d, Values::Char(_)) => {
                return Err(CdlError::semantic(
                    d.pos(),
                    "Encountered non-string and non-char constant in datalist",
                ))
            }
            (Datum::Num(c, p), _) => push_const(&mut out, *c, *p)?,
            (Datum::Str(s, p), _) => push_text(&mut out, s, *p)?,
            (Datum::Opaque(h, p), _) => {
                if !push_opaque(&mut out, h) {
                    return Err(CdlError::unsupported(
                        *p,
                        "an opaque constant (0x...) for this type",
                    ));
                }
            }
            (Datum::Nil(_), Values::String(v)) => v.push(None),
            (Datum::Nil(p), _) => {
                return Err(CdlError::semantic(
                    *p,
                    "NIL data can only be assigned to variables or attributes of type string",
                ))
            }
            (other, _) => {
                return Err(CdlError::semantic(
                    other.pos(),
                    "unexpected value in attribute",
                ))
            }
        }
    }
    // ncgen writes an empty text attribute as one NUL character.
    if let Values::Char(v) = &mut out {
        if v.is_empty() {
            v.push(0);
        }
    }
    Ok(out)
}

/// Rejects value items nctk does not support, with a clear reason.
pub(crate) fn check_items(values: &[Datum]) -> Result<(), CdlError> {
    for d in values {
        match d {
            Datum::Opaque(_, p) => {
                return Err(CdlError::unsupported(*p, "an opaque constant (0x...) here"))
            }
            Datum::EnumRef(n, p) => {
                return Err(CdlError::unsupported(
                    *p,
                    format!("the enum constant reference `{}`", show(n)),
                ))
            }
            Datum::Call(n, p) => {
                return Err(CdlError::unsupported(
                    *p,
                    format!("the data function `{}(...)`", show(n)),
                ))
            }
            _ => {}
        }
    }
    Ok(())
}
