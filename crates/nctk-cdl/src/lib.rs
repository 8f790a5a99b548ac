//! CDL, the text form of netCDF: a parser (CDL text to the model, [`parse`](mod@parse),
//! the front half of ncgen) and a printer that writes what netCDF-C's
//! `ncdump` writes ([`print`](mod@print)).

pub mod parse;
pub mod print;

pub use parse::{check_format, parse, parse_with, CdlDataset, CdlError, ParseOptions};
