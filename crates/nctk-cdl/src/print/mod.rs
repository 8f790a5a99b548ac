//! The ncdump printer: CDL (or NcML) text of any [`DataSource`], byte for
//! byte what netCDF-C 4.9.0's `ncdump` prints.
//!
//! ```no_run
//! # fn demo(source: &dyn nctk_model::DataSource) -> Result<(), nctk_cdl::print::DumpError> {
//! use nctk_cdl::print::{dump, Options};
//! let opts = Options { header_only: true, ..Options::default() };
//! dump(source, "data/example.nc", &opts, std::io::stdout().lock())?;
//! # Ok(()) }
//! ```
//!
//! [`Options`] mirrors ncdump's flags one to one. Data are read in large
//! blocks through [`DataSource::read`] and formatted without per-value
//! allocation; numbers are formatted exactly as C's `printf` does.

mod data;
mod escape;
mod header;
mod ncml;
mod numbers;
mod printf;
mod times;
mod user;

use std::io::Write;

use nctk_model::{
    DataSource, ErrorKind, Format, GroupId, HasErrorKind, Schema, SourceError, VarId,
};

pub use escape::escaped_name;

/// Which index convention data annotations (`-b`, `-f`) use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum IndexLang {
    /// C: zero-based, last index varies fastest, printed last.
    #[default]
    C,
    /// Fortran: one-based, printed fastest-varying first.
    Fortran,
}

/// How `-t` / `-i` show CF time values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TimeStrings {
    /// Numbers, as stored (no `-t`/`-i`).
    #[default]
    Off,
    /// ISO-like strings with a blank between date and time (`-t`).
    Blank,
    /// ISO 8601 strings with a `T` separator (`-i`).
    IsoT,
}

/// ncdump's options. `Options::default()` is plain `ncdump FILE`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// `-h`: header only, no data.
    pub header_only: bool,
    /// `-c`: data of coordinate variables only.
    pub coords_only: bool,
    /// `-v`: data of these variables only (names or group paths); empty: all.
    pub vars: Vec<String>,
    /// `-k`: print only the kind of file (the format name).
    pub kind_only: bool,
    /// `-s`: print special virtual attributes (`_Format`, `_Storage`, ...).
    pub special: bool,
    /// `-b`: a brief comment with indices before each row of data.
    pub brief_comments: bool,
    /// `-f`: a full comment with indices after each data value.
    pub full_comments: bool,
    /// Index convention of `-b`/`-f` comments.
    pub index_lang: IndexLang,
    /// `-l`: maximum line length of the data section (default 80).
    pub max_line_len: usize,
    /// `-p`: significant digits of float values; `Some` also overrides
    /// `C_format` attributes of float variables. Default 7.
    pub float_digits: Option<usize>,
    /// `-p ,N`: significant digits of double values; `Some` also overrides
    /// `C_format` attributes of double variables. Default 15.
    pub double_digits: Option<usize>,
    /// `-n`: the name after `netcdf`; default derived from the path.
    pub name: Option<String>,
    /// `-t` / `-i`: time values as date-time strings.
    pub times: TimeStrings,
    /// `-g`: data of these groups only; empty: all.
    pub groups: Vec<String>,
    /// `-x`: NcML instead of CDL.
    pub ncml: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            header_only: false,
            coords_only: false,
            vars: vec![],
            kind_only: false,
            special: false,
            brief_comments: false,
            full_comments: false,
            index_lang: IndexLang::C,
            max_line_len: 80,
            float_digits: None,
            double_digits: None,
            name: None,
            times: TimeStrings::Off,
            groups: vec![],
            ncml: false,
        }
    }
}

/// Why a dump failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DumpError {
    /// Writing the output failed.
    #[error("write error: {0}")]
    Io(#[from] std::io::Error),
    /// Reading a variable's data failed.
    #[error("reading variable {var}: {source}")]
    Read {
        /// The variable's full name.
        var: String,
        /// The format's error.
        source: SourceError,
    },
    /// A `-v` name matches no variable (ncdump: "No such variable").
    #[error("{0}: No such variable")]
    NoSuchVariable(String),
    /// A `-g` name matches no group (ncdump: "No such group").
    #[error("{0}: No such group")]
    NoSuchGroup(String),
    /// `-g` on a file that has no groups (ncdump refuses silently).
    #[error("-g: groups exist only in netCDF-4 files")]
    GroupsNeedNetcdf4,
    /// `-x` on a netCDF-4 (non-classic-model) file.
    #[error("NcML output (-x) currently only permitted for netCDF classic model")]
    NcmlNeedsClassicModel,
    /// An option value ncdump rejects.
    #[error("{0}")]
    BadOption(String),
    /// A value ncdump cannot print: an enum value that names no member of
    /// its type (ncdump stops with "NetCDF: Invalid argument"), or values
    /// that do not fit their type.
    #[error("{name}: {reason}")]
    BadValue {
        /// The variable's or attribute's name.
        name: String,
        /// What is wrong.
        reason: String,
    },
    /// A variable or attribute of a type the CDL printer does not know (a
    /// type a newer format brings).
    #[error("{name}: type {dtype} is not supported by dump")]
    UnsupportedType {
        /// The variable's or attribute's name.
        name: String,
        /// Its type.
        dtype: nctk_model::DataType,
    },
}

/// The output's and the reader's errors have their own kind; a name that
/// matches nothing is not found; an option refused, a value that cannot be
/// printed and a type the printer lacks are bad input, invalid data and
/// unsupported.
impl HasErrorKind for DumpError {
    fn kind(&self) -> ErrorKind {
        match self {
            DumpError::Io(e) => ErrorKind::of_io(e),
            DumpError::Read { source, .. } => source.kind(),
            DumpError::NoSuchVariable(_) | DumpError::NoSuchGroup(_) => ErrorKind::NotFound,
            DumpError::GroupsNeedNetcdf4
            | DumpError::NcmlNeedsClassicModel
            | DumpError::BadOption(_) => ErrorKind::InvalidInput,
            DumpError::BadValue { .. } => ErrorKind::InvalidData,
            DumpError::UnsupportedType { .. } => ErrorKind::Unsupported,
        }
    }
}

/// The name ncdump gives a dataset: the last path component without its
/// last extension (`dir/x.nc3.nc` -> `x.nc3`); for a URL, the last
/// component of its path, without query or fragment
/// (`file:///d/x.zarr#mode=nczarr,file` -> `x`; when that is empty, as
/// after a trailing `/`, the whole text's last component, as ncdump).
pub fn dataset_name(path: &str) -> String {
    let url_base = path.split_once("://").and_then(|(scheme, rest)| {
        let is_scheme = !scheme.is_empty()
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c));
        let url_path = &rest[..rest.find(['?', '#']).unwrap_or(rest.len())];
        url_path
            .rsplit('/')
            .next()
            .filter(|s| is_scheme && !s.is_empty())
    });
    let last = url_base.unwrap_or_else(|| path.rsplit('/').next().unwrap_or(path));
    match last.rfind('.') {
        Some(i) => last[..i].to_string(),
        None => last.to_string(),
    }
}

/// Prints `source` as `ncdump [options] path` would, to `out`.
///
/// `path` is what the user named: it gives the dataset name (unless
/// `opts.name` is set) and the NcML `location`.
pub fn dump(
    source: &dyn DataSource,
    path: &str,
    opts: &Options,
    out: impl Write,
) -> Result<(), DumpError> {
    if opts.max_line_len < 10 {
        return Err(DumpError::BadOption(format!(
            "unreasonably small line length specified: {}",
            opts.max_line_len
        )));
    }
    for d in [opts.float_digits, opts.double_digits]
        .into_iter()
        .flatten()
    {
        if !(1..=20).contains(&d) {
            return Err(DumpError::BadOption(format!(
                "unreasonable value for significant digits: {d}"
            )));
        }
    }
    let mut p = Printer::new(source, opts, out);
    if opts.kind_only {
        p.buf.extend_from_slice(source.format().name().as_bytes());
        p.buf.push(b'\n');
        return p.finish();
    }
    let vars = p.resolve_vars()?;
    let groups = p.resolve_groups()?;
    if opts.ncml {
        if source.format() == Format::Netcdf4 {
            return Err(DumpError::NcmlNeedsClassicModel);
        }
        ncml::dump_ncml(&mut p, path, &vars)?;
    } else {
        let name = opts.name.clone().unwrap_or_else(|| dataset_name(path));
        p.buf.extend_from_slice(b"netcdf ");
        escape::push_name(&mut p.buf, &name);
        p.buf.extend_from_slice(b" {\n");
        p.dump_group(GroupId::ROOT, &vars, &groups)?;
        p.buf.extend_from_slice(b"}\n");
    }
    p.finish()
}

/// Output state shared by the header and data printers.
pub(crate) struct Printer<'a, W: Write> {
    pub(crate) source: &'a dyn DataSource,
    pub(crate) schema: &'a Schema,
    pub(crate) opts: &'a Options,
    out: W,
    /// Pending output, flushed to `out` in large pieces.
    pub(crate) buf: Vec<u8>,
    /// Group nesting indent, in spaces.
    pub(crate) indent: usize,
    /// ncdump's `linep`: position in the current data line.
    pub(crate) linep: usize,
    /// ncdump's `max_line_len`: the `-l` value minus 2.
    pub(crate) max_line_len: usize,
    /// True for netCDF-4 (not classic model) files.
    pub(crate) netcdf4: bool,
    /// `-t`: bounds variables seen in `bounds` attributes, with the
    /// variable they bound.
    pub(crate) bounds: Vec<(String, VarId)>,
    /// `-t`: ncdump's separate line position for attribute time comments.
    pub(crate) linep2: usize,
}

impl<'a, W: Write> Printer<'a, W> {
    fn new(source: &'a dyn DataSource, opts: &'a Options, out: W) -> Self {
        Printer {
            source,
            schema: source.schema(),
            opts,
            out,
            buf: Vec::with_capacity(1 << 17),
            indent: 0,
            linep: 0,
            max_line_len: opts.max_line_len - 2,
            netcdf4: source.format() == Format::Netcdf4,
            bounds: vec![],
            linep2: 0,
        }
    }

    /// Writes the buffer out when it has grown large.
    pub(crate) fn maybe_flush(&mut self) -> Result<(), DumpError> {
        if self.buf.len() >= 1 << 16 {
            self.out.write_all(&self.buf)?;
            self.buf.clear();
        }
        Ok(())
    }

    fn finish(mut self) -> Result<(), DumpError> {
        self.out.write_all(&self.buf)?;
        self.buf.clear();
        self.out.flush()?;
        Ok(())
    }

    /// Appends the group indent.
    pub(crate) fn indent_out(&mut self) {
        self.buf.extend(std::iter::repeat_n(b' ', self.indent));
    }

    /// ncdump's `lput`: appends `s`, first breaking the line when `s`
    /// would run past the maximum length.
    pub(crate) fn lput(&mut self, s: &[u8]) {
        let nn = s.len();
        if nn + self.linep > self.max_line_len && nn > 2 {
            self.buf.push(b'\n');
            self.indent_out();
            self.buf.extend_from_slice(b"    ");
            self.linep = 4 + self.indent;
        }
        self.buf.extend_from_slice(s);
        if s.last() == Some(&b'\n') {
            self.linep = self.indent;
        } else {
            self.linep += nn;
        }
    }

    /// [`lput`](Self::lput) for text already appended at `start..`:
    /// inserts the line break before it when needed.
    #[inline]
    pub(crate) fn lput_placed(&mut self, start: usize) {
        let nn = self.buf.len() - start;
        if nn + self.linep > self.max_line_len && nn > 2 {
            // Shift the text right and put "\n", the indent and four
            // blanks before it, without allocating.
            let brk = 5 + self.indent;
            self.buf.resize(start + nn + brk, b' ');
            self.buf.copy_within(start..start + nn, start + brk);
            self.buf[start] = b'\n';
            self.buf[start + 1..start + brk].fill(b' ');
            self.linep = 4 + self.indent;
        }
        self.linep += nn;
    }

    /// The variables selected by `-v`, checked to exist (ncdump's
    /// `missing_vars`); `None` when every variable is wanted.
    fn resolve_vars(&self) -> Result<Option<Vec<VarId>>, DumpError> {
        if self.opts.vars.is_empty() {
            return Ok(None);
        }
        let mut ids = vec![];
        for name in &self.opts.vars {
            let mut found = false;
            for g in self.schema.group_ids() {
                if let Some(v) = self.gvarid(g, name) {
                    found = true;
                    ids.push(v);
                }
            }
            if !found {
                return Err(DumpError::NoSuchVariable(name.clone()));
            }
        }
        Ok(Some(ids))
    }

    /// ncdump's `nc_inq_gvarid`: `name`, `grp/name` (a group whose full
    /// name ends with `grp`) or `/grp/name` (exactly that group).
    fn gvarid(&self, group: GroupId, name: &str) -> Option<VarId> {
        if name.is_empty() {
            return None;
        }
        match name.rsplit_once('/') {
            None => self.schema.var_by_name(group, name),
            Some((vargroup, rel)) => {
                let gname = self.schema.group_path(group);
                let ok = if name.starts_with('/') {
                    gname == vargroup
                } else {
                    gname.ends_with(vargroup)
                };
                if ok {
                    self.schema.var_by_name(group, rel)
                } else {
                    None
                }
            }
        }
    }

    /// The groups selected by `-g`; `None` when every group is wanted.
    fn resolve_groups(&self) -> Result<Option<Vec<GroupId>>, DumpError> {
        if self.opts.groups.is_empty() {
            return Ok(None);
        }
        if !self.netcdf4 {
            return Err(DumpError::GroupsNeedNetcdf4);
        }
        let mut ids = vec![];
        for name in &self.opts.groups {
            let before = ids.len();
            if name.is_empty() || name == "/" {
                ids.push(GroupId::ROOT);
            } else if name.starts_with('/') {
                if let Some(g) = self.schema.group_by_path(name) {
                    ids.push(g);
                }
            } else {
                // A relative name matches a child of any group.
                for g in self.schema.group_ids() {
                    if let Some(c) = self.schema.group_by_name(g, name) {
                        ids.push(c);
                    }
                }
            }
            if ids.len() == before {
                return Err(DumpError::NoSuchGroup(name.clone()));
            }
        }
        Ok(Some(ids))
    }
}
