//! CDL, the text form of netCDF: a parser (CDL text to the model) and a
//! printer that writes what netCDF-C's `ncdump` writes ([`print`]).

pub mod parse;
pub mod print;

pub use parse::{check_format, parse, parse_with, CdlDataset, CdlError, Kind, ParseOptions};
