//! The CDL parser: tokens to a syntax tree, by recursive descent over the
//! grammar of netCDF-C's `ncgen.y`.

use super::ast::{
    Ast, AttrAst, AttrName, AttrTarget, Datum, FieldAst, GroupAst, Item, Ref, TypeAst, TypeKindAst,
    TypeRef,
};
use super::constants::Const;
use super::error::{CdlError, Pos};
use super::lexer::{type_by_name, Tok, Token};

/// Parses a token stream (ending with `Eof`) into a syntax tree.
pub(crate) fn parse_tokens(tokens: &[Token]) -> Result<Ast, CdlError> {
    let mut p = Parser {
        t: tokens,
        i: 0,
        depth: 0,
    };
    p.file()
}

/// Deepest nesting of groups and `{...}` lists accepted (bounds recursion).
const MAX_DEPTH: usize = 256;

struct Parser<'a> {
    t: &'a [Token],
    i: usize,
    depth: usize,
}

fn describe(tok: &Tok) -> String {
    match tok {
        Tok::Eof => "end of file".into(),
        Tok::Ident(n) => format!("name `{}`", String::from_utf8_lossy(n)),
        Tok::Str(_) => "string".into(),
        Tok::Num { .. } => "number".into(),
        Tok::Type(t) => format!("type `{t}`"),
        Tok::Special(s) => format!("`{}`", s.name()),
        other => format!("{other:?}").to_lowercase(),
    }
}

impl<'a> Parser<'a> {
    fn peek(&self) -> &'a Tok {
        &self.t[self.i.min(self.t.len() - 1)].tok
    }

    fn peek_at(&self, k: usize) -> &'a Tok {
        &self.t[(self.i + k).min(self.t.len() - 1)].tok
    }

    fn pos(&self) -> Pos {
        self.t[self.i.min(self.t.len() - 1)].pos
    }

    fn next(&mut self) -> &'a Token {
        let t = &self.t[self.i.min(self.t.len() - 1)];
        if self.i < self.t.len() - 1 {
            self.i += 1;
        }
        t
    }

    fn unexpected(&self, expected: &str) -> CdlError {
        let tok = &self.t[self.i.min(self.t.len() - 1)];
        let what = if tok.text.is_empty() {
            describe(&tok.tok)
        } else {
            format!("`{}`", tok.text)
        };
        CdlError::syntax(tok.pos, format!("unexpected {what}, expecting {expected}"))
    }

    fn expect(&mut self, want: &Tok, what: &str) -> Result<Pos, CdlError> {
        if self.peek() == want {
            Ok(self.next().pos)
        } else {
            Err(self.unexpected(what))
        }
    }

    fn file(&mut self) -> Result<Ast, CdlError> {
        self.expect(&Tok::Netcdf, "`netcdf`")?;
        let name = match self.peek() {
            Tok::DatasetId(n) => {
                self.next();
                n.clone()
            }
            _ => return Err(self.unexpected("a dataset name")),
        };
        let pos = self.expect(&Tok::LBrace, "`{`")?;
        let mut root = GroupAst {
            name: Vec::new(),
            pos,
            items: Vec::new(),
        };
        self.group_body(&mut root)?;
        self.expect(&Tok::RBrace, "`}`")?;
        if *self.peek() != Tok::Eof {
            return Err(self.unexpected("end of file"));
        }
        Ok(Ast { name, root })
    }

    fn enter(&mut self) -> Result<(), CdlError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(CdlError::syntax(
                self.pos(),
                "groups or {...} lists nested too deeply",
            ));
        }
        Ok(())
    }

    fn group_body(&mut self, g: &mut GroupAst) -> Result<(), CdlError> {
        self.enter()?;
        let r = self.group_body_inner(g);
        self.depth -= 1;
        r
    }

    fn group_body_inner(&mut self, g: &mut GroupAst) -> Result<(), CdlError> {
        while self.starts_attr() {
            let a = self.attr_decl()?;
            g.items.push(Item::Attr(a));
            self.expect(&Tok::Semi, "`;`")?;
        }
        if *self.peek() == Tok::Types {
            self.next();
            while !self.section_end() {
                if self.starts_attr() {
                    let a = self.attr_decl()?;
                    g.items.push(Item::Attr(a));
                    self.expect(&Tok::Semi, "`;`")?;
                } else {
                    let t = self.type_decl()?;
                    g.items.push(Item::Type(t));
                    if *self.peek() == Tok::Semi {
                        self.next();
                    }
                }
            }
        }
        if *self.peek() == Tok::Dimensions {
            self.next();
            while !self.section_end() {
                self.dim_or_attr(g)?;
                self.expect(&Tok::Semi, "`;`")?;
            }
        }
        if *self.peek() == Tok::Variables {
            self.next();
            while !self.section_end() {
                self.var_or_attr(g)?;
                self.expect(&Tok::Semi, "`;`")?;
            }
        }
        if *self.peek() == Tok::Data {
            self.next();
            while matches!(self.peek(), Tok::Ident(_) | Tok::Path(_)) {
                let pos = self.pos();
                let var = self.reference()?;
                self.expect(&Tok::Eq, "`=`")?;
                let values = self.data_list()?;
                self.expect(&Tok::Semi, "`;`")?;
                g.items.push(Item::Data { var, pos, values });
            }
        }
        while *self.peek() == Tok::Group {
            self.next();
            let pos = self.pos();
            let name = match self.peek() {
                Tok::Ident(n) => {
                    self.next();
                    n.clone()
                }
                _ => return Err(self.unexpected("a group name")),
            };
            self.expect(&Tok::LBrace, "`{`")?;
            let mut sub = GroupAst {
                name,
                pos,
                items: Vec::new(),
            };
            self.group_body(&mut sub)?;
            self.expect(&Tok::RBrace, "`}`")?;
            g.items.push(Item::Group(sub));
            while self.starts_attr() {
                let a = self.attr_decl()?;
                g.items.push(Item::Attr(a));
                self.expect(&Tok::Semi, "`;`")?;
            }
        }
        match self.peek() {
            Tok::RBrace => Ok(()),
            Tok::Types | Tok::Dimensions | Tok::Variables | Tok::Data => Err(self.unexpected(
                "`}` (sections must come in the order types, dimensions, variables, data)",
            )),
            _ => Err(self.unexpected("`}`")),
        }
    }

    fn section_end(&self) -> bool {
        matches!(
            self.peek(),
            Tok::Types
                | Tok::Dimensions
                | Tok::Variables
                | Tok::Data
                | Tok::Group
                | Tok::RBrace
                | Tok::Eof
        )
    }

    /// True when an attribute declaration starts here.
    fn starts_attr(&self) -> bool {
        matches!(
            (self.peek(), self.peek_at(1), self.peek_at(2)),
            (Tok::Colon, _, _)
                | (Tok::Ident(_) | Tok::Path(_), Tok::Colon, _)
                | (Tok::Type(_), Tok::Colon, _)
                | (Tok::Type(_), Tok::Ident(_) | Tok::Path(_), Tok::Colon)
        ) || (*self.peek_at(2) == Tok::Colon && self.leading_type().is_some())
    }

    /// The type a declaration starts with: a type keyword, or, when a name
    /// follows, a name that names a primitive type (`int64` where the kind
    /// makes it a name, see `lexer::demote_type_names`) or a user type (a
    /// name or an absolute path), as ncgen looks such a name up among the
    /// types.
    fn leading_type(&self) -> Option<TypeRef> {
        match (self.peek(), self.peek_at(1)) {
            (Tok::Type(t), _) => Some(TypeRef::Prim(*t)),
            (t @ (Tok::Ident(_) | Tok::Path(_)), Tok::Ident(_) | Tok::Path(_)) => {
                Some(match type_by_name(t) {
                    Some(p) => TypeRef::Prim(p),
                    None => TypeRef::Named(self.ref_at(self.i)?),
                })
            }
            _ => None,
        }
    }

    /// The reference the token at `i` spells, if it is a name or a path.
    fn ref_at(&self, i: usize) -> Option<Ref> {
        let t = &self.t[i.min(self.t.len() - 1)];
        match &t.tok {
            Tok::Ident(n) => Some(Ref {
                parts: vec![n.clone()],
                absolute: false,
                pos: t.pos,
            }),
            Tok::Path(parts) => Some(Ref {
                parts: parts.clone(),
                absolute: true,
                pos: t.pos,
            }),
            _ => None,
        }
    }

    /// A type where one is expected: a type keyword, a name or a path.
    fn type_ref(&mut self) -> Result<TypeRef, CdlError> {
        if let Tok::Type(t) = self.peek() {
            self.next();
            return Ok(TypeRef::Prim(*t));
        }
        if let Some(p) = type_by_name(self.peek()) {
            self.next();
            return Ok(TypeRef::Prim(p));
        }
        Ok(TypeRef::Named(self.reference()?))
    }

    fn type_name(&mut self) -> Result<(Vec<u8>, Pos), CdlError> {
        let pos = self.pos();
        match self.peek() {
            Tok::Ident(n) => {
                self.next();
                Ok((n.clone(), pos))
            }
            _ => Err(self.unexpected("a type name")),
        }
    }

    fn int_const(&mut self, what: &str) -> Result<Const, CdlError> {
        match self.peek() {
            Tok::Num { value, .. } => {
                let v = *value;
                self.next();
                Ok(v)
            }
            _ => Err(self.unexpected(what)),
        }
    }

    /// One declaration of the `types:` section (ncgen.y's `typedecl`).
    fn type_decl(&mut self) -> Result<TypeAst, CdlError> {
        let pos = self.pos();
        let kind = match self.peek() {
            Tok::Compound => {
                self.next();
                let (name, _) = self.type_name()?;
                self.expect(&Tok::LBrace, "`{`")?;
                let mut fields = Vec::new();
                while *self.peek() != Tok::RBrace {
                    let dtype = self.type_ref()?;
                    loop {
                        let (fname, fpos) = self.type_name()?;
                        let mut dims = Vec::new();
                        if *self.peek() == Tok::LParen {
                            self.next();
                            loop {
                                dims.push(self.int_const("a field dimension size")?);
                                match self.peek() {
                                    Tok::Comma => {
                                        self.next();
                                    }
                                    _ => break,
                                }
                            }
                            self.expect(&Tok::RParen, "`)`")?;
                        }
                        fields.push(FieldAst {
                            dtype: dtype.clone(),
                            name: fname,
                            pos: fpos,
                            dims,
                        });
                        if *self.peek() == Tok::Comma {
                            self.next();
                        } else {
                            break;
                        }
                    }
                    self.expect(&Tok::Semi, "`;`")?;
                }
                self.expect(&Tok::RBrace, "`}`")?;
                return Ok(TypeAst {
                    name,
                    pos,
                    kind: TypeKindAst::Compound(fields),
                });
            }
            Tok::Opaque => {
                self.next();
                self.expect(&Tok::LParen, "`(`")?;
                let size = self.int_const("an opaque size")?;
                self.expect(&Tok::RParen, "`)`")?;
                TypeKindAst::Opaque(size)
            }
            _ => {
                // An enum's base must be a type keyword: a type name the
                // kind lacks (`ubyte` for nc3) is a name, and ncgen fails
                // on the `enum` after it.
                let keyword = matches!(self.peek(), Tok::Type(_));
                let base = self.type_ref()?;
                match (self.peek(), self.peek_at(1), base) {
                    (Tok::Enum, _, TypeRef::Prim(base)) if keyword => {
                        self.next();
                        let (name, _) = self.type_name()?;
                        self.expect(&Tok::LBrace, "`{`")?;
                        let mut members = Vec::new();
                        loop {
                            let (m, mpos) = self.type_name()?;
                            self.expect(&Tok::Eq, "`=`")?;
                            let value = self.int_const("an enum value")?;
                            members.push((m, value, mpos));
                            if *self.peek() == Tok::Comma {
                                self.next();
                            } else {
                                break;
                            }
                        }
                        self.expect(&Tok::RBrace, "`}`")?;
                        return Ok(TypeAst {
                            name,
                            pos,
                            kind: TypeKindAst::Enum(base, members),
                        });
                    }
                    (Tok::LParen, Tok::Star, base) => {
                        self.next();
                        self.next();
                        self.expect(&Tok::RParen, "`)`")?;
                        TypeKindAst::Vlen(base)
                    }
                    _ => return Err(self.unexpected("a type declaration")),
                }
            }
        };
        let (name, _) = self.type_name()?;
        Ok(TypeAst { name, pos, kind })
    }

    fn dim_or_attr(&mut self, g: &mut GroupAst) -> Result<(), CdlError> {
        if self.starts_attr() {
            let a = self.attr_decl()?;
            g.items.push(Item::Attr(a));
            return Ok(());
        }
        loop {
            let pos = self.pos();
            let name = match self.peek() {
                Tok::Ident(n) => {
                    self.next();
                    n.clone()
                }
                _ => return Err(self.unexpected("a dimension name")),
            };
            self.expect(&Tok::Eq, "`=`")?;
            let size = match self.peek() {
                Tok::Unlimited => {
                    self.next();
                    None
                }
                Tok::Num { value, .. } => {
                    self.next();
                    Some(*value)
                }
                _ => return Err(self.unexpected("a dimension size or UNLIMITED")),
            };
            g.items.push(Item::Dim { name, pos, size });
            if *self.peek() == Tok::Comma {
                self.next();
            } else {
                return Ok(());
            }
        }
    }

    fn var_or_attr(&mut self, g: &mut GroupAst) -> Result<(), CdlError> {
        if self.starts_attr() {
            let a = self.attr_decl()?;
            g.items.push(Item::Attr(a));
            return Ok(());
        }
        let dtype = if let Some(t) = self.leading_type() {
            self.next();
            t
        } else {
            return Err(self.unexpected("a variable declaration or an attribute"));
        };
        loop {
            let pos = self.pos();
            let name = match self.peek() {
                Tok::Ident(n) => {
                    self.next();
                    n.clone()
                }
                _ => return Err(self.unexpected("a variable name")),
            };
            let mut dims = Vec::new();
            if *self.peek() == Tok::LParen {
                self.next();
                loop {
                    dims.push(self.reference()?);
                    match self.peek() {
                        Tok::Comma => {
                            self.next();
                        }
                        Tok::RParen => {
                            self.next();
                            break;
                        }
                        _ => return Err(self.unexpected("`,` or `)`")),
                    }
                }
            }
            g.items.push(Item::Var {
                dtype: dtype.clone(),
                name,
                pos,
                dims,
            });
            if *self.peek() == Tok::Comma {
                self.next();
            } else {
                return Ok(());
            }
        }
    }

    fn reference(&mut self) -> Result<Ref, CdlError> {
        let pos = self.pos();
        match self.peek() {
            Tok::Ident(n) => {
                self.next();
                Ok(Ref {
                    parts: vec![n.clone()],
                    absolute: false,
                    pos,
                })
            }
            Tok::Path(parts) => {
                self.next();
                Ok(Ref {
                    parts: parts.clone(),
                    absolute: true,
                    pos,
                })
            }
            _ => Err(self.unexpected("a name")),
        }
    }

    fn attr_decl(&mut self) -> Result<AttrAst, CdlError> {
        let pos = self.pos();
        let dtype = match self.peek() {
            Tok::Type(_) => self.leading_type(),
            _ if *self.peek_at(2) == Tok::Colon => self.leading_type(),
            _ => None,
        };
        if dtype.is_some() {
            self.next();
        }
        let target = if *self.peek() == Tok::Colon {
            AttrTarget::Global
        } else {
            AttrTarget::Var(self.reference()?)
        };
        self.expect(&Tok::Colon, "`:`")?;
        let name = match self.peek() {
            Tok::Ident(n) => AttrName::Plain(n.clone()),
            Tok::Special(s) => AttrName::Special(*s),
            _ => return Err(self.unexpected("an attribute name")),
        };
        self.next();
        self.expect(&Tok::Eq, "`=`")?;
        let values = self.data_list()?;
        Ok(AttrAst {
            target,
            dtype,
            name,
            pos,
            values,
        })
    }

    fn data_list(&mut self) -> Result<Vec<Datum>, CdlError> {
        let mut out = Vec::new();
        if matches!(self.peek(), Tok::Semi | Tok::RBrace) {
            return Ok(out);
        }
        loop {
            out.push(self.datum()?);
            if *self.peek() == Tok::Comma {
                self.next();
            } else {
                return Ok(out);
            }
        }
    }

    fn datum(&mut self) -> Result<Datum, CdlError> {
        let pos = self.pos();
        let d = match self.peek() {
            Tok::LBrace => {
                self.next();
                self.enter()?;
                let inner = self.data_list()?;
                self.depth -= 1;
                self.expect(&Tok::RBrace, "`}`")?;
                return Ok(Datum::List(inner, pos));
            }
            Tok::Num { value, .. } => Datum::Num(*value, pos),
            Tok::Str(s) => Datum::Str(s.clone(), pos),
            Tok::Fill => Datum::Fill(pos),
            Tok::Nil => Datum::Nil(pos),
            Tok::OpaqueHex(h) => Datum::Opaque(h.clone(), pos),
            Tok::Ident(n) => match n.as_slice() {
                b"inf" | b"infinity" => Datum::Num(Const::Double(f64::INFINITY), pos),
                b"inff" | b"infinityf" => Datum::Num(Const::Float(f32::INFINITY), pos),
                _ if *self.peek_at(1) == Tok::LParen => {
                    let name = n.clone();
                    self.next();
                    self.next();
                    while !matches!(self.peek(), Tok::RParen | Tok::Eof) {
                        self.next();
                    }
                    self.expect(&Tok::RParen, "`)`")?;
                    return Ok(Datum::Call(name, pos));
                }
                _ => Datum::EnumRef(n.clone(), pos),
            },
            Tok::Path(p) => Datum::EnumRef(p.join(&b'/'), pos),
            _ => return Err(self.unexpected("a value")),
        };
        self.next();
        Ok(d)
    }
}
