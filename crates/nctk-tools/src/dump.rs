//! `nctk dump`: ncdump with ncdump's flags, over any [`DataSource`].
//!
//! [`DumpArgs`] holds the flags (the `nctk` binary parses them with clap,
//! through this crate's `clap` feature; `-h` means header only, as in
//! ncdump, so clap's short help flag is off and help is `--help`), and
//! [`run_dump`] prints the CDL (or NcML, or the kind) to any writer.

use std::io::Write;

use nctk_cdl::print::{dump, DumpError, IndexLang, Options, TimeStrings};
use nctk_model::{DataSource, ErrorKind, HasErrorKind};

/// ncdump's command line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
#[cfg_attr(feature = "clap", command(disable_help_flag = true))]
pub struct DumpArgs {
    /// Header information only, no data.
    #[cfg_attr(feature = "clap", arg(short = 'h'))]
    pub header_only: bool,
    /// Coordinate variable data and header information.
    #[cfg_attr(feature = "clap", arg(short = 'c'))]
    pub coords_only: bool,
    /// Data for variable(s) `var1,...` only.
    #[cfg_attr(feature = "clap", arg(short = 'v', value_name = "var1[,...]"))]
    pub vars: Option<String>,
    /// Brief annotations for C or Fortran indices in data.
    #[cfg_attr(feature = "clap", arg(short = 'b', value_name = "c|f"))]
    pub brief: Option<String>,
    /// Full annotations for C or Fortran indices in data.
    #[cfg_attr(feature = "clap", arg(short = 'f', value_name = "c|f"))]
    pub full: Option<String>,
    /// Line length maximum in data section (default 80).
    #[cfg_attr(feature = "clap", arg(short = 'l', value_name = "len"))]
    pub line_len: Option<String>,
    /// Name for netCDF (default derived from file name).
    #[cfg_attr(feature = "clap", arg(short = 'n', value_name = "name"))]
    pub name: Option<String>,
    /// Display floating-point values with less precision.
    #[cfg_attr(feature = "clap", arg(short = 'p', value_name = "n[,n]"))]
    pub precision: Option<String>,
    /// Output kind of netCDF file.
    #[cfg_attr(feature = "clap", arg(short = 'k'))]
    pub kind: bool,
    /// Output special (virtual) attributes.
    #[cfg_attr(feature = "clap", arg(short = 's'))]
    pub special: bool,
    /// Output time data as date-time strings.
    #[cfg_attr(feature = "clap", arg(short = 't'))]
    pub times: bool,
    /// Output time data as date-time strings with ISO-8601 'T' separator.
    #[cfg_attr(feature = "clap", arg(short = 'i'))]
    pub iso_times: bool,
    /// Data and metadata for group(s) `grp1,...` only.
    #[cfg_attr(feature = "clap", arg(short = 'g', value_name = "grp1[,...]"))]
    pub groups: Option<String>,
    /// Output XML (NcML) instead of CDL.
    #[cfg_attr(feature = "clap", arg(short = 'x'))]
    pub xml: bool,
    /// Print help.
    #[cfg(feature = "clap")]
    #[arg(long = "help", action = clap::ArgAction::Help)]
    pub help: Option<bool>,
    /// Name of netCDF file or URL.
    pub file: String,
}

/// Splits a comma-separated list as ncdump's `strtok` does (empty items dropped).
fn list(s: &Option<String>) -> Vec<String> {
    s.as_deref()
        .map(|s| {
            s.split(',')
                .filter(|x| !x.is_empty())
                .map(String::from)
                .collect()
        })
        .unwrap_or_default()
}

/// C's `strtol(s, &end, 10)`: the value and the rest of the string.
fn strtol(s: &str) -> (i64, &str) {
    let t = s.trim_start();
    let b = t.as_bytes();
    let mut i = usize::from(matches!(b.first(), Some(b'+' | b'-')));
    let digits = i;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    if i == digits {
        return (0, s);
    }
    (t[..i].parse().unwrap_or(i64::MAX), &t[i..])
}

/// `-b`/`-f` values: `c` or `f` (first letter, any case).
fn lang(flag: char, v: &str) -> Result<IndexLang, DumpError> {
    match v.chars().next().map(|c| c.to_ascii_lowercase()) {
        Some('c') => Ok(IndexLang::C),
        Some('f') => Ok(IndexLang::Fortran),
        _ => Err(DumpError::BadOption(format!(
            "invalid value for -{flag} option: {v}"
        ))),
    }
}

impl DumpArgs {
    /// The printer options these flags ask for, checked as ncdump checks them.
    pub fn to_options(&self) -> Result<Options, DumpError> {
        let mut o = Options {
            header_only: self.header_only,
            coords_only: self.coords_only,
            vars: list(&self.vars),
            kind_only: self.kind,
            special: self.special,
            name: self.name.clone(),
            groups: list(&self.groups),
            ncml: self.xml,
            ..Options::default()
        };
        if let Some(b) = &self.brief {
            o.brief_comments = true;
            o.index_lang = lang('b', b)?;
        }
        if let Some(f) = &self.full {
            o.full_comments = true;
            o.index_lang = lang('f', f)?;
        }
        if let Some(l) = &self.line_len {
            let (n, _) = strtol(l);
            if n < 10 {
                return Err(DumpError::BadOption(format!(
                    "unreasonably small line length specified: {n}"
                )));
            }
            o.max_line_len = usize::try_from(n).unwrap_or(usize::MAX);
        }
        o.times = if self.iso_times {
            TimeStrings::IsoT
        } else if self.times {
            TimeStrings::Blank
        } else {
            TimeStrings::Off
        };
        if let Some(p) = &self.precision {
            // ncdump's set_precision: "-p F", "-p F,D"; "-p ,D" is ignored.
            if !p.is_empty() && !p.starts_with(',') {
                let (f, rest) = strtol(p);
                if !(1..=20).contains(&f) {
                    return Err(DumpError::BadOption(format!(
                        "unreasonable value for float significant digits: {f}"
                    )));
                }
                o.float_digits = Some(f as usize);
                if let Some(d) = rest.strip_prefix(',') {
                    let (dd, after) = strtol(d);
                    if after.len() == d.len() || !(1..=20).contains(&dd) {
                        return Err(DumpError::BadOption(format!(
                            "unreasonable value for double significant digits: {dd}"
                        )));
                    }
                    o.double_digits = Some(dd as usize);
                }
            }
        }
        Ok(o)
    }
}

/// Why `nctk dump FILE` failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DumpFileError {
    /// The file or URL could not be opened (or, for `-k`, probed).
    #[error(transparent)]
    Open(#[from] nctk::Error),
    /// Printing failed.
    #[error(transparent)]
    Dump(#[from] DumpError),
}

/// The opening's or the printing's kind.
impl HasErrorKind for DumpFileError {
    fn kind(&self) -> ErrorKind {
        match self {
            DumpFileError::Open(e) => e.kind(),
            DumpFileError::Dump(e) => e.kind(),
        }
    }
}

/// Runs `ncdump` with `args` on the file or URL `args.file`, writing to
/// `out`. With `-k` only the kind is printed (from the file's magic bytes,
/// without reading its metadata).
pub fn dump_file(args: &DumpArgs, mut out: impl Write) -> Result<(), DumpFileError> {
    if args.kind {
        args.to_options()?;
        let kind = nctk::kind(&args.file)?;
        writeln!(out, "{kind}").map_err(DumpError::from)?;
        return Ok(());
    }
    let ds = nctk::open(&args.file)?;
    Ok(run_dump(args, ds.source(), out)?)
}

/// Runs `ncdump` with `args` on `source`, writing to `out`. `args.file`
/// names the dataset (`netcdf NAME {`, NcML `location`). When the data
/// stops before the end the definitions imply (a truncated classic file),
/// one warning on stderr names the file and the byte offset: the missing
/// values print as fill values.
pub fn run_dump(
    args: &DumpArgs,
    source: &dyn DataSource,
    out: impl Write,
) -> Result<(), DumpError> {
    let opts = args.to_options()?;
    if let Some(end) = source.data_ends_at() {
        eprintln!(
            "nctk dump: warning: {}: the data stops at byte {end}, before the end the header \
             implies; the missing values are shown as fill values",
            args.file
        );
    }
    dump(source, &args.file, &opts, out)
}
