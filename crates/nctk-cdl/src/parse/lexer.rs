//! The CDL lexer: text to tokens with line/column positions, following
//! netCDF-C's `ncgen.l` (longest match; keywords win ties with names).

use nctk_model::DataType;

use super::constants::{self, Const};
use super::error::{CdlError, Pos};
use super::escape;
use nctk_model::Format;

/// The special attribute names ncgen treats as keywords.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Special {
    FillValue,
    Format,
    Storage,
    ChunkSizes,
    Fletcher32,
    DeflateLevel,
    Shuffle,
    Endianness,
    NoFill,
    NcProperties,
    IsNetcdf4,
    SuperblockVersion,
    Filter,
}

impl Special {
    fn from_name(name: &[u8]) -> Option<Special> {
        Some(match name {
            b"_FillValue" => Special::FillValue,
            b"_Format" => Special::Format,
            b"_Storage" => Special::Storage,
            b"_ChunkSizes" => Special::ChunkSizes,
            b"_Fletcher32" => Special::Fletcher32,
            b"_DeflateLevel" => Special::DeflateLevel,
            b"_Shuffle" => Special::Shuffle,
            b"_Endianness" => Special::Endianness,
            b"_NoFill" => Special::NoFill,
            b"_NCProperties" => Special::NcProperties,
            b"_IsNetcdf4" => Special::IsNetcdf4,
            b"_SuperblockVersion" => Special::SuperblockVersion,
            b"_Filter" => Special::Filter,
            _ => return None,
        })
    }

    /// The attribute name.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Special::FillValue => "_FillValue",
            Special::Format => "_Format",
            Special::Storage => "_Storage",
            Special::ChunkSizes => "_ChunkSizes",
            Special::Fletcher32 => "_Fletcher32",
            Special::DeflateLevel => "_DeflateLevel",
            Special::Shuffle => "_Shuffle",
            Special::Endianness => "_Endianness",
            Special::NoFill => "_NoFill",
            Special::NcProperties => "_NCProperties",
            Special::IsNetcdf4 => "_IsNetcdf4",
            Special::SuperblockVersion => "_SuperblockVersion",
            Special::Filter => "_Filter",
        }
    }
}

/// One token.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Tok {
    Netcdf,
    DatasetId(String),
    LBrace,
    RBrace,
    LParen,
    RParen,
    Comma,
    Semi,
    Colon,
    Eq,
    Star,
    Types,
    Dimensions,
    Variables,
    Data,
    Group,
    Unlimited,
    Type(DataType),
    Compound,
    Enum,
    Opaque,
    /// A name, escapes removed (raw bytes; checked as UTF-8 later).
    Ident(Vec<u8>),
    /// An absolute path `/a/b/c`, split and unescaped.
    Path(Vec<Vec<u8>>),
    Special(Special),
    /// A double-quoted string, escapes removed.
    Str(Vec<u8>),
    /// A numeric or character constant.
    Num {
        value: Const,
        /// ncgen rejects the literal for classic formats.
        classic_illegal: bool,
    },
    /// `0x...` without a suffix: an opaque constant.
    OpaqueHex(String),
    /// `_`
    Fill,
    /// `NIL`
    Nil,
    Eof,
}

/// A token and where it starts; `text` is its source spelling.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Token {
    pub tok: Tok,
    pub pos: Pos,
    pub text: String,
}

/// Splits `src` into tokens, ending with [`Tok::Eof`]. `keywords` is the
/// kind named by ncgen's `-k`, which decides which type names are keywords
/// (see [`demote_type_names`]).
pub(crate) fn tokenize(src: &[u8], keywords: Option<Format>) -> Result<Vec<Token>, CdlError> {
    let mut tokens = Lexer::new(src).run()?;
    demote_type_names(&mut tokens, keywords.unwrap_or(Format::Classic));
    Ok(tokens)
}

/// ncgen 4.9.0 reads the names of the types a kind lacks as names, not
/// keywords: `string` unless the kind is netCDF-4, and `ubyte`, `ushort`,
/// `uint`, `int64`, `uint64` (and their aliases `ulong`, `uinteger`)
/// unless it is netCDF-4 or CDF-5. The kind is `-k`'s; without `-k` all of
/// them are names, whatever `_Format` says. Where a type is expected, the
/// parser still takes such a name as the type it names ([`type_by_name`]).
fn demote_type_names(tokens: &mut [Token], kind: Format) {
    for t in tokens.iter_mut() {
        let Tok::Type(dtype) = t.tok else { continue };
        let keyword = match dtype {
            DataType::String => kind == Format::Netcdf4,
            DataType::UByte
            | DataType::UShort
            | DataType::UInt
            | DataType::Int64
            | DataType::UInt64 => matches!(kind, Format::Netcdf4 | Format::Cdf5),
            _ => true,
        };
        if !keyword {
            t.tok = Tok::Ident(t.text.as_bytes().to_vec());
        }
    }
}

/// The primitive type a name in a type's place stands for (`int64 v ;`
/// where `int64` is not a keyword for the kind, see [`demote_type_names`]).
pub(crate) fn type_by_name(tok: &Tok) -> Option<DataType> {
    match tok {
        Tok::Type(t) => Some(*t),
        Tok::Ident(n) => type_named(n),
        _ => None,
    }
}

/// The primitive type whose CDL name is `name` (`int64`, `string`, ...).
pub(crate) fn type_named(name: &[u8]) -> Option<DataType> {
    DataType::ALL
        .into_iter()
        .find(|t| t.cdl_name().as_bytes() == name)
}

struct Lexer<'a> {
    s: &'a [u8],
    i: usize,
    line: u32,
    line_start: usize,
    out: Vec<Token>,
}

fn is_utf8_lead(b: u8) -> bool {
    b >= 0xC0
}

fn is_id_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_' || is_utf8_lead(b)
}

fn is_id_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'@' | b'+' | b'-') || b >= 0x80
}

/// Characters that may follow a backslash inside a name.
fn is_id_escapable(b: u8) -> bool {
    b" !\"#$%&'()*,:;<=>?[\\]^`{|}~".contains(&b)
}

const KEYWORDS: &[(&str, Kw)] = &[
    ("compound", Kw::Tok(Tok::Compound)),
    ("struct", Kw::Tok(Tok::Compound)),
    ("structure", Kw::Tok(Tok::Compound)),
    ("enum", Kw::Tok(Tok::Enum)),
    ("opaque", Kw::Tok(Tok::Opaque)),
    ("float", Kw::Ty(DataType::Float)),
    ("real", Kw::Ty(DataType::Float)),
    ("char", Kw::Ty(DataType::Char)),
    ("byte", Kw::Ty(DataType::Byte)),
    ("ubyte", Kw::Ty(DataType::UByte)),
    ("short", Kw::Ty(DataType::Short)),
    ("ushort", Kw::Ty(DataType::UShort)),
    ("long", Kw::Ty(DataType::Int)),
    ("int", Kw::Ty(DataType::Int)),
    ("integer", Kw::Ty(DataType::Int)),
    ("ulong", Kw::Ty(DataType::UInt)),
    ("uint", Kw::Ty(DataType::UInt)),
    ("uinteger", Kw::Ty(DataType::UInt)),
    ("int64", Kw::Ty(DataType::Int64)),
    ("uint64", Kw::Ty(DataType::UInt64)),
    ("double", Kw::Ty(DataType::Double)),
    ("string", Kw::Ty(DataType::String)),
    ("unlimited", Kw::Tok(Tok::Unlimited)),
    ("UNLIMITED", Kw::Tok(Tok::Unlimited)),
    ("DoubleInf", Kw::Num(Const::Double(f64::INFINITY))),
    ("Infinity", Kw::Num(Const::Double(f64::INFINITY))),
    ("NaN", Kw::Num(Const::Double(f64::NAN))),
    ("nan", Kw::Num(Const::Double(f64::NAN))),
    ("FloatInf", Kw::Num(Const::Float(f32::INFINITY))),
    ("Infinityf", Kw::Num(Const::Float(f32::INFINITY))),
    ("Inff", Kw::Num(Const::Float(f32::INFINITY))),
    ("NaNf", Kw::Num(Const::Float(f32::NAN))),
    ("nanf", Kw::Num(Const::Float(f32::NAN))),
    // Lower-case infinities are names unless signed (`-inf`); the parser
    // reads the unsigned forms as constants where a value is expected.
    ("inf", Kw::Num(Const::Double(f64::INFINITY))),
    ("infinity", Kw::Num(Const::Double(f64::INFINITY))),
    ("inff", Kw::Num(Const::Float(f32::INFINITY))),
    ("infinityf", Kw::Num(Const::Float(f32::INFINITY))),
    ("NIL", Kw::Tok(Tok::Nil)),
    ("nil", Kw::Tok(Tok::Nil)),
    ("Nil", Kw::Tok(Tok::Nil)),
];

#[derive(Debug, Clone, PartialEq)]
enum Kw {
    Tok(Tok),
    Ty(DataType),
    Num(Const),
}

impl<'a> Lexer<'a> {
    fn new(src: &'a [u8]) -> Lexer<'a> {
        Lexer {
            s: src,
            i: 0,
            line: 1,
            line_start: 0,
            out: Vec::new(),
        }
    }

    fn pos_at(&self, i: usize) -> Pos {
        Pos {
            line: self.line,
            column: (i - self.line_start + 1) as u32,
        }
    }

    fn peek(&self, k: usize) -> u8 {
        self.s.get(self.i + k).copied().unwrap_or(0)
    }

    /// Advances over `n` bytes, counting newlines.
    fn bump(&mut self, n: usize) {
        for _ in 0..n {
            if self.i < self.s.len() {
                if self.s[self.i] == b'\n' {
                    self.line += 1;
                    self.line_start = self.i + 1;
                }
                self.i += 1;
            }
        }
    }

    fn push(&mut self, tok: Tok, start: usize, pos: Pos) {
        let text = String::from_utf8_lossy(&self.s[start..self.i]).into_owned();
        self.out.push(Token { tok, pos, text });
    }

    fn run(mut self) -> Result<Vec<Token>, CdlError> {
        loop {
            self.skip_space_and_comments()?;
            let start = self.i;
            let pos = self.pos_at(start);
            if self.i >= self.s.len() {
                self.out.push(Token {
                    tok: Tok::Eof,
                    pos,
                    text: String::new(),
                });
                return Ok(self.out);
            }
            let tok = self.next_token(pos)?;
            let after_netcdf = tok == Tok::Netcdf;
            self.push(tok, start, pos);
            if after_netcdf {
                self.dataset_id()?;
            }
        }
    }

    fn skip_space_and_comments(&mut self) -> Result<(), CdlError> {
        loop {
            match (self.peek(0), self.peek(1)) {
                (b' ' | b'\t' | b'\r' | b'\n' | 0x0c, _) if self.i < self.s.len() => self.bump(1),
                (b'/', b'/') => {
                    while self.i < self.s.len() && self.s[self.i] != b'\n' {
                        self.i += 1;
                    }
                }
                (b'/', b'*') => {
                    let pos = self.pos_at(self.i);
                    self.bump(2);
                    loop {
                        if self.i >= self.s.len() {
                            return Err(CdlError::lex(pos, "unterminated /* */ comment"));
                        }
                        if self.peek(0) == b'*' && self.peek(1) == b'/' {
                            self.bump(2);
                            break;
                        }
                        self.bump(1);
                    }
                }
                _ => return Ok(()),
            }
        }
    }

    /// After `netcdf`: everything up to `{`, blanks removed, is the dataset name.
    fn dataset_id(&mut self) -> Result<(), CdlError> {
        let start = self.i;
        let pos = self.pos_at(start);
        while self.i < self.s.len() && self.s[self.i] != b'{' {
            self.bump(1);
        }
        let raw = &self.s[start..self.i];
        let name: Vec<u8> = raw.iter().copied().filter(|&c| c > b' ').collect();
        if raw.is_empty() {
            return Err(CdlError::syntax(
                pos,
                "expected a dataset name after `netcdf`",
            ));
        }
        let name = String::from_utf8(name)
            .map_err(|_| CdlError::lex(pos, "dataset name is not valid UTF-8"))?;
        self.push(Tok::DatasetId(name), start, pos);
        Ok(())
    }

    fn next_token(&mut self, pos: Pos) -> Result<Tok, CdlError> {
        let c = self.peek(0);
        match c {
            b'"' => return self.string(pos),
            b'\'' => {
                if let Some(t) = self.char_const() {
                    return Ok(t);
                }
            }
            b'/' => return self.path(pos),
            _ => {}
        }
        // Section keywords carry their colon and beat names (longest match).
        for (kw, tok) in [
            ("types:", Tok::Types),
            ("dimensions:", Tok::Dimensions),
            ("variables:", Tok::Variables),
            ("data:", Tok::Data),
            ("group:", Tok::Group),
        ] {
            if self.s[self.i..].starts_with(kw.as_bytes()) {
                self.bump(kw.len());
                return Ok(tok);
            }
        }
        // Longest match among words, numbers and keywords.
        let word_len = self.word_len();
        let num = self.number_len();
        let kw = self.keyword();
        let best_word = word_len.max(kw.as_ref().map_or(0, |(l, _)| *l));
        if let Some((nlen, _)) = num {
            if nlen > best_word {
                return self.number(pos);
            }
        }
        if let Some((klen, kw)) = kw {
            if klen >= word_len {
                self.bump(klen);
                return Ok(match kw {
                    Kw::Tok(t) => t,
                    Kw::Ty(t) => Tok::Type(t),
                    Kw::Num(value) => Tok::Num {
                        value,
                        classic_illegal: false,
                    },
                });
            }
        }
        if word_len > 0 {
            let raw = self.s[self.i..self.i + word_len].to_vec();
            self.bump(word_len);
            if let Some(sp) = Special::from_name(&raw) {
                return Ok(Tok::Special(sp));
            }
            let name = escape::unescape_name(&raw);
            if name == b"_" {
                return Ok(Tok::Fill);
            }
            return Ok(Tok::Ident(name));
        }
        self.bump(1);
        Ok(match c {
            b'{' => Tok::LBrace,
            b'}' => Tok::RBrace,
            b'(' => Tok::LParen,
            b')' => Tok::RParen,
            b',' => Tok::Comma,
            b';' => Tok::Semi,
            b':' => Tok::Colon,
            b'=' => Tok::Eq,
            b'*' => Tok::Star,
            _ => {
                // Report a whole UTF-8 character.
                let s = &self.s[self.i - 1..];
                let ch = std::str::from_utf8(&s[..s.len().min(4)])
                    .ok()
                    .or_else(|| {
                        (1..4)
                            .rev()
                            .find_map(|n| std::str::from_utf8(&s[..n.min(s.len())]).ok())
                    })
                    .and_then(|t| t.chars().next())
                    .unwrap_or(char::REPLACEMENT_CHARACTER);
                return Err(CdlError::lex(pos, format!("unexpected character {ch:?}")));
            }
        })
    }

    /// Length of a name at the cursor (ncgen's `ID`), or 0.
    fn word_len(&self) -> usize {
        let s = &self.s[self.i..];
        let mut n = match s {
            [b'\\', d, ..] if d.is_ascii_digit() => 2,
            [c, ..] if is_id_start(*c) => 1,
            _ => return 0,
        };
        while n < s.len() {
            if is_id_char(s[n]) {
                n += 1;
            } else if s[n] == b'\\' && n + 1 < s.len() && is_id_escapable(s[n + 1]) {
                n += 2;
            } else {
                break;
            }
        }
        // A section keyword ("data:") is one token.
        n
    }

    /// A keyword (or special constant) at the cursor and its length.
    fn keyword(&self) -> Option<(usize, Kw)> {
        let s = &self.s[self.i..];
        if let Some(rest) = s
            .strip_prefix(b"netcdf".as_slice())
            .or_else(|| s.strip_prefix(b"NETCDF".as_slice()))
            .or_else(|| s.strip_prefix(b"netCDF".as_slice()))
        {
            let _ = rest;
            return Some((6, Kw::Tok(Tok::Netcdf)));
        }
        let neg = s.first() == Some(&b'-');
        let body = if neg { &s[1..] } else { s };
        let mut best: Option<(usize, Kw)> = None;
        for (name, kw) in KEYWORDS {
            if body.starts_with(name.as_bytes()) {
                let signed_ok = matches!(
                    *name,
                    "Infinity" | "Infinityf" | "Inff" | "inf" | "infinity" | "inff" | "infinityf"
                );
                let signed_only = name.starts_with("inf");
                if (neg && !signed_ok) || (!neg && signed_only) {
                    continue;
                }
                let len = name.len() + usize::from(neg);
                let kw = match (neg, kw) {
                    (true, Kw::Num(Const::Double(x))) => Kw::Num(Const::Double(-x)),
                    (true, Kw::Num(Const::Float(x))) => Kw::Num(Const::Float(-x)),
                    (_, k) => k.clone(),
                };
                if best.as_ref().is_none_or(|(l, _)| len > *l) {
                    best = Some((len, kw));
                }
            }
        }
        best
    }

    /// Length and class of a number at the cursor: `Some((len, hex))`.
    fn number_len(&self) -> Option<(usize, bool)> {
        let s = &self.s[self.i..];
        let digits = |from: usize| s[from..].iter().take_while(|c| c.is_ascii_digit()).count();
        // Hex: 0x... with optional s/l/ll suffix.
        if s.len() > 2 && s[0] == b'0' && (s[1] == b'x' || s[1] == b'X') && s[2].is_ascii_hexdigit()
        {
            let mut n = 2 + s[2..].iter().take_while(|c| c.is_ascii_hexdigit()).count();
            match (s.get(n), s.get(n + 1)) {
                (Some(b'l' | b'L'), Some(b'l' | b'L')) => n += 2,
                (Some(b's' | b'S' | b'l' | b'L'), _) => n += 1,
                _ => {}
            }
            return Some((n, true));
        }
        let sign = usize::from(matches!(s.first(), Some(b'+' | b'-')));
        let int_digits = digits(sign);
        // Integer form.
        let mut int_len = 0;
        if int_digits > 0 {
            let mut n = sign + int_digits;
            if matches!(s.get(n), Some(b'u' | b'U')) {
                n += 1;
            }
            match (s.get(n), s.get(n + 1)) {
                (Some(b'l' | b'L'), Some(b'l' | b'L')) => n += 2,
                (Some(b'b' | b'B' | b's' | b'S' | b'l' | b'L'), _) => n += 1,
                _ => {}
            }
            int_len = n;
        }
        // Floating form.
        let mut n = sign + int_digits;
        let mut is_float_form = false;
        if s.get(n) == Some(&b'.') {
            n += 1;
            n += digits(n);
            is_float_form = true;
        }
        if matches!(s.get(n), Some(b'e' | b'E')) {
            let mut m = n + 1;
            if matches!(s.get(m), Some(b'+' | b'-')) {
                m += 1;
            }
            let ed = digits(m);
            if ed > 0 {
                n = m + ed;
                is_float_form = true;
            }
        }
        let mut flt_len = 0;
        if is_float_form {
            if matches!(s.get(n), Some(b'l' | b'L' | b'd' | b'D' | b'f' | b'F')) {
                n += 1;
            }
            flt_len = n;
        }
        let len = int_len.max(flt_len);
        (len > 0).then_some((len, false))
    }

    fn number(&mut self, pos: Pos) -> Result<Tok, CdlError> {
        let (len, hex) = self.number_len().unwrap_or((1, false));
        let text = String::from_utf8_lossy(&self.s[self.i..self.i + len]).into_owned();
        self.bump(len);
        if hex {
            let body = &text[2..];
            let digits_end = body
                .find(|c: char| !c.is_ascii_hexdigit())
                .unwrap_or(body.len());
            if digits_end == body.len() {
                let mut hexs = body.to_ascii_lowercase();
                if hexs.len() % 2 == 1 {
                    hexs.push('0');
                }
                return Ok(Tok::OpaqueHex(hexs));
            }
            return Ok(Tok::Num {
                value: constants::hex_literal(&body[..digits_end]),
                classic_illegal: false,
            });
        }
        let is_int = text
            .trim_start_matches(['+', '-'])
            .bytes()
            .all(|b| b.is_ascii_digit() || b"uUbBsSlL".contains(&b));
        if is_int {
            let lit =
                constants::integer_literal(&text).map_err(|e| CdlError::lex(pos, e.to_string()))?;
            Ok(Tok::Num {
                value: lit.value,
                classic_illegal: lit.classic_illegal,
            })
        } else {
            let value =
                constants::float_literal(&text).map_err(|e| CdlError::lex(pos, e.to_string()))?;
            Ok(Tok::Num {
                value,
                classic_illegal: false,
            })
        }
    }

    fn string(&mut self, pos: Pos) -> Result<Tok, CdlError> {
        let start = self.i + 1;
        let mut j = start;
        loop {
            match self.s.get(j) {
                None => return Err(CdlError::lex(pos, "unterminated string")),
                Some(b'"') => break,
                Some(b'\\') => j += 2,
                Some(_) => j += 1,
            }
        }
        let body = escape::unescape_string(&self.s[start..j.min(self.s.len())]);
        self.bump(j + 1 - self.i);
        Ok(Tok::Str(body))
    }

    fn char_const(&mut self) -> Option<Tok> {
        let s = &self.s[self.i..];
        let close = (2..6.min(s.len())).find(|&k| s[k] == b'\'' && !(k == 2 && s[1] == b'\\'))?;
        let value = escape::char_constant(&s[1..close])?;
        self.bump(close + 1);
        Some(Tok::Num {
            value: Const::Byte(value as i8),
            classic_illegal: false,
        })
    }

    fn path(&mut self, pos: Pos) -> Result<Tok, CdlError> {
        // `/` then names separated by `/`.
        self.bump(1);
        let mut parts = Vec::new();
        loop {
            let n = self.word_len();
            if n == 0 {
                break;
            }
            let raw = self.s[self.i..self.i + n].to_vec();
            self.bump(n);
            parts.push(escape::unescape_name(&raw));
            if self.peek(0) == b'/' && self.word_len_at(1) > 0 {
                self.bump(1);
            } else {
                break;
            }
        }
        if parts.is_empty() {
            return Err(CdlError::lex(pos, "unexpected character '/'"));
        }
        Ok(Tok::Path(parts))
    }

    fn word_len_at(&self, k: usize) -> usize {
        let save = self.i;
        let me = Lexer {
            s: self.s,
            i: save + k,
            line: self.line,
            line_start: self.line_start,
            out: Vec::new(),
        };
        me.word_len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<Tok> {
        tokenize(s.as_bytes(), Some(Format::Netcdf4))
            .unwrap()
            .into_iter()
            .map(|t| t.tok)
            .collect()
    }

    #[test]
    fn basic_tokens() {
        let t = toks("netcdf foo {\ndimensions:\n x = UNLIMITED ;\n}");
        assert_eq!(t[0], Tok::Netcdf);
        assert_eq!(t[1], Tok::DatasetId("foo".into()));
        assert_eq!(t[2], Tok::LBrace);
        assert_eq!(t[3], Tok::Dimensions);
        assert_eq!(t[4], Tok::Ident(b"x".to_vec()));
        assert_eq!(t[6], Tok::Unlimited);
    }

    #[test]
    fn names_numbers_and_keywords() {
        let t = toks("a-b 1-2 int64 int64x -Infinity 1.e5f 'a' _ _FillValue x\\ y /g/v 0x1F 0xabS");
        assert_eq!(t[0], Tok::Ident(b"a-b".to_vec()));
        assert!(matches!(
            t[1],
            Tok::Num {
                value: Const::Int(1),
                ..
            }
        ));
        assert!(matches!(
            t[2],
            Tok::Num {
                value: Const::Int(-2),
                ..
            }
        ));
        assert_eq!(t[3], Tok::Type(DataType::Int64));
        assert_eq!(t[4], Tok::Ident(b"int64x".to_vec()));
        assert!(matches!(t[5], Tok::Num { value: Const::Double(x), .. } if x == f64::NEG_INFINITY));
        assert!(matches!(t[6], Tok::Num { value: Const::Float(x), .. } if x == 1e5));
        assert!(matches!(
            t[7],
            Tok::Num {
                value: Const::Byte(97),
                ..
            }
        ));
        assert_eq!(t[8], Tok::Fill);
        assert_eq!(t[9], Tok::Special(Special::FillValue));
        assert_eq!(t[10], Tok::Ident(b"x y".to_vec()));
        assert_eq!(t[11], Tok::Path(vec![b"g".to_vec(), b"v".to_vec()]));
        assert_eq!(t[12], Tok::OpaqueHex("1f".into()));
        assert!(matches!(
            t[13],
            Tok::Num {
                value: Const::UInt(0xab),
                ..
            }
        ));
    }

    #[test]
    fn positions_count_lines_in_strings_and_comments() {
        let t = tokenize(b"a // c\n\"x\ny\" b /* q\n */ c", None).unwrap();
        assert_eq!(t[0].pos, Pos { line: 1, column: 1 });
        assert_eq!(t[1].pos, Pos { line: 2, column: 1 });
        assert_eq!(t[2].pos, Pos { line: 3, column: 4 });
        assert_eq!(t[3].pos, Pos { line: 4, column: 5 });
    }
}
