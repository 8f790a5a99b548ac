//! Layout math: where each variable's data lives.
//!
//! * `vsize` (here `len`): the product of the variable's dimension lengths
//!   (without the record dimension) times the type size, rounded up to 4.
//! * `recsize`: the sum of the record variables' `len`; when there is exactly
//!   one record variable it is its unpadded size (records are not padded).
//! * [`assign_begins`] places variables after the header the way netCDF-C's
//!   `NC_begins` does, so the same definitions give the same file.

use crate::header::{pad4, Header};
use crate::Version;
use nctk_model::DataType;

/// Where and how one variable's data is stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VarLayout {
    /// The element type.
    pub dtype: DataType,
    /// Indices of the variable's dimensions in the header.
    pub dimids: Vec<usize>,
    /// True for a record variable (first dimension is a record dimension).
    pub is_record: bool,
    /// Elements per record (record variables) or in total.
    pub elems: u64,
    /// Size of one element in bytes.
    pub xsz: u64,
    /// Bytes per record (record variables) or in total, rounded up to 4.
    pub len: u64,
    /// File offset of the first element.
    pub begin: u64,
}

impl VarLayout {
    /// Unpadded data size per record (or in total): `elems * xsz`.
    pub fn data_len(&self) -> u64 {
        self.elems * self.xsz
    }

    /// The file pieces `(offset, len)`, in order, that hold bytes
    /// `start..start + len` of the variable's data stream: its elements in
    /// row-major order over all records, without padding (for a record
    /// variable, record `r`'s data is stream bytes `r * data_len()..`).
    pub fn stream_pieces(&self, recsize: u64, start: u64, len: u64) -> Vec<(u64, u64)> {
        let per = self.data_len();
        if !self.is_record || per == 0 {
            return if len == 0 {
                vec![]
            } else {
                vec![(self.begin + start, len)]
            };
        }
        let mut out = Vec::new();
        let (mut pos, end) = (start, start + len);
        while pos < end {
            let (rec, within) = (pos / per, pos % per);
            let n = (per - within).min(end - pos);
            let off = self.begin + rec * recsize + within;
            match out.last_mut() {
                Some((o, l)) if *o + *l == off => *l += n,
                _ => out.push((off, n)),
            }
            pos += n;
        }
        out
    }
}

/// The layout of a whole file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileLayout {
    /// Length of the header in bytes.
    pub header_len: u64,
    /// Per variable, in header order.
    pub vars: Vec<VarLayout>,
    /// Offset of the first non-record variable (or of the records when none).
    pub begin_var: u64,
    /// Offset of the first record.
    pub begin_rec: u64,
    /// Bytes per record.
    pub recsize: u64,
}

impl FileLayout {
    /// The number of whole records a file of `file_len` bytes holds (for
    /// `numrecs = STREAMING`).
    pub fn records_in(&self, file_len: u64) -> u64 {
        file_len
            .saturating_sub(self.begin_rec)
            .checked_div(self.recsize)
            .unwrap_or(0)
    }

    /// The file size the header implies for `numrecs` records (netCDF-C's
    /// `NC_calcsize`).
    pub fn implied_len(&self, numrecs: u64) -> u64 {
        if self.vars.iter().any(|v| v.is_record) {
            self.begin_rec
                .saturating_add(numrecs.saturating_mul(self.recsize))
        } else {
            self.vars
                .iter()
                .filter(|v| !v.is_record)
                .map(|v| v.begin.saturating_add(v.len))
                .max()
                .unwrap_or(self.header_len)
                .max(self.header_len)
        }
    }
}

/// A problem with a variable's shape: the variable index and the reason.
pub type ShapeError = (usize, String);

/// Computes each variable's shape facts from the header (not the offsets'
/// consistency; see [`check_offsets`]). Fails as netCDF-C does on a bad
/// dimension id (`NC_EBADDIM`) and on a record dimension that is not first
/// (`NC_EUNLIMPOS`).
pub fn var_layouts(header: &Header) -> Result<Vec<VarLayout>, ShapeError> {
    header
        .vars
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let mut dimids = Vec::with_capacity(v.dimids.len());
            let mut elems: u64 = 1;
            let mut is_record = false;
            for (pos, &id) in v.dimids.iter().enumerate() {
                let Some(dim) = usize::try_from(id).ok().and_then(|k| header.dims.get(k)) else {
                    return Err((
                        i,
                        format!(
                            "dimension id {id} does not exist (there are {} dimensions)",
                            header.dims.len()
                        ),
                    ));
                };
                if dim.len == 0 {
                    if pos != 0 {
                        return Err((
                            i,
                            format!("record dimension {:?} is not the first dimension", dim.name),
                        ));
                    }
                    is_record = true;
                } else {
                    elems = elems
                        .checked_mul(dim.len)
                        .ok_or_else(|| (i, "number of elements overflows".to_string()))?;
                }
                dimids.push(id as usize);
            }
            let xsz = v.dtype.size().expect("classic types have a size") as u64;
            let data = elems
                .checked_mul(xsz)
                .filter(|&n| n <= i64::MAX as u64 - 3)
                .ok_or_else(|| (i, "size in bytes overflows".to_string()))?;
            Ok(VarLayout {
                dtype: v.dtype,
                dimids,
                is_record,
                elems,
                xsz,
                len: pad4(data),
                begin: v.begin,
            })
        })
        .collect()
}

/// Bytes per record for these variables: the sum of the record variables'
/// `len`, or the unpadded size of the only record variable.
pub fn recsize(vars: &[VarLayout]) -> u64 {
    let recs: Vec<&VarLayout> = vars.iter().filter(|v| v.is_record).collect();
    match recs.as_slice() {
        [only] => only.data_len(),
        _ => recs
            .iter()
            .map(|v| v.len)
            .fold(0u64, |a, b| a.saturating_add(b)),
    }
}

/// Checks that the offsets in `vars` are consistent and returns the file
/// layout. Errors give the variable index and the reason.
pub fn check_offsets(header_len: u64, vars: Vec<VarLayout>) -> Result<FileLayout, ShapeError> {
    let recsize = recsize(&vars);
    for (i, v) in vars.iter().enumerate() {
        if v.begin < header_len {
            return Err((
                i,
                format!(
                    "data offset {} lies inside the header (which ends at byte {header_len})",
                    v.begin
                ),
            ));
        }
    }
    // Non-record variables must not overlap one another.
    let mut fixed: Vec<(u64, u64, usize)> = vars
        .iter()
        .enumerate()
        .filter(|(_, v)| !v.is_record)
        .map(|(i, v)| (v.begin, v.begin.saturating_add(v.data_len()), i))
        .collect();
    fixed.sort();
    for w in fixed.windows(2) {
        if w[0].1 > w[1].0 {
            return Err((w[1].2, format!("data at offset {} overlaps the preceding variable's data (which ends at byte {})", w[1].0, w[0].1)));
        }
    }
    let first_rec = vars.iter().filter(|v| v.is_record).map(|v| v.begin).min();
    let end_fixed = fixed.iter().map(|f| f.1).max();
    let begin_rec = match (first_rec, end_fixed) {
        (Some(r), Some(e)) if e > r => {
            let i = fixed.iter().max_by_key(|f| f.1).map_or(0, |f| f.2);
            return Err((
                i,
                format!(
                    "non-record data ends at byte {e}, after the first record starts at byte {r}"
                ),
            ));
        }
        (Some(r), _) => r,
        (None, Some(_)) => vars
            .iter()
            .filter(|v| !v.is_record)
            .map(|v| v.begin.saturating_add(v.len))
            .max()
            .unwrap_or(header_len),
        (None, None) => header_len,
    };
    // Record variables: each slab must fit in the record and not overlap another.
    let mut recs: Vec<(u64, u64, usize)> = vars
        .iter()
        .enumerate()
        .filter(|(_, v)| v.is_record)
        .map(|(i, v)| (v.begin - begin_rec, v.begin - begin_rec + v.data_len(), i))
        .collect();
    recs.sort();
    for w in recs.windows(2) {
        if w[0].1 > w[1].0 {
            return Err((
                w[1].2,
                format!(
                    "record data at offset {} overlaps the preceding record variable",
                    vars[w[1].2].begin
                ),
            ));
        }
    }
    if let Some(last) = recs.last() {
        if last.1 > recsize {
            return Err((
                last.2,
                format!(
                    "record data at offset {} runs past the record size {recsize}",
                    vars[last.2].begin
                ),
            ));
        }
    }
    let begin_var = fixed.first().map_or(begin_rec, |f| f.0);
    Ok(FileLayout {
        header_len,
        vars,
        begin_var,
        begin_rec,
        recsize,
    })
}

/// netCDF-C's alignment parameters of `nc__enddef`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Align {
    /// Free bytes to leave after the header.
    pub h_minfree: u64,
    /// Alignment of the first non-record variable.
    pub v_align: u64,
    /// Free bytes to leave after the non-record variables.
    pub v_minfree: u64,
    /// Alignment of the first record.
    pub r_align: u64,
}

impl Default for Align {
    /// `nc_enddef`'s defaults: no free space, 4-byte alignment.
    fn default() -> Self {
        Align {
            h_minfree: 0,
            v_align: 4,
            v_minfree: 0,
            r_align: 4,
        }
    }
}

/// The begins of a file before redefinition, which `assign_begins` never moves
/// data below.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct OldBegins {
    /// Old `begin_var`.
    pub begin_var: u64,
    /// Old `begin_rec`.
    pub begin_rec: u64,
    /// Old begins of the non-record variables, in order.
    pub fixed: Vec<u64>,
    /// Old begins of the record variables, in order.
    pub recs: Vec<u64>,
}

fn round_up(x: u64, align: u64) -> u64 {
    if align <= 1 {
        x
    } else {
        x.div_ceil(align) * align
    }
}

/// Assigns `begin` to every variable as netCDF-C's `NC_begins` does and
/// returns the file layout. `old` holds the layout before a redefinition
/// (`None` for a new file). Fails with the variable index and reason when a
/// CDF-1 offset does not fit in 31 bits (`NC_EVARSIZE`).
pub fn assign_begins(
    version: Version,
    header_len: u64,
    mut vars: Vec<VarLayout>,
    align: Align,
    old: Option<&OldBegins>,
) -> Result<FileLayout, ShapeError> {
    let off_max = if version == Version::Cdf1 {
        i32::MAX as u64
    } else {
        i64::MAX as u64
    };
    if vars.is_empty() {
        return Ok(FileLayout {
            header_len,
            vars,
            begin_var: header_len,
            begin_rec: header_len,
            recsize: 0,
        });
    }
    let mut begin_var = old.map_or(0, |o| o.begin_var);
    if begin_var < header_len + align.h_minfree || begin_var != round_up(begin_var, align.v_align) {
        begin_var = round_up(header_len, align.v_align);
        if begin_var < header_len + align.h_minfree {
            begin_var = round_up(header_len + align.h_minfree, align.v_align);
        }
    }
    if let Some(o) = old {
        begin_var = begin_var.max(o.begin_var);
    }
    let mut index = begin_var;
    let mut j = 0;
    let mut first_fixed = None;
    for (i, v) in vars.iter_mut().enumerate().filter(|(_, v)| !v.is_record) {
        if index > off_max {
            return Err((i, format!("offset {index} does not fit the format")));
        }
        v.begin = index;
        if let Some(&ob) = old.and_then(|o| o.fixed.get(j)) {
            if v.begin < ob {
                v.begin = ob;
                index = ob;
            }
            j += 1;
        }
        first_fixed.get_or_insert(v.begin);
        index = index.saturating_add(v.len);
    }
    let mut begin_rec = old.map_or(0, |o| o.begin_rec);
    if begin_rec < index + align.v_minfree || begin_rec != round_up(begin_rec, align.r_align) {
        begin_rec = round_up(index, align.r_align);
        if begin_rec < index + align.v_minfree {
            begin_rec = round_up(index + align.v_minfree, align.r_align);
        }
    }
    let begin_var = first_fixed.unwrap_or(begin_rec);
    let mut index = begin_rec;
    let mut j = 0;
    for (i, v) in vars.iter_mut().enumerate().filter(|(_, v)| v.is_record) {
        if index > off_max {
            return Err((i, format!("offset {index} does not fit the format")));
        }
        v.begin = index;
        if let Some(&ob) = old.and_then(|o| o.recs.get(j)) {
            v.begin = v.begin.max(ob);
            j += 1;
        }
        index = index.saturating_add(v.len);
    }
    let recsize = recsize(&vars);
    Ok(FileLayout {
        header_len,
        vars,
        begin_var,
        begin_rec,
        recsize,
    })
}

/// netCDF-C's `NC_check_vlens`: in CDF-1/2 only the last non-record variable
/// (when there are no record variables) or the last record variable may be
/// larger than the format's per-variable limit; in CDF-5 none may.
/// Returns the index of the offending variable.
pub fn check_var_sizes(version: Version, vars: &[VarLayout]) -> Result<(), usize> {
    let vlen_max: u64 = match version {
        Version::Cdf5 => i64::MAX as u64 - 3,
        Version::Cdf2 => u32::MAX as u64 - 3,
        Version::Cdf1 => i32::MAX as u64 - 3,
    };
    let too_big = |v: &VarLayout| v.elems.checked_mul(v.xsz).is_none_or(|n| n > vlen_max);
    let has_recs = vars.iter().any(|v| v.is_record);
    for want_rec in [false, true] {
        let group: Vec<(usize, &VarLayout)> = vars
            .iter()
            .enumerate()
            .filter(|(_, v)| v.is_record == want_rec)
            .collect();
        let big: Vec<usize> = group
            .iter()
            .filter(|(_, v)| too_big(v))
            .map(|(i, _)| *i)
            .collect();
        if let Some(&first) = big.first() {
            let last_of_group = group.last().map(|(i, _)| *i);
            if version == Version::Cdf5 || big.len() > 1 || Some(first) != last_of_group {
                return Err(big[big.len().min(2) - 1]);
            }
            if !want_rec && has_recs {
                return Err(first);
            }
        }
    }
    Ok(())
}
