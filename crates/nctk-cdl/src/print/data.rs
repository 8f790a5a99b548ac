//! The data section (ncdump's `vardata.c`): one variable's values, row by
//! row along the last dimension, wrapped at the line length, with fill
//! values as `_`, optional index comments, and `{ }` around nested
//! unlimited dimensions.
//!
//! Values are read in large blocks (ncdump reads row by row) and each
//! block is printed by a loop specialised for the element type: a fill
//! test and number formatting into a reused scratch buffer, no allocation
//! per value.

use std::io::Write;

use nctk_model::{DataType, Selection, Values, VarId};
use rayon::prelude::*;

use super::escape::{c_str, push_char_data, push_name, push_string_data};
use super::header::push_special;
use super::numbers::{push_g, push_g_f32, push_i64, push_u64, GStyle};
use super::printf::{Arg, CFormat};
use super::{DumpError, IndexLang, Printer, TimeStrings};

/// Values read per block (512 KB of doubles: large reads, yet small
/// enough for the allocator to reuse the memory).
const BLOCK_VALUES: u64 = 1 << 16;

/// The placeholder ncdump prints for fill values.
const FILL: &[u8] = b"_";

/// ncdump's float fill test: equal within `FLT_EPSILON` relative to the
/// value, NaN matches NaN, infinity matches infinity.
fn fill_eq_f32(fill: f32, v: f32) -> bool {
    if (fill > 0.0) != (v > 0.0) {
        return false;
    }
    if fill.is_finite() && v.is_finite() {
        return (fill - v).abs() <= (f32::EPSILON * v).abs();
    }
    (fill.is_nan() && v.is_nan()) || (fill.is_infinite() && v.is_infinite())
}

/// ncdump's double fill test (see [`fill_eq_f32`]).
fn fill_eq_f64(fill: f64, v: f64) -> bool {
    if (fill > 0.0) != (v > 0.0) {
        return false;
    }
    if fill.is_finite() && v.is_finite() {
        return (fill - v).abs() <= (f64::EPSILON * v).abs();
    }
    (fill.is_nan() && v.is_nan()) || (fill.is_infinite() && v.is_infinite())
}

/// Any numeric values as doubles (for time conversion).
fn values_as_f64(v: Values) -> Vec<f64> {
    match v {
        Values::Byte(v) => v.into_iter().map(f64::from).collect(),
        Values::Short(v) => v.into_iter().map(f64::from).collect(),
        Values::Int(v) => v.into_iter().map(f64::from).collect(),
        Values::Float(v) => v.into_iter().map(f64::from).collect(),
        Values::Double(v) => v,
        Values::UByte(v) => v.into_iter().map(f64::from).collect(),
        Values::UShort(v) => v.into_iter().map(f64::from).collect(),
        Values::UInt(v) => v.into_iter().map(f64::from).collect(),
        Values::Int64(v) => v.into_iter().map(|x| x as f64).collect(),
        Values::UInt64(v) => v.into_iter().map(|x| x as f64).collect(),
        Values::Char(v) => v.into_iter().map(f64::from).collect(),
        // Strings and any other type without numbers.
        other => vec![0.0; other.len()],
    }
}

/// Where the printer is within a variable.
struct Cursor {
    /// The variable's name.
    name: String,
    shape: Vec<u64>,
    /// Per dimension: is it unlimited.
    unlimited: Vec<bool>,
    /// Indices of the current row (leading dimensions; last entry 0).
    cor: Vec<u64>,
    /// Column of the next value within its row.
    col: u64,
    /// Values in a row.
    ncols: u64,
}

impl Cursor {
    fn rank(&self) -> usize {
        self.shape.len()
    }

    /// True when the current row is the variable's last.
    fn last_row(&self) -> bool {
        let r = self.rank();
        (0..r.saturating_sub(1)).all(|j| self.cor[j] == self.shape[j] - 1)
    }

    /// Number of `{` that open before the current row.
    fn opening_braces(&self) -> usize {
        let r = self.rank();
        (1..r)
            .filter(|&l| self.unlimited[l] && (l..r - 1).all(|j| self.cor[j] == 0))
            .count()
    }

    /// Number of `}` that close after the current row.
    fn closing_braces(&self) -> usize {
        let r = self.rank();
        (1..r)
            .filter(|&l| self.unlimited[l] && (l..r - 1).all(|j| self.cor[j] == self.shape[j] - 1))
            .count()
    }

    /// Moves to the next row.
    fn next_row(&mut self) {
        self.col = 0;
        let r = self.rank();
        if r < 2 {
            return;
        }
        for j in (0..r - 1).rev() {
            self.cor[j] += 1;
            if self.cor[j] < self.shape[j] || j == 0 {
                return;
            }
            self.cor[j] = 0;
        }
    }
}

impl<W: Write> Printer<'_, W> {
    /// Prints the data of one variable (ncdump's `vardata`).
    pub(crate) fn print_var_data(&mut self, v: VarId) -> Result<(), DumpError> {
        let schema = self.schema;
        let var = schema.var(v);
        let shape = schema.shape(v);
        let rank = shape.len();
        self.buf.push(b'\n');
        self.indent_out();
        self.buf.push(b' ');
        push_name(&mut self.buf, &var.name);
        if rank <= 1 {
            self.buf.extend_from_slice(b" = ");
            self.linep = c_str(var.name.as_bytes()).len() + 4 + self.indent;
        } else {
            self.buf.extend_from_slice(b" =\n  ");
            self.linep = 2 + self.indent;
        }
        let mut cur = Cursor {
            name: var.name.clone(),
            unlimited: var.dims.iter().map(|&d| schema.dim(d).unlimited).collect(),
            cor: vec![0; rank],
            col: 0,
            ncols: shape.last().copied().unwrap_or(1),
            shape,
        };

        let time = match self.opts.times {
            TimeStrings::Off => None,
            _ if !var.dtype.is_numeric() => None,
            _ => self.time_info(v),
        };
        if let Some(t) = time {
            let sep = if self.opts.times == TimeStrings::IsoT {
                b'T'
            } else {
                b' '
            };
            let fill = self.fill_value(v).map(|f| values_as_f64(f)[0]);
            let is_float = var.dtype == DataType::Float;
            return self.print_blocks(&mut cur, v, values_as_f64, move |o, &x: &f64| {
                let is_fill = match fill {
                    Some(f) if is_float => fill_eq_f32(f as f32, x as f32),
                    Some(f) => fill_eq_f64(f, x),
                    None => false,
                };
                if is_fill {
                    o.extend_from_slice(FILL);
                } else if x.is_finite() {
                    o.push(b'"');
                    t.push_iso(o, x, sep);
                    o.push(b'"');
                } else {
                    push_special(o, x, b"");
                }
            });
        }

        let fill = self.fill_value(v);
        let cfmt = self.c_format(v);
        let fd = self.float_digits();
        let dd = self.double_digits();
        macro_rules! ints {
            ($variant:ident, $t:ty, $arg:expr, $push:expr) => {{
                let fill: Option<$t> = match &fill {
                    Some(Values::$variant(f)) => f.first().copied(),
                    _ => None,
                };
                let extract = |vals: Values| match vals {
                    Values::$variant(v) => v,
                    other => panic!("source returned {} values", other.dtype()),
                };
                self.print_blocks(&mut cur, v, extract, move |o, &x: &$t| {
                    if fill == Some(x) {
                        o.extend_from_slice(FILL);
                    } else if let Some(cf) = &cfmt {
                        cf.push(o, $arg(x));
                    } else {
                        $push(o, x);
                    }
                })
            }};
        }
        match var.dtype {
            DataType::Char => self.print_char_data(&mut cur, v),
            DataType::Byte => ints!(Byte, i8, |x: i8| Arg::Int(x.into()), |o, x: i8| push_i64(
                o,
                x.into()
            )),
            DataType::Short => ints!(Short, i16, |x: i16| Arg::Int(x.into()), |o, x: i16| {
                push_i64(o, x.into())
            }),
            DataType::Int => ints!(Int, i32, |x: i32| Arg::Int(x.into()), |o, x: i32| push_i64(
                o,
                x.into()
            )),
            DataType::Int64 => ints!(Int64, i64, Arg::Int, push_i64),
            DataType::UByte => ints!(UByte, u8, |x: u8| Arg::UInt(x.into()), |o, x: u8| push_u64(
                o,
                x.into()
            )),
            DataType::UShort => ints!(UShort, u16, |x: u16| Arg::UInt(x.into()), |o, x: u16| {
                push_u64(o, x.into())
            }),
            DataType::UInt => ints!(UInt, u32, |x: u32| Arg::UInt(x.into()), |o, x: u32| {
                push_u64(o, x.into())
            }),
            DataType::UInt64 => ints!(UInt64, u64, Arg::UInt, push_u64),
            DataType::Float => {
                let fill = match &fill {
                    Some(Values::Float(f)) => f.first().copied(),
                    _ => None,
                };
                let cfmt = cfmt.filter(|_| self.opts.float_digits.is_none());
                let extract = |vals: Values| match vals {
                    Values::Float(v) => v,
                    other => panic!("source returned {} values", other.dtype()),
                };
                self.print_blocks(&mut cur, v, extract, move |o, &x: &f32| {
                    if fill.is_some_and(|f| fill_eq_f32(f, x)) {
                        o.extend_from_slice(FILL);
                    } else if !x.is_finite() {
                        push_special(o, x.into(), b"f");
                    } else if let Some(cf) = &cfmt {
                        cf.push(o, Arg::Float(x.into()));
                    } else {
                        push_g_f32(o, x, fd, GStyle::Plain);
                    }
                })
            }
            DataType::Double => {
                let fill = match &fill {
                    Some(Values::Double(f)) => f.first().copied(),
                    _ => None,
                };
                let cfmt = cfmt.filter(|_| self.opts.double_digits.is_none());
                let extract = |vals: Values| match vals {
                    Values::Double(v) => v,
                    other => panic!("source returned {} values", other.dtype()),
                };
                self.print_blocks(&mut cur, v, extract, move |o, &x: &f64| {
                    if fill.is_some_and(|f| fill_eq_f64(f, x)) {
                        o.extend_from_slice(FILL);
                    } else if !x.is_finite() {
                        push_special(o, x, b"");
                    } else if let Some(cf) = &cfmt {
                        cf.push(o, Arg::Float(x));
                    } else {
                        push_g(o, x, dd, GStyle::Plain);
                    }
                })
            }
            DataType::String => {
                let fill = match fill {
                    Some(Values::String(mut f)) if !f.is_empty() => Some(f.swap_remove(0)),
                    _ => None,
                };
                let extract = |vals: Values| match vals {
                    Values::String(v) => v,
                    other => panic!("source returned {} values", other.dtype()),
                };
                self.print_blocks(&mut cur, v, extract, move |o, x: &Option<String>| {
                    // A null fill matches only a null (ncdump's
                    // `ncstring_val_equals`).
                    if fill.as_ref() == Some(x) {
                        o.extend_from_slice(FILL);
                    } else {
                        push_string_data(o, x.as_deref().map(str::as_bytes));
                    }
                })
            }
            DataType::User(_) => self.print_user_data(&mut cur, v, fill),
            dtype => Err(DumpError::UnsupportedType {
                name: var.name.clone(),
                dtype,
            }),
        }
    }

    /// Prints a variable of a user type: each value as ncdump's
    /// `*_typ_tostring` formats it, `_` where it equals the `_FillValue`.
    fn print_user_data(
        &mut self,
        cur: &mut Cursor,
        v: VarId,
        fill: Option<Values>,
    ) -> Result<(), DumpError> {
        let dtype = self.schema.var(v).dtype;
        let text =
            super::user::ValueText::new(self.schema, self.float_digits(), self.double_digits());
        let one_each = |vals: Values| (0..vals.len()).map(|i| vals.slice(i..i + 1)).collect();
        self.print_blocks(cur, v, one_each, |o, x: &Values| {
            if fill.as_ref().is_some_and(|f| x.same_value_at(0, f)) {
                o.extend_from_slice(FILL);
            } else {
                text.push(o, dtype, x, 0);
            }
        })?;
        match text.problem.into_inner() {
            Some(reason) => Err(DumpError::BadValue {
                name: self.schema.var(v).name.clone(),
                reason,
            }),
            None => Ok(()),
        }
    }

    /// The fill value ncdump compares data with (`get_fill_info`): a
    /// one-element `_FillValue` of the variable's type, else the type's
    /// default, except none for `byte`, `ubyte` and user types.
    pub(crate) fn fill_value(&self, v: VarId) -> Option<Values> {
        let var = self.schema.var(v);
        if let Some(a) = var.attribute("_FillValue") {
            if a.dtype() == var.dtype && a.value.len() == 1 {
                return Some(a.value.clone());
            }
        }
        match var.dtype {
            DataType::Byte | DataType::UByte | DataType::User(_) => None,
            t => Some(t.default_fill()),
        }
    }

    /// The variable's `C_format` attribute, when it is usable text.
    fn c_format(&self, v: VarId) -> Option<CFormat> {
        let var = self.schema.var(v);
        let a = var.attribute("C_format")?;
        match &a.value {
            Values::Char(t) if !t.is_empty() && t.len() < 100 => {
                CFormat::parse(&String::from_utf8_lossy(t))
            }
            _ => None,
        }
    }

    /// Reads `v` in blocks of contiguous values and prints each value
    /// through `fmt`, keeping ncdump's row layout. The values of a block
    /// are formatted in parallel (rayon, in chunks of [`FORMAT_CHUNK`]),
    /// then laid out in order.
    fn print_blocks<T: Sync>(
        &mut self,
        cur: &mut Cursor,
        v: VarId,
        extract: impl Fn(Values) -> Vec<T>,
        fmt: impl Fn(&mut Vec<u8>, &T) + Sync,
    ) -> Result<(), DumpError> {
        let mut scratch = Vec::with_capacity(64);
        let mut pool = vec![];
        let full = self.opts.full_comments;
        for sel in BlockIter::new(&cur.shape) {
            let vals = self.read(v, &sel)?;
            let vals = extract(vals);
            for chunk in format_chunks(&vals, &fmt, &mut pool) {
                for t in chunk.texts() {
                    if cur.col == 0 {
                        self.row_start(cur);
                    }
                    if cur.col + 1 < cur.ncols {
                        let start = self.buf.len();
                        self.buf.extend_from_slice(t);
                        self.buf.extend_from_slice(b", ");
                        if full {
                            self.annotate(cur, cur.col);
                        } else {
                            self.lput_placed(start);
                        }
                        cur.col += 1;
                    } else {
                        scratch.clear();
                        scratch.extend_from_slice(t);
                        self.row_end(cur, &mut scratch);
                        cur.next_row();
                    }
                }
            }
            self.maybe_flush()?;
        }
        Ok(())
    }

    /// Prints a char variable: each row as one string.
    fn print_char_data(&mut self, cur: &mut Cursor, v: VarId) -> Result<(), DumpError> {
        let mut scratch = Vec::new();
        let ncols = cur.ncols as usize;
        let mut pending: Vec<u8> = Vec::new();
        for sel in BlockIter::new(&cur.shape) {
            let vals = self.read(v, &sel)?;
            let Values::Char(bytes) = vals else {
                panic!("source returned {} values", vals.dtype());
            };
            let mut rest: &[u8] = &bytes;
            while !rest.is_empty() {
                let take = (ncols - pending.len()).min(rest.len());
                pending.extend_from_slice(&rest[..take]);
                rest = &rest[take..];
                if pending.len() == ncols {
                    self.row_start(cur);
                    push_char_data(&mut self.buf, &pending);
                    pending.clear();
                    scratch.clear();
                    self.row_end(cur, &mut scratch);
                    cur.next_row();
                }
            }
            self.maybe_flush()?;
        }
        Ok(())
    }

    fn read(&self, v: VarId, sel: &Selection) -> Result<Values, DumpError> {
        self.source.read(v, sel).map_err(|source| DumpError::Read {
            var: self.schema.var(v).name.clone(),
            source,
        })
    }

    /// Opening braces and the brief comment before a row.
    fn row_start(&mut self, cur: &Cursor) {
        for _ in 0..cur.opening_braces() {
            self.lput(b"{");
        }
        if self.opts.brief_comments && cur.rank() > 1 {
            self.annotate_brief(cur);
        }
    }

    /// The last value of a row (in `last`), closing braces, the row's
    /// final delimiter and, with `-f`, its comment.
    fn row_end(&mut self, cur: &Cursor, last: &mut Vec<u8>) {
        for _ in 0..cur.closing_braces() {
            last.push(b'}');
        }
        let lastrow = cur.last_row();
        if self.opts.full_comments {
            self.buf.extend_from_slice(last);
            self.buf.push(if lastrow { b';' } else { b',' });
            self.annotate(cur, cur.ncols - 1);
        } else {
            self.lput(last);
            if lastrow {
                self.lput(b" ;");
                self.lput(b"\n");
            } else {
                self.lput(b",\n");
                self.lput(b"  ");
            }
        }
    }

    /// `-b`: `// var(i,j, 0-N)` before a row.
    fn annotate_brief(&mut self, cur: &Cursor) {
        let r = cur.rank();
        self.buf.extend_from_slice(b"// ");
        push_name(&mut self.buf, &cur.name);
        self.buf.push(b'(');
        match self.opts.index_lang {
            IndexLang::C => {
                for id in 0..r - 1 {
                    push_u64(&mut self.buf, cur.cor[id]);
                    self.buf.push(b',');
                }
                if cur.ncols == 1 {
                    self.buf.push(b'0');
                } else {
                    self.buf.extend_from_slice(b" 0-");
                    push_u64(&mut self.buf, cur.ncols - 1);
                }
            }
            IndexLang::Fortran => {
                if cur.ncols == 1 {
                    self.buf.push(b'1');
                } else {
                    self.buf.extend_from_slice(b"1-");
                    push_u64(&mut self.buf, cur.ncols);
                    self.buf.push(b' ');
                }
                for id in (0..r - 1).rev() {
                    self.buf.push(b',');
                    push_u64(&mut self.buf, cur.cor[id] + 1);
                }
            }
        }
        self.buf.extend_from_slice(b")\n");
        self.indent_out();
        self.buf.extend_from_slice(b"    ");
        self.linep = 4 + self.indent;
    }

    /// `-f`: `  // var(i,j,k)` after a value.
    fn annotate(&mut self, cur: &Cursor, iel: u64) {
        let r = cur.rank();
        self.buf.extend_from_slice(b"  // ");
        push_name(&mut self.buf, &cur.name);
        self.buf.push(b'(');
        match self.opts.index_lang {
            IndexLang::C => {
                for id in 0..r.saturating_sub(1) {
                    push_u64(&mut self.buf, cur.cor[id]);
                    self.buf.push(b',');
                }
                push_u64(&mut self.buf, iel);
            }
            IndexLang::Fortran if r == 0 => {
                // ncdump reads cor[-1] for a scalar: glibc's malloc chunk
                // header of its 8-byte allocation (0x21), plus one.
                self.buf.extend_from_slice(b"34");
            }
            IndexLang::Fortran => {
                push_u64(&mut self.buf, iel + 1);
                for id in (0..r.saturating_sub(1)).rev() {
                    self.buf.push(b',');
                    push_u64(&mut self.buf, cur.cor[id] + 1);
                }
            }
        }
        self.buf.extend_from_slice(b")\n    ");
    }
}

/// Values formatted per parallel task.
const FORMAT_CHUNK: usize = 8192;

/// The texts of consecutive values, end to end, with each one's end.
struct Formatted {
    text: Vec<u8>,
    ends: Vec<usize>,
}

impl Formatted {
    /// Each value's text, in order.
    fn texts(&self) -> impl Iterator<Item = &[u8]> + '_ {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        starts.zip(&self.ends).map(|(s, &e)| &self.text[s..e])
    }
}

/// Formats `vals` through `fmt` into `pool` (one [`Formatted`] per chunk,
/// buffers reused from block to block), chunks in parallel (one chunk, on
/// this thread, when they are few); returns the chunks in order.
fn format_chunks<'p, T: Sync>(
    vals: &[T],
    fmt: &(impl Fn(&mut Vec<u8>, &T) + Sync),
    pool: &'p mut Vec<Formatted>,
) -> &'p [Formatted] {
    let one = |f: &mut Formatted, c: &[T]| {
        f.text.clear();
        f.ends.clear();
        for x in c {
            fmt(&mut f.text, x);
            f.ends.push(f.text.len());
        }
    };
    let n = vals.len().div_ceil(FORMAT_CHUNK).max(1);
    if pool.len() < n {
        pool.resize_with(n, || Formatted {
            text: Vec::new(),
            ends: Vec::new(),
        });
    }
    if n == 1 {
        one(&mut pool[0], vals);
    } else {
        pool[..n]
            .par_iter_mut()
            .zip(vals.par_chunks(FORMAT_CHUNK))
            .for_each(|(f, c)| one(f, c));
    }
    &pool[..n]
}

/// Hyperslabs that cover a variable in order, each of contiguous values
/// and at most [`BLOCK_VALUES`] long (a single row may be split).
struct BlockIter {
    shape: Vec<u64>,
    /// Dimension along which blocks advance.
    level: usize,
    /// Indices along `level` per block.
    step: u64,
    /// Current start (dims after `level` stay 0).
    start: Vec<u64>,
    done: bool,
    scalar_pending: bool,
}

impl BlockIter {
    fn new(shape: &[u64]) -> BlockIter {
        let rank = shape.len();
        if rank == 0 {
            return BlockIter {
                shape: vec![],
                level: 0,
                step: 1,
                start: vec![],
                done: true,
                scalar_pending: true,
            };
        }
        let mut level = rank - 1;
        let mut inner = 1u64;
        // Move outward while a whole index of the next dimension fits.
        while level > 0 && inner.saturating_mul(shape[level]) <= BLOCK_VALUES {
            inner *= shape[level];
            level -= 1;
        }
        let step = (BLOCK_VALUES / inner).clamp(1, shape[level].max(1));
        BlockIter {
            shape: shape.to_vec(),
            level,
            step,
            start: vec![0; rank],
            done: shape.contains(&0),
            scalar_pending: false,
        }
    }
}

impl Iterator for BlockIter {
    type Item = Selection;

    fn next(&mut self) -> Option<Selection> {
        if self.scalar_pending {
            self.scalar_pending = false;
            return Some(Selection::all(&[]));
        }
        if self.done {
            return None;
        }
        let l = self.level;
        let mut count: Vec<u64> = self.shape.clone();
        for c in count.iter_mut().take(l) {
            *c = 1;
        }
        count[l] = self.step.min(self.shape[l] - self.start[l]);
        let sel = Selection::block(&self.start, &count);
        // Advance: along `level`, then the odometer of outer dimensions.
        self.start[l] += count[l];
        if self.start[l] >= self.shape[l] {
            self.start[l] = 0;
            let mut j = l;
            loop {
                if j == 0 {
                    self.done = true;
                    break;
                }
                j -= 1;
                self.start[j] += 1;
                if self.start[j] < self.shape[j] {
                    break;
                }
                self.start[j] = 0;
            }
        }
        Some(sel)
    }
}
