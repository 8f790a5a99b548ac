//! CDL text to the netCDF data model: the front half of ncgen.
//!
//! ```
//! use nctk_cdl::parse::{parse, check_format};
//! use nctk_model::Format;
//! let ds = parse("netcdf demo {\n dimensions: t = UNLIMITED ;\n variables: float x(t) ;\n data: x = 1, 2, _ ;\n}")?;
//! assert_eq!(ds.name, "demo");
//! let x = ds.schema.var_by_path("x").unwrap();
//! assert_eq!(ds.schema.shape(x), vec![3]); // the unlimited dimension is sized from the data
//! check_format(&ds, Format::Classic)?;
//! # Ok::<(), nctk_cdl::parse::CdlError>(())
//! ```
//!
//! The pipeline is lexer (tokens with positions), parser (syntax
//! tree), semantics (names, types, special attributes) and data (value
//! lists to typed, fill-padded arrays), each following what netCDF-C 4.9's
//! `ncgen` does. [`check_format`] then says whether a given output kind can
//! hold the dataset, with ncgen's messages.

mod ast;
mod constants;
mod data;
mod error;
mod escape;
mod format;
mod lexer;
mod parser;
mod semantics;
mod user;

use nctk_model::{Endianness, Format, Schema, Values, VarId};

pub use error::{CdlError, Pos};
pub use format::check_format;

/// How a variable's data is to be stored (`_Storage`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Storage {
    /// `"contiguous"`.
    Contiguous,
    /// `"chunked"` (implied by `_ChunkSizes`).
    Chunked,
    /// `"compact"`.
    Compact,
}

/// The per-variable special attributes of CDL (netCDF-4 storage settings),
/// kept apart from the real attributes. Passive: formats that support them
/// read them; the classic formats reject them ([`check_format`]).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct VarSpecial {
    /// `_Storage`.
    pub storage: Option<Storage>,
    /// `_ChunkSizes`.
    pub chunk_sizes: Option<Vec<u64>>,
    /// `_DeflateLevel`.
    pub deflate_level: Option<i32>,
    /// `_Shuffle`.
    pub shuffle: Option<bool>,
    /// `_Fletcher32`.
    pub fletcher32: Option<bool>,
    /// `_Endianness`.
    pub endianness: Option<Endianness>,
    /// `_NoFill` (`true`: the variable is written without fill).
    pub no_fill: Option<bool>,
    /// `_Filter` text (HDF5 filter id and parameters).
    pub filter: Option<String>,
    /// `_Codecs` text (numcodecs JSON). ncgen 4.9.0 has no keyword for it;
    /// nctk keeps it here rather than as an attribute.
    pub codecs: Option<String>,
    /// Where the first of these attributes appears.
    pub pos: Option<Pos>,
}

impl VarSpecial {
    /// True when any setting other than `_NoFill` is present (those need netCDF-4).
    pub fn needs_netcdf4(&self) -> bool {
        self.storage.is_some()
            || self.chunk_sizes.is_some()
            || self.deflate_level.is_some()
            || self.shuffle.is_some()
            || self.fletcher32.is_some()
            || self.endianness.is_some()
            || self.filter.is_some()
            || self.codecs.is_some()
    }

    /// True when no special attribute was given.
    pub fn is_empty(&self) -> bool {
        !self.needs_netcdf4() && self.no_fill.is_none()
    }
}

/// The global special attributes of CDL.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct GlobalSpecial {
    /// `_Format`: the kind the CDL asks for when no `-k` is given.
    pub format: Option<Format>,
    /// `_NCProperties`.
    pub nc_properties: Option<String>,
    /// `_IsNetcdf4`.
    pub is_netcdf4: Option<bool>,
    /// `_SuperblockVersion`.
    pub superblock_version: Option<i32>,
}

/// What ncgen decides from the text alone, before any file is written; the
/// format check reads it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Constructs {
    /// The first `group:` declaration.
    pub group: Option<Pos>,
    /// The first user type declaration (`types:` section).
    pub types: Option<Pos>,
    /// The first integer literal ncgen rejects for classic formats (wider
    /// than `int` or unsigned), with its spelling.
    pub wide_integer: Option<(Pos, String)>,
    /// Where each variable is declared, by [`VarId`].
    pub var_pos: Vec<Pos>,
    /// Where each dimension is declared, by dimension id.
    pub dim_pos: Vec<Pos>,
    /// Each attribute with an explicit or inferred netCDF-4 type: position,
    /// owner (variable or `None` for a group), name.
    pub typed_attrs: Vec<(Pos, Option<VarId>, String)>,
}

/// A parsed CDL file: the dataset's name, its structure, its data and the
/// special attributes.
#[derive(Debug, Clone, PartialEq)]
pub struct CdlDataset {
    /// The name after `netcdf` (blanks removed, as ncgen does).
    pub name: String,
    /// Groups, dimensions (unlimited ones sized from the data, as ncgen
    /// sizes them), variables and attributes. `_FillValue` is a real
    /// attribute; the other special attributes are in [`CdlDataset::specials`].
    pub schema: Schema,
    /// Each variable's data, by [`VarId`]: `None` when the CDL gives no
    /// data; otherwise every value of the variable in its type, row-major,
    /// with partial data padded by the fill value and `_` standing for it.
    pub data: Vec<Option<Values>>,
    /// Each variable's special attributes, by [`VarId`].
    pub specials: Vec<VarSpecial>,
    /// The global special attributes.
    pub global: GlobalSpecial,
    /// Facts the format check needs.
    pub constructs: Constructs,
    /// The kind the dataset was parsed for ([`ParseOptions::kind`]).
    pub kind: Option<Format>,
}

impl CdlDataset {
    /// The data of `var`, or `None` when the CDL gives none.
    pub fn var_data(&self, var: VarId) -> Option<&Values> {
        self.data.get(var.0 as usize)?.as_ref()
    }

    /// The special attributes of `var`.
    pub fn var_special(&self, var: VarId) -> &VarSpecial {
        &self.specials[var.0 as usize]
    }

    /// The kind ncgen picks when no `-k` is given: `_Format` if present,
    /// else netCDF-4 when the CDL uses groups or netCDF-4 storage settings,
    /// else classic.
    pub fn inferred_kind(&self) -> Format {
        if let Some(k) = self.global.format {
            return k;
        }
        if self.constructs.group.is_some()
            || self.constructs.types.is_some()
            || self.specials.iter().any(|s| !s.is_empty())
        {
            return Format::Netcdf4;
        }
        Format::Classic
    }
}

/// Options of [`parse_with`].
#[derive(Debug, Clone, PartialEq)]
pub struct ParseOptions {
    /// The output kind the CDL is read for (ncgen's `-k`). ncgen turns
    /// `int64` variables into `int` for the kinds without 64-bit integers
    /// (classic, 64-bit offset, netCDF-4 classic) and leaves out `string`
    /// attributes for the kinds without strings; `None` keeps every type.
    pub kind: Option<Format>,
    /// The kind whose type names are keywords: ncgen's `-k`. ncgen reads
    /// `string`, `int64`, `ubyte`, ... as ordinary names where that kind
    /// lacks the type, and all of them as names when no `-k` is given (as
    /// for [`Format::Classic`], whatever `_Format` says). `None`: [`Self::kind`].
    pub keywords: Option<Format>,
    /// The largest number of values a variable with data may have; larger
    /// ones are an error instead of an allocation.
    pub max_values: u64,
}

impl Default for ParseOptions {
    fn default() -> Self {
        ParseOptions {
            kind: None,
            keywords: None,
            max_values: 1 << 31,
        }
    }
}

/// Parses CDL text with default options (no kind-specific conversions).
///
/// The text is bytes, as ncgen reads it: string values need not be UTF-8
/// (their bytes go to the file unchanged), names must be.
pub fn parse<T: AsRef<[u8]> + ?Sized>(text: &T) -> Result<CdlDataset, CdlError> {
    parse_with(text, &ParseOptions::default())
}

/// Parses CDL text (bytes, see [`parse`]) for the given options.
pub fn parse_with<T: AsRef<[u8]> + ?Sized>(
    text: &T,
    options: &ParseOptions,
) -> Result<CdlDataset, CdlError> {
    let tokens = lexer::tokenize(text.as_ref(), options.keywords.or(options.kind))?;
    let wide_integer = tokens.iter().find_map(|t| match &t.tok {
        lexer::Tok::Num {
            classic_illegal: true,
            ..
        } => Some((t.pos, t.text.clone())),
        _ => None,
    });
    let ast = parser::parse_tokens(&tokens)?;
    drop(tokens);
    let mut ds = semantics::build(&ast, options)?;
    ds.constructs.wide_integer = wide_integer;
    Ok(ds)
}
