//! The syntax tree of a CDL file, before names are resolved.

use nctk_model::DataType;

use super::constants::Const;
use super::error::Pos;
use super::lexer::Special;

/// A whole CDL file.
#[derive(Debug, Clone)]
pub(crate) struct Ast {
    pub name: String,
    pub root: GroupAst,
}

/// A group (the root or `group: name { ... }`), its declarations in order.
#[derive(Debug, Clone)]
pub(crate) struct GroupAst {
    pub name: Vec<u8>,
    pub pos: Pos,
    pub items: Vec<Item>,
}

/// One declaration, in source order.
#[derive(Debug, Clone)]
pub(crate) enum Item {
    Dim {
        name: Vec<u8>,
        pos: Pos,
        /// `None` for UNLIMITED.
        size: Option<Const>,
    },
    Var {
        dtype: TypeRef,
        name: Vec<u8>,
        pos: Pos,
        dims: Vec<Ref>,
    },
    Type(TypeAst),
    Attr(AttrAst),
    Data {
        var: Ref,
        pos: Pos,
        values: Vec<Datum>,
    },
    Group(GroupAst),
}

/// A reference to a dimension or variable: a plain name or an absolute path.
#[derive(Debug, Clone)]
pub(crate) struct Ref {
    pub parts: Vec<Vec<u8>>,
    pub absolute: bool,
    pub pos: Pos,
}

/// A type in a declaration: a primitive type or the name (or absolute
/// path) of a user type.
#[derive(Debug, Clone)]
pub(crate) enum TypeRef {
    Prim(DataType),
    Named(Ref),
}

/// A declaration of the `types:` section.
#[derive(Debug, Clone)]
pub(crate) struct TypeAst {
    pub name: Vec<u8>,
    pub pos: Pos,
    pub kind: TypeKindAst,
}

/// What a `types:` declaration declares.
#[derive(Debug, Clone)]
pub(crate) enum TypeKindAst {
    /// `compound name { type field(dims), ... ; ... }`
    Compound(Vec<FieldAst>),
    /// `base(*) name`
    Vlen(TypeRef),
    /// `base enum name { member = value, ... }`
    Enum(DataType, Vec<(Vec<u8>, Const, Pos)>),
    /// `opaque(size) name`
    Opaque(Const),
}

/// One field of a compound declaration.
#[derive(Debug, Clone)]
pub(crate) struct FieldAst {
    pub dtype: TypeRef,
    pub name: Vec<u8>,
    pub pos: Pos,
    pub dims: Vec<Const>,
}

/// Which object an attribute belongs to.
#[derive(Debug, Clone)]
pub(crate) enum AttrTarget {
    Global,
    Var(Ref),
}

/// The attribute's name: ordinary or one of ncgen's special names.
#[derive(Debug, Clone)]
pub(crate) enum AttrName {
    Plain(Vec<u8>),
    Special(Special),
}

/// `[type] [var]:name = values`
#[derive(Debug, Clone)]
pub(crate) struct AttrAst {
    pub target: AttrTarget,
    pub dtype: Option<TypeRef>,
    pub name: AttrName,
    pub pos: Pos,
    pub values: Vec<Datum>,
}

/// One item of a data or attribute value list.
#[derive(Debug, Clone)]
pub(crate) enum Datum {
    Num(Const, Pos),
    Str(Vec<u8>, Pos),
    Fill(Pos),
    Nil(Pos),
    /// `0x...`: hex digits, lower case, even count.
    Opaque(String, Pos),
    List(Vec<Datum>, Pos),
    EnumRef(Vec<u8>, Pos),
    Call(Vec<u8>, Pos),
}

impl Datum {
    /// Where the item starts.
    pub(crate) fn pos(&self) -> Pos {
        match self {
            Datum::Num(_, p)
            | Datum::Str(_, p)
            | Datum::Fill(p)
            | Datum::Nil(p)
            | Datum::Opaque(_, p)
            | Datum::List(_, p)
            | Datum::EnumRef(_, p)
            | Datum::Call(_, p) => *p,
        }
    }
}
