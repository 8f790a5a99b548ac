//! The cdmremote query string: `req=`, `var=` and `deflate=`, parsed as
//! THREDDS' `CdmRemoteController` and netCDF-Java's `ParsedSectionSpec` /
//! `Section` read them.
//!
//! * `req` names the answer, case-insensitively: `capabilities`, `header`,
//!   `data`, `CDL` (or `form`), `NcML`; no `req` at all is THREDDS' probe
//!   (an empty `ncstream` answer).
//! * `var` is a list of `NAME[(SECTION)]` separated by `;` (netCDF-Java) or
//!   by `,` outside parentheses (what siphon sends for several variables).
//!   `NAME` is netCDF-Java's escaped full name (`\` escapes the next
//!   character); `SECTION` is Fortran-90 style: per dimension `:` (all),
//!   `i`, `first:last` or `first:last:stride`, `last` inclusive.
//! * `deflate=N` (0 to 9) asks for deflated data messages; a negative
//!   level means none, as in THREDDS.
//!
//! Keys and values are percent-decoded (`+` is a space) before parsing.
//! Nothing here looks at a dataset: [`Section::resolve`] checks a section
//! against a variable's shape.

use std::borrow::Cow;

use nctk_model::{ErrorKind, HasErrorKind, Selection};

/// What a request asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RequestKind {
    /// No `req`: THREDDS' "is this a cdmremote endpoint" probe.
    Probe,
    /// `req=capabilities`: the XML capabilities document.
    Capabilities,
    /// `req=header`: one ncstream header message.
    Header,
    /// `req=data`: data messages for the `var` list.
    Data,
    /// `req=CDL` (or `form`): the header as netCDF-Java's CDL text.
    Cdl,
    /// `req=NcML`: the header as NcML.
    Ncml,
}

/// One range of a section, as written (not yet checked against a shape).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RangeSpec {
    /// `:`, the whole dimension.
    All,
    /// `first:last:stride` (`i` is `i:i:1`, `first:last` has stride 1).
    Range {
        /// The first index.
        first: i64,
        /// The last index, inclusive.
        last: i64,
        /// The step.
        stride: i64,
    },
}

/// A section: one range per dimension, outermost first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section(pub Vec<RangeSpec>);

/// One `NAME[(SECTION)]` of a `var` list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VarSpec {
    /// The variable's escaped full name as sent (`\` escapes kept).
    pub name: String,
    /// The section, or `None` for the whole variable.
    pub section: Option<Section>,
}

/// A parsed query string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Query {
    /// What is asked for.
    pub kind: RequestKind,
    /// The `var` list (empty when absent).
    pub vars: Vec<VarSpec>,
    /// The deflate level asked for, if any.
    pub deflate: Option<u32>,
}

/// Why a query or a section cannot be answered. The `Display` text starts
/// with the Java exception netCDF-Java throws for the same mistake.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum QueryError {
    /// `req` names no request.
    #[error("Unrecognized request: req={0}")]
    UnknownRequest(String),
    /// A query parameter is malformed (`deflate=x`, bad percent-encoding).
    #[error("Invalid Request: {0}")]
    Malformed(String),
    /// A `var` specification does not parse.
    #[error("IllegalArgumentException: {0}")]
    BadSpec(String),
    /// A section does not fit the variable's shape.
    #[error("InvalidRangeException: {0}")]
    BadRange(String),
}

/// A query the server cannot answer is the client's mistake.
impl HasErrorKind for QueryError {
    fn kind(&self) -> ErrorKind {
        ErrorKind::InvalidInput
    }
}

/// Parses a query string (the part of the URL after `?`, still
/// percent-encoded).
pub fn parse_query(raw: &str) -> Result<Query, QueryError> {
    let mut req = None;
    let mut var = None;
    let mut deflate = None;
    for pair in raw.split('&').filter(|p| !p.is_empty()) {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        let key = decode(key)?;
        let value = decode(value)?.into_owned();
        match key.as_ref() {
            "req" => req = Some(value),
            "var" => var = Some(value),
            "deflate" => deflate = parse_deflate(&value)?,
            _ => {}
        }
    }
    let kind = match req.as_deref().map(str::to_ascii_lowercase).as_deref() {
        None => RequestKind::Probe,
        Some("capabilities") => RequestKind::Capabilities,
        Some("header") => RequestKind::Header,
        Some("data") => RequestKind::Data,
        Some("cdl") | Some("form") => RequestKind::Cdl,
        Some("ncml") => RequestKind::Ncml,
        Some(_) => return Err(QueryError::UnknownRequest(req.unwrap_or_default())),
    };
    let vars = match (&kind, var) {
        (RequestKind::Data, None) => {
            return Err(QueryError::Malformed(
                "data request must have a var parameter".into(),
            ))
        }
        (RequestKind::Data, Some(list)) => parse_var_list(&list)?,
        _ => Vec::new(),
    };
    Ok(Query {
        kind,
        vars,
        deflate,
    })
}

/// Percent-decodes a query component, `+` as a space; the text must be UTF-8.
fn decode(text: &str) -> Result<Cow<'_, str>, QueryError> {
    let spaced: Cow<'_, str> = if text.contains('+') {
        Cow::Owned(text.replace('+', " "))
    } else {
        Cow::Borrowed(text)
    };
    let decoded = percent_encoding::percent_decode_str(&spaced)
        .decode_utf8()
        .map_err(|_| QueryError::Malformed(format!("{text:?} is not UTF-8 once decoded")))?;
    Ok(Cow::Owned(decoded.into_owned()))
}

/// `deflate=N`: 0 to 9, a negative level is none.
fn parse_deflate(value: &str) -> Result<Option<u32>, QueryError> {
    let level: i64 = value
        .trim()
        .parse()
        .map_err(|_| QueryError::Malformed(format!("deflate={value:?} is not an integer")))?;
    match level {
        ..=-1 => Ok(None),
        0..=9 => Ok(Some(level as u32)),
        _ => Err(QueryError::Malformed(format!(
            "deflate={level}: the level must be 0 to 9"
        ))),
    }
}

/// Splits a `var` list on `;`, and on `,` outside parentheses, honouring
/// `\` escapes, and parses each specification.
pub fn parse_var_list(list: &str) -> Result<Vec<VarSpec>, QueryError> {
    let mut specs = Vec::new();
    let mut depth = 0usize;
    let mut start = 0;
    let mut chars = list.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' => {
                chars.next();
            }
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            ';' | ',' if c == ';' || depth == 0 => {
                push_spec(&mut specs, &list[start..i])?;
                start = i + 1;
            }
            _ => {}
        }
    }
    push_spec(&mut specs, &list[start..])?;
    if specs.is_empty() {
        return Err(QueryError::BadSpec(format!("empty sectionSpec = {list:?}")));
    }
    Ok(specs)
}

fn push_spec(specs: &mut Vec<VarSpec>, text: &str) -> Result<(), QueryError> {
    if !text.trim().is_empty() {
        specs.push(parse_var_spec(text.trim())?);
    }
    Ok(())
}

/// Parses one `NAME[(SECTION)]`.
pub fn parse_var_spec(spec: &str) -> Result<VarSpec, QueryError> {
    let Some(open) = unescaped_find(spec, '(') else {
        return Ok(VarSpec {
            name: spec.to_string(),
            section: None,
        });
    };
    let name = &spec[..open];
    let Some(close) = spec[open..].find(')').map(|c| open + c) else {
        return Err(QueryError::BadSpec(format!(
            "missing ')' in selector={spec:?}"
        )));
    };
    let rest = spec[close + 1..].trim();
    if rest.starts_with('.') {
        return Err(member_selection(spec, close + 1));
    }
    if !rest.is_empty() {
        return Err(QueryError::BadSpec(format!(
            "unexpected {rest:?} after the section in selector={spec:?}"
        )));
    }
    if name.is_empty() {
        return Err(QueryError::BadSpec(format!(
            "no variable name in selector={spec:?}"
        )));
    }
    Ok(VarSpec {
        name: name.to_string(),
        section: Some(parse_section(&spec[open + 1..close])?),
    })
}

/// Selecting a structure's member after its section (`record(12).wind`)
/// is netCDF-Java's extension for Structures; nctk serves compound
/// variables whole. A `.` in a name needs no escape (siphon sends names
/// unescaped): the whole text is looked up as the variable's name.
fn member_selection(spec: &str, at: usize) -> QueryError {
    QueryError::BadSpec(format!(
        "structure member selection ({:?}) is not supported in selector={spec:?}",
        &spec[at..]
    ))
}

/// The byte index of the first `target` not escaped by a backslash.
fn unescaped_find(text: &str, target: char) -> Option<usize> {
    let mut chars = text.char_indices();
    while let Some((i, c)) = chars.next() {
        if c == '\\' {
            chars.next();
        } else if c == target {
            return Some(i);
        }
    }
    None
}

/// Parses a section's inside (`1:20,:,3,10:20:2`), as `new Section(String)`
/// does: empty pieces between commas are skipped.
pub fn parse_section(text: &str) -> Result<Section, QueryError> {
    let mut ranges = Vec::new();
    for piece in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        ranges.push(parse_range(piece, text)?);
    }
    Ok(Section(ranges))
}

fn parse_range(piece: &str, section: &str) -> Result<RangeSpec, QueryError> {
    if piece == ":" {
        return Ok(RangeSpec::All);
    }
    let illegal = || QueryError::BadSpec(format!("illegal selector: {piece} part of <{section}>"));
    let parts: Vec<&str> = piece.split(':').map(str::trim).collect();
    let number = |s: &str| s.parse::<i64>().map_err(|_| illegal());
    let (first, last, stride) = match parts.as_slice() {
        [i] => {
            let i = number(i)?;
            (i, i, 1)
        }
        [a, b] => (number(a)?, number(b)?, 1),
        [a, b, s] => (number(a)?, number(b)?, number(s)?),
        _ => return Err(illegal()),
    };
    if first < 0 {
        return Err(QueryError::BadRange(format!(
            "first ({first}) must be >= 0 in <{section}>"
        )));
    }
    if last < first {
        return Err(QueryError::BadRange(format!(
            "last ({last}) must be >= first ({first}) in <{section}>"
        )));
    }
    if stride < 1 {
        return Err(QueryError::BadRange(format!(
            "stride ({stride}) must be > 0 in <{section}>"
        )));
    }
    Ok(RangeSpec::Range {
        first,
        last,
        stride,
    })
}

impl Section {
    /// The selection this section makes of a variable of `shape`, checked
    /// as `Section.fill` checks it: the same rank, every range inside its
    /// dimension.
    pub fn resolve(&self, shape: &[u64]) -> Result<Selection, QueryError> {
        if self.0.len() != shape.len() {
            return Err(QueryError::BadRange(format!(
                "Number of ranges in section ({}) must be = {}",
                self.0.len(),
                shape.len()
            )));
        }
        let mut selection = Selection::all(shape);
        for (dim, (range, &len)) in self.0.iter().zip(shape).enumerate() {
            let RangeSpec::Range {
                first,
                last,
                stride,
            } = *range
            else {
                continue;
            };
            // `parse_range` made them non-negative and ordered.
            let (first, last, stride) = (first as u64, last as u64, stride as u64);
            if last >= len {
                return Err(QueryError::BadRange(format!(
                    "Range {first}:{last} of dimension {dim} is outside 0:{}",
                    len as i128 - 1
                )));
            }
            selection.start[dim] = first;
            selection.count[dim] = (last - first) / stride + 1;
            selection.stride[dim] = stride;
        }
        Ok(selection)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn range(first: i64, last: i64, stride: i64) -> RangeSpec {
        RangeSpec::Range {
            first,
            last,
            stride,
        }
    }

    #[test]
    fn the_requests_of_the_corpus_parse() {
        // The queries THREDDS answered in the corpus's INDEX.tsv files.
        let q = parse_query("req=data&var=%2Ftemperature%280%3A1%2C0%3A1%29").unwrap();
        assert_eq!(q.kind, RequestKind::Data);
        assert_eq!(
            q.vars,
            vec![VarSpec {
                name: "/temperature".into(),
                section: Some(Section(vec![range(0, 1, 1), range(0, 1, 1)])),
            }]
        );
        let q = parse_query("var=/Temperature_isobaric(1:1,1:2,4:6,8:11)&req=data").unwrap();
        assert_eq!(q.vars[0].name, "/Temperature_isobaric");
        assert_eq!(
            q.vars[0].section.as_ref().unwrap().0,
            vec![
                range(1, 1, 1),
                range(1, 2, 1),
                range(4, 6, 1),
                range(8, 11, 1)
            ]
        );
        let q = parse_query("var=%2FTemperature_isobaric(0,0,:,:)&req=data").unwrap();
        assert_eq!(
            q.vars[0].section.as_ref().unwrap().0,
            vec![
                range(0, 0, 1),
                range(0, 0, 1),
                RangeSpec::All,
                RangeSpec::All
            ]
        );
        for (req, kind) in [
            ("capabilities", RequestKind::Capabilities),
            ("header", RequestKind::Header),
            ("CDL", RequestKind::Cdl),
            ("NcML", RequestKind::Ncml),
            ("HEADER", RequestKind::Header),
            ("form", RequestKind::Cdl),
        ] {
            assert_eq!(parse_query(&format!("req={req}")).unwrap().kind, kind);
        }
        assert_eq!(parse_query("").unwrap().kind, RequestKind::Probe);
    }

    #[test]
    fn lists_escapes_and_deflate() {
        let q = parse_query("req=data&var=a(0:9:2,:);b\\(x\\)&deflate=3").unwrap();
        assert_eq!(q.deflate, Some(3));
        assert_eq!(q.vars.len(), 2);
        assert_eq!(
            q.vars[0].section,
            Some(Section(vec![range(0, 9, 2), RangeSpec::All]))
        );
        assert_eq!(q.vars[1].name, "b\\(x\\)");
        assert_eq!(q.vars[1].section, None);
        // siphon joins several variables with commas.
        let q = parse_query("req=data&var=a(1,2),b").unwrap();
        assert_eq!(q.vars.len(), 2);
        assert_eq!(q.vars[1].name, "b");
        assert_eq!(
            parse_query("req=data&var=x&deflate=-1").unwrap().deflate,
            None
        );
        assert!(parse_query("req=data&var=x&deflate=10").is_err());
        assert!(parse_query("req=data&var=x&deflate=z").is_err());
        assert_eq!(
            parse_query("req=a+b").unwrap_err(),
            QueryError::UnknownRequest("a b".into())
        );
    }

    #[test]
    fn bad_specs_and_ranges_are_errors() {
        let bad = |q: &str| parse_query(q).unwrap_err();
        assert!(matches!(bad("req=data"), QueryError::Malformed(_)));
        assert!(matches!(bad("req=data&var=a(0:x)"), QueryError::BadSpec(_)));
        assert!(matches!(
            bad("req=data&var=a(1:2:3:4)"),
            QueryError::BadSpec(_)
        ));
        assert!(matches!(bad("req=data&var=a(1"), QueryError::BadSpec(_)));
        assert!(matches!(bad("req=data&var=(1)"), QueryError::BadSpec(_)));
        assert!(matches!(bad("req=data&var=a(1).b"), QueryError::BadSpec(_)));
        assert_eq!(
            parse_query("req=data&var=/a.b.c").unwrap().vars[0].name,
            "/a.b.c"
        );
        assert!(matches!(bad("req=data&var=a(-1)"), QueryError::BadRange(_)));
        assert!(matches!(
            bad("req=data&var=a(3:2)"),
            QueryError::BadRange(_)
        ));
        assert!(matches!(
            bad("req=data&var=a(0:2:0)"),
            QueryError::BadRange(_)
        ));
        assert!(matches!(bad("req=data&var=%ff"), QueryError::Malformed(_)));
        assert!(matches!(bad("req=data&var=;"), QueryError::BadSpec(_)));
    }

    #[test]
    fn sections_resolve_against_shapes() {
        let s = parse_section("0:9:2,:").unwrap();
        let sel = s.resolve(&[10, 4]).unwrap();
        assert_eq!(
            (sel.start, sel.count, sel.stride),
            (vec![0, 0], vec![5, 4], vec![2, 1])
        );
        // The last index need not be hit by the stride: 0:8:3 is 0, 3, 6.
        let sel = parse_section("0:8:3").unwrap().resolve(&[9]).unwrap();
        assert_eq!(sel.count, vec![3]);
        assert!(parse_section("0:10").unwrap().resolve(&[10]).is_err());
        assert!(parse_section("1").unwrap().resolve(&[2, 2]).is_err());
        assert!(parse_section("0").unwrap().resolve(&[0]).is_err());
        assert_eq!(
            parse_section("").unwrap().resolve(&[]).unwrap(),
            Selection::all(&[])
        );
    }
}
