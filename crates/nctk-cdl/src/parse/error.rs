//! Errors of the CDL parser and of the format check.

use std::fmt;

use nctk_model::{ErrorKind, HasErrorKind};

/// A position in CDL text: 1-based line and column (column counted in bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Pos {
    /// 1-based line number.
    pub line: u32,
    /// 1-based column, in bytes from the start of the line.
    pub column: u32,
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}, column {}", self.line, self.column)
    }
}

/// Everything that can go wrong turning CDL text into a dataset, or checking
/// a dataset against an output format. Every variant carries the position of
/// the offending construct and a reason; the parser never panics.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum CdlError {
    /// The text cannot be split into tokens (bad character, unterminated string, bad constant).
    #[error("{pos}: {reason}")]
    Lex {
        /// Where.
        pos: Pos,
        /// Why.
        reason: String,
    },
    /// The tokens do not follow the CDL grammar.
    #[error("{pos}: syntax error: {reason}")]
    Syntax {
        /// Where.
        pos: Pos,
        /// Why.
        reason: String,
    },
    /// The CDL is well formed but means nothing valid (undefined dimension,
    /// duplicate name, bad attribute value, ...).
    #[error("{pos}: {reason}")]
    Semantic {
        /// Where.
        pos: Pos,
        /// Why.
        reason: String,
    },
    /// A construct nctk does not support (ncgen's data functions such as
    /// `time(...)`, an opaque constant for a `string`).
    #[error("{pos}: {construct} is not supported")]
    Unsupported {
        /// Where.
        pos: Pos,
        /// The construct, as CDL names it.
        construct: String,
    },
    /// The dataset cannot be written in the requested format; the reason
    /// reads like netCDF-C's `ncgen` message for the same input.
    #[error("{}{reason}", pos.map(|p| format!("{p}: ")).unwrap_or_default())]
    Format {
        /// Where, when one construct is to blame.
        pos: Option<Pos>,
        /// Why, in ncgen's words.
        reason: String,
    },
}

/// CDL text that does not lex, parse or mean something valid breaks its
/// grammar (invalid data); a construct nctk lacks, or a dataset the
/// output format cannot hold, is unsupported.
impl HasErrorKind for CdlError {
    fn kind(&self) -> ErrorKind {
        match self {
            CdlError::Lex { .. } | CdlError::Syntax { .. } | CdlError::Semantic { .. } => {
                ErrorKind::InvalidData
            }
            CdlError::Unsupported { .. } | CdlError::Format { .. } => ErrorKind::Unsupported,
        }
    }
}

impl CdlError {
    pub(crate) fn lex(pos: Pos, reason: impl Into<String>) -> CdlError {
        CdlError::Lex {
            pos,
            reason: reason.into(),
        }
    }

    pub(crate) fn syntax(pos: Pos, reason: impl Into<String>) -> CdlError {
        CdlError::Syntax {
            pos,
            reason: reason.into(),
        }
    }

    pub(crate) fn semantic(pos: Pos, reason: impl Into<String>) -> CdlError {
        CdlError::Semantic {
            pos,
            reason: reason.into(),
        }
    }

    pub(crate) fn unsupported(pos: Pos, construct: impl Into<String>) -> CdlError {
        CdlError::Unsupported {
            pos,
            construct: construct.into(),
        }
    }

    pub(crate) fn format(pos: Option<Pos>, reason: impl Into<String>) -> CdlError {
        CdlError::Format {
            pos,
            reason: reason.into(),
        }
    }

    /// The position the error refers to, if any.
    pub fn pos(&self) -> Option<Pos> {
        match self {
            CdlError::Lex { pos, .. }
            | CdlError::Syntax { pos, .. }
            | CdlError::Semantic { pos, .. }
            | CdlError::Unsupported { pos, .. } => Some(*pos),
            CdlError::Format { pos, .. } => *pos,
        }
    }
}
