//! CDL, the text form of netCDF: a parser (CDL text to the model) and a
//! printer that writes what netCDF-C's `ncdump` writes ([`print`]).

pub mod print;
