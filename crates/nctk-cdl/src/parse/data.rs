//! Data lists to variable values: sizes the unlimited dimensions from the
//! data as ncgen does, then lays every list out in row-major order, padding
//! with the variable's fill value and applying ncgen's rules for filling
//! `char` arrays from strings.

use nctk_model::{DataType, DimId, Schema, Values, VarId};

use super::ast::Datum;
use super::constants::{push_const, push_opaque, push_text, Const};
use super::error::{CdlError, Pos};
use super::semantics::check_items;

/// The list of one variable and where it starts.
pub(crate) type VarList<'a> = Option<(&'a [Datum], Pos)>;

/// Sizes the unlimited dimensions from the lists, then builds every
/// variable's values (`None` for variables without data).
pub(crate) fn generate(
    schema: &mut Schema,
    lists: &[VarList<'_>],
    max_values: u64,
) -> Result<Vec<Option<Values>>, CdlError> {
    for (i, list) in lists.iter().enumerate() {
        if let Some((items, pos)) = list {
            size_unlimited(schema, VarId(i as u32), items, *pos)?;
        }
    }
    let mut out = Vec::with_capacity(lists.len());
    for (i, list) in lists.iter().enumerate() {
        out.push(match list {
            Some((items, pos)) => Some(var_values(
                schema,
                VarId(i as u32),
                items,
                *pos,
                max_values,
            )?),
            None => None,
        });
    }
    Ok(out)
}

struct Dims {
    ids: Vec<DimId>,
    unlim: Vec<bool>,
}

impl Dims {
    fn of(schema: &Schema, var: VarId) -> Dims {
        let ids = schema.var(var).dims.clone();
        let unlim = ids.iter().map(|&d| schema.dim(d).unlimited).collect();
        Dims { ids, unlim }
    }

    fn rank(&self) -> usize {
        self.ids.len()
    }

    fn find_unlimited(&self, from: usize) -> usize {
        (from..self.rank())
            .find(|&i| self.unlim[i])
            .unwrap_or(self.rank())
    }

    fn last_unlimited(&self) -> usize {
        (0..self.rank())
            .rev()
            .find(|&i| self.unlim[i])
            .unwrap_or(self.rank())
    }

    fn len(&self, schema: &Schema, i: usize) -> u64 {
        schema.dim(self.ids[i]).len
    }

    fn product(&self, schema: &Schema, from: usize, to: usize) -> u64 {
        (from..to).fold(1u64, |p, i| p.saturating_mul(self.len(schema, i)))
    }

    /// The padding unit of a char leaf: the last dimension's length, or 1
    /// for rank 1 and an unlimited last dimension.
    fn char_unit(&self, schema: &Schema) -> u64 {
        let r = self.rank();
        if r <= 1 || self.unlim[r - 1] {
            1
        } else {
            self.len(schema, r - 1)
        }
    }
}

fn size_unlimited(
    schema: &mut Schema,
    var: VarId,
    items: &[Datum],
    pos: Pos,
) -> Result<(), CdlError> {
    let dims = Dims::of(schema, var);
    if dims.rank() == 0 {
        return Ok(());
    }
    let is_char = schema.var(var).dtype == DataType::Char;
    let first = dims.find_unlimited(0);
    if first == dims.rank() {
        return Ok(());
    }
    if first == 0 {
        return size_list(schema, &dims, is_char, 0, items);
    }
    for d in items {
        match d {
            Datum::List(sub, _) => size_list(schema, &dims, is_char, first, sub)?,
            other => return Err(not_enclosed(other.pos())),
        }
    }
    let _ = pos;
    Ok(())
}

fn not_enclosed(pos: Pos) -> CdlError {
    CdlError::semantic(
        pos,
        "UNLIMITED dimension (other than first) must be enclosed in {}",
    )
}

fn size_list(
    schema: &mut Schema,
    dims: &Dims,
    is_char: bool,
    at: usize,
    items: &[Datum],
) -> Result<(), CdlError> {
    let next = dims.find_unlimited(at + 1);
    let xproduct = dims.product(schema, at + 1, next).max(1);
    let length = if next < dims.rank() || !is_char {
        items.len() as u64
    } else {
        // ncgen counts characters without padding, then overruns (and
        // crashes) when padded strings need more records; nctk grows the
        // dimension to fit the padded strings.
        let unit = dims.char_unit(schema);
        char_items(items)?
            .iter()
            .map(|it| it.padded_len(unit))
            .fold(0u64, u64::saturating_add)
    };
    let size = length.div_ceil(xproduct);
    let dim = schema.dim_mut(dims.ids[at]);
    dim.len = dim.len.max(size);
    if next < dims.rank() {
        for d in items {
            match d {
                Datum::List(sub, _) => size_list(schema, dims, is_char, next, sub)?,
                other => return Err(not_enclosed(other.pos())),
            }
        }
    }
    Ok(())
}

/// One piece of char data: a string, a run of character constants merged
/// into one string (ncgen3 compatibility), or the fill marker.
enum CharItem<'a> {
    Bytes(std::borrow::Cow<'a, [u8]>),
    Fill,
}

impl CharItem<'_> {
    fn len(&self) -> u64 {
        match self {
            CharItem::Bytes(b) => b.len() as u64,
            CharItem::Fill => 1,
        }
    }

    /// Length after padding to a multiple of `unit` (an empty string takes a whole unit).
    fn padded_len(&self, unit: u64) -> u64 {
        let n = self.len();
        if n == 0 || n % unit != 0 {
            n + (unit - n % unit)
        } else {
            n
        }
    }
}

fn char_items(items: &[Datum]) -> Result<Vec<CharItem<'_>>, CdlError> {
    let mut out = Vec::new();
    let mut run: Vec<u8> = Vec::new();
    let mut in_run = false;
    for d in items {
        if let Datum::Num(Const::Byte(b), _) = d {
            run.push(*b as u8);
            in_run = true;
            continue;
        }
        if in_run {
            out.push(CharItem::Bytes(std::mem::take(&mut run).into()));
            in_run = false;
        }
        match d {
            Datum::Str(s, _) => out.push(CharItem::Bytes(s.as_slice().into())),
            Datum::Num(Const::UByte(b), _) => out.push(CharItem::Bytes(vec![*b].into())),
            // Not text: ncgen ignores it (with a warning).
            Datum::Num(..) | Datum::Opaque(..) => {}
            Datum::Fill(_) => out.push(CharItem::Fill),
            Datum::List(_, p) => {
                return Err(CdlError::semantic(*p, "Expected primitive found {..}"))
            }
            Datum::Nil(p) => {
                return Err(CdlError::semantic(
                    *p,
                    "NIL data can only be assigned to variables or attributes of type string",
                ))
            }
            other => check_items(std::slice::from_ref(other))?,
        }
    }
    if in_run {
        out.push(CharItem::Bytes(run.into()));
    }
    Ok(out)
}

fn var_values(
    schema: &Schema,
    var: VarId,
    items: &[Datum],
    pos: Pos,
    max_values: u64,
) -> Result<Values, CdlError> {
    let dims = Dims::of(schema, var);
    let dtype = schema.var(var).dtype;
    let fill = match schema.var(var).attribute("_FillValue") {
        None if dtype.is_user() => super::user::ncgen_fill(schema, dtype),
        _ => schema.fill_value(var),
    };
    let total = dims.product(schema, 0, dims.rank());
    if total > max_values {
        return Err(CdlError::semantic(
            pos,
            format!(
                "variable {} has {total} values, more than the limit of {max_values}",
                schema.var(var).name
            ),
        ));
    }
    let mut out = Values::repeat(&fill, total as usize);
    if dims.rank() == 0 {
        if let Some(first) = items.first() {
            let v = convert_items(schema, dtype, std::slice::from_ref(first), &fill)?;
            splice(&mut out, 0, &v);
        }
        return Ok(out);
    }
    let mut g = Gen {
        schema,
        dims: &dims,
        dtype,
        fill: &fill,
        out: &mut out,
        last_unlim: dims.last_unlimited(),
    };
    g.fill_group(0, items, 0)?;
    Ok(out)
}

struct Gen<'a> {
    schema: &'a Schema,
    dims: &'a Dims,
    dtype: DataType,
    fill: &'a Values,
    out: &'a mut Values,
    last_unlim: usize,
}

impl Gen<'_> {
    fn fill_group(&mut self, at: usize, items: &[Datum], prefix: u64) -> Result<(), CdlError> {
        let rank = self.dims.rank();
        let last_group = self.last_unlim == rank || at >= self.last_unlim || at == rank - 1;
        if last_group {
            let block = self.dims.product(self.schema, at, rank);
            let start = (prefix * block) as usize;
            if self.dtype == DataType::Char {
                let bytes = self.leaf_chars(at, items, block)?;
                splice(self.out, start, &Values::Char(bytes));
            } else {
                let n = items.len().min(block as usize);
                let v = convert_items(self.schema, self.dtype, &items[..n], self.fill)?;
                splice(self.out, start, &v);
            }
            return Ok(());
        }
        let next = self.dims.find_unlimited(at + 1);
        let count = self.dims.product(self.schema, at, next);
        for (k, d) in items.iter().take(count as usize).enumerate() {
            match d {
                Datum::List(sub, _) => self.fill_group(next, sub, prefix * count + k as u64)?,
                Datum::Fill(_) => {}
                other => {
                    return Err(CdlError::semantic(
                        other.pos(),
                        "Expected {...} representing unlimited list",
                    ))
                }
            }
        }
        Ok(())
    }

    /// ncgen's char array rule: each string (or run of character constants)
    /// is padded with the fill character to a multiple of the last
    /// dimension, the pieces are concatenated, and the result is padded or
    /// cut to the block size.
    fn leaf_chars(&self, at: usize, items: &[Datum], block: u64) -> Result<Vec<u8>, CdlError> {
        let _ = at;
        let fill_char = match self.fill {
            Values::Char(c) => c.first().copied().unwrap_or(0),
            _ => 0,
        };
        let unit = self.dims.char_unit(self.schema);
        let mut buf: Vec<u8> = Vec::with_capacity(block as usize);
        for it in char_items(items)? {
            match &it {
                CharItem::Bytes(b) => buf.extend_from_slice(b),
                CharItem::Fill => buf.push(fill_char),
            }
            let pad = it.padded_len(unit) - it.len();
            buf.extend(std::iter::repeat_n(fill_char, pad as usize));
            if buf.len() as u64 >= block {
                break;
            }
        }
        buf.resize(block as usize, fill_char);
        Ok(buf)
    }
}

/// Converts plain data items to `dtype` (C casts; `_` is the fill value;
/// one item per value of a user type).
fn convert_items(
    schema: &Schema,
    dtype: DataType,
    items: &[Datum],
    fill: &Values,
) -> Result<Values, CdlError> {
    if dtype.is_user() {
        let mut out = schema.empty_values(dtype, items.len());
        for d in items {
            match d {
                Datum::Fill(_) => out.extend_from(fill),
                d => super::user::push_value(schema, dtype, d, &mut out)?,
            }
        }
        return Ok(out);
    }
    let mut out = Values::with_capacity(dtype, items.len());
    for d in items {
        match d {
            Datum::Num(c, p) => push_const(&mut out, *c, *p)?,
            Datum::Str(s, p) => push_text(&mut out, s, *p)?,
            Datum::Opaque(h, p) => {
                if !push_opaque(&mut out, h) {
                    return Err(CdlError::unsupported(
                        *p,
                        "an opaque constant (0x...) for this type",
                    ));
                }
            }
            Datum::Fill(_) => out.extend_from(fill),
            Datum::Nil(p) => {
                match &mut out {
                    Values::String(v) => v.push(None),
                    _ => return Err(CdlError::semantic(
                        *p,
                        "NIL data can only be assigned to variables or attributes of type string",
                    )),
                }
            }
            Datum::List(_, p) => {
                return Err(CdlError::semantic(*p, "Expected primitive found {..}"))
            }
            other => {
                check_items(std::slice::from_ref(other))?;
            }
        }
    }
    Ok(out)
}

/// Copies `src` into `dst` starting at `start` (same type; clipped to `dst`).
/// Values of user types are rebuilt around the range (CDL data of user
/// types is small).
fn splice(dst: &mut Values, start: usize, src: &Values) {
    macro_rules! copy {
        ($d:expr, $s:expr) => {{
            let end = (start + $s.len()).min($d.len());
            if start < end {
                $d[start..end].clone_from_slice(&$s[..end - start]);
            }
        }};
    }
    match (dst, src) {
        (Values::Byte(d), Values::Byte(s)) => copy!(d, s),
        (Values::Char(d), Values::Char(s)) => copy!(d, s),
        (Values::Short(d), Values::Short(s)) => copy!(d, s),
        (Values::Int(d), Values::Int(s)) => copy!(d, s),
        (Values::Float(d), Values::Float(s)) => copy!(d, s),
        (Values::Double(d), Values::Double(s)) => copy!(d, s),
        (Values::UByte(d), Values::UByte(s)) => copy!(d, s),
        (Values::UShort(d), Values::UShort(s)) => copy!(d, s),
        (Values::UInt(d), Values::UInt(s)) => copy!(d, s),
        (Values::Int64(d), Values::Int64(s)) => copy!(d, s),
        (Values::UInt64(d), Values::UInt64(s)) => copy!(d, s),
        (Values::String(d), Values::String(s)) => copy!(d, s),
        (d @ (Values::Compound { .. } | Values::Vlen(_) | Values::Opaque { .. }), s) => {
            let end = (start + s.len()).min(d.len());
            if start < end {
                let mut out = d.slice(0..start);
                out.extend_from(&s.slice(0..end - start));
                out.extend_from(&d.slice(end..d.len()));
                *d = out;
            }
        }
        _ => {}
    }
}
